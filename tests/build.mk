# Test programs: unit test binaries (one per module, linked against the static
# libraries) and tools the shell tests use.
UNIT_BINS := $(BUILD)/tests/test_dlang
TEST_TOOLS := $(BUILD)/tests/tabledump
TEST_TARGETS += $(TEST_TOOLS)

$(BUILD)/tests/test_dlang: $(BUILD)/obj/tests/unit/test_dlang.o $(BUILD)/lib/libdlang.a \
		$(BUILD)/lib/libudt-util.a
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

$(BUILD)/tests/tabledump: $(BUILD)/obj/tests/tools/tabledump.o $(CONSUMER_ARCHIVES) \
		$(BUILD)/lib/libdlang.a $(BUILD)/lib/libudt-util.a
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONSUMER_LIBS)

$(BUILD)/obj/tests/unit/test_dlang.o: ALL_CFLAGS += -DCORPUS_DIR='"$(CURDIR)/tests/corpus"'

# Per-module unit test fragments (tests/unit/<module>.mk) add their binaries
# to UNIT_BINS with their own link rules.
include $(wildcard tests/unit/*.mk)
TEST_TARGETS += $(UNIT_BINS)
