# proc: a live target process and its objects (proc/proc.h), as a static library.
PROC_SRCS := proc/proc.c proc/table.c proc/notes.c proc/registry.c proc/symbol.c proc/lock.c \
	     proc/inject.c proc/procwatch.c proc/reloc.c proc/follow.c
# the code the -p injection copies into a process (x86-64 only)
PROC_ASM := $(if $(filter x86_64,$(shell uname -m)),proc/inject_x86_64.S)
$(BUILD)/lib/libudt-proc.a: $(call objs_of,$(PROC_SRCS)) $(patsubst %.S,$(BUILD)/obj/%.o,$(PROC_ASM))
# where the runtime is, relative to the command (mk/paths.mk)
$(BUILD)/obj/proc/inject.o: $(UDT_PATHS_H)

$(BUILD)/obj/proc/reloc.o: EXTRA_CFLAGS += $(if $(ZYDIS_OK),-DUDT_HAVE_ZYDIS)
