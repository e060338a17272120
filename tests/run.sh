#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every test binary and script, each under a timeout, and sums their
# "#counts <passed> <failed> <skipped>" lines. A test that crashes, times out
# or prints no #counts line counts as one failure. The last line printed is
# the summary: "N passed, N failed" (", N skipped" when any were skipped).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD
TIMEOUT=${TEST_TIMEOUT:-600}
log_dir=$BUILD/test-logs
mkdir -p "$log_dir"

passed=0 failed=0 skipped=0
failures=()

run_one() {
	local name=$1; shift
	local log="$log_dir/$(echo "$name" | tr '/' '_').log"
	timeout --kill-after=10 "$TIMEOUT" "$@" >"$log" 2>&1
	local rc=$?
	local counts
	counts=$(grep '^#counts ' "$log" | tail -n 1)
	if [ -z "$counts" ]; then
		echo "FAIL $name (exit $rc, no #counts line; see $log)"
		tail -n 20 "$log" | sed 's/^/    /'
		failed=$((failed + 1)); failures+=("$name")
		return
	fi
	read -r _ p f s <<<"$counts"
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	if [ "$f" -gt 0 ] || { [ $rc -ne 0 ] && [ "$f" -eq 0 ]; }; then
		if [ "$f" -eq 0 ]; then failed=$((failed + 1)); fi
		failures+=("$name")
		echo "FAIL $name: $p passed, $f failed, $s skipped (exit $rc; see $log)"
		# each failure with its detail lines (got/want, a diff's head): CI's log is all
		# a reader of a failed run has
		awk '/^(FAIL|not ok)/ { on = 1; n = 0; print; next }
		     on && /^    / && n++ < 8 { print; next } { on = 0 }' "$log" |
			head -n 80 | sed 's/^/    /'
		grep -E '^\S+:[0-9]+: ' "$log" | head -n 10 | sed 's/^/    /'
	else
		if [ "$s" -gt 0 ]; then echo "ok   $name: $p passed, $s skipped"; else echo "ok   $name: $p passed"; fi
		grep -E '^SKIP' "$log" | sed 's/^/    /'
	fi
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] && run_one "unit/$(basename "$t")" "$t"
done
for t in tests/layout.sh tests/golden/run.sh tests/compile/run.sh tests/d/run.sh tests/integration/*.sh; do
	[ -x "$t" ] && run_one "${t#tests/}" "$t"
done
# make check: a short run of each fuzzer (tests/fuzz/run.sh skips where they are not built)
if [ -n "${FUZZ_SECONDS:-}" ]; then
	run_one fuzz/run.sh tests/fuzz/run.sh
fi
# make check: the soak, for SOAK_SECONDS (make soak runs it alone, longer)
if [ -n "${SOAK_SECONDS:-}" ]; then
	run_one soak/soak.sh tests/soak/soak.sh
fi

if [ ${#failures[@]} -gt 0 ]; then
	echo "failed: ${failures[*]}"
fi
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
