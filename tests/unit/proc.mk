# SPDX-License-Identifier: MIT
# tests/unit/test_proc: proc/proc.c against live processes (itself, and
# children it builds at run time with the build tree's dtrace -h / -G, hence
# the order-only prerequisite).
UNIT_BINS += $(BUILD)/tests/test_proc

$(BUILD)/tests/test_proc: $(BUILD)/obj/tests/unit/test_proc.o $(BUILD)/obj/proc/proc.o \
		$(BUILD)/obj/proc/registry.o $(BUILD)/obj/proc/notes.o \
		$(BUILD)/obj/proc/table.o $(BUILD)/obj/proc/reloc.o $(BUILD)/lib/libudt-util.a | $(BUILD)/bin/dtrace
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PROC_LIBS) -ldl

$(BUILD)/obj/tests/unit/test_proc.o: ALL_CFLAGS += -DDTRACE_BIN='"$(CURDIR)/$(BUILD)/bin/dtrace"' \
	-DTOP_DIR='"$(CURDIR)"'
