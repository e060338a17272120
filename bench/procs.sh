#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark 16, many processes (docs/processes.md):
#  (a) what a dtrace following 1, 100 and 1,000 idle processes costs: its CPU
#      per second of wall time (utime + stime from /proc) over SECS seconds
#      once every process is traced, and its memory (VmRSS) per process;
#  (b) the time from a process's start to its first recorded event, for a
#      description without -p or -c (dtrace -Z running before the process),
#      with the kernel's process events and with /proc scanned
#      (-x procwatch=scan).
# The processes are tests/integration/data/pm.c ("pm idle": fires nothing
# once traced; "pm workers 0 0 wait": fires postgresql:::work as soon as it
# is enabled), built with our dtrace -h and -G, without the runtime: dtrace
# loads it into each. Prints medians; never fails on a number. Builds into
# $BUILD/bench/procs/.
#
# Environment: BUILD (default build), CC (default cc), BENCH_PROCS_SECS
# (seconds of idle measured, default 10), BENCH_PROCS_ROUNDS (starts timed
# in (b), default 9), BENCH_PROCS_MAX (the largest count of (a), default 1000).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
OUT=$BUILD/bench/procs
DATA=$TOP/tests/integration/data
SECS=${BENCH_PROCS_SECS:-10}
ROUNDS=${BENCH_PROCS_ROUNDS:-9}
MAX=${BENCH_PROCS_MAX:-1000}

[ -x "$DTRACE" ] || die "$DTRACE not found: run make first"
if [ "$(uname -m)" != x86_64 ]; then
	echo "SKIP benchmark 16: loading the runtime into a process is written for x86-64"
	exit 0
fi
rm -rf "$OUT"
mkdir -p "$OUT"
run "$DTRACE" -h -s "$DATA/pm.d" -o "$OUT/pm.h"
run "$CC" -O2 -I"$OUT" -c "$DATA/pm.c" -o "$OUT/pm.o"
run "$DTRACE" -G -s "$DATA/pm.d" -o "$OUT/pm_prov.o" "$OUT/pm.o"
run "$CC" -o "$OUT/pm" "$OUT/pm.o" "$OUT/pm_prov.o"

spid='' dpid=''
cleanup() {
	[ -n "$dpid" ] && kill -INT "$dpid" 2>/dev/null
	exec 5>&- 2>/dev/null
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT

TCK=$(getconf CLK_TCK)
# cpu_ticks PID: utime + stime (clock ticks)
cpu_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# traced N: how many "pm idle" processes have the runtime mapped (dtrace loaded it)
traced() {
	local n=0 p
	for p in $(pgrep -f "$OUT/pm idle"); do
		grep -q libudtrace "/proc/$p/maps" 2>/dev/null && n=$((n + 1))
	done
	echo "$n"
}
now_us() { local t=${EPOCHREALTIME/[.,]/}; echo $((10#$t)); }

###########################################################################
# (a) idle processes followed
###########################################################################

echo "== 16. many processes (docs/processes.md)"
echo "   (a) dtrace -n 'postgresql*:::work { }' following N idle processes (each traced,"
echo "   its runtime loaded by dtrace), over $SECS s once all are traced"
printf '   %-10s %14s %16s %14s\n' processes "CPU (ms/s)" "RSS (MB)" "RSS/process"
base_rss=''
for n in 1 100 "$MAX"; do
	rm -f "$OUT/ctl"
	mkfifo "$OUT/ctl"
	"$OUT/pm" spawn "$n" <"$OUT/ctl" >/dev/null 2>&1 &
	spid=$!
	exec 5>"$OUT/ctl"
	"$DTRACE" -q -n 'postgresql*:::work { }' >/dev/null 2>"$OUT/a.err" &
	dpid=$!
	for _ in $(seq 600); do
		[ "$(traced)" -ge "$n" ] && break
		sleep 0.2
	done
	got=$(traced)
	sleep 1
	c0=$(cpu_ticks "$dpid") t0=$(now_us)
	sleep "$SECS"
	c1=$(cpu_ticks "$dpid") t1=$(now_us)
	rss=$(rss_kb "$dpid")
	[ -z "$base_rss" ] && base_rss=$rss
	per='-'
	[ "$n" -gt 1 ] && per=$(printf '%.1f KB' "$(calc "($rss - $base_rss) / ($n - 1)")")
	printf '   %-10s %14.2f %16.1f %14s%s\n' "$n" \
		"$(calc "($c1 - $c0) * 1000 / $TCK / (($t1 - $t0) / 1000000)")" \
		"$(calc "$rss / 1024")" "$per" \
		"$([ "$got" -lt "$n" ] && echo " (only $got traced: $(tail -n 1 "$OUT/a.err"))")"
	kill -INT "$dpid"
	wait "$dpid"
	dpid=
	exec 5>&-
	wait "$spid"
	spid=
done
echo

###########################################################################
# (b) a process's start to its first recorded event
###########################################################################

# first_event WATCH: one measure, in ms, appended to $OUT/WATCH.ms
first_event() {
	local w=$1 t0 ts
	"$DTRACE" -Z -q -x procwatch="$w" \
		-n 'postgresql*:::work { printf("%d\n", walltimestamp); exit(0); }' \
		>"$OUT/b.out" 2>"$OUT/b.err" &
	dpid=$!
	sleep 1 # (dtrace has looked at what runs already)
	t0=$(now_us)
	"$OUT/pm" workers 0 0 wait >/dev/null 2>&1
	wait "$dpid"
	dpid=
	ts=$(head -n 1 "$OUT/b.out")
	if [ -z "$ts" ]; then
		echo "   bench: dtrace ($w) printed nothing: $(tail -n 1 "$OUT/b.err")" >&2
		return
	fi
	calc "($ts / 1000 - $t0) / 1000" >>"$OUT/$w.ms"
}

for ((r = 0; r < ROUNDS; r++)); do
	first_event auto
	first_event scan
done
echo "   (b) a process's start to its first recorded event (dtrace -Z running first; the"
echo "   program fires as soon as its probe is enabled); the median of $ROUNDS starts"
printf '   %-44s %9.1f ms\n' "the kernel's process events" "$(median <"$OUT/auto.ms")"
printf '   %-44s %9.1f ms\n' "/proc scanned (-x procwatch=scan)" "$(median <"$OUT/scan.ms")"
echo
