#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark 13: what an enabled SystemTap site costs (docs/notes.md). One
# probe, bench:ev with three integer arguments (bench/enabled/ev.c), fired in
# a tight loop; the same clause counts and sums the events in every run:
#
#   sdt.off     the <sys/sdt.h> site untraced: its nop
#   note.jump   that site under dtrace: a jump to a trampoline
#   note.trap   that site under dtrace -x notesites=trap: an int3
#   udtrace     the same probe built with our dtrace -h and -G, under dtrace
#   uprobe      the <sys/sdt.h> site under bpftrace: a kernel uprobe
#
# Each run reports the thread's CPU time and wall time per event (ev.c's
# RESULT line); every variant runs ROUNDS times, interleaved, and gets the
# median. Prints ns per event and the ratios; the target is the jump at
# least 6x cheaper than the uprobe. Never fails on a number. Builds into
# $BUILD/bench/notes/.
#
# Environment: BUILD (default build), CC (default cc), BENCH_NOTES_EVENTS
# (events of a fast run: the jump, udtrace, default 2000000),
# BENCH_NOTES_SLOW_EVENTS (of a trap or uprobe run, default 200000),
# BENCH_NOTES_ROUNDS (runs per variant, default 5).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
OUT=$BUILD/bench/notes
SRC=$TOP/bench/enabled
N=${BENCH_NOTES_EVENTS:-2000000}
SLOW_N=${BENCH_NOTES_SLOW_EVENTS:-200000}
ROUNDS=${BENCH_NOTES_ROUNDS:-5}
CFLAGS_BENCH="-O2 -Wall -Wextra"
CLAUSE='bench$target:::ev { @n = count(); @s = sum(arg0 + arg1 + arg2); }'

[ -x "$DTRACE" ] || die "$DTRACE not found: run make first"
if ! echo '#include <sys/sdt.h>' | "$CC" -E -x c - >/dev/null 2>&1; then
	echo "SKIP benchmark 13: <sys/sdt.h> not found by $CC (apt-get install systemtap-sdt-dev)"
	exit 0
fi
rm -rf "$OUT"
mkdir -p "$OUT"
X=$OUT/bin
mkdir -p "$X"
# shellcheck disable=SC2086
run "$CC" $CFLAGS_BENCH -DBENCH_SDT "$SRC/ev.c" -pthread -o "$X/ev-sdt"
run "$DTRACE" -h -s "$SRC/probes.d" -o "$X/probes.h"
# shellcheck disable=SC2086
run "$CC" $CFLAGS_BENCH -DBENCH_UDTRACE -I"$X" -c "$SRC/ev.c" -o "$X/ev-udtrace.o"
run "$DTRACE" -G -s "$SRC/probes.d" -o "$X/probes.o" "$X/ev-udtrace.o"
run "$CC" -O2 "$X/ev-udtrace.o" "$X/probes.o" -pthread -o "$X/ev-udtrace"

VARIANTS=(sdt.off note.jump note.trap udtrace)
declare -A DESC=(
	[sdt.off]="<sys/sdt.h> site, untraced (its nop)"
	[note.jump]="<sys/sdt.h> site, dtrace: a jump"
	[note.trap]="<sys/sdt.h> site, dtrace: an int3"
	[udtrace]="udtrace site (-h, -G), dtrace"
	[uprobe]="<sys/sdt.h> site, bpftrace: a uprobe"
)
declare -A EVENTS=([sdt.off]=$N [note.jump]=$N [note.trap]=$SLOW_N [udtrace]=$N [uprobe]=$SLOW_N)
uprobe_why=$(uprobe_unavailable)
[ -z "$uprobe_why" ] && VARIANTS+=(uprobe)

# keep V LOG: file the RESULT of LOG (ev.c's) under variant V, and the count the tracer made
keep() {
	local v=$1 log=$2
	keep_fields "$v" "$log" ns cpu_ns || return 1
	sed -n 's/^@n: *\([0-9]*\).*/\1/p; s/^ *\([0-9][0-9]*\)$/\1/p' "$log" | head -n 1 >>"$OUT/$v.counted"
}

measure() {
	local v=$1 log=$OUT/$1.log n=${EVENTS[$1]}
	case $v in
	sdt.off) "$X/ev-sdt" "$n" >"$log" 2>&1 ;;
	note.jump) "$DTRACE" -q -n "$CLAUSE" -c "$X/ev-sdt $n" >"$log" 2>&1 ;;
	note.trap) "$DTRACE" -q -x notesites=trap -n "$CLAUSE" -c "$X/ev-sdt $n" >"$log" 2>&1 ;;
	udtrace) "$DTRACE" -q -n "$CLAUSE" -c "$X/ev-udtrace $n" >"$log" 2>&1 ;;
	uprobe)
		bpftrace -e "usdt:$X/ev-sdt:bench:ev { @n = count(); @s = sum(arg0 + arg1 + arg2); }" \
			-c "$X/ev-sdt $n" >"$log" 2>&1
		;;
	esac
	keep "$v" "$log"
}

echo "udtrace SystemTap-site benchmark: $("$DTRACE" -V 2>&1 | head -n 1)"
echo "compiler: $("$CC" --version | head -n 1), $CFLAGS_BENCH; $(uname -m), $(nproc) CPUs, Linux $(uname -r)"
have bpftrace && echo "bpftrace: $(bpftrace --version 2>&1 | head -n 1)"
[ -n "$uprobe_why" ] && echo "SKIP uprobe: $uprobe_why"
echo

interleave "$ROUNDS" "${VARIANTS[@]}"

declare -A NS CPU
for v in "${VARIANTS[@]}"; do
	NS[$v]=$(median <"$OUT/$v.ns" 2>/dev/null || echo nan)
	CPU[$v]=$(median <"$OUT/$v.cpu_ns" 2>/dev/null || echo nan)
done
ok() { [ -n "${CPU[$1]:-}" ] && [ "${CPU[$1]}" != nan ]; }
# cratio A B: A's CPU ns per event over B's, or n/a
cratio() {
	if ok "$1" && ok "$2"; then calc "${CPU[$1]} / ${CPU[$2]}" | awk '{ printf "%.1f", $1 }'
	else echo n/a; fi
}

echo "== 13. an enabled SystemTap site: bench:ev(long, long, long), clause:"
echo "   $CLAUSE"
echo "   ns per event: the thread's CPU time (user and kernel) and wall time, the median"
echo "   of $ROUNDS interleaved runs; $N events a run ($SLOW_N for the trap and the uprobe)"
printf '   %-40s %10s %10s %12s\n' variant "cpu ns" "wall ns" "counted"
for v in "${VARIANTS[@]}"; do
	printf '   %-40s %10.1f %10.1f %12s\n' "${DESC[$v]}" "${CPU[$v]}" "${NS[$v]}" \
		"$(sort -u "$OUT/$v.counted" 2>/dev/null | tr '\n' ' ')"
done
echo
echo "== summary (target: the jump at least 6x cheaper than the uprobe)"
if ok uprobe; then
	printf 'uprobe / jump: %sx; uprobe / trap: %sx; jump / udtrace site: %sx; trap / jump: %sx\n' \
		"$(cratio uprobe note.jump)" "$(cratio uprobe note.trap)" "$(cratio note.jump udtrace)" \
		"$(cratio note.trap note.jump)"
else
	printf 'uprobe: SKIP (%s); jump / udtrace site: %sx; trap / jump: %sx\n' "$uprobe_why" \
		"$(cratio note.jump udtrace)" "$(cratio note.trap note.jump)"
fi
