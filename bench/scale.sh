#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Scale (15): a session's events per second and shared memory with 1, 100,
# 1,000 and 10,000 threads firing at once, and with 100,000 threads started
# one after another, each firing and exiting (docs/runtime.md, "Threads").
# The program (bench/scale/threads.c) fires scale:ev(thread, seq) under
# dtrace -q -n 'scale*:::ev { trace(arg0); }' -o /dev/null, and untraced for
# the same work; it reports the memory of the session's memfd mappings as it
# sees them at the end (mapped and resident). Prints numbers; never fails on
# one. Builds into $BUILD/bench/scale/.
#
# Environment: BUILD (default build), CC (default cc), BENCH_SCALE_EVENTS
# (events of a run of live threads, shared among them, default 2000000),
# BENCH_SCALE_CHURN (threads started one after another, default 100000),
# BENCH_SCALE_ROUNDS (runs per variant, the median kept, default 3).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
OUT=$BUILD/bench/scale
SRC=$TOP/bench/scale
EVENTS=${BENCH_SCALE_EVENTS:-2000000}
CHURN=${BENCH_SCALE_CHURN:-100000}
ROUNDS=${BENCH_SCALE_ROUNDS:-3}
PROG='scale*:::ev { trace(arg0); }'

[ -x "$DTRACE" ] || die "$DTRACE not found: run make first"
rm -rf "$OUT"
mkdir -p "$OUT"
"$DTRACE" -h -s "$SRC/probes.d" -o "$OUT/probes.h" || die "dtrace -h failed"
"$CC" -O2 -I"$OUT" -c "$SRC/threads.c" -o "$OUT/threads.o" || die "cc failed"
"$DTRACE" -G -s "$SRC/probes.d" -o "$OUT/probes.o" "$OUT/threads.o" || die "dtrace -G failed"
"$CC" -O2 "$OUT/threads.o" "$OUT/probes.o" -pthread -o "$OUT/threads" || die "link failed"

# val FILE NAME: NAME's value in the program's output
val() { awk -v n="$2" '$1 == n { print $2 }' "$1"; }
# said FILE: the records dtrace said it dropped or lost
said() {
	awk '/^dtrace: [0-9]+ (drops? on thread|records? )/ { n += $2 } END { print n + 0 }' "$1"
}

# one NAME MODE N E: ROUNDS runs traced and untraced; a line of medians
one() {
	local name=$1 mode=$2 n=$3 e=$4 base=$OUT/$1
	for ((r = 0; r < ROUNDS; r++)); do
		"$OUT/threads" "$mode" "$n" "$e" >"$base.u.$r"
		"$DTRACE" -q -n "$PROG" -o /dev/null -c "$OUT/threads $mode $n $e" >"$base.t.$r" \
			2>"$base.err.$r" || echo "   bench: dtrace failed in $name: $(tail -n 1 "$base.err.$r")"
		val "$base.u.$r" wall_ns >>"$base.u.ns"
		val "$base.t.$r" wall_ns >>"$base.t.ns"
		val "$base.t.$r" shm_mapped >>"$base.mapped"
		val "$base.t.$r" shm_rss >>"$base.rss"
		said "$base.err.$r" >>"$base.lost"
	done
	local ev=$((n * e)) u t
	u=$(median <"$base.u.ns")
	t=$(median <"$base.t.ns")
	printf '   %-40s %9d %11.0f %11.0f %7.2f %10.1f %8.2f %6s\n' "$name" "$ev" \
		"$(calc "$ev / ($u / 1e9)")" "$(calc "$ev / ($t / 1e9)")" "$(calc "$t / $u")" \
		"$(calc "$(median <"$base.mapped") / 1048576")" \
		"$(calc "$(median <"$base.rss") / 1048576")" "$(sort -n "$base.lost" | tail -n 1)"
}

echo "== 15. scale: threads firing at once, and threads coming and going"
echo "   dtrace -q -n '$PROG' -o /dev/null -c 'threads MODE N E' (default options: bufsize 4m)"
echo "   events/s: the events over the wall time from the threads' release (live) or the"
echo "   first start (churn) to the last event; medians of $ROUNDS runs; shm: the session's"
echo "   memfd mappings in the target at the end, mapped and resident; lost: dropped or lost"
echo "   records dtrace said (the most of a run)"
printf '   %-40s %9s %11s %11s %7s %10s %8s %6s\n' variant events "untraced/s" "traced/s" \
	"t/u" "mapped MB" "rss MB" lost
for t in 1 100 1000 10000; do
	e=$((EVENTS / t))
	one "$t threads at once, $e events each" live "$t" "$e"
done
one "$CHURN threads one after another" churn "$CHURN" 1
