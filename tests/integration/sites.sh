#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Probe sites as compilers build them: a probe with sites in two functions is
# traced in both, by function, even where a site is the last thing its
# function does (docs/format.md §1: the call to the runtime is never a tail
# jump, whose return address would be the caller's caller). gcc and clang.
. "$(dirname "$0")/../lib.sh"

cd "$WORK" || exit 1
d=$TOP/tests/integration/data
"$DTRACE" -h -s "$d/sites.d" -o sites.h || { fail "dtrace -h"; finish; exit; }
want=$(printf '%s\n' "only 0" "other 100" "only 1" "other 101" "only 2" "other 102")
for cc in gcc clang; do
	if ! have "$cc"; then
		skip "$cc: sites in two functions" "$cc is not installed"
		continue
	fi
	if ! ("$cc" -O2 -I. -c "$d/sitesprog.c" -o "p-$cc.o" &&
		"$DTRACE" -G -s "$d/sites.d" -o "g-$cc.o" "p-$cc.o" &&
		"$cc" "p-$cc.o" "g-$cc.o" -o "p-$cc"); then
		fail "$cc: build the program"
		continue
	fi
	if objdump -d --no-show-raw-insn "p-$cc" | sed -n '/<only>:/,/^$/p' | grep -q 'jmp  *\*'; then
		fail "$cc: only()'s site calls the runtime, not a tail jump"
	else
		ok "$cc: only()'s site calls the runtime, not a tail jump"
	fi
	got=$("$DTRACE" -q -n 'sites*:::p { printf("%s %d\n", probefunc, arg0); }' -c "./p-$cc" 2>&1 |
		sed '/^$/d')
	expect_eq "$cc: every fire, named by its function" "$got" "$want"
done
finish
