# libudtrace: the in-process runtime, as libudtrace.so.1 (with a version
# script) and libudtrace.a, built from position-independent objects. Under
# `make check` the shared library is built without sanitizers (an ASan
# library cannot be preloaded into the uninstrumented programs it traces);
# tests/unit/test_runtime links the same sources into an ASan binary.
RUNTIME_SRCS := runtime/registry.c runtime/session.c runtime/record.c runtime/agg.c runtime/fire.c \
		runtime/spec.c runtime/subr.c runtime/area.c \
		runtime/vm.c runtime/safe.c runtime/tables.c runtime/sdt.c \
		runtime/profile.c runtime/elfmem.c runtime/dynprov.c runtime/ustack.c \
		runtime/vm_str.c runtime/dynvar.c runtime/vars.c runtime/sites.c runtime/sigchain.c
# The direct loads of safe.c (x86-64 only), in assembly
RUNTIME_ASM := $(if $(filter x86_64,$(shell uname -m)),runtime/safe_x86_64.S)
RUNTIME_PIC_OBJS := $(patsubst %.c,$(BUILD)/obj-pic/%.o,$(RUNTIME_SRCS)) \
		    $(patsubst %.S,$(BUILD)/obj-pic/%.o,$(RUNTIME_ASM))
RUNTIME_SONAME := libudtrace.so.1
# libffi places a dynamic probe's arguments for external tracers (runtime/dynprov.c).
# It is not linked: the runtime opens it by its soname, found here, when a program
# adds its first dynamic probe, so that no other process maps it.
LIBFFI_CFLAGS := $(shell $(PKG_CONFIG) --cflags libffi 2>/dev/null)
LIBFFI_SONAME := $(or $(shell objdump -p $$($(CC) -print-file-name=libffi.so) 2>/dev/null | \
			awk '/SONAME/ { print $$2 }'),libffi.so.8)
RUNTIME_LIBS := -lunwind -ldl -lpthread
RUNTIME_CFLAGS = $(CSTD) -O2 -g $(WARN) -fPIC -fvisibility=hidden -D_GNU_SOURCE -I. \
		 -Isdk/include $(LIBFFI_CFLAGS) -DUDT_LIBFFI_SONAME='"$(LIBFFI_SONAME)"' \
		 $(CFLAGS) $(EXTRA_CFLAGS)

$(BUILD)/obj-pic/%.o: %.c
	$(call msg,CC,$< [pic])
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(RUNTIME_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/obj-pic/%.o: %.S
	$(call msg,AS,$< [pic])
	@mkdir -p $(dir $@)
	$(Q)$(CC) -fPIC $(DEPFLAGS) -c $< -o $@

$(BUILD)/lib/$(RUNTIME_SONAME): $(RUNTIME_PIC_OBJS) runtime/libudtrace.map
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -shared -Wl,-soname,$(RUNTIME_SONAME) -Wl,--version-script=runtime/libudtrace.map \
		-Wl,-z,now -Wl,-z,relro -o $@ $(RUNTIME_PIC_OBJS) $(RUNTIME_LIBS)

$(BUILD)/lib/libudtrace.so: $(BUILD)/lib/$(RUNTIME_SONAME)
	$(Q)ln -sf $(RUNTIME_SONAME) $@

$(BUILD)/lib/libudtrace.a: $(RUNTIME_PIC_OBJS)
	$(call msg,AR,$@)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# The weak references of -G objects do not pull the library in under
# --as-needed: link it with --no-as-needed (docs/format.md §3).
$(BUILD)/lib/pkgconfig/udtrace.pc: Makefile runtime/build.mk
	@mkdir -p $(dir $@)
	$(Q)printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
		'Name: udtrace' 'Description: userland DTrace runtime' 'Version: 0.1' \
		'Cflags: -I$${includedir}' \
		'Libs: -L$${libdir} -Wl,--push-state,--no-as-needed -ludtrace -Wl,--pop-state' \
		'Libs.private: $(RUNTIME_LIBS)' >$@

RUNTIME_TARGETS := $(BUILD)/lib/$(RUNTIME_SONAME) $(BUILD)/lib/libudtrace.so \
		   $(BUILD)/lib/libudtrace.a $(BUILD)/lib/pkgconfig/udtrace.pc
