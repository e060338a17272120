DTRACE_G_SRCS := dtrace-g/scan.c dtrace-g/table.c dtrace-g/elfwrite.c
$(BUILD)/lib/libdtrace-g.a: $(call objs_of,$(DTRACE_G_SRCS))
