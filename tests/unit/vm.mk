# SPDX-License-Identifier: MIT
# Unit tests of the bytecode verifier and interpreter and of the fault-safe
# copy (vm/vm.c, vm/safe.c), linked from their objects directly.
UNIT_BINS += $(BUILD)/tests/test_vm

$(BUILD)/tests/test_vm: $(BUILD)/obj/tests/unit/test_vm.o $(BUILD)/lib/libudt-vm.a
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^
