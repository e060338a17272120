#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark 18: what plockstat(1) costs a contended workload (docs/plockstat.md).
# bench/plockstat/contend.c: T threads take one mutex, then one rwlock (one in
# eight for writing), N times each around a short critical section; every
# variant runs the same workload:
#
#   off           untraced
#   plockstat     plockstat CMD (-C: contention: the blocks and spins timed)
#   plockstat.A   plockstat -A CMD (and hold times: every acquire and release)
#   uprobe        bpftrace with uprobes on the same functions doing what -A
#                 does (each lock function's entry and return timed, the
#                 time keyed by its stack of five frames, each unlock's stack
#                 counted), where bpftrace can run
#
# perf lock is not a variant: it reports the kernel's locks (its lock
# tracepoints, or BPF on the kernel's contention paths), not a process's
# pthread mutexes. Each run reports wall and CPU ns per acquisition
# (RESULT); every variant runs ROUNDS times, interleaved, and gets the
# median. Prints ns per acquisition and the slowdown of each against off.
# Never fails on a number. Builds into $BUILD/bench/plockstat/.
#
# Environment: BUILD (default build), CC (default cc), BENCH_PLK_THREADS
# (default 4), BENCH_PLK_ITERS (acquisitions of each lock a thread, default
# 200000), BENCH_PLK_ROUNDS (runs per variant, default 5).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
OUT=$BUILD/bench/plockstat
T=${BENCH_PLK_THREADS:-4}
N=${BENCH_PLK_ITERS:-200000}
ROUNDS=${BENCH_PLK_ROUNDS:-5}
PLOCKSTAT=$BUILD/bin/plockstat

[ -x "$PLOCKSTAT" ] || die "$PLOCKSTAT not found: run make first"
[ "$(uname -m)" = x86_64 ] || { echo "SKIP benchmark 18: the plockstat provider is x86-64's"; exit 0; }
rm -rf "$OUT"
mkdir -p "$OUT"
run "$CC" -O2 -Wall -Wextra "$TOP/bench/plockstat/contend.c" -pthread -o "$OUT/contend"
LIBC=$(ldd "$OUT/contend" | awk '$1 ~ /^libc\.so/ { print $3 }')

VARIANTS=(off plockstat plockstat.A)
declare -A DESC=(
	[off]="untraced"
	[plockstat]="plockstat (contention)"
	[plockstat.A]="plockstat -A (contention and holds)"
	[uprobe]="bpftrace, uprobes: what -A times"
)
uprobe_why=$(uprobe_unavailable)
[ -z "$uprobe_why" ] && VARIANTS+=(uprobe)

UPROBES="uprobe:$LIBC:pthread_mutex_lock,uprobe:$LIBC:pthread_rwlock_rdlock,
uprobe:$LIBC:pthread_rwlock_wrlock { @s[tid] = nsecs; }
uretprobe:$LIBC:pthread_mutex_lock,uretprobe:$LIBC:pthread_rwlock_rdlock,
uretprobe:$LIBC:pthread_rwlock_wrlock /@s[tid]/ { @t[ustack(5)] = sum(nsecs - @s[tid]);
	delete(@s[tid]); }
uprobe:$LIBC:pthread_mutex_unlock,uprobe:$LIBC:pthread_rwlock_unlock { @u[ustack(5)] = count(); }"

measure() {
	local v=$1 log=$OUT/$1.log cmd="$OUT/contend $T $N"
	case $v in
	off) $cmd >"$log" 2>&1 ;;
	plockstat) "$PLOCKSTAT" $cmd >"$log" 2>&1 ;;
	plockstat.A) "$PLOCKSTAT" -A $cmd >"$log" 2>&1 ;;
	uprobe) bpftrace -e "$UPROBES" -c "$cmd" >"$log" 2>&1 ;;
	esac
	keep_fields "$v" "$log" ns cpu_ns
}

echo "udtrace plockstat benchmark: $("$DTRACE" -V 2>&1 | head -n 1)"
echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "$(uname -m), $(nproc) CPUs, Linux $(uname -r), $(ldd --version | head -n 1)"
have bpftrace && echo "bpftrace: $(bpftrace --version 2>&1 | head -n 1)"
[ -n "$uprobe_why" ] && echo "SKIP uprobe: $uprobe_why"
echo "SKIP perf lock: it reports the kernel's locks, not a process's pthread mutexes"
echo

interleave "$ROUNDS" "${VARIANTS[@]}"

declare -A NS CPU
for v in "${VARIANTS[@]}"; do
	NS[$v]=$(median <"$OUT/$v.ns" 2>/dev/null || echo nan)
	CPU[$v]=$(median <"$OUT/$v.cpu_ns" 2>/dev/null || echo nan)
done
echo "== 18. plockstat: $T threads, $N acquisitions of a mutex and of a rwlock each"
echo "   ns per acquisition: wall and the process's CPU, the median of $ROUNDS interleaved runs"
printf '   %-40s %10s %10s %10s\n' variant wall_ns cpu_ns slowdown
for v in "${VARIANTS[@]}"; do
	s=n/a
	[ "${NS[$v]}" != nan ] && [ "${NS[off]}" != nan ] &&
		s=$(calc "${NS[$v]} / ${NS[off]}" | awk '{ printf "%.2fx", $1 }')
	printf '   %-40s %10s %10s %10s\n' "${DESC[$v]}" "${NS[$v]}" "${CPU[$v]}" "$s"
done
if [ "${NS[uprobe]:-nan}" != nan ] && [ "${NS[plockstat.A]}" != nan ]; then
	echo "   plockstat -A against the uprobes doing its work: $(calc "${NS[uprobe]} / ${NS[plockstat.A]}" |
		awk '{ printf "%.1fx", $1 }') cheaper"
fi
