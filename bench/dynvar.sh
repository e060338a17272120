#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What variables, associative arrays, strings and subroutines cost a fire,
# measured against the plain enabled probe and count() in the same run, on
# the enabled-probe benchmark's program (bench/enabled/ev.c: a tight loop
# firing bench:ev(index, thread, index ^ thread)): ns per event of each
# clause below, in the threads' own CPU time, with one thread and with two
# (the same global array written by both). Prints ratios; never fails on a
# number. Builds into $BUILD/bench/dynvar/.
#
# Environment: BUILD (default build), CC (default cc), BENCH_DYNVAR_EVENTS
# (events per thread of a timed run, default 1000000), BENCH_DYNVAR_ROUNDS
# (runs per variant, the median kept, default 5).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
OUT=$BUILD/bench/dynvar
SRC=$TOP/bench/enabled
N=${BENCH_DYNVAR_EVENTS:-1000000}
ROUNDS=${BENCH_DYNVAR_ROUNDS:-5}


[ -x "$DTRACE" ] || die "$DTRACE not found: run make first"
rm -rf "$OUT"
mkdir -p "$OUT"
"$DTRACE" -h -s "$SRC/probes.d" -o "$OUT/probes.h" || die "dtrace -h failed"
"$CC" -O2 -DBENCH_UDTRACE -I"$OUT" -c "$SRC/ev.c" -o "$OUT/ev.o" || die "cc failed"
"$DTRACE" -G -s "$SRC/probes.d" -o "$OUT/probes.o" "$OUT/ev.o" || die "dtrace -G failed"
"$CC" -O2 "$OUT/ev.o" "$OUT/probes.o" -pthread -o "$OUT/ev" || die "link failed"

# The clauses, all on bench:ev (arg0: the event, arg1: the thread).
declare -A PROG DESC
VARIANTS=(trace count gvar tvar assoc assoc_str churn self_str strjoin substr)
PROG[trace]='trace(arg0);'; DESC[trace]="trace(arg0): the plain enabled probe"
PROG[count]='@c = count();'; DESC[count]="@c = count()"
PROG[gvar]='x = arg0;'; DESC[gvar]="x = arg0 (a global)"
PROG[tvar]='self->x = arg0;'; DESC[tvar]="self->x = arg0"
PROG[assoc]='a[arg1]++;'; DESC[assoc]="a[arg1]++ (an element per thread)"
PROG[assoc_str]='a["key", arg1] = arg0;'; DESC[assoc_str]='a["key", arg1] = arg0'
PROG[churn]='a[arg0, arg1] = 1; a[arg0, arg1] = 0;'
DESC[churn]="a[arg0, arg1] = 1, then = 0 (insert, delete)"
PROG[self_str]='self->s = "a string of 24 bytes.....";'
DESC[self_str]='self->s = "24 bytes"'
PROG[strjoin]='this->s = strjoin("abc", "def");'; DESC[strjoin]='this->s = strjoin(...)'
PROG[substr]='this->s = substr("a string of some length", 2, 6);'
DESC[substr]='this->s = substr(...)'

for v in "${VARIANTS[@]}"; do
	for t in 1 2; do
		for ((r = 0; r < ROUNDS; r++)); do
			log=$OUT/$v.$t.log
			"$DTRACE" -q -b 4m -x bufpolicy=ring -n "bench*:::ev { ${PROG[$v]} }" -o /dev/null \
				-c "$OUT/ev $N $t 0 1 0" >"$log" 2>"$OUT/$v.$t.err" ||
				echo "   bench: dtrace failed in $v: $(tail -n 1 "$OUT/$v.$t.err")" >&2
			field "$log" cpu_ns >>"$OUT/$v.$t.ns"
			grep -h 'dynamic variable drop' "$OUT/$v.$t.err" >>"$OUT/$v.$t.drops"
		done
	done
done

echo "Variables, associative arrays and strings: ns per event, the threads' own CPU time (median of $ROUNDS runs of $N events per thread)"
printf '  %-46s %10s %8s %10s %8s\n' "clause" "1 thread" "/count" "2 threads" "/count"
c1=$(median <"$OUT/count.1.ns")
c2=$(median <"$OUT/count.2.ns")
for v in "${VARIANTS[@]}"; do
	n1=$(median <"$OUT/$v.1.ns")
	n2=$(median <"$OUT/$v.2.ns")
	printf '  %-46s %10.1f %8.2f %10.1f %8.2f\n' "${DESC[$v]}" "$n1" "$(calc "$n1 / $c1")" \
		"$n2" "$(calc "$n2 / $c2")"
	if [ -s "$OUT/$v.1.drops" ] || [ -s "$OUT/$v.2.drops" ]; then
		echo "      (with drops: $(cat "$OUT/$v.1.drops" "$OUT/$v.2.drops" | head -n 2 | tr '\n' ' '))"
	fi
done
