#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmarks against SystemTap's dtrace script, measured in the same run:
# (1) the cost of a disabled probe site (callgrind instructions and ns per
# call), (2) the speed of dtrace -h and -G on a 479-probe provider; then
# bench/enabled.sh, the enabled-probe benchmark (3 to 5, against LTTng-UST and
# a uprobe), bench/http.sh, the sample HTTP server's throughput with and
# without tracing (6), bench/dynprov.sh, dynamic probes (7), bench/dlang.sh,
# what D clauses cost at a probe (8), bench/profile.sh, what profiling at
# 997 Hz costs (9), bench/dynvar.sh (11), bench/inject.sh, what loading the
# runtime into a running process costs (12), and bench/notes.sh, an enabled
# SystemTap site against a uprobe (13), bench/output.sh, what each output
# format costs the consumer (14), and bench/scale.sh, a session's events per
# second and memory with up to 10,000 threads at once and 100,000 in turn (15),
# bench/procs.sh, what following many processes costs dtrace (16), and
# bench/pid.sh, the pid provider against uprobes (17), bench/plockstat.sh,
# plockstat(1) on a contended workload (18), and bench/idle.sh, what an idle
# session costs the host (19). Prints ratios; never
# fails on a number. Builds into $BUILD/bench/.
#
# Environment: BUILD (default build), CC (default cc), STAP_DTRACE (default
# /usr/bin/dtrace), BENCH_ITERS (calls per timed run, default 50000000),
# BENCH_ROUNDS (timed runs per variant, default 11), BENCH_NO_HYPERFINE=1 (time
# the tools with a bash loop even when hyperfine is installed), BENCH_TOOL_RUNS
# (runs per command in that loop, default 15).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
STAP_DTRACE=${STAP_DTRACE:-/usr/bin/dtrace}
export CC
OUT=$BUILD/bench
ITERS=${BENCH_ITERS:-50000000}
ROUNDS=${BENCH_ROUNDS:-11}
TOOL_RUNS=${BENCH_TOOL_RUNS:-15}
CFLAGS_BENCH="-O2 -Wall -Wextra"
CORPUS_FILE=$TOP/tests/corpus/openjdk__hotspot_jni.d

# run_enabled: the enabled-probe benchmark, which needs no SystemTap script
run_enabled() {
	BUILD=$BUILD CC=$CC bash "$TOP/bench/enabled.sh" || echo "bench: bench/enabled.sh failed"
}
# run_dynprov: dynamic probes against .d probes (bench/dynprov.sh), which needs none either
run_dynprov() {
	BUILD=$BUILD CC=$CC bash "$TOP/bench/dynprov.sh" || echo "bench: bench/dynprov.sh failed"
}
# run_http: the HTTP server's benchmark, which needs none either
run_http() {
	BUILD=$BUILD CC=$CC bash "$TOP/bench/http.sh" || echo "bench: bench/http.sh failed"
}
# run_dlang: the D clauses' benchmark, nor does it
run_dlang() {
	BUILD=$BUILD CC=$CC bash "$TOP/bench/dlang.sh" || echo "bench: bench/dlang.sh failed"
}
# run_dynvar: what variables, associative arrays and strings cost (bench/dynvar.sh)
run_dynvar() {
	BUILD=$BUILD CC=$CC bash "$TOP/bench/dynvar.sh" || echo "bench: bench/dynvar.sh failed"
}
# run_notes: an enabled SystemTap site, jumped and trapped, against a uprobe (bench/notes.sh)
run_notes() {
	BUILD=$BUILD CC=$CC bash "$TOP/bench/notes.sh" || echo "bench: bench/notes.sh failed"
}
# run_output: what each output format costs the consumer (bench/output.sh)
run_output() {
	BUILD=$BUILD CC=$CC bash "$TOP/bench/output.sh" || echo "bench: bench/output.sh failed"
}
# run_scale: a session's events per second and memory with many threads (bench/scale.sh)
run_scale() {
	BUILD=$BUILD CC=$CC bash "$TOP/bench/scale.sh" || echo "bench: bench/scale.sh failed"
}
# run_procs: what following many processes costs dtrace (bench/procs.sh)
run_procs() {
	BUILD=$BUILD CC=$CC bash "$TOP/bench/procs.sh" || echo "bench: bench/procs.sh failed"
}
# run_profile: what profiling costs (bench/profile.sh), which needs none either
run_profile() {
	BUILD=$BUILD CC=$CC bash "$TOP/bench/profile.sh" || echo "bench: bench/profile.sh failed"
}
# run_inject: what loading the runtime into a running process costs (bench/inject.sh)
run_inject() {
	BUILD=$BUILD CC=$CC bash "$TOP/bench/inject.sh" || echo "bench: bench/inject.sh failed"
}
# run_pid: what the pid provider costs (bench/pid.sh)
run_pid() {
	BUILD=$BUILD CC=$CC bash "$TOP/bench/pid.sh" || echo "bench: bench/pid.sh failed"
}
# run_plockstat: what plockstat(1) costs a contended workload (bench/plockstat.sh)
run_plockstat() {
	BUILD=$BUILD CC=$CC bash "$TOP/bench/plockstat.sh" || echo "bench: bench/plockstat.sh failed"
}
# run_idle: what an idle session costs, against bpftrace (bench/idle.sh)
run_idle() {
	BUILD=$BUILD CC=$CC bash "$TOP/bench/idle.sh" || echo "bench: bench/idle.sh failed"
}
# run_others: the benchmarks that need no SystemTap script, each after a blank line
run_others() {
	local b
	for b in enabled http dynprov dlang dynvar notes output scale procs profile inject pid plockstat idle; do
		echo
		"run_$b"
	done
}

[ -x "$DTRACE" ] || die "$DTRACE not found: run make first"

# SystemTap's dtrace is a Python script (Debian: systemtap-sdt-dev); its
# -h header needs <sys/sdt.h>.
if ! [ -x "$STAP_DTRACE" ] || ! head -n 1 "$STAP_DTRACE" | grep -q python; then
	echo "SKIP benchmarks 1 and 2: SystemTap's dtrace script not found at $STAP_DTRACE"
	echo "     (install systemtap-sdt-dev, or set STAP_DTRACE); there is nothing to compare against"
	run_others
	exit 0
fi
if ! echo '#include <sys/sdt.h>' | "$CC" -E -x c - >/dev/null 2>&1; then
	echo "SKIP benchmarks 1 and 2: <sys/sdt.h> not found by $CC (install systemtap-sdt-dev)"
	run_others
	exit 0
fi
have_valgrind=1
if ! have valgrind; then
	have_valgrind=0
	echo "SKIP instruction counts: valgrind not found (install valgrind); timing only"
fi

rm -rf "$OUT"
mkdir -p "$OUT"

echo "udtrace benchmarks: $("$DTRACE" --version 2>&1 | head -n 1) against SystemTap's $STAP_DTRACE"
echo "compiler: $("$CC" --version | head -n 1), $CFLAGS_BENCH; $(uname -m), $(nproc) CPUs"
echo

###########################################################################
# 1. Disabled-probe cost
###########################################################################

D=$OUT/disabled
mkdir -p "$D/hdr-udtrace" "$D/hdr-systemtap"
run "$DTRACE" -h -s "$TOP/bench/probes.d" -o "$D/hdr-udtrace/probes.h"
(cd "$D/hdr-systemtap" && run "$STAP_DTRACE" -h -s "$TOP/bench/probes.d" -o probes.h) || exit 1
# SystemTap's -G ignores objects and compiles the semaphores with $CC -fPIC:
# one object serves both the executable and the shared library.
(cd "$D/hdr-systemtap" && run "$STAP_DTRACE" -G -s "$TOP/bench/probes.d" -o probes.o) || exit 1
# shellcheck disable=SC2086
run "$CC" $CFLAGS_BENCH -c "$TOP/bench/loop.c" -o "$D/loop.o"

# Variants: name, header (none, udtrace, systemtap), site.c flags, label.
VARIANTS="
empty none -DBENCH_EMPTY
systemtap systemtap -DBENCH_GUARDED
udtrace udtrace -UBENCH_GUARDED
udtrace-guarded udtrace -DBENCH_GUARDED
"
declare -A LABEL=(
	[empty]="empty function (the call alone)"
	[systemtap]="systemtap  if (X_ENABLED()) X(...)"
	[udtrace]="udtrace    X(...)"
	[udtrace-guarded]="udtrace    if (X_ENABLED()) X(...)"
)
names=()
# build_variant NAME HDR FLAG: $D/NAME/exe (PIE executable) and $D/NAME/so
# (the site in a shared library, libsite.so)
build_variant() {
	local name=$1 hdr=$2 flag=$3 dir=$D/$1 inc=()
	mkdir -p "$dir"
	[ "$hdr" != none ] && inc=(-I"$D/hdr-$hdr")
	# shellcheck disable=SC2086
	run "$CC" $CFLAGS_BENCH "$flag" "${inc[@]}" -c "$TOP/bench/site.c" -o "$dir/site.o"
	# shellcheck disable=SC2086
	run "$CC" $CFLAGS_BENCH -fPIC "$flag" "${inc[@]}" -c "$TOP/bench/site.c" -o "$dir/site.pic.o"
	local g=() gpic=()
	case $hdr in
	udtrace)
		run "$DTRACE" -G -s "$TOP/bench/probes.d" -o "$dir/probes.o" "$dir/site.o"
		run "$DTRACE" -G -s "$TOP/bench/probes.d" -o "$dir/probes.pic.o" "$dir/site.pic.o"
		g=("$dir/probes.o") gpic=("$dir/probes.pic.o")
		;;
	systemtap)
		g=("$D/hdr-systemtap/probes.o") gpic=("$D/hdr-systemtap/probes.o")
		;;
	esac
	run "$CC" -O2 "$D/loop.o" "$dir/site.o" "${g[@]}" -o "$dir/exe"
	run "$CC" -O2 -shared "$dir/site.pic.o" "${gpic[@]}" -o "$dir/libsite.so"
	run "$CC" -O2 "$D/loop.o" -L"$dir" -lsite -Wl,-rpath,"$dir" -o "$dir/so"
}
while read -r name hdr flag; do
	[ -n "$name" ] || continue
	build_variant "$name" "$hdr" "$flag"
	names+=("$name")
done <<<"$VARIANTS"

# disasm PROG: objdump of bench_site alone
disasm() {
	objdump -d --no-show-raw-insn --disassemble=bench_site "$1" |
		awk '/<bench_site>:/ { p = 1 } p && /^$/ { exit } p'
}
# disasm_disabled PROG: bench_site up to its first ret (the disabled path)
disasm_disabled() {
	disasm "$1" | awk '{ print } /\tret/ { exit }'
}

# Instructions per call: callgrind counts only inside bench_site
# (--toggle-collect); the difference between two iteration counts divided by
# the difference in calls is exact and free of any one-off cost.
declare -A IR
ir_of() {
	local prog=$1 n=$2 f=$OUT/disabled/cg.$$.out
	valgrind --tool=callgrind --toggle-collect=bench_site --callgrind-out-file="$f" \
		"$prog" "$n" >/dev/null 2>&1 || { echo nan; return; }
	awk '/^summary:/ { print $2; exit }' "$f"
	rm -f "$f"
}
if [ $have_valgrind = 1 ]; then
	N1=10000 N2=30000
	for name in "${names[@]}"; do
		for kind in exe so; do
			a=$(ir_of "$D/$name/$kind" $N1)
			b=$(ir_of "$D/$name/$kind" $N2)
			IR[$name.$kind]=$(calc "($b - $a) / ($N2 - $N1)")
		done
	done
fi

# ns per call: ROUNDS rounds, each running every program once (the order
# rotated from round to round); each run reports its fastest tenth (loop.c),
# and each program gets the median of its runs.
progs=()
for name in "${names[@]}"; do progs+=("$name.exe" "$name.so"); done
for ((r = 0; r < ROUNDS; r++)); do
	for ((i = 0; i < ${#progs[@]}; i++)); do
		p=${progs[$(((i + r) % ${#progs[@]}))]}
		"$D/${p%.*}/${p##*.}" "$ITERS" time >>"$D/$p.ns" || die "$p failed"
	done
done
declare -A NS
for p in "${progs[@]}"; do NS[$p]=$(median <"$D/$p.ns"); done

echo "== 1. disabled probe site: bench_site(int, const char *, long), $ITERS calls"
echo "   instr: callgrind Ir inside bench_site per call (the call itself not counted);"
echo "   ns: clock_gettime per call, call and loop included: the median of $ROUNDS"
echo "   interleaved runs, each run's fastest tenth"
for kind in exe so; do
	if [ $kind = exe ]; then echo "   -- site in the executable (PIE)"; else echo "   -- site in a shared library (-fPIC)"; fi
	printf '   %-40s %6s %9s %14s\n' variant instr ns/call "vs systemtap"
	for name in "${names[@]}"; do
		ns=${NS[$name.$kind]}
		printf '   %-40s %6s %9.3f %14.3f\n' "${LABEL[$name]}" "${IR[$name.$kind]:-n/a}" \
			"$ns" "$(calc "$ns / ${NS[systemtap.$kind]}")"
	done
done
echo

echo "   bench_site disassembled (objdump -d):"
echo "   -- systemtap, guarded, executable"
disasm "$D/systemtap/exe" | sed 's/^/   /'
echo "   -- udtrace, X(...), executable"
disasm "$D/udtrace/exe" | sed 's/^/   /'
if diff <(disasm "$D/udtrace/exe" | cut -f2-) <(disasm "$D/udtrace-guarded/exe" | cut -f2-) >/dev/null; then
	echo "   -- udtrace, if (X_ENABLED()) X(...), executable: the same instructions as X(...)"
else
	echo "   -- udtrace, if (X_ENABLED()) X(...), executable"
	disasm "$D/udtrace-guarded/exe" | sed 's/^/   /'
fi
echo "   -- systemtap, guarded, shared library (disabled path)"
disasm_disabled "$D/systemtap/libsite.so" | sed 's/^/   /'
echo "   -- udtrace, X(...), shared library (disabled path)"
disasm_disabled "$D/udtrace/libsite.so" | sed 's/^/   /'
echo

###########################################################################
# 2. Build-tool speed
###########################################################################

T=$OUT/tools
mkdir -p "$T"
nprobes=$(grep -c '^[[:space:]]*probe[[:space:]]' "$CORPUS_FILE")
# The object both -G commands get: one file firing one probe (SystemTap's
# script ignores objects; ours reads their notes).
run "$DTRACE" -h -s "$CORPUS_FILE" -o "$T/hotspot_jni.h"
# shellcheck disable=SC2086
run "$CC" $CFLAGS_BENCH -fPIC -I"$T" -c "$TOP/bench/jni_fire.c" -o "$T/fire.o"

TOOL_CMDS=(
	"udtrace-h|$DTRACE -h -s $CORPUS_FILE -o $T/ours.h"
	"systemtap-h|$STAP_DTRACE -h -s $CORPUS_FILE -o $T/stap.h"
	"udtrace-G|$DTRACE -G -s $CORPUS_FILE -o $T/ours.o $T/fire.o"
	"systemtap-G|$STAP_DTRACE -G -s $CORPUS_FILE -o $T/stap.o $T/fire.o"
)
declare -A MS
for c in "${TOOL_CMDS[@]}"; do
	# shellcheck disable=SC2086
	(cd "$T" && run ${c#*|}) || exit 1
done
if have hyperfine && [ -z "${BENCH_NO_HYPERFINE:-}" ]; then
	how="hyperfine -N --warmup 3 (at least 10 runs and 3 s per command), median"
	args=()
	for c in "${TOOL_CMDS[@]}"; do args+=(-n "${c%%|*}" "${c#*|}"); done
	(cd "$T" && hyperfine -N --warmup 3 --style none --export-csv "$T/hyperfine.csv" "${args[@]}") \
		>"$T/hyperfine.log" 2>&1 || die "hyperfine failed: $(tail -n 5 "$T/hyperfine.log")"
	while IFS=, read -r cmd _ _ med _; do
		[ "$cmd" = command ] && continue
		MS[$cmd]=$(calc "$med * 1000")
	done <"$T/hyperfine.csv"
else
	# stamp: microseconds into $us; $EPOCHREALTIME (bash 5) reads the clock
	# without forking date.
	if [ -n "${EPOCHREALTIME:-}" ]; then
		clock=EPOCHREALTIME
		stamp() { us=${EPOCHREALTIME/[.,]/}; us=$((10#$us)); }
	else
		clock="date +%s%N"
		stamp() { us=$(($(date +%s%N) / 1000)); }
	fi
	how="bash loop with $clock, $TOOL_RUNS interleaved runs per command, median"
	(
		cd "$T" || exit 1
		for ((r = 0; r < TOOL_RUNS; r++)); do
			for c in "${TOOL_CMDS[@]}"; do
				stamp
				t0=$us
				# shellcheck disable=SC2086
				${c#*|} >/dev/null 2>&1
				stamp
				echo $((us - t0)) >>"$T/${c%%|*}.us"
			done
		done
	) || exit 1
	for c in "${TOOL_CMDS[@]}"; do
		MS[${c%%|*}]=$(calc "$(median <"$T/${c%%|*}.us") / 1000")
	done
fi

echo "== 2. build tool: $(basename "$CORPUS_FILE") ($nprobes probes), -G given one object"
echo "   $how"
printf '   %-14s %12s %12s %10s\n' step udtrace systemtap speedup
for step in h G; do
	u=${MS[udtrace-$step]} s=${MS[systemtap-$step]}
	printf '   %-14s %9.2f ms %9.2f ms %9.1fx\n' "dtrace -$step" "$u" "$s" "$(calc "$s / $u")"
done
u_tot=$(calc "${MS[udtrace-h]} + ${MS[udtrace-G]}")
s_tot=$(calc "${MS[systemtap-h]} + ${MS[systemtap-G]}")
printf '   %-14s %9.2f ms %9.2f ms %9.1fx\n' "-h plus -G" "$u_tot" "$s_tot" "$(calc "$s_tot / $u_tot")"
echo

###########################################################################
# Summary
###########################################################################

# diff_instr A B: "+1", "+0", "-1"
diff_instr() {
	if [ "$1" = n/a ] || [ "$2" = n/a ]; then echo "n/a"; return; fi
	calc "$1 - $2" | awk '{ printf "%+g", $1 }'
}
summary_line() {
	local what=$1 ours=$2 theirs=$3
	local io=${IR[$ours]:-n/a} it=${IR[$theirs]:-n/a}
	printf '%s: udtrace %s instr, systemtap %s instr (%s); %.3f ns vs %.3f ns (ratio %.3f)\n' \
		"$what" "$io" "$it" "$(diff_instr "$io" "$it")" "${NS[$ours]}" "${NS[$theirs]}" \
		"$(calc "${NS[$ours]} / ${NS[$theirs]}")"
}
echo "== summary (target: a disabled site at most +1 instruction over SystemTap's guarded"
echo "   site; dtrace -h plus -G at least 20x faster)"
summary_line "disabled probe X(...)                   " udtrace.exe systemtap.exe
summary_line "disabled probe if (X_ENABLED()) X(...)  " udtrace-guarded.exe systemtap.exe
summary_line "disabled probe X(...), shared library   " udtrace.so systemtap.so
printf 'dtrace -h plus -G, %d probes: udtrace %.2f ms, systemtap %.2f ms (%.1fx faster)\n' \
	"$nprobes" "$u_tot" "$s_tot" "$(calc "$s_tot / $u_tot")"
run_others
