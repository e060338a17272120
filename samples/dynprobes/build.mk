# The dynprobes sample: a binding-style program that declares its probes at
# run time from a text file (udtrace/udtrace.h; docs/dynamic-providers.md).
# Built as an application would build it: the public header and -ludtrace.
DYNPROBES_OUT := $(BUILD)/samples/dynprobes

$(DYNPROBES_OUT)/dynprobes: samples/dynprobes/dynprobes.c sdk/include/udtrace/udtrace.h \
		$(BUILD)/lib/libudtrace.so
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -g -Wall -Wextra -Werror -std=c11 -D_POSIX_C_SOURCE=200809L -Isdk/include \
		-o $@ $< -L$(BUILD)/lib -Wl,-rpath,$(abspath $(BUILD)/lib) -ludtrace

ALL_TARGETS += $(DYNPROBES_OUT)/dynprobes
