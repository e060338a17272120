# The consumer library; it runs BEGIN and END with the runtime's VM, so the VM,
# its fault-safe copy and the aggregation table are built into it as well.
CONSUMER_SRCS := consumer/probes.c consumer/options.c \
		 consumer/enable.c consumer/drain.c consumer/clock.c consumer/printf.c \
		 consumer/agg.c consumer/aggdata.c runtime/vm.c runtime/safe.c runtime/agg.c \
		 consumer/spec.c consumer/actions.c runtime/spec.c runtime/subr.c \
		 consumer/profile.c consumer/stack.c \
		 consumer/vars.c runtime/vm_str.c runtime/vm_net.c runtime/dynvar.c \
		 consumer/late.c consumer/shm.c consumer/sites.c consumer/print.c consumer/slots.c \
		 consumer/output.c consumer/out_text.c consumer/out_json.c \
		 consumer/out_ctf.c consumer/group.c
$(BUILD)/lib/libconsumer.a: $(call objs_of,$(CONSUMER_SRCS)) \
		$(patsubst %.S,$(BUILD)/obj/%.o,$(RUNTIME_SAFE_ASM))

# The libraries a program that uses the consumer links, in link order (with $(CONSUMER_LIBS)).
CONSUMER_ARCHIVES := $(BUILD)/lib/libconsumer.a $(BUILD)/lib/libudt-proc.a
