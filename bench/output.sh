#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark 14 (docs/benchmarks.md, docs/output.md): what each output format
# costs the consumer. One session, the same clause on the same probe fired
# the same number of times, written as DTrace's text, as JSON (the document
# and JSON lines) and as a CTF trace, each into a file of the same
# directory: dtrace's CPU time (user + system, from wait4()) divided by the
# records it read. The target (bench/output/target.c) waits until the probe
# is enabled, fires it N times paced at RATE a second (so that the buffers
# are read before they fill) and exits; dtrace -p ends with it. Prints the
# median of ROUNDS interleaved runs of each format and the ratios to text.
#
# Environment: BUILD (default build), CC (default cc),
# BENCH_OUTPUT_RECORDS (N, default 1000000), BENCH_OUTPUT_RATE (default
# 1000000), BENCH_OUTPUT_ROUNDS (default 5).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
RT=$BUILD/lib/libudtrace.so.1
OUT=$BUILD/bench/output
N=${BENCH_OUTPUT_RECORDS:-1000000}
RATE=${BENCH_OUTPUT_RATE:-1000000}
ROUNDS=${BENCH_OUTPUT_ROUNDS:-5}
CLAUSE='obench*:::req { trace(arg0); trace(copyinstr(arg1)); }'

[ -x "$DTRACE" ] || die "$DTRACE not found: run make first"
have python3 || die "python3 is needed to read dtrace's CPU time"
rm -rf "$OUT"
mkdir -p "$OUT"
run "$DTRACE" -h -s "$TOP/bench/output/req.d" -o "$OUT/req.h"
run "$CC" -O2 -Wall -Wextra -I"$OUT" -c "$TOP/bench/output/target.c" -o "$OUT/target.o"
run "$DTRACE" -G -s "$TOP/bench/output/req.d" -o "$OUT/req.o" "$OUT/target.o"
run "$CC" -o "$OUT/target" "$OUT/target.o" "$OUT/req.o"

# cpu_of ERRFILE CMD...: run CMD, its standard error to ERRFILE; print its CPU seconds
cpu_of() {
	python3 -c 'import os, subprocess, sys
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=open(sys.argv[1], "w"))
_, status, ru = os.wait4(p.pid, 0)
print("%.6f" % (ru.ru_utime + ru.ru_stime))
sys.exit(0 if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else 1)' "$@"
}

# one FORMAT ROUND: a traced run; appends "ns-per-record" to $OUT/FORMAT.ns
one() {
	local f=$1 r=$2 dir=$OUT/run-$1-$2 opts=()
	mkdir -p "$dir"
	case $f in
	text) opts=(-o "$dir/out.txt") ;;
	json) opts=(-x oformat=json -o "$dir/out.json") ;;
	jsonl) opts=(-x oformat=jsonl -o "$dir/out.jsonl") ;;
	ctf) opts=(-x ctfdir="$dir/ctf") ;;
	esac
	LD_PRELOAD=$RT "$OUT/target" "$N" "$RATE" 2>"$dir/target.err" &
	local tpid=$!
	for _ in $(seq 100); do grep -qs ready "$dir/target.err" && break; sleep 0.05; done
	local cpu
	cpu=$(cpu_of "$dir/dtrace.err" "$DTRACE" -x bufsize=64m -x strsize=32 -x switchrate=100hz \
		"${opts[@]}" -n "$CLAUSE" -p "$tpid") || {
		wait "$tpid"
		echo "bench: dtrace failed ($f): $(head -3 "$dir/dtrace.err")" >&2
		return
	}
	wait "$tpid"
	local drops
	drops=$(sed -n 's/^dtrace: \([0-9]*\) drops\{0,1\} on thread .*/\1/p' "$dir/dtrace.err" |
		paste -sd+ - | bc)
	local recs=$((N - ${drops:-0}))
	calc "$cpu * 1e9 / $recs" >>"$OUT/$f.ns"
	echo "${drops:-0}" >>"$OUT/$f.drops"
	[ "$f" = ctf ] && du -sb "$dir/ctf" | cut -f1 >>"$OUT/$f.bytes"
	[ "$f" != ctf ] && stat -c %s "$dir"/out.* >>"$OUT/$f.bytes"
	rm -rf "$dir"
}

echo "14. Output formats: the consumer's CPU time per record, by format"
echo "   clause: $CLAUSE"
echo "   $N records at $RATE/s a run, $ROUNDS interleaved runs each; dtrace -p, output to files"
FORMATS="text json jsonl ctf"
for r in $(seq "$ROUNDS"); do
	for f in $FORMATS; do one "$f" "$r"; done
done
declare -A NS
printf '   %-6s %14s %12s %16s %10s\n' format "cpu ns/record" "x text" "bytes/record" drops
for f in $FORMATS; do
	NS[$f]=$(median <"$OUT/$f.ns" 2>/dev/null || echo nan)
	bytes=$(median <"$OUT/$f.bytes" 2>/dev/null || echo nan)
	drops=$(paste -sd+ "$OUT/$f.drops" 2>/dev/null | bc)
	printf '   %-6s %14.0f %12s %16.1f %10s\n' "$f" "${NS[$f]}" \
		"$(calc "${NS[$f]} / ${NS[text]}" | xargs printf '%.2f')" "$(calc "$bytes / $N")" \
		"${drops:-0}"
done
echo "RESULT output text_ns=${NS[text]} json_ns=${NS[json]} jsonl_ns=${NS[jsonl]} ctf_ns=${NS[ctf]}"
