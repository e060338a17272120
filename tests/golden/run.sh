#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Golden tests for dtrace -h and -G, named by outcome:
#   tst.<what>.d   must succeed; the header must match tst.<what>.h.expected (the
#                  copied udtrace/sdt.h folded to one line) and the probe table
#                  of the -G object must match tst.<what>.table.expected;
#   err.<kind>.<what>.d   must fail with exit status 1, print exactly
#                  err.<kind>.<what>.stderr, and leave no output file.
# GOLDEN_UPDATE=1 (make golden-update) rewrites the expectations; review the diff.
. "$(dirname "$0")/../lib.sh"
G=$TOP/tests/golden
cd "$G" || exit 1

fold_sdt() {
	sed '/^\/\* ---- udtrace\/sdt.h/,/^\/\* ---- end of udtrace\/sdt.h ---- \*\//c\/* (udtrace/sdt.h) */' "$1"
}

for d in tst.*.d; do
	t=${d%.d}
	if ! "$DTRACE" -h -s "$d" -o "$WORK/$t.h" 2>"$WORK/err"; then
		fail "$t: dtrace -h" "$(cat "$WORK/err")"
		continue
	fi
	fold_sdt "$WORK/$t.h" >"$WORK/$t.h.folded"
	expect_file "$t: header" "$WORK/$t.h.folded" "$t.h.expected"
	if ! "$DTRACE" -G -s "$d" -o "$WORK/$t.o" 2>"$WORK/err"; then
		fail "$t: dtrace -G" "$(cat "$WORK/err")"
		continue
	fi
	"$TABLEDUMP" "$WORK/$t.o" >"$WORK/$t.table"
	expect_file "$t: probe table" "$WORK/$t.table" "$t.table.expected"
done

for d in err.*.d; do
	t=${d%.d}
	for mode in h G; do
		out=$WORK/$t.$mode.out
		"$DTRACE" -$mode -s "$d" -o "$out" 2>"$WORK/$t.stderr"
		rc=$?
		# -G cannot reach the macro collision, which only -h checks
		if [ $mode = G ] && [ "$t" = err.probe.macro-collision ]; then
			expect_eq "$t: -G accepts it" "$rc" 0
			continue
		fi
		expect_eq "$t: dtrace -$mode exits 1" "$rc" 1
		if [ -e "$out" ] || ls -a "$WORK" | grep -q "^\.$t"; then
			fail "$t: dtrace -$mode leaves no output" "$(ls -a "$WORK")"
		else
			ok "$t: dtrace -$mode leaves no output"
		fi
		[ $mode = h ] && expect_file "$t: message" "$WORK/$t.stderr" "$t.stderr"
	done
done
finish
