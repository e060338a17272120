# Unit test binaries: one per module, linked against the static libraries.
UNIT_TESTS := dlang
UNIT_BINS := $(patsubst %,$(BUILD)/tests/test_%,$(UNIT_TESTS))
TEST_TARGETS += $(UNIT_BINS)

$(BUILD)/tests/test_dlang: $(BUILD)/obj/tests/unit/test_dlang.o $(BUILD)/lib/libdlang.a \
		$(BUILD)/lib/libudt-util.a
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

$(BUILD)/obj/tests/unit/test_dlang.o: ALL_CFLAGS += -DCORPUS_DIR='"$(CURDIR)/tests/corpus"'
