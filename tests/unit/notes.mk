# SPDX-License-Identifier: MIT
# tests/unit/test_notes: proc/notes.c, the SystemTap notes' decoder, on its
# own operands and on this test's notes (hostile ones included).
UNIT_BINS += $(BUILD)/tests/test_notes

$(BUILD)/tests/test_notes: $(BUILD)/obj/tests/unit/test_notes.o $(BUILD)/obj/proc/proc.o \
		$(BUILD)/obj/proc/notes.o $(BUILD)/obj/proc/registry.o \
		$(BUILD)/obj/proc/table.o $(BUILD)/obj/proc/reloc.o $(BUILD)/lib/libudt-util.a
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PROC_LIBS)
