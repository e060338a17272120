UTIL_SRCS := util/util.c util/outfile.c util/tscclock.c util/futexfd.c
$(BUILD)/lib/libudt-util.a: $(call objs_of,$(UTIL_SRCS))
