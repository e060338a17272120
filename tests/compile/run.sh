#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Compile tests: every public header alone, and generated headers in use, as
# C99, C11, gnu11, C++11 and C++17 with gcc and clang under -Wall -Wextra
# -Werror -pedantic; the argument checks let real code's conversions through
# and make wrong arguments errors naming the probe and the argument; the
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

# The conversions real code relies on pass the checks, clean, in every
# language; in C with -Wdeclaration-after-statement too (PostgreSQL builds with
# it), and preprocessed apart (-save-temps, as ccache and distcc compile).
for l in "${langs[@]}"; do
	extra=
	case $l in *"-x c "*) extra=-Wdeclaration-after-statement ;; esac
	for opt in -O0 "-O2 -save-temps"; do
		# shellcheck disable=SC2086
		check "real code's conversions pass the checks: $l $extra $opt" \
			$l $WFLAGS $extra $opt -I. -c "$C/conversions.c" -o conv.o
	done
done

# Each mistake is a compile error without -Werror, whose message names the
# probe and the argument: the probe's check function, and the argument by
# position (gcc, g++, clang++) or by name (clang's note). In C++ a pointer to
# a struct is checked by the typed local, whose error names the probe's macro
# and the declared pointee; a wrong arity is the preprocessor's error.
#   BAD|names the probe|names the argument (extended regular expressions)
mistakes="
1|udt__probe_basic_start|argument 1\b|arg0_count|1st argument
2|udt__probe_basic_start|argument 3\b|arg2_name|3rd argument
3|udt__probe_types_strs|argument 3\b|arg2_n\b|3rd argument
4|TYPES_IDS|requires 5 arguments|too few arguments
5|udt__probe_basic_start|argument 3\b|arg2_name|3rd argument
"
for l in "gcc -x c -std=c99" "clang -x c -std=c11" "g++ -x c++ -std=c++17" "clang++ -x c++ -std=c++11"; do
	have "${l%% *}" || continue
	# shellcheck disable=SC2086
	check "typecheck baseline compiles: $l" $l $WFLAGS -I. -DBAD=0 -c "$C/typecheck.c" -o tc.o
	while IFS='|' read -r bad probe arg; do
		[ -n "$bad" ] || continue
		case $bad:$l in 3:g++* | 3:clang++*) probe=TYPES_STRS arg="const (struct )?node ?\*" ;; esac
		# shellcheck disable=SC2086
		if LC_ALL=C $l -Wall -Wextra -pedantic -I. -DBAD=$bad -c "$C/typecheck.c" -o tc.o \
			>tc.log 2>&1; then
			fail "mistake $bad is a compile error without -Werror: $l"
		elif grep -q "error" tc.log && grep -q "$probe" tc.log && grep -Eq "$arg" tc.log; then
			ok "mistake $bad is an error naming $probe and the argument: $l"
		else
			fail "mistake $bad is an error naming $probe and the argument: $l" "$(head -20 tc.log)"
		fi
	done <<<"$mistakes"
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
