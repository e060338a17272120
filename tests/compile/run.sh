#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Compile tests: every public header alone, and generated headers in use, as
# C99, C11, gnu11, C++11 and C++17 with gcc and clang under -Wall -Wextra
# -Werror -pedantic; the argument checks reject wrong arguments; the
# compiled-out branch (UDTRACE_DISABLE) needs no -G object and evaluates nothing.
. "$(dirname "$0")/../lib.sh"
C=$TOP/tests/compile
cd "$WORK" || exit 1

langs=()
for cc in gcc clang; do
	have $cc || continue
	for std in c99 c11 gnu11; do langs+=("$cc -x c -std=$std"); done
done
for cxx in g++ clang++; do
	have $cxx || continue
	for std in c++11 c++17; do langs+=("$cxx -x c++ -std=$std -Wold-style-cast"); done
done
WFLAGS="-Wall -Wextra -Werror -pedantic -Wshadow -Wundef"

for h in "$SDK_INCLUDE"/udtrace/*.h; do
	name=udtrace/$(basename "$h")
	printf '#include <%s>\n#include <%s>\nint main(void) { return 0; }\n' "$name" "$name" >hdr.c
	for l in "${langs[@]}"; do
		# shellcheck disable=SC2086
		check "$name alone: $l" $l $WFLAGS -I"$SDK_INCLUDE" -c hdr.c -o hdr.o
	done
done

for t in types basic; do
	"$DTRACE" -h -s "$TOP/tests/golden/tst.$t.d" -o "tst.$t.h" || fail "dtrace -h tst.$t.d"
done
for l in "${langs[@]}"; do
	for opt in -O0 -O2; do
		# shellcheck disable=SC2086
		check "generated headers in use: $l $opt" $l $WFLAGS $opt -I. -c "$C/fire_types.c" -o fire.o
	done
done
# and linked, run
gcc -O2 -I. -c "$C/fire_types.c" -o fire.o &&
	"$DTRACE" -G -s "$TOP/tests/golden/tst.types.d" -o types.o fire.o &&
	"$DTRACE" -G -s "$TOP/tests/golden/tst.basic.d" -o basic.o fire.o &&
	gcc fire.o types.o basic.o -o fire && ./fire
expect_eq "two providers' objects link into one program and run" "$?" 0

# The SDT(9) macros in use (the manual's examples, every arity), compiled in and out.
for l in "${langs[@]}"; do
	for opt in -O0 "-O2 -DUDTRACE_DISABLE"; do
		# shellcheck disable=SC2086
		check "SDT(9) macros in use: $l $opt" $l $WFLAGS $opt -I"$SDK_INCLUDE" \
			-c "$TOP/tests/integration/data/sdt_ip.c" -o sdt.o
	done
done

# Each mistake is a compile error, in C and in C++.
for l in "gcc -x c -std=c11" "g++ -x c++ -std=c++17"; do
	have "${l%% *}" || continue
	# shellcheck disable=SC2086
	check "typecheck baseline compiles: $l" $l $WFLAGS -I. -DBAD=0 -c "$C/typecheck.c" -o tc.o
	for bad in 1 2 3 4 5; do
		# shellcheck disable=SC2086
		if $l $WFLAGS -I. -DBAD=$bad -c "$C/typecheck.c" -o tc.o >tc.log 2>&1; then
			fail "mistake $bad is a compile error: $l"
		else
			ok "mistake $bad is a compile error: $l"
		fi
	done
done
# -DUDTRACE_NO_TYPECHECK converts instead of checking
for l in "gcc -x c -std=c11" "g++ -x c++ -std=c++17"; do
	have "${l%% *}" || continue
	# shellcheck disable=SC2086
	check "UDTRACE_NO_TYPECHECK converts an integer to a pointer: $l" \
		$l $WFLAGS -I. -DUDTRACE_NO_TYPECHECK -DBAD=5 -c "$C/typecheck.c" -o tc.o
done

# Compiled out: no -G object needed, arguments not evaluated, no notes.
for l in "gcc -x c -std=c99" "clang -x c -std=c11" "g++ -x c++ -std=c++11"; do
	have "${l%% *}" || continue
	# shellcheck disable=SC2086
	if $l $WFLAGS -DUDTRACE_DISABLE -I. "$C/disabled.c" -o disabled 2>dis.log; then
		expect_eq "UDTRACE_DISABLE: links without -G, evaluates nothing: $l" "$(./disabled)" 0
		expect_eq "UDTRACE_DISABLE: no notes: $l" \
			"$(readelf -n disabled | grep -c stapsdt)" 0
	else
		fail "UDTRACE_DISABLE builds: $l" "$(cat dis.log)"
	fi
done
finish
