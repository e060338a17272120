# SPDX-License-Identifier: MIT
# Unit tests of the speculative buffers (vm/spec.c), threads included.
UNIT_BINS += $(BUILD)/tests/test_spec

$(BUILD)/tests/test_spec: $(BUILD)/obj/tests/unit/test_spec.o $(BUILD)/obj/vm/spec.o
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread
