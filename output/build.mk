# output: how a session's records and aggregations are written (output/output.h).
OUTPUT_SRCS := output/output.c output/text.c output/json.c output/ctf.c output/printf.c \
	       output/print.c output/stack.c output/agg.c
$(BUILD)/lib/libudt-output.a: $(call objs_of,$(OUTPUT_SRCS))
