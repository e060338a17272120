#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark 9: what profiling costs the profiled program (docs/benchmarks.md,
# docs/profile.md). A CPU-bound program (tests/integration/data/profprog.c,
# mode work: main -> work -> hot/cold -> burn, a fixed amount of work) runs
# untraced and under dtrace -c at 997 Hz: counting samples, aggregating on
# ufunc(arg1), and aggregating on ustack() (libunwind in the sample), the
# last also with -x profclock=perf (perf event clocks instead of the CPU-time
# timers that time 997 Hz by default). Each run reports the CPU time the
# program used (getrusage: the samples' handling runs in its threads, and the
# kernel's share of it counts there too); rounds are interleaved and each
# variant gets the median. Prints the ratios to the untraced run; never fails
# on a number.
#
# Environment: BUILD (default build), CC (default cc), BENCH_PROF_TURNS (the
# work, default 6000: about 2.5 s), BENCH_PROF_ROUNDS (default 7).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
RT=$BUILD/lib/libudtrace.so.1
OUT=$BUILD/bench/profile
TURNS=${BENCH_PROF_TURNS:-6000}
ROUNDS=${BENCH_PROF_ROUNDS:-7}


[ -x "$DTRACE" ] || die "$DTRACE not found: run make first"
mkdir -p "$OUT"
"$CC" -O2 -g -o "$OUT/profprog" "$TOP/tests/integration/data/profprog.c" -lpthread -ldl || exit 1

VARIANTS=(untraced count ufunc ustack ustack-perf)
declare -A LABEL=(
	[untraced]="untraced (the runtime preloaded)"
	[count]="profile-997 { @ = count(); }"
	[ufunc]="profile-997 { @[ufunc(arg1)] = count(); }"
	[ustack]="profile-997 { @[ustack()] = count(); }"
	[ustack-perf]="the same, -x profclock=perf"
)
# run_variant VARIANT: the CPU seconds the program took, on stdout
run_variant() {
	local prog="$OUT/profprog work 0 $TURNS" f="$OUT/$1.run"
	case $1 in
	untraced) LD_PRELOAD=$RT $prog >"$f" 2>/dev/null ;;
	count) "$DTRACE" -q -n 'profile-997 { @ = count(); }' -c "$prog" >"$f" 2>/dev/null ;;
	ufunc) "$DTRACE" -q -n 'profile-997 { @[ufunc(arg1)] = count(); }' -c "$prog" >"$f" 2>/dev/null ;;
	ustack) "$DTRACE" -q -n 'profile-997 { @[ustack()] = count(); }' -c "$prog" >"$f" 2>/dev/null ;;
	ustack-perf) "$DTRACE" -q -x profclock=perf -n 'profile-997 { @[ustack()] = count(); }' \
		-c "$prog" >"$f" 2>/dev/null ;;
	esac
	sed -n 's/^cpu=//p' "$f"
}
rm -f "$OUT"/*.cpu
for ((r = 0; r < ROUNDS; r++)); do
	for ((i = 0; i < ${#VARIANTS[@]}; i++)); do
		v=${VARIANTS[$(((i + r) % ${#VARIANTS[@]}))]}
		run_variant "$v" >>"$OUT/$v.cpu"
	done
done
# the samples the ustack variant took, for the rate
"$DTRACE" -q -n 'profile-997 { @ = count(); } END { printa("%@d\n", @); }' \
	-c "$OUT/profprog work 0 $TURNS" >"$OUT/samples" 2>/dev/null

base=$(median <"$OUT/untraced.cpu")
echo "== 9. profiling cost: a CPU-bound program (profprog work, $TURNS turns), CPU seconds,"
echo "   median of $ROUNDS interleaved runs; $(awk 'NF == 1 && /^[0-9]+$/ { print $1 }' "$OUT/samples") samples in a run at 997 Hz"
printf '   %-46s %9s %9s\n' variant "cpu s" ratio
for v in "${VARIANTS[@]}"; do
	m=$(median <"$OUT/$v.cpu")
	printf '   %-46s %9.3f %9.3f\n' "${LABEL[$v]}" "$m" "$(calc "$m / $base")"
done
echo "   (target: less than 3% slower at 997 Hz, ratio < 1.030)"
