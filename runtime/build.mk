# libudtrace: the in-process runtime, as libudtrace.so.1 (with a version
# script) and libudtrace.a, built from position-independent objects. Under
# `make check` the shared library is built without sanitizers (an ASan
# library cannot be preloaded into the uninstrumented programs it traces);
# tests/unit/test_runtime links the same sources into an ASan binary.
RUNTIME_SRCS := runtime/registry.c runtime/session.c runtime/record.c runtime/fire.c \
		runtime/area.c runtime/tables.c runtime/sdt.c \
		runtime/profile.c runtime/elfmem.c runtime/dynprov.c runtime/ustack.c \
		runtime/vars.c runtime/sigchain.c runtime/string.c \
		$(if $(filter x86_64,$(shell uname -m)),runtime/sites.c runtime/tramp.c runtime/plockstat.c runtime/proc.c,runtime/sites_none.c) \
		$(VM_SRCS)
# The runtime's assembly (x86-64 only): the SystemTap sites' trampolines' stub, and the VM's
RUNTIME_ASM := $(if $(filter x86_64,$(shell uname -m)),runtime/tramp_x86_64.S) $(VM_ASM)
RUNTIME_PIC_OBJS := $(patsubst %.c,$(BUILD)/obj-pic/%.o,$(RUNTIME_SRCS)) \
		    $(patsubst %.S,$(BUILD)/obj-pic/%.o,$(RUNTIME_ASM))
RUNTIME_SONAME := libudtrace.so.1
RUNTIME_REALNAME := $(RUNTIME_SONAME).0.0
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

# Every object's memory and string functions are the runtime's own (runtime/string.c says why).
$(BUILD)/obj-pic/%.o: %.c runtime/string.syms
	$(call msg,CC,$< [pic])
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(RUNTIME_CFLAGS) $(DEPFLAGS) -c $< -o $@
	$(Q)$(OBJCOPY) --redefine-syms=runtime/string.syms $@

# (GCC turns loops into memset and memmove calls: here, they would call themselves)
NO_LOOP_CALLS := $(shell $(CC) -Werror -fno-tree-loop-distribute-patterns -E -x c /dev/null \
			 >/dev/null 2>&1 && echo -fno-tree-loop-distribute-patterns)
$(BUILD)/obj-pic/runtime/string.o: RUNTIME_CFLAGS += -fno-builtin $(NO_LOOP_CALLS)
# (and the interpreter's clearing of the few registers a DIFO uses, a call of
# udt__memset() for each DIFO run otherwise: 28 instructions where the loop's stores are
# a few; benchmark 8)
$(BUILD)/obj-pic/vm/vm.o: RUNTIME_CFLAGS += $(NO_LOOP_CALLS)

$(BUILD)/obj-pic/%.o: %.S
	$(call msg,AS,$< [pic])
	@mkdir -p $(dir $@)
	$(Q)$(CC) -fPIC $(DEPFLAGS) -c $< -o $@

$(BUILD)/lib/$(RUNTIME_REALNAME): $(RUNTIME_PIC_OBJS) runtime/libudtrace.map
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -shared -Wl,-soname,$(RUNTIME_SONAME) -Wl,--version-script=runtime/libudtrace.map \
		-Wl,-z,now -Wl,-z,relro -o $@ $(RUNTIME_PIC_OBJS) $(RUNTIME_LIBS)

$(BUILD)/lib/$(RUNTIME_SONAME): $(BUILD)/lib/$(RUNTIME_REALNAME)
	$(Q)rm -f $@ && ln -s $(RUNTIME_REALNAME) $@

# `-ludtrace` as people write it (docs/install.md). The -G objects refer to
# the runtime weakly, which neither keeps a library under --as-needed nor
# pulls an archive's members, so libudtrace.so and libudtrace.a are linker
# scripts (as libc.so is) that link libudtrace-needed.o, a strong reference,
# ahead of the library itself: the shared one, or for static links the
# archive of the whole runtime, one relocatable object (any reference pulls
# all of it), with what it needs.
$(BUILD)/lib/libudtrace-needed.o: runtime/needed.S
	$(call msg,AS,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -c $< -o $@

$(BUILD)/lib/libudtrace.so: $(BUILD)/lib/$(RUNTIME_SONAME) $(BUILD)/lib/libudtrace-needed.o
	$(Q)rm -f $@ && printf '%s\n' '/* GNU ld script: the udtrace runtime, kept under --as-needed */' \
		'INPUT(libudtrace-needed.o $(RUNTIME_SONAME))' >$@

$(BUILD)/obj-pic/udtrace.o: $(RUNTIME_PIC_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) -r -nostdlib -o $@ $^

$(BUILD)/lib/libudtrace-objs.a: $(BUILD)/obj-pic/udtrace.o
	$(call msg,AR,$@)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

RUNTIME_STATIC_LIBS := $(or $(shell $(PKG_CONFIG) --static --libs libunwind 2>/dev/null),-lunwind -llzma)
$(BUILD)/lib/libudtrace.a: $(BUILD)/lib/libudtrace-objs.a $(BUILD)/lib/libudtrace-needed.o
	$(Q)rm -f $@ && printf '%s\n' '/* GNU ld script: the udtrace runtime linked in (docs/install.md) */' \
		'INPUT(libudtrace-needed.o)' \
		'GROUP(libudtrace-objs.a $(strip $(RUNTIME_STATIC_LIBS)) -ldl -lpthread)' >$@

# pkg-config: $(call udtrace_pc,PREFIX,LIBDIR,INCLUDEDIR) writes the file's lines;
# an rpath unless the library is in a directory the dynamic linker searches.
SYSTEM_LIBDIRS := /lib /usr/lib /lib64 /usr/lib64 /lib/$(MULTIARCH) /usr/lib/$(MULTIARCH)
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
udtrace_pc = printf '%s\n' 'prefix=$(1)' 'libdir=$(2)' 'includedir=$(3)' '' \
	'Name: udtrace' 'Description: userland DTrace: the runtime and the probe headers' \
	'Version: $(UDTRACE_VERSION)' 'Cflags: -I$${includedir}' \
	'Libs: -L$${libdir} $(if $(filter $(2),$(SYSTEM_LIBDIRS)),,-Wl,-rpath,$${libdir} )-ludtrace' \
	'Libs.private: $(strip $(RUNTIME_STATIC_LIBS)) -ldl -lpthread'

# the build tree's, for building against it in place
$(BUILD)/lib/pkgconfig/udtrace.pc: Makefile runtime/build.mk
	@mkdir -p $(dir $@)
	$(Q)$(call udtrace_pc,$(abspath $(BUILD)),$(abspath $(BUILD)/lib),$(abspath sdk/include)) >$@

RUNTIME_TARGETS := $(BUILD)/lib/$(RUNTIME_REALNAME) $(BUILD)/lib/$(RUNTIME_SONAME) \
		   $(BUILD)/lib/libudtrace.so \
		   $(BUILD)/lib/libudtrace.a $(BUILD)/lib/pkgconfig/udtrace.pc
