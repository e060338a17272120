# SPDX-License-Identifier: MIT
# tests/unit/test_notes: consumer/notes.c, the SystemTap notes' decoder, on its
# own operands and on this test's notes (hostile ones included).
UNIT_BINS += $(BUILD)/tests/test_notes

$(BUILD)/tests/test_notes: $(BUILD)/obj/tests/unit/test_notes.o $(BUILD)/obj/consumer/proc.o \
		$(BUILD)/obj/consumer/notes.o $(BUILD)/obj/consumer/registry.o \
		$(BUILD)/obj/consumer/table.o $(BUILD)/lib/libudt-util.a
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBELF_LIBS)
