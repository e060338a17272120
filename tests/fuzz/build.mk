# SPDX-License-Identifier: MIT
# The libFuzzer harnesses (tests/fuzz/README.md), in the FUZZ=1 configuration
# (clang, build/fuzz/): `make fuzz` builds and runs them, `make check` too
# where clang's fuzzer runtime is installed.
FUZZERS := provider dprog table elf shm

ifeq ($(FUZZ),1)
FUZZ_BINS := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZERS))

$(BUILD)/fuzz/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(CONSUMER_ARCHIVES) \
		$(BUILD)/lib/libdtrace-h.a $(BUILD)/lib/libdtrace-g.a $(BUILD)/lib/libdlang.a \
		$(BUILD)/lib/libudt-util.a
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(CONSUMER_LIBS) -ldl -lpthread

.PHONY: fuzz-build
fuzz-build: $(FUZZ_BINS)
endif
