# The consumer library: the session (consumer/consumer.h). It runs BEGIN and END
# with the D machine (libudt-vm.a, vm/build.mk).
CONSUMER_SRCS := consumer/options.c consumer/enable.c consumer/describe.c \
		 consumer/drain.c consumer/agg.c consumer/aggdata.c \
		 consumer/spec.c consumer/actions.c consumer/ticks.c consumer/stack.c \
		 consumer/vars.c consumer/late.c consumer/shm.c consumer/sites.c consumer/slots.c \
		 consumer/group.c
$(BUILD)/lib/libconsumer.a: $(call objs_of,$(CONSUMER_SRCS))

# The libraries a program that uses the consumer links, in link order (with $(CONSUMER_LIBS)).
CONSUMER_ARCHIVES := $(BUILD)/lib/libconsumer.a $(BUILD)/lib/libudt-probes.a \
		     $(BUILD)/lib/libudt-output.a $(BUILD)/lib/libudt-proc.a $(BUILD)/lib/libudt-vm.a
