# The consumer library; it runs BEGIN and END with the runtime's VM, so the VM,
# its fault-safe copy and the aggregation table are built into it as well.
CONSUMER_SRCS := consumer/table.c consumer/proc.c consumer/notes.c consumer/registry.c consumer/probes.c consumer/options.c \
		 consumer/enable.c consumer/drain.c consumer/clock.c consumer/printf.c \
		 consumer/agg.c consumer/aggdata.c runtime/vm.c runtime/safe.c runtime/agg.c \
		 consumer/spec.c consumer/actions.c runtime/spec.c runtime/subr.c \
		 consumer/profile.c consumer/inject.c consumer/stack.c consumer/symbol.c \
		 consumer/vars.c runtime/vm_str.c runtime/vm_net.c runtime/dynvar.c \
		 consumer/late.c consumer/shm.c consumer/sites.c consumer/print.c consumer/slots.c \
		 consumer/reloc.c consumer/output.c consumer/out_text.c consumer/out_json.c \
		 consumer/out_ctf.c consumer/procwatch.c consumer/group.c
# the code the -p injection copies into a process (x86-64 only)
CONSUMER_ASM := $(if $(filter x86_64,$(shell uname -m)),consumer/inject_x86_64.S)
$(BUILD)/lib/libconsumer.a: $(call objs_of,$(CONSUMER_SRCS)) \
		$(patsubst %.S,$(BUILD)/obj/%.o,$(RUNTIME_SAFE_ASM) $(CONSUMER_ASM))
# where the runtime is, relative to the command (mk/paths.mk)
$(BUILD)/obj/consumer/inject.o: $(UDT_PATHS_H)

$(BUILD)/obj/consumer/reloc.o: EXTRA_CFLAGS += $(if $(ZYDIS_OK),-DUDT_HAVE_ZYDIS)
