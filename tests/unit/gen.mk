# SPDX-License-Identifier: MIT
# tests/unit/test_gen: a session's later generations of enablings (runtime/fire.c,
# area.c, session.c, registry.c), with the runtime's objects linked in and the
# test writing the control block as the consumer would.
UNIT_BINS += $(BUILD)/tests/test_gen

$(BUILD)/tests/test_gen: $(BUILD)/obj/tests/unit/test_gen.o \
		$(patsubst %.c,$(BUILD)/obj/%.o,$(RUNTIME_SRCS)) \
		$(patsubst %.S,$(BUILD)/obj/%.o,$(RUNTIME_ASM))
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(RUNTIME_LIBS)
