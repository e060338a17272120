#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs each libFuzzer harness (tests/fuzz/README.md) for FUZZ_SECONDS (60)
# at nice 10, on its seeds (tests/fuzz/corpus/NAME, read only) and what
# earlier runs found (build/fuzz/corpus/NAME). A crash, a leak or a sanitizer
# report fails it, with the input saved as build/fuzz/crash-NAME-*. Prints a
# line per fuzzer with its executions, and the "#counts" line tests/run.sh sums.
#   tests/fuzz/run.sh [NAME...]
#   tests/fuzz/run.sh --available   exit 0 if clang can build a fuzzer here
set -u
cd "$(dirname "$0")/../.." || exit 1
FB=build/fuzz

if [ "${1:-}" = --available ]; then
	echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
		clang -fsanitize=fuzzer -x c - -o /dev/null >/dev/null 2>&1
	exit
fi
secs=${FUZZ_SECONDS:-60}
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(provider dprog table elf shm)
pass=0 fail=0 skip=0
for n in "${names[@]}"; do
	bin=$FB/fuzz/fuzz_$n
	if [ ! -x "$bin" ]; then
		echo "SKIP fuzz $n: not built (clang's fuzzer runtime, libclang-rt-14-dev, is needed)"
		skip=$((skip + 1))
		continue
	fi
	mkdir -p "$FB/corpus/$n"
	log=$FB/fuzz-$n-${secs}s.log
	# (-close_fd_mask=3: the harnesses' own output is not wanted; reports still come)
	nice -n 10 "$bin" -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 \
		-close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$FB/crash-$n-" \
		"$FB/corpus/$n" "tests/fuzz/corpus/$n" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		echo "ok   fuzz $n: ${execs:-?} executions in $secs s"
		pass=$((pass + 1))
	else
		echo "FAIL fuzz $n: exit $rc after ${execs:-?} executions (see $log)"
		grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -n 5 | sed 's/^/    /'
		fail=$((fail + 1))
	fi
done
echo "#counts $pass $fail $skip"
[ $fail -eq 0 ]
