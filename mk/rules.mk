# SPDX-License-Identifier: MIT
# Pattern rules: compile into $(BUILD)/obj, automatic dependencies, quiet output.

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-6s %s\n' '$(1)' '$(2)'
endif

$(BUILD)/obj/%.o: %.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.S
	$(call msg,AS,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(DEPFLAGS) -c $< -o $@

# $(call static_lib,name,objects)
$(BUILD)/lib/%.a:
	$(call msg,AR,$@)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

objs_of = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
