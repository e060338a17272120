# plockstat(1): a front end that runs the dtrace beside it (docs/plockstat.md)
PLOCKSTAT_SRCS := cmd/plockstat/plockstat.c

$(BUILD)/bin/plockstat: $(call objs_of,$(PLOCKSTAT_SRCS)) $(BUILD)/lib/libudt-util.a
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(JSONC_LIBS)

$(BUILD)/obj/cmd/plockstat/plockstat.o: EXTRA_CFLAGS += $(JSONC_CFLAGS)

ALL_TARGETS += $(BUILD)/bin/plockstat
