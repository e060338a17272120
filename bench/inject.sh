#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark 12, loading the runtime into a running process (docs/injection.md):
#  (a) the time from dtrace -p's start to the first enabled probe on a
#      50-thread process (tests/integration/data/injprog.c: each thread fires
#      inj:::work every millisecond), linked as the README's recipe links it,
#      with the runtime already in it (LD_PRELOAD) and without (dtrace loads
#      it): the difference is what the injection costs (target: 100 ms);
#  (b) the sample HTTP server's throughput (bench/http/load.c) after a
#      traced session has detached, against before it, in the same server,
#      and the same two measures of a server never traced, for the noise
#      (target: no measurable drop).
# Each round starts fresh processes. Prints medians and ratios; never fails on
# a number. Builds into $BUILD/bench/inject/.
#
# Environment: BUILD (default build), CC (default cc), BENCH_INJECT_ROUNDS
# (rounds of each, default 7), BENCH_INJECT_SECS (seconds of load a
# throughput measure, default 2).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
RT=$BUILD/lib/libudtrace.so.1
HTTPD=$BUILD/samples/http/httpd
OUT=$BUILD/bench/inject
DATA=$TOP/tests/integration/data
ROUNDS=${BENCH_INJECT_ROUNDS:-7}
SECS=${BENCH_INJECT_SECS:-2}
THREADS=50

[ -x "$DTRACE" ] || die "$DTRACE not found: run make first"
[ -x "$HTTPD" ] || die "$HTTPD not found: run make first"
if [ "$(uname -m)" != x86_64 ]; then
	echo "SKIP benchmark 12: the injection is written for x86-64"
	exit 0
fi
rm -rf "$OUT"
mkdir -p "$OUT/www"
run "$DTRACE" -h -s "$DATA/inj.d" -o "$OUT/inj.h"
run "$CC" -O2 -I"$OUT" -c "$DATA/injprog.c" -o "$OUT/injprog.o"
run "$DTRACE" -G -s "$DATA/inj.d" -o "$OUT/inj_prov.o" "$OUT/injprog.o"
run "$CC" -o "$OUT/injprog" "$OUT/injprog.o" "$OUT/inj_prov.o"
run "$CC" -O2 -pthread "$TOP/bench/http/load.c" -o "$OUT/load"
head -c 1024 /dev/urandom >"$OUT/www/bench.bin"

pid='' dpid=''
cleanup() {
	[ -n "$dpid" ] && kill -INT "$dpid" 2>/dev/null
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT

# now_us: the wall clock in microseconds (bash 5's EPOCHREALTIME, no fork)
now_us() { local t=${EPOCHREALTIME/[.,]/}; echo $((10#$t)); }

###########################################################################
# (a) dtrace -p to the first enabled probe
###########################################################################

# first_probe VARIANT: one measure, in ms, appended to $OUT/VARIANT.ms
first_probe() {
	local v=$1 t0 ts
	rm -f "$OUT/ctl"
	mkfifo "$OUT/ctl"
	if [ "$v" = preloaded ]; then
		LD_PRELOAD=$RT "$OUT/injprog" threads $THREADS <"$OUT/ctl" >/dev/null 2>"$OUT/prog.err" &
	else
		"$OUT/injprog" threads $THREADS <"$OUT/ctl" >/dev/null 2>"$OUT/prog.err" &
	fi
	pid=$!
	exec 5>"$OUT/ctl"
	for _ in $(seq 100); do
		[ "$(ls "/proc/$pid/task" 2>/dev/null | wc -l)" -gt $THREADS ] && break
		sleep 0.02
	done
	sleep 0.2
	t0=$(now_us)
	ts=$("$DTRACE" -q -n 'inj$target:::work { printf("%d\n", walltimestamp); exit(0); }' \
		-p "$pid" 2>"$OUT/$v.err" | head -n 1)
	exec 5>&-
	wait "$pid"
	pid=
	if [ -z "$ts" ]; then
		echo "   bench: dtrace -p ($v) printed nothing: $(tail -n 1 "$OUT/$v.err")" >&2
		return
	fi
	calc "($ts / 1000 - $t0) / 1000" >>"$OUT/$v.ms"
}

for ((r = 0; r < ROUNDS; r++)); do
	if ((r % 2)); then first_probe injected; first_probe preloaded
	else first_probe preloaded; first_probe injected; fi
done
pre=$(median <"$OUT/preloaded.ms")
inj=$(median <"$OUT/injected.ms")

echo "== 12. loading the runtime into a running process (dtrace -p, docs/injection.md)"
echo "   (a) dtrace -p to the first enabled probe, a $THREADS-thread process (each thread"
echo "   fires every ms); the median of $ROUNDS rounds, fresh processes each time"
printf '   %-44s %9.1f ms\n' "the runtime already in it (LD_PRELOAD)" "$pre"
printf '   %-44s %9.1f ms\n' "no runtime: dtrace loads it" "$inj"
printf '   %-44s %9.1f ms (%.2fx; target: at most 100 ms)\n' "what the injection adds" \
	"$(calc "$inj - $pre")" "$(calc "$inj / $pre")"
echo

###########################################################################
# (b) the server's throughput after a session detached
###########################################################################

# load_rps ADDR: requests per second over SECS seconds, 4 connections
load_rps() {
	"$OUT/load" "$1" "$SECS" 4 /bench.bin 2>>"$OUT/load.err" | sed -n 's/.* rps \([0-9.]*\).*/\1/p'
}

# server_round TRACED: a fresh server; its rps before, then (TRACED) after a dtrace -p
# session has attached, traced 2 s of load and detached; appended to $OUT/before.TRACED
# and $OUT/after.TRACED
server_round() {
	local traced=$1 addr
	"$HTTPD" --port 0 --root "$OUT/www" >"$OUT/httpd.out" 2>"$OUT/httpd.err" &
	pid=$!
	for _ in $(seq 100); do
		addr=$(sed -n 's/^listening on //p' "$OUT/httpd.out")
		[ -n "$addr" ] && break
		sleep 0.05
	done
	[ -n "$addr" ] || die "the server did not start: $(tail -n 1 "$OUT/httpd.err")"
	"$OUT/load" "$addr" 0.5 4 /bench.bin >/dev/null 2>>"$OUT/load.err" # warm-up
	load_rps "$addr" >>"$OUT/before.$traced"
	if [ "$traced" = yes ]; then
		"$DTRACE" -q -n 'http*:::request-done { @[args[1]->hri_uri] = count(); }' -p "$pid" \
			>"$OUT/session.out" 2>"$OUT/session.err" &
		dpid=$!
		"$OUT/load" "$addr" 2 4 /bench.bin >/dev/null 2>>"$OUT/load.err"
		kill -INT "$dpid"
		wait "$dpid" || echo "   bench: the session failed: $(tail -n 1 "$OUT/session.err")" >&2
		dpid=
		grep -q 'libudtrace' "/proc/$pid/maps" ||
			echo "   bench: the runtime is not in the server after the session" >&2
	else
		sleep 2
	fi
	load_rps "$addr" >>"$OUT/after.$traced"
	kill "$pid"
	wait "$pid" 2>/dev/null
	pid=
}

for ((r = 0; r < ROUNDS; r++)); do
	if ((r % 2)); then server_round yes; server_round no
	else server_round no; server_round yes; fi
done
b_yes=$(median <"$OUT/before.yes") a_yes=$(median <"$OUT/after.yes")
b_no=$(median <"$OUT/before.no") a_no=$(median <"$OUT/after.no")
# per-round ratios, then their median: each round's server against itself
paste "$OUT/after.yes" "$OUT/before.yes" | awk '{ print $1 / $2 }' >"$OUT/ratio.yes"
paste "$OUT/after.no" "$OUT/before.no" | awk '{ print $1 / $2 }' >"$OUT/ratio.no"

echo "   (b) the sample server (linked without the runtime), one load client with 4"
echo "   keep-alive connections, $SECS s a measure; the median of $ROUNDS rounds"
printf '   %-44s %9s %9s %9s\n' server "before" "after" "after/before"
printf '   %-44s %9.0f %9.0f %9.3f\n' "a dtrace -p session in between (runtime loaded)" \
	"$b_yes" "$a_yes" "$(median <"$OUT/ratio.yes")"
printf '   %-44s %9.0f %9.0f %9.3f\n' "never traced (the noise)" "$b_no" "$a_no" \
	"$(median <"$OUT/ratio.no")"
echo "   (target: after a session detached, no measurable drop: the ratio within the noise's)"
echo "RESULT inject_ms=$(calc "$inj - $pre") preloaded_ms=$pre injected_ms=$inj" \
	"after_ratio=$(median <"$OUT/ratio.yes") noise_ratio=$(median <"$OUT/ratio.no")"
