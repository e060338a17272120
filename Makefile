# SPDX-License-Identifier: MIT
# udtrace: the only entry point. Non-recursive: every component adds its
# targets from <component>/build.mk, so one make sees the whole graph and
# `make -j` is always correct.
#
#   make                build everything into build/ (the command: build/bin/dtrace)
#   make test           build, then run the whole suite (tests/run.sh)
#   make check          the same suite under ASan+UBSan, built in build/asan/, and each
#                       fuzzer for CHECK_FUZZ_SECONDS (30) where clang's fuzzer runtime is
#                       and the soak (tests/soak/) for CHECK_SOAK_SECONDS (120)
#   make fuzz           the libFuzzer harnesses (tests/fuzz/), each for FUZZ_SECONDS (60)
#   make soak           the soak alone, for SOAK_SECONDS (300): consumers attaching, tracing,
#                       detaching and killed in a loop on one busy target (tests/soak/soak.sh)
#   make demo           the README's main job
#   make bench          benchmarks (ratios against the alternatives)
#   make test-interop   real software: memcached from Debian built with our dtrace,
#                       Debian's PostgreSQL traced across its backends, and the real-server
#                       check: PostgreSQL built from Debian's source with our dtrace, its
#                       queries counted across backends (docs/interop.md)
#   make install        PREFIX=/usr/local DESTDIR= (BINDIR LIBDIR INCLUDEDIR MANDIR)
#   make format         clang-format the sources

.DEFAULT_GOAL := all
SHELL := /bin/bash

include mk/flags.mk
include mk/rules.mk
include mk/paths.mk

ALL_TARGETS :=

include util/build.mk
include dlang/build.mk
include dtrace-h/build.mk
include dtrace-g/build.mk
include vm/build.mk
include runtime/build.mk
include proc/build.mk
include output/build.mk
include probes/build.mk
include consumer/build.mk
include cmd/dtrace/build.mk
include cmd/plockstat/build.mk
include samples/http/build.mk
include samples/dynprobes/build.mk
include tests/build.mk
include tests/fuzz/build.mk

.PHONY: all test check fuzz soak demo bench test-interop install clean format golden-update

all: $(ALL_TARGETS)

test: all $(TEST_TARGETS)
	@BUILD=$(BUILD) CC="$(CC)" CXX="$(CXX)" FUZZ_SECONDS="$(RUN_FUZZ_SECONDS)" \
		SOAK_SECONDS="$(RUN_SOAK_SECONDS)" tests/run.sh

CHECK_FUZZ_SECONDS ?= 30
CHECK_SOAK_SECONDS ?= 120
check:
	@if tests/fuzz/run.sh --available; then \
		$(MAKE) --no-print-directory FUZZ=1 fuzz-build; fi
	@$(MAKE) --no-print-directory SAN=1 RUN_FUZZ_SECONDS=$(CHECK_FUZZ_SECONDS) \
		RUN_SOAK_SECONDS=$(CHECK_SOAK_SECONDS) test

SOAK_SECONDS ?= 300
soak: all
	@BUILD=$(BUILD) SOAK_SECONDS=$(SOAK_SECONDS) tests/soak/soak.sh

FUZZ_SECONDS ?= 60
fuzz:
	@$(MAKE) --no-print-directory FUZZ=1 fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh

demo: all $(BUILD)/tests/tabledump
	@BUILD=$(BUILD) samples/http/demo.sh

bench: all
	@BUILD=$(BUILD) bench/run.sh

test-interop: all
	@BUILD=$(BUILD) tests/interop/memcached.sh; a=$$?; \
	BUILD=$(BUILD) tests/interop/postgresql.sh || a=1; \
	BUILD=$(BUILD) tests/interop/postgresql-build.sh || a=1; exit $$a

golden-update: all
	@BUILD=$(BUILD) GOLDEN_UPDATE=1 tests/golden/run.sh
	@BUILD=$(BUILD) GOLDEN_UPDATE=1 tests/d/run.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

# (docs/install.md: what goes where, and why the command finds the rest from where it is)
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/udtrace \
		$(DESTDIR)$(DATADIR)/provider-support $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(BUILD)/bin/dtrace $(DESTDIR)$(BINDIR)/dtrace
	install -m 0755 $(BUILD)/bin/plockstat $(DESTDIR)$(BINDIR)/plockstat
	install -m 0755 $(BUILD)/lib/$(RUNTIME_REALNAME) $(DESTDIR)$(LIBDIR)/
	ln -sf $(RUNTIME_REALNAME) $(DESTDIR)$(LIBDIR)/$(RUNTIME_SONAME)
	rm -f $(DESTDIR)$(LIBDIR)/libudtrace.so $(DESTDIR)$(LIBDIR)/libudtrace.a
	install -m 0644 $(BUILD)/lib/libudtrace.so $(BUILD)/lib/libudtrace.a \
		$(BUILD)/lib/libudtrace-objs.a $(BUILD)/lib/libudtrace-needed.o $(DESTDIR)$(LIBDIR)/
	$(call udtrace_pc,$(PREFIX),$(LIBDIR),$(INCLUDEDIR)) >$(DESTDIR)$(LIBDIR)/pkgconfig/udtrace.pc
	install -m 0644 sdk/include/udtrace/*.h $(DESTDIR)$(INCLUDEDIR)/udtrace/
	install -m 0644 provider-support/*.d $(DESTDIR)$(DATADIR)/provider-support/
	install -m 0644 cmd/dtrace/dtrace.1 $(DESTDIR)$(MANDIR)/man1/dtrace.1
	install -m 0644 cmd/plockstat/plockstat.1 $(DESTDIR)$(MANDIR)/man1/plockstat.1

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj $(BUILD)/obj-pic -name '*.d' 2>/dev/null)
