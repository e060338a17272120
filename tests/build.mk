# Test programs: unit test binaries (one per module, linked against the static
# libraries) and tools the shell tests use.
UNIT_TESTS := dlang
UNIT_BINS := $(patsubst %,$(BUILD)/tests/test_%,$(UNIT_TESTS))
TEST_TOOLS := $(BUILD)/tests/tabledump
TEST_TARGETS += $(UNIT_BINS) $(TEST_TOOLS)

$(BUILD)/tests/test_dlang: $(BUILD)/obj/tests/unit/test_dlang.o $(BUILD)/lib/libdlang.a \
		$(BUILD)/lib/libudt-util.a
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

$(BUILD)/tests/tabledump: $(BUILD)/obj/tests/tools/tabledump.o $(BUILD)/lib/libconsumer.a \
		$(BUILD)/lib/libdlang.a $(BUILD)/lib/libudt-util.a
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBELF_LIBS)

$(BUILD)/obj/tests/unit/test_dlang.o: ALL_CFLAGS += -DCORPUS_DIR='"$(CURDIR)/tests/corpus"'
