# SPDX-License-Identifier: MIT
# tests/unit/test_slots: several sessions in one process (runtime/fire.c, session.c),
# with the runtime's objects linked in and the test writing the control block as
# two and three consumers would.
UNIT_BINS += $(BUILD)/tests/test_slots

$(BUILD)/tests/test_slots: $(BUILD)/obj/tests/unit/test_slots.o \
		$(patsubst %.c,$(BUILD)/obj/%.o,$(RUNTIME_SRCS)) \
		$(patsubst %.S,$(BUILD)/obj/%.o,$(RUNTIME_ASM))
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(RUNTIME_LIBS)
