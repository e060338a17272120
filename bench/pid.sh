#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark 17: what the pid provider costs (docs/pid.md). A small function,
# pidfn_leaf(a, b, c) of bench/enabled/ev.c (BENCH_PIDFN), called in a tight
# loop; every variant counts what it traces:
#
#   off         the calls untraced
#   entry       dtrace pid$target:a.out:pidfn_leaf:entry { @n = count(); }
#   pair        entry and return, a count() each: both jumped to trampolines
#   pair.trap   the same under dtrace -x pidsites=trap: an int3 each
#   usdt        for scale, a USDT probe (our dtrace -h and -G) fired in the same
#               loop, the same count()
#   uprobe      the pair under bpftrace: uprobe and uretprobe, a count() each
#
# then what enabling the entry of every function of the C library costs a
# running process (dtrace -p, from start to exit, against one function).
# Each run reports the thread's CPU time and wall time per call (ev.c's RESULT
# line); every variant runs ROUNDS times, interleaved, and gets the median.
# Prints ns per call and the ratios; the targets: the pair at least 50x
# cheaper than the uprobe pair, an entry at most 1.5x a USDT probe's count().
# Never fails on a number. Builds into $BUILD/bench/pid/.
#
# Environment: BUILD (default build), CC (default cc), BENCH_PID_CALLS
# (calls of a fast run, default 5000000), BENCH_PID_SLOW_CALLS (of a trap or
# uprobe run, default 200000), BENCH_PID_ROUNDS (runs per variant, default 5).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
OUT=$BUILD/bench/pid
SRC=$TOP/bench/enabled
N=${BENCH_PID_CALLS:-5000000}
SLOW_N=${BENCH_PID_SLOW_CALLS:-200000}
ROUNDS=${BENCH_PID_ROUNDS:-5}
CFLAGS_BENCH="-O2 -Wall -Wextra"
FN='pid$target:a.out:pidfn_leaf'
ENTRY="$FN:entry { @n = count(); }"
PAIR="$FN:entry { @n = count(); } $FN:return { @r = count(); }"

[ -x "$DTRACE" ] || die "$DTRACE not found: run make first"
[ "$(uname -m)" = x86_64 ] || { echo "SKIP benchmark 17: the pid provider is x86-64's"; exit 0; }
rm -rf "$OUT"
mkdir -p "$OUT"
X=$OUT/bin
mkdir -p "$X"
# shellcheck disable=SC2086
run "$CC" $CFLAGS_BENCH -DBENCH_PIDFN "$SRC/ev.c" -pthread -o "$X/ev-pidfn"
run "$DTRACE" -h -s "$SRC/probes.d" -o "$X/probes.h"
# shellcheck disable=SC2086
run "$CC" $CFLAGS_BENCH -DBENCH_UDTRACE -I"$X" -c "$SRC/ev.c" -o "$X/ev-udtrace.o"
run "$DTRACE" -G -s "$SRC/probes.d" -o "$X/probes.o" "$X/ev-udtrace.o"
run "$CC" -O2 "$X/ev-udtrace.o" "$X/probes.o" -pthread -o "$X/ev-udtrace"

VARIANTS=(off entry pair pair.trap usdt)
declare -A DESC=(
	[off]="pidfn_leaf() untraced"
	[entry]="its entry, dtrace: a jump"
	[pair]="its entry and return, dtrace: jumps"
	[pair.trap]="its entry and return, dtrace: int3s"
	[usdt]="a USDT probe (-h, -G), dtrace"
	[uprobe]="its entry and return, bpftrace: uprobes"
)
declare -A CALLS=([off]=$N [entry]=$N [pair]=$N [pair.trap]=$SLOW_N [usdt]=$N [uprobe]=$SLOW_N)
uprobe_why=$(uprobe_unavailable)
[ -z "$uprobe_why" ] && VARIANTS+=(uprobe)

# keep V LOG: file the RESULT of LOG (ev.c's) under variant V, and what the tracer counted
keep() {
	local v=$1 log=$2
	keep_fields "$v" "$log" ns cpu_ns insns best_ns || return 1
	# (dtrace's "  N" lines, bpftrace's "@n: N")
	sed -n 's/^@n: *\([0-9]*\).*/\1/p; s/^ *\([0-9][0-9]*\)$/\1/p' "$log" | tr '\n' '/' |
		sed 's|/$|\n|' >>"$OUT/$v.counted"
}

measure() {
	local v=$1 log=$OUT/$1.log n=${CALLS[$1]}
	case $v in
	off) "$X/ev-pidfn" "$n" >"$log" 2>&1 ;;
	entry) "$DTRACE" -q -n "$ENTRY" -c "$X/ev-pidfn $n" >"$log" 2>&1 ;;
	pair) "$DTRACE" -q -n "$PAIR" -c "$X/ev-pidfn $n" >"$log" 2>&1 ;;
	pair.trap) "$DTRACE" -q -x pidsites=trap -n "$PAIR" -c "$X/ev-pidfn $n" >"$log" 2>&1 ;;
	usdt) "$DTRACE" -q -n 'bench$target:::ev { @n = count(); }' -c "$X/ev-udtrace $n" \
		>"$log" 2>&1 ;;
	uprobe)
		bpftrace -e "uprobe:$X/ev-pidfn:pidfn_leaf { @n = count(); }
			uretprobe:$X/ev-pidfn:pidfn_leaf { @r = count(); }" \
			-c "$X/ev-pidfn $n" >"$log" 2>&1
		;;
	esac
	keep "$v" "$log"
}

echo "udtrace pid-provider benchmark: $("$DTRACE" -V 2>&1 | head -n 1)"
echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "compiler: $("$CC" --version | head -n 1), $CFLAGS_BENCH; $(uname -m), $(nproc) CPUs, Linux $(uname -r)"
have bpftrace && echo "bpftrace: $(bpftrace --version 2>&1 | head -n 1)"
[ -n "$uprobe_why" ] && echo "SKIP uprobe: $uprobe_why"
echo

interleave "$ROUNDS" "${VARIANTS[@]}"

declare -A NS CPU INSNS BEST
for v in "${VARIANTS[@]}"; do
	NS[$v]=$(median <"$OUT/$v.ns" 2>/dev/null || echo nan)
	CPU[$v]=$(median <"$OUT/$v.cpu_ns" 2>/dev/null || echo nan)
	INSNS[$v]=$(median <"$OUT/$v.insns" 2>/dev/null || echo -1)
	BEST[$v]=$(median <"$OUT/$v.best_ns" 2>/dev/null || echo nan)
done
ok() { [ -n "${CPU[$1]:-}" ] && [ "${CPU[$1]}" != nan ]; }
# cratio A B: A's CPU ns per call over B's, or n/a
cratio() {
	if ok "$1" && ok "$2"; then calc "${CPU[$1]} / ${CPU[$2]}" | awk '{ printf "%.1f", $1 }'
	else echo n/a; fi
}

echo "== 17. the pid provider: pidfn_leaf(long, long, long) called in a loop, clauses:"
echo "   $PAIR"
echo "   ns per call: the thread's CPU time (user and kernel) and wall time, the median"
echo "   of $ROUNDS interleaved runs; $N calls a run ($SLOW_N for the traps and the uprobes)"
echo "   (best: the wall ns of a run's least disturbed tenth, the median over runs; insns:"
echo "   user-mode instructions per call, where the CPU's counters can be read)"
printf '   %-42s %10s %10s %8s %8s %16s\n' variant "cpu ns" "wall ns" best insns "counted"
for v in "${VARIANTS[@]}"; do
	ins=n/a
	awk -v i="${INSNS[$v]}" 'BEGIN { exit !(i >= 0) }' && ins=$(printf '%.1f' "${INSNS[$v]}")
	printf '   %-42s %10.1f %10.1f %8.1f %8s %16s\n' "${DESC[$v]}" "${CPU[$v]}" "${NS[$v]}" \
		"${BEST[$v]}" "$ins" \
		"$(sort -u "$OUT/$v.counted" 2>/dev/null | tr '\n' ' ')"
done
echo

# -- enabling every function of the C library in a running process --------------------------

# the target: ev-pidfn paced at 1000 calls a second for long enough, busy in clock_gettime()
"$X/ev-pidfn" 100000000 1 1000 >/dev/null 2>&1 &
target=$!
trap 'kill $target 2>/dev/null' EXIT
sleep 0.5
# attach DESCRIPTION: the ms a dtrace -p takes that enables it and exits at its first tick
attach() {
	local t0 t1
	t0=$(date +%s%N)
	"$DTRACE" -n "$1 { @n = count(); } tick-10ms { exit(0); }" -p $target >"$OUT/attach.log" 2>&1 ||
		{ echo "   bench: dtrace -p failed: $(tail -n 1 "$OUT/attach.log")" >&2; echo nan; return; }
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000)) | awk '{ printf "%.1f\n", $1 / 1000 }'
}
for ((r = 0; r < ROUNDS; r++)); do
	attach 'pid$target:libc.so.6:getpid:entry' >>"$OUT/one.ms"
	attach 'pid$target:libc.so.6::entry' >>"$OUT/all.ms"
done
nfn=$(sed -n "s/^dtrace: description .* matched \([0-9]*\) probes*$/\1/p" "$OUT/attach.log" | head -n 1)
one=$(median <"$OUT/one.ms")
all=$(median <"$OUT/all.ms")
kill $target 2>/dev/null
echo "== 17b. dtrace -p on a running process, from start to exit (enable, a 10 ms tick, remove),"
echo "   the median of $ROUNDS runs"
printf '   %-42s %10s ms\n' "pid\$target:libc.so.6:getpid:entry" "$one" \
	"pid\$target:libc.so.6::entry (${nfn:-?} functions)" "$all"
echo

echo "== summary (targets: the pair at least 50x cheaper than the uprobe pair; an entry at"
echo "   most 1.5x a USDT probe's count())"
printf 'entry / usdt: %sx; pair / off: %sx; pair.trap / pair: %sx; ' \
	"$(cratio entry usdt)" "$(cratio pair off)" "$(cratio pair.trap pair)"
if ok uprobe; then
	printf 'uprobe / pair: %sx, uprobe / pair.trap: %sx\n' "$(cratio uprobe pair)" \
		"$(cratio uprobe pair.trap)"
else
	printf 'uprobe: SKIP (%s)\n' "$uprobe_why"
fi
if [ "${BEST[entry]}" != nan ] && [ "${BEST[usdt]}" != nan ]; then
	printf 'least disturbed: entry / usdt %.1fx\n' "$(calc "${BEST[entry]} / ${BEST[usdt]}")"
fi
if [ "$one" != nan ] && [ "$all" != nan ]; then
	printf 'enabling %s C library functions: +%s ms over one (%.0f us a function)\n' \
		"${nfn:-?}" "$(calc "$all - $one")" "$(calc "($all - $one) * 1000 / ${nfn:-1}")"
fi
