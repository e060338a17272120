DTRACE_CMD_SRCS := cmd/dtrace/main.c cmd/dtrace/cpp.c cmd/dtrace/buildtool.c cmd/dtrace/trace.c \
		   cmd/dtrace/libdir.c
DTRACE_LIBS := $(BUILD)/lib/libdtrace-h.a $(BUILD)/lib/libdtrace-g.a $(CONSUMER_ARCHIVES) \
	       $(BUILD)/lib/libdlang.a $(BUILD)/lib/libudt-util.a

$(BUILD)/bin/dtrace: $(call objs_of,$(DTRACE_CMD_SRCS)) $(DTRACE_LIBS)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONSUMER_LIBS) -lpthread

ALL_TARGETS += $(BUILD)/bin/dtrace $(RUNTIME_TARGETS)

# the installed library directory, relative to the command (mk/paths.mk)
$(BUILD)/obj/cmd/dtrace/libdir.o: $(UDT_PATHS_H)
$(BUILD)/obj/cmd/dtrace/main.o: EXTRA_CFLAGS += -DUDTRACE_VERSION='"$(UDTRACE_VERSION)"'
