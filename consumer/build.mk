CONSUMER_SRCS := consumer/table.c
$(BUILD)/lib/libconsumer.a: $(call objs_of,$(CONSUMER_SRCS))
