# SPDX-License-Identifier: MIT
# tests/unit/test_dynprov: dynamic providers and SDT(9) registration, with the
# runtime's objects linked in (so that make check runs them under ASan and
# LeakSanitizer, which the preloaded shared library cannot be).
UNIT_BINS += $(BUILD)/tests/test_dynprov

$(BUILD)/tests/test_dynprov: $(BUILD)/obj/tests/unit/test_dynprov.o \
		$(patsubst %.c,$(BUILD)/obj/%.o,$(RUNTIME_SRCS)) \
		$(patsubst %.S,$(BUILD)/obj/%.o,$(RUNTIME_ASM))
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(RUNTIME_LIBS)

$(BUILD)/obj/runtime/dynprov.o: EXTRA_CFLAGS += $(LIBFFI_CFLAGS) -DUDT_LIBFFI_SONAME='"$(LIBFFI_SONAME)"'
