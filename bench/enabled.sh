#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The enabled-probe benchmark, measured against the alternatives in the same
# run: (3) ns per enabled probe with three integer arguments for udtrace,
# LTTng-UST and a bpftrace uprobe on a <sys/sdt.h> site, and against the
# floor (rdtsc and the record's store), then with an integer and a 32-byte
# string for udtrace (copyinstr()) and LTTng-UST (ctf_string), (4) udtrace with one
# and two threads, (5) drops and lost records at 1,000,000 events per second
# per thread under dtrace's default options. Times come from inside the
# program (bench/enabled/ev.c); the runner prints them with ratios and the
# targets; it never fails on a number. Builds into $BUILD/bench/enabled/.
#
# Environment: BUILD (default build), CC (default cc), BENCH_ENABLED_EVENTS
# (events per thread of a timed run, default 2000000), BENCH_ENABLED_ROUNDS
# (interleaved runs per variant, default 5), BENCH_UPROBE_EVENTS (events of a
# uprobe run, default 200000), BENCH_PACED_RATE (events per second per thread
# of section 5, default 1000000), BENCH_PACED_SECS (its seconds, default 2),
# BENCH_PACED_ALT (the options of section 5's last rows, default
# "-x switchrate=20hz").
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
OUT=$BUILD/bench/enabled
SRC=$TOP/bench/enabled
N=${BENCH_ENABLED_EVENTS:-2000000}
ROUNDS=${BENCH_ENABLED_ROUNDS:-5}
UPROBE_N=${BENCH_UPROBE_EVENTS:-200000}
RATE=${BENCH_PACED_RATE:-1000000}
SECS=${BENCH_PACED_SECS:-2}
PACED_ALT=${BENCH_PACED_ALT:--x switchrate=20hz}
CFLAGS_BENCH="-O2 -Wall -Wextra"
# A record of PROG: struct udt_rec (24 bytes, the timestamp in it) and three 8-byte values.
REC=48
PROG='bench*:::ev { trace(arg0); trace(arg1); trace(arg2); trace(timestamp); }'
# The string payload's row: an integer and the 32-byte string, copied into the record.
STR_PROG='bench*:::evs { trace(arg0); trace(copyinstr(arg1)); }'
# The same values with the arguments out of order: the direct path looks at each action
# (the row above copies consecutive arguments as a block: UDT_ECB_ARGS).
XPROG='bench*:::ev { trace(arg2); trace(arg0); trace(arg1); trace(timestamp); }'
# Section 5: one value a record, the thread's index (one digit of output).
PACED_PROG='bench*:::ev { trace(arg1); }'

# field FILE KEY: KEY's value on the RESULT line of FILE (ev.c's output)
# sum_of FILE: the sum of the numbers in FILE, one a line (0 if none)
sum_of() { awk '{ s += $1 } END { print s + 0 }' "$1"; }
# drops_in FILE, lost_in FILE: what dtrace reported on stderr
drops_in() { sed -n 's/^dtrace: \([0-9]*\) drops\{0,1\} on thread .*/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }'; }
lost_in() { sed -n 's/^dtrace: \([0-9]*\) records\{0,1\} lost.*/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }'; }
# mib BYTES: BYTES rounded up to MiB, at least 1
mib() { echo $((($1 + (1 << 20) - 1) >> 20 > 0 ? ($1 + (1 << 20) - 1) >> 20 : 1)); }
# pow2 N: the smallest power of two at least N
pow2() {
	local p=1
	while ((p < $1)); do p=$((p * 2)); done
	echo $p
}

[ -x "$DTRACE" ] || die "$DTRACE not found: run make first"
rm -rf "$OUT"
mkdir -p "$OUT"

###########################################################################
# Build: one program, three probe sites
###########################################################################

X=$OUT/bin
mkdir -p "$X"
run "$DTRACE" -h -s "$SRC/probes.d" -o "$X/probes.h"
# shellcheck disable=SC2086
run "$CC" $CFLAGS_BENCH -DBENCH_UDTRACE -I"$X" -c "$SRC/ev.c" -o "$X/ev-udtrace.o"
run "$DTRACE" -G -s "$SRC/probes.d" -o "$X/probes.o" "$X/ev-udtrace.o"
run "$CC" -O2 "$X/ev-udtrace.o" "$X/probes.o" -pthread -o "$X/ev-udtrace"
# shellcheck disable=SC2086
run "$CC" $CFLAGS_BENCH -DBENCH_UDTRACE -DBENCH_STR -I"$X" -c "$SRC/ev.c" -o "$X/ev-udtrace-str.o"
run "$DTRACE" -G -s "$SRC/probes.d" -o "$X/probes-str.o" "$X/ev-udtrace-str.o"
run "$CC" -O2 "$X/ev-udtrace-str.o" "$X/probes-str.o" -pthread -o "$X/ev-udtrace-str"

have_floor=0
if [ "$(uname -m)" = x86_64 ]; then
	# shellcheck disable=SC2086
	run "$CC" $CFLAGS_BENCH -DBENCH_FLOOR "$SRC/ev.c" -pthread -o "$X/ev-floor"
	have_floor=1
fi

have_sdt=1 sdt_why=
if ! echo '#include <sys/sdt.h>' | "$CC" -E -x c - >/dev/null 2>&1; then
	have_sdt=0 sdt_why="<sys/sdt.h> not found by $CC (apt-get install systemtap-sdt-dev)"
else
	# shellcheck disable=SC2086
	run "$CC" $CFLAGS_BENCH -DBENCH_SDT "$SRC/ev.c" -pthread -o "$X/ev-sdt"
fi

have_lttng=1 lttng_why=
if ! have lttng || ! have lttng-sessiond; then
	have_lttng=0 lttng_why="lttng not installed (apt-get install lttng-tools liblttng-ust-dev)"
elif ! echo '#include <lttng/tracepoint.h>' | "$CC" -E -x c - >/dev/null 2>&1; then
	have_lttng=0 lttng_why="<lttng/tracepoint.h> not found by $CC (apt-get install liblttng-ust-dev)"
else
	# shellcheck disable=SC2086
	run "$CC" $CFLAGS_BENCH -DBENCH_LTTNG -I"$SRC" -c "$SRC/ev.c" -o "$X/ev-lttng.o"
	run "$CC" -O2 -I"$SRC" -c "$SRC/tp.c" -o "$X/tp.o"
	run "$CC" "$X/ev-lttng.o" "$X/tp.o" -pthread -llttng-ust -ldl -o "$X/ev-lttng"
	# shellcheck disable=SC2086
	run "$CC" $CFLAGS_BENCH -DBENCH_LTTNG -DBENCH_STR -I"$SRC" -c "$SRC/ev.c" -o "$X/ev-lttng-str.o"
	run "$CC" "$X/ev-lttng-str.o" "$X/tp.o" -pthread -llttng-ust -ldl -o "$X/ev-lttng-str"
fi

have_bpftrace=1 bpftrace_why=
if [ $have_sdt = 0 ]; then
	have_bpftrace=0 bpftrace_why=$sdt_why
elif ! have bpftrace; then
	have_bpftrace=0 bpftrace_why="bpftrace not installed (apt-get install bpftrace)"
elif [ "$(id -u)" != 0 ]; then
	have_bpftrace=0 bpftrace_why="bpftrace needs root to load BPF programs"
fi

###########################################################################
# LTTng's session daemon: ours only if none was running
###########################################################################

LT_SESSION=udtrace-bench-$$
lt_started_pid=
cleanup() {
	if [ $have_lttng = 1 ]; then
		lttng destroy "$LT_SESSION" >/dev/null 2>&1
	fi
	if [ -n "$lt_started_pid" ] && kill "$lt_started_pid" 2>/dev/null; then
		# its consumer daemons leave with it
		for ((i = 0; i < 50; i++)); do
			kill -0 "$lt_started_pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
}
trap cleanup EXIT

if [ $have_lttng = 1 ] && ! lttng list >/dev/null 2>&1; then
	if lttng-sessiond --daemonize --pidfile="$OUT/lttng-sessiond.pid" >"$OUT/lttng-sessiond.log" 2>&1; then
		for ((i = 0; i < 50; i++)); do
			lttng list >/dev/null 2>&1 && break
			sleep 0.1
		done
		lt_started_pid=$(cat "$OUT/lttng-sessiond.pid" 2>/dev/null)
		if ! lttng list >/dev/null 2>&1; then
			have_lttng=0 lttng_why="lttng-sessiond started but does not answer: $(tail -n 1 "$OUT/lttng-sessiond.log")"
		fi
	else
		have_lttng=0 lttng_why="lttng-sessiond --daemonize failed: $(tail -n 1 "$OUT/lttng-sessiond.log")"
	fi
fi

###########################################################################
# The variants of sections 3 and 4
###########################################################################

# Buffer sizes: cold runs hold the whole run in one half (no drops, every
# record in memory touched for the first time); warm runs use a ring of
# dtrace's default bufsize (4m, like LTTng's 8 x 1M below), which the
# untimed pass before the timed one has written all over: the steady state
# of a trace, where a thread's buffers are reused.
COLD_B=$(mib $((N * REC * 5 / 4)))m
WARM_B=4m
# LTTng: per-CPU buffers of 16 sub-buffers holding a whole run (cold), a
# flight-recorder ring of 8 x 1 MiB per CPU (warm: snapshot session).
LT_SUBBUF=$(pow2 $(((N * 40 / 16 + (1 << 20) - 1) >> 20)))M

COLD_ARGS=(-q -b "$COLD_B" -n "$PROG")
WARM_ARGS=(-q -b "$WARM_B" -x bufpolicy=ring -n "$PROG")

declare -A DESC
VARIANTS=(udt.off udt.cold1 udt.cold2 udt.warm1 udt.warmx udt.warm2 udt.str)
DESC[udt.off]="udtrace, probe disabled (no consumer)"
DESC[udt.cold1]="udtrace cold: dtrace -b $COLD_B"
DESC[udt.cold2]="udtrace cold, 2 threads"
DESC[udt.warm1]="udtrace warm: dtrace -b $WARM_B, ring"
DESC[udt.warmx]="udtrace warm, arg2, arg0, arg1"
DESC[udt.warm2]="udtrace warm, 2 threads"
DESC[udt.str]="udtrace warm, integer + 32-byte string"
if [ $have_lttng = 1 ]; then
	VARIANTS+=(lt.off lt.cold1 lt.warm1 lt.str)
	DESC[lt.off]="LTTng-UST, event not enabled"
	DESC[lt.cold1]="LTTng-UST cold: session, 16 x $LT_SUBBUF"
	DESC[lt.warm1]="LTTng-UST warm: snapshot, 8 x 1M"
	DESC[lt.str]="LTTng-UST warm, integer + 32-byte string"
fi
if [ $have_floor = 1 ]; then
	VARIANTS+=(floor)
	DESC[floor]="floor: rdtsc + 48-byte store, 4 MiB ring"
fi
if [ $have_sdt = 1 ]; then
	VARIANTS+=(sdt.off)
	DESC[sdt.off]="<sys/sdt.h> site, no tracer"
fi
if [ $have_bpftrace = 1 ]; then
	VARIANTS+=(uprobe)
	DESC[uprobe]="bpftrace usdt uprobe, $UPROBE_N events"
fi

# keep V LOG: file the RESULT of LOG under variant V (ns, cpu, faults per event)
keep() {
	local v=$1 log=$2 ev
	ev=$(field "$log" events)
	if [ -z "$ev" ]; then
		echo "   bench: $v gave no result:" >&2
		tail -n 5 "$log" | sed 's/^/      /' >&2
		return 1
	fi
	field "$log" ns >>"$OUT/$v.ns"
	field "$log" cpu_ns >>"$OUT/$v.cpu"
	field "$log" best_ns >>"$OUT/$v.best"
	calc "$(field "$log" faults) / $ev" >>"$OUT/$v.faults"
}

# under_dtrace V ARGS...: dtrace ARGS, its stderr kept apart; drops and lost filed
under_dtrace() {
	local v=$1 log=$OUT/$1.log err=$OUT/$1.err
	shift
	"$DTRACE" "$@" >"$log" 2>"$err" || echo "   bench: dtrace exited $? in $v: $(grep -v '^dtrace: [0-9]' "$err" | tail -n 1)" >&2
	drops_in "$err" >>"$OUT/$v.drops"
	lost_in "$err" >>"$OUT/$v.lost"
	grep -h 'buffer size lowered' "$err" >>"$OUT/$v.notes"
	keep "$v" "$log"
}

# under_lttng V MODE CMD...: CMD in an LTTng session (MODE cold: to disk;
# warm: snapshot) of the event LT_EVENT (bench:ev by default); discarded
# events and the trace's size filed
under_lttng() {
	local v=$1 mode=$2 log=$OUT/$1.log dir=$OUT/lttng-trace ch=()
	shift 2
	rm -rf "$dir"
	if [ "$mode" = cold ]; then
		ch=(--subbuf-size="$LT_SUBBUF" --num-subbuf=16)
		lttng create "$LT_SESSION" --output="$dir" >"$log" 2>&1
	else
		ch=(--overwrite --subbuf-size=1M --num-subbuf=8)
		lttng create "$LT_SESSION" --snapshot --output="$dir" >"$log" 2>&1
	fi &&
		lttng enable-channel -u "${ch[@]}" ch >>"$log" 2>&1 &&
		lttng enable-event -u -c ch "${LT_EVENT:-bench:ev}" >>"$log" 2>&1 &&
		lttng start >>"$log" 2>&1 || {
		echo "   bench: lttng session setup failed in $v: $(tail -n 1 "$log")" >&2
		lttng destroy "$LT_SESSION" >/dev/null 2>&1
		return 1
	}
	"$@" >>"$log" 2>&1
	lttng stop "$LT_SESSION" >>"$log" 2>&1
	lttng list "$LT_SESSION" >>"$log" 2>&1
	sed -n 's/.*Discarded events: *\([0-9]*\).*/\1/p' "$log" | awk '{ s += $1 } END { print s + 0 }' >>"$OUT/$v.drops"
	lttng destroy "$LT_SESSION" >>"$log" 2>&1
	if [ "$mode" = cold ]; then
		du -sb "$dir" | awk '{ print $1 }' >>"$OUT/$v.bytes"
	fi
	rm -rf "$dir"
	keep "$v" "$log"
}

# measure V: one run of variant V
measure() {
	local v=$1 log=$OUT/$1.log
	case $v in
	udt.off) "$X/ev-udtrace" "$N" >"$log" 2>&1 && keep "$v" "$log" ;;
	udt.cold1) under_dtrace "$v" "${COLD_ARGS[@]}" -o /dev/null -c "$X/ev-udtrace $N 1" ;;
	udt.cold2) under_dtrace "$v" "${COLD_ARGS[@]}" -o /dev/null -c "$X/ev-udtrace $N 2" ;;
	udt.warm1) under_dtrace "$v" "${WARM_ARGS[@]}" -o /dev/null -c "$X/ev-udtrace $N 1 0 1 0" ;;
	udt.warm2) under_dtrace "$v" "${WARM_ARGS[@]}" -o /dev/null -c "$X/ev-udtrace $N 2 0 1 0" ;;
	udt.warmx)
		under_dtrace "$v" -q -b "$WARM_B" -x bufpolicy=ring -n "$XPROG" -o /dev/null \
			-c "$X/ev-udtrace $N 1 0 1 0"
		;;
	udt.str)
		under_dtrace "$v" -q -b "$WARM_B" -x bufpolicy=ring -n "$STR_PROG" -o /dev/null \
			-c "$X/ev-udtrace-str $N 1 0 1 0"
		;;
	lt.off) "$X/ev-lttng" "$N" >"$log" 2>&1 && keep "$v" "$log" ;;
	lt.cold1) under_lttng "$v" cold "$X/ev-lttng" "$N" ;;
	lt.warm1) under_lttng "$v" warm "$X/ev-lttng" "$N" 1 0 1 0 ;;
	lt.str) LT_EVENT=bench:evs under_lttng "$v" warm "$X/ev-lttng-str" "$N" 1 0 1 0 ;;
	sdt.off) "$X/ev-sdt" "$N" >"$log" 2>&1 && keep "$v" "$log" ;;
	floor) "$X/ev-floor" "$N" 1 0 1 0 >"$log" 2>&1 && keep "$v" "$log" ;;
	uprobe)
		bpftrace -e "usdt:$X/ev-sdt:bench:ev { @n = count(); @s = sum(arg0 + arg1 + arg2); }" \
			-c "$X/ev-sdt $UPROBE_N" >"$log" 2>"$OUT/$v.err"
		sed -n 's/^@n: *\([0-9]*\).*/\1/p' "$log" >>"$OUT/$v.counted"
		keep "$v" "$log" || echo "   bench: bpftrace: $(grep -v RLIMIT_MEMLOCK "$OUT/$v.err" | tail -n 1)" >&2
		;;
	esac
}

echo "udtrace enabled-probe benchmark: $("$DTRACE" --version 2>&1 | head -n 1)"
echo "compiler: $("$CC" --version | head -n 1), $CFLAGS_BENCH; $(uname -m), $(nproc) CPUs, Linux $(uname -r)"
echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
[ $have_lttng = 1 ] && echo "LTTng: $(lttng --version 2>&1 | head -n 1)"
[ $have_bpftrace = 1 ] && echo "bpftrace: $(bpftrace --version 2>&1 | head -n 1)"
[ $have_lttng = 0 ] && echo "SKIP LTTng-UST: $lttng_why"
[ $have_bpftrace = 0 ] && echo "SKIP uprobe: $bpftrace_why"
echo

for ((r = 0; r < ROUNDS; r++)); do
	for ((i = 0; i < ${#VARIANTS[@]}; i++)); do
		measure "${VARIANTS[$(((i + r) % ${#VARIANTS[@]}))]}"
	done
done

declare -A NS CPU BEST FLT
for v in "${VARIANTS[@]}"; do
	NS[$v]=$(median <"$OUT/$v.ns" 2>/dev/null || echo nan)
	CPU[$v]=$(median <"$OUT/$v.cpu" 2>/dev/null || echo nan)
	BEST[$v]=$(median <"$OUT/$v.best" 2>/dev/null || echo nan)
	FLT[$v]=$(median <"$OUT/$v.faults" 2>/dev/null || echo nan)
done
# ok V: variant V ran and has a number
ok() { [ -n "${NS[$1]:-}" ] && [ "${NS[$1]}" != nan ]; }
# ratio A B: A's ns / B's ns, to two decimals, or n/a
ratio() {
	if ok "$1" && ok "$2"; then
		awk "BEGIN { printf \"%.2f\", ${NS[$1]} / ${NS[$2]} }"
	else
		echo n/a
	fi
}
# cratio A B: the same of the threads' own CPU time per event
cratio() {
	if ok "$1" && ok "$2"; then
		awk "BEGIN { printf \"%.2f\", ${CPU[$1]} / ${CPU[$2]} }"
	else
		echo n/a
	fi
}

###########################################################################
# 3. ns per enabled probe
###########################################################################

echo "== 3. enabled probe: bench:ev(long, long, long), $N events in a tight loop, 1 thread"
echo "   udtrace: dtrace -q -b $COLD_B -n '$PROG' -o /dev/null -c 'ev $N'"
echo "     (cold; warm adds -x bufpolicy=ring with -b $WARM_B), each record $REC bytes;"
echo "     warm, arg2, arg0, arg1: '$XPROG'"
[ $have_lttng = 1 ] &&
	echo "   LTTng-UST: lttng enable-event -u bench:ev (3 integer fields; LTTng adds its timestamp)"
[ $have_bpftrace = 1 ] &&
	echo "   uprobe: bpftrace -e 'usdt:ev-sdt:bench:ev { @n = count(); @s = sum(arg0 + arg1 + arg2); }'"
echo "   ns: clock_gettime around the loop, per event; best 1/10: the fastest tenth of the"
echo "   loop; cpu ns: the thread's CPU time; each the median of $ROUNDS interleaved runs"
echo "   cold: buffers that hold the whole run, each record in memory touched for the first"
echo "   time; warm: the timed pass follows an untimed one, in memory already written"
printf '   %-40s %9s %9s %9s %9s\n' variant ns/event "best 1/10" "cpu ns" faults/ev
for v in "${VARIANTS[@]}"; do
	case $v in *2 | *.str) continue ;; esac
	printf '   %-40s %9.2f %9.2f %9.2f %9.4f\n' "${DESC[$v]}" "${NS[$v]}" "${BEST[$v]}" \
		"${CPU[$v]}" "${FLT[$v]}"
done
[ $have_lttng = 0 ] && echo "   SKIP LTTng-UST: $lttng_why"
[ $have_bpftrace = 0 ] && echo "   SKIP uprobe: $bpftrace_why"

echo "   recorded (all runs):"
printf '   %-32s %s drops, %s lost in %d runs of %d events\n' "udtrace cold, 1 thread" \
	"$(sum_of "$OUT/udt.cold1.drops")" "$(sum_of "$OUT/udt.cold1.lost")" "$ROUNDS" "$N"
printf '   %-32s %s drops, %s lost in %d runs of %d events\n' "udtrace cold, 2 threads" \
	"$(sum_of "$OUT/udt.cold2.drops")" "$(sum_of "$OUT/udt.cold2.lost")" "$ROUNDS" $((2 * N))
printf '   %-32s %s drops, %s lost (a ring keeps the newest records)\n' "udtrace warm, 1 and 2 threads" \
	$(($(sum_of "$OUT/udt.warm1.drops") + $(sum_of "$OUT/udt.warm2.drops"))) \
	$(($(sum_of "$OUT/udt.warm1.lost") + $(sum_of "$OUT/udt.warm2.lost")))
cat "$OUT"/udt.*.notes 2>/dev/null | sort -u | sed 's/^/   note: /'
if [ $have_lttng = 1 ] && ok lt.cold1; then
	printf '   %-32s %s discarded events in %d runs; %.1f bytes of trace per event\n' "LTTng-UST cold" \
		"$(sum_of "$OUT/lt.cold1.drops")" "$ROUNDS" "$(calc "$(median <"$OUT/lt.cold1.bytes") / $N")"
fi
if [ $have_bpftrace = 1 ] && ok uprobe; then
	printf '   %-32s @n = %s (fired %d a run)\n' "uprobe" \
		"$(sort -u "$OUT/uprobe.counted" | tr '\n' ' ' | sed 's/ $//')" "$UPROBE_N"
fi

echo "   ratios (the other's per event / udtrace's; above 1: udtrace is cheaper), of the"
echo "   wall ns and of the thread's own cpu ns (wall time also counts the other work of a"
echo "   shared machine, and LTTng's and dtrace's daemons on these $(nproc) CPUs)"
# the pairs compared: udtrace's variant, its label, LTTng-UST's variant
PAIRS=("udt.cold1 cold lt.cold1" "udt.warm1 warm lt.warm1")
for p in "${PAIRS[@]}"; do
	read -r u k l <<<"$p"
	[ $have_lttng = 1 ] && printf '   %-32s %8sx wall %8sx cpu\n' "LTTng-UST / udtrace, $k" \
		"$(ratio "$l" "$u")" "$(cratio "$l" "$u")"
done
for p in "${PAIRS[@]}"; do
	read -r u k l <<<"$p"
	[ $have_bpftrace = 1 ] && printf '   %-32s %8sx wall %8sx cpu\n' "uprobe / udtrace, $k" \
		"$(ratio uprobe "$u")" "$(cratio uprobe "$u")"
done
[ $have_floor = 1 ] && printf '   %-32s %8sx (what the probe path adds to the floor)\n' \
	"udtrace warm / floor" "$(ratio udt.warm1 floor)"
[ $have_floor = 1 ] && printf '   %-32s %8sx (arguments out of order: each action looked at)\n' \
	"udtrace warm, reordered / floor" "$(ratio udt.warmx floor)"
echo "   a string payload: bench:evs(long, char *), an integer and a 32-byte string, warm"
echo "   udtrace: dtrace -q -b $WARM_B -x bufpolicy=ring -n '$STR_PROG'"
echo "     (the string copied into the record: its bytes and NUL, up to strsize, 256)"
[ $have_lttng = 1 ] &&
	echo "   LTTng-UST: lttng enable-event -u bench:evs (ctf_integer and ctf_string), snapshot, 8 x 1M"
for v in udt.str lt.str; do
	[ -n "${DESC[$v]:-}" ] || continue
	printf '   %-40s %9.2f %9.2f %9.2f %9.4f\n' "${DESC[$v]}" "${NS[$v]}" "${BEST[$v]}" \
		"${CPU[$v]}" "${FLT[$v]}"
done
echo

###########################################################################
# 4. threads
###########################################################################

echo "== 4. udtrace with 1 and 2 threads, each firing $N events (same runs as above)"
echo "   cpu ns: the thread's own CPU time (CLOCK_THREAD_CPUTIME_ID) per event; wall ns"
echo "   also counts time the thread waited for a CPU ($(nproc) CPUs, the consumer included)"
printf '   %-10s %8s %14s %14s\n' buffers threads "cpu ns/event" "wall ns/event"
for k in cold warm; do
	for t in 1 2; do
		printf '   %-10s %8d %14.2f %14.2f\n' "$k" "$t" "${CPU[udt.$k$t]}" "${NS[udt.$k$t]}"
	done
done
declare -A TR
for k in cold warm; do
	TR[$k]=$(calc "${CPU[udt.${k}2]} / ${CPU[udt.${k}1]}")
	printf '   2 threads / 1 thread, %s: %.3f in cpu ns, %s in wall ns\n' "$k" "${TR[$k]}" \
		"$(ratio udt.${k}2 udt.${k}1)"
done
echo

###########################################################################
# 5. 1M events/s per thread, default options
###########################################################################

PN=$((RATE * SECS))
echo "== 5. paced: each thread fires $RATE events/s for $SECS s ($PN events), recorded?"
echo "   dtrace -q -n '$PACED_PROG' -o FILE -c 'ev $PN THREADS $RATE'"
echo "   recorded: the bytes of FILE (one digit, the thread's index, a record)"
printf '   %-22s %7s %9s %9s %9s %7s %9s\n' options threads fired recorded drops lost "events/s"
declare -A PACED
# paced TAG THREADS LABEL OPTS...: one run with dtrace options OPTS; a row of the table
paced() {
	local tag=$1 t=$2 label=$3 f=$OUT/paced.$1.$2.out log=$OUT/paced.$1.$2.log err=$OUT/paced.$1.$2.err
	shift 3
	rm -f "$f" # -o appends
	"$DTRACE" -q "$@" -n "$PACED_PROG" -o "$f" -c "$X/ev-udtrace $PN $t $RATE" >"$log" 2>"$err"
	local fired rec drops lost secs
	fired=$(field "$log" events)
	rec=$(tr -cd '0-9' <"$f" 2>/dev/null | wc -c)
	drops=$(drops_in "$err")
	lost=$(lost_in "$err")
	secs=$(field "$log" secs)
	[ -n "$fired" ] || { echo "   bench: paced run gave no result: $(tail -n 1 "$err")" >&2; fired=0 secs=1; }
	printf '   %-22s %7d %9d %9d %9d %7d %9.0f\n' "$label" "$t" "$fired" "$rec" "$drops" \
		"$lost" "$(calc "$fired / $t / $secs")"
	PACED[$tag.$t]="$rec of $fired recorded, $drops drops, $lost lost"
	if [ "$rec" = "$fired" ] && [ "$drops" = 0 ] && [ "$lost" = 0 ]; then
		PACED[$tag.$t.ok]=PASS
	else
		PACED[$tag.$t.ok]=MISS
	fi
}
paced def 1 default
paced def 2 default
# shellcheck disable=SC2086
paced alt 1 "$PACED_ALT" $PACED_ALT
# shellcheck disable=SC2086
paced alt 2 "$PACED_ALT" $PACED_ALT
echo "   events/s: fired per thread over the longest thread's time (the pace kept?)"
echo

###########################################################################
# Summary
###########################################################################

# verdict VALUE OP TARGET: PASS or MISS (n/a when not measured)
verdict() {
	[ "$1" = n/a ] && { echo n/a; return; }
	if awk "BEGIN { exit !($1 $2 $3) }"; then echo PASS; else echo MISS; fi
}
# judged KIND RATIO TARGET: the verdict for warm runs; cold ones are reported only
judged() {
	if [ "$1" = cold ]; then echo "first touch, not judged"; else verdict "$2" '>=' "$3"; fi
}
echo "== summary, enabled probes (targets: at least 5x cheaper than LTTng-UST and 30x than"
echo "   a uprobe per event, 3x than LTTng-UST on an integer and a 32-byte string; the warm"
echo "   record at most 1.6x the floor; 2 threads within 10% of 1 thread per event; no drops"
echo "   at 1M events/s per thread with default options). Per event: the thread's own CPU time"
echo "   (the median of the runs), which the machine's other work disturbs least; judged"
echo "   warm, the steady state: a cold event also pays the kernel for a fresh page every"
echo "   85 records, which LTTng-UST pays before its session starts (docs/benchmarks.md)"
for p in "${PAIRS[@]}"; do
	read -r u k l <<<"$p"
	if [ $have_lttng = 1 ]; then
		x=$(cratio "$l" "$u")
		printf 'vs LTTng-UST, %s: udtrace %.2f ns, LTTng-UST %.2f ns per event: %sx (target 5x): %s\n' \
			"$k" "${CPU[$u]}" "${CPU[$l]}" "$x" "$(judged "$k" "$x" 5)"
	else
		echo "vs LTTng-UST, $k: SKIP ($lttng_why)"
	fi
done
for p in "${PAIRS[@]}"; do
	read -r u k l <<<"$p"
	if [ $have_bpftrace = 1 ]; then
		x=$(cratio uprobe "$u")
		printf 'vs uprobe, %s: udtrace %.2f ns, uprobe %.2f ns per event: %sx (target 30x): %s\n' \
			"$k" "${CPU[$u]}" "${CPU[uprobe]}" "$x" "$(judged "$k" "$x" 30)"
	else
		echo "vs uprobe, $k: SKIP ($bpftrace_why)"
	fi
done
if [ $have_lttng = 1 ]; then
	x=$(cratio lt.str udt.str)
	printf 'vs LTTng-UST, an integer and a 32-byte string, warm: udtrace %.2f ns, LTTng-UST %.2f ns per event: %sx (target 3x): %s\n' \
		"${CPU[udt.str]}" "${CPU[lt.str]}" "$x" "$(verdict "$x" '>=' 3)"
else
	echo "vs LTTng-UST, an integer and a 32-byte string: SKIP ($lttng_why)"
fi
if [ $have_floor = 1 ]; then
	x=$(cratio udt.warm1 floor)
	printf 'udtrace warm / floor: %.2f ns / %.2f ns per event: %sx (target at most 1.6x): %s\n' \
		"${CPU[udt.warm1]}" "${CPU[floor]}" "$x" "$(verdict "$x" '<=' 1.6)"
fi
for k in cold warm; do
	printf '2 threads / 1 thread, %s, cpu ns per event: %.3f (target at most 1.10): %s\n' \
		"$k" "${TR[$k]}" "$(verdict "${TR[$k]}" '<=' 1.10)"
done
for t in 1 2; do
	printf '%d events/s x %d thread(s), default options: %s: %s\n' "$RATE" "$t" \
		"${PACED[def.$t]}" "${PACED[def.$t.ok]}"
done
for t in 1 2; do
	printf '  the same with %s: %s\n' "$PACED_ALT" "${PACED[alt.$t]}"
done
exit 0
