# The consumer library; it runs BEGIN and END with the runtime's VM, so the VM
# and its fault-safe copy are built into it as well.
CONSUMER_SRCS := consumer/table.c consumer/proc.c consumer/probes.c consumer/options.c \
		 consumer/enable.c consumer/drain.c consumer/clock.c consumer/printf.c runtime/vm.c runtime/safe.c
$(BUILD)/lib/libconsumer.a: $(call objs_of,$(CONSUMER_SRCS))
