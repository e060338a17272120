DTRACE_H_SRCS := dtrace-h/header.c dtrace-h/sdt_text.c
$(BUILD)/lib/libdtrace-h.a: $(call objs_of,$(DTRACE_H_SRCS))
# .incbin is invisible to -MMD
$(BUILD)/obj/dtrace-h/sdt_text.o: sdk/include/udtrace/sdt.h
