#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The D conformance suite: scripts named by outcome, run by dtrace -s from
# this directory (so messages name them as NAME.d).
#   tst.NAME.d   must exit 0 and print exactly tst.NAME.out on stdout;
#   err.NAME.d   must exit 1 and print exactly err.NAME.err on stderr.
# A line "/* @target: ARGS */" makes dtrace trace the runtime tests' program,
# -c "rtprog ARGS" (tests/integration/data/rtprog.c); the other scripts need
# no process (BEGIN and END). A line "/* @args: A B */" gives dtrace macro
# arguments ($1, $$2); "/* @options: -L lib */" gives it options (the
# library directory lib/ here). TZ is UTC, for %Y. The CPU column of DTrace's default
# output ("  1      4  func:name") varies from run to run: it reads "  *". So do, in
# the errors of err.* scripts, the traced program's pid in its provider's name
# ("rt*:rtprog:main:once"), addresses of dtrace's own or of the shared memory (nine hex
# digits or more: "invalid address (0x*)"), and DIF offsets, the compiler's business
# ("at DIF offset *").
# GOLDEN_UPDATE=1 writes the expectations instead: review them by hand.
. "$(dirname "$0")/../lib.sh"
S=$TOP/tests/d
export TZ=UTC
build_rtprog
shopt -s nullglob
cd "$S" || exit 1

# run SCRIPT: dtrace -s SCRIPT (with its target and arguments), stdout and
# stderr in $WORK
run() {
	local target args
	target=$(sed -n 's|^/\* @target: \(.*\) \*/$|\1|p' "$1" | head -n 1)
	args=$(sed -n 's|^/\* @args: \(.*\) \*/$|\1|p' "$1" | head -n 1)
	opts=$(sed -n 's|^/\* @options: \(.*\) \*/$|\1|p' "$1" | head -n 1)
	# shellcheck disable=SC2086 # the arguments are words
	if [ -n "$target" ]; then
		timeout 60 "$DTRACE" $opts -s "$1" -c "$WORK/rtprog $target" $args >"$WORK/out" \
			2>"$WORK/err"
	else
		timeout 60 "$DTRACE" $opts -s "$1" $args >"$WORK/out" 2>"$WORK/err"
	fi
}

for d in tst.*.d; do
	run "$d"
	rc=$?
	# the program's own lines on stderr ("ready PID", "done") are not dtrace's
	if [ $rc -ne 0 ]; then
		fail "${d%.d}: exit 0" "exit $rc: $(grep -v '^ready \|^done$' "$WORK/err" | head -5)"
		continue
	fi
	sed -E -i 's/^[ 0-9]{2}[0-9]( +[0-9]+ +[^ ]*:)/  *\1/' "$WORK/out"
	expect_file "${d%.d}" "$WORK/out" "${d%.d}.out"
done
for d in err.*.d; do
	run "$d"
	rc=$?
	if [ $rc -ne 1 ]; then
		fail "${d%.d}: exit 1" "exit $rc: $(head -5 "$WORK/err")"
		continue
	fi
	grep -v '^ready \|^done$' "$WORK/err" | sed -E -e 's/\(ID ([0-9]+): ([a-z_]+)[0-9]+:/(ID \1: \2*:/' \
		-e 's/address \(0x[0-9a-f]{9,}\)/address (0x*)/' -e 's/DIF offset [0-9]+/DIF offset */' \
		>"$WORK/err.dtrace"
	expect_file "${d%.d}" "$WORK/err.dtrace" "${d%.d}.err"
done
finish
