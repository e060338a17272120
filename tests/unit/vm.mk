# SPDX-License-Identifier: MIT
# Unit tests of the bytecode verifier and interpreter and of the fault-safe
# copy (runtime/vm.c, runtime/safe.c), linked from their objects directly.
UNIT_BINS += $(BUILD)/tests/test_vm

$(BUILD)/tests/test_vm: $(BUILD)/obj/tests/unit/test_vm.o $(BUILD)/obj/runtime/vm.o \
		$(BUILD)/obj/runtime/safe.o $(BUILD)/obj/runtime/subr.o $(BUILD)/obj/runtime/spec.o \
		$(BUILD)/obj/runtime/vm_str.o $(BUILD)/obj/runtime/vm_net.o $(BUILD)/obj/runtime/dynvar.o \
		$(patsubst %.S,$(BUILD)/obj/%.o,$(RUNTIME_SAFE_ASM))
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^
