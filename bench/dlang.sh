#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark 8, what D clauses cost at a probe: from one run, ns per event
# of @[probename] = count(), of a clause whose predicate is false, of a
# printf() of an integer and a 32-byte string, of a count() keyed by that
# string (copyinstr()), of the plain record with
# a dtrace:::ERROR clause enabled (which must cost nothing on fires that do
# not fault: ERROR runs in dtrace), and of a clause that stores the
# arguments into the members of a self-> struct variable and traces their
# sum (no target: what a struct variable costs), against the plain
# enabled probe (benchmark 3's udtrace row: trace() of three arguments and
# the timestamp) and against a disabled site whose semaphore is set (its
# probe enabled in another function only: the site calls the runtime, which
# finds nothing to do there); and callgrind's instructions per event of
# each, which are exact and repeatable where times are not. Prints the
# targets (count() within 2x of the plain record, the false predicate within
# 1.5x of the semaphore-set site, the printf() within 4x and the count() by
# string within 3x of the plain record, the plain record with ERROR enabled
# the plain record's instructions); never fails on a number. Builds into
# $BUILD/bench/dlang/.
#
# Environment: BUILD (default build), CC (default cc), BENCH_DLANG_EVENTS
# (events of a timed pass, default 2000000), BENCH_DLANG_ROUNDS (interleaved
# runs per variant, default 5), BENCH_DLANG_CG_EVENTS (events of a callgrind
# run, default 100000).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
RUNTIME=$BUILD/lib/libudtrace.so.1
OUT=$BUILD/bench/dlang
SRC=$TOP/bench/dlang
N=${BENCH_DLANG_EVENTS:-2000000}
ROUNDS=${BENCH_DLANG_ROUNDS:-5}
CG_N=${BENCH_DLANG_CG_EVENTS:-100000}
CFLAGS_BENCH="-O2 -Wall -Wextra"
# every traced variant: a ring of dtrace's default size, as benchmark 3's warm row
OPTS=(-q -b 4m -x bufpolicy=ring)

# field FILE KEY: KEY's value on the RESULT line of FILE (dl.c's output)

[ -x "$DTRACE" ] || die "$DTRACE not found: run make first"
rm -rf "$OUT"
mkdir -p "$OUT"

run "$DTRACE" -h -s "$SRC/probes.d" -o "$OUT/probes.h"
# shellcheck disable=SC2086
run "$CC" $CFLAGS_BENCH -I"$OUT" -c "$SRC/dl.c" -o "$OUT/dl.o"
run "$DTRACE" -G -s "$SRC/probes.d" -o "$OUT/probes.o" "$OUT/dl.o"
run "$CC" -O2 "$OUT/dl.o" "$OUT/probes.o" -o "$OUT/dl"

# The variants: name, dl's mode, the D program ("" for none), the label.
VARIANTS=(off semset plain count pred printf strkey error struct)
declare -A MODE PROG DESC
MODE[off]=ev PROG[off]="" DESC[off]="probe disabled (no consumer)"
MODE[semset]=ev PROG[semset]='dl*::other:ev { }'
DESC[semset]="semaphore set, no ECB for the site"
MODE[plain]=ev PROG[plain]='dl*:::ev { trace(arg0); trace(arg1); trace(arg2); trace(timestamp); }'
DESC[plain]="plain record (benchmark 3's)"
MODE[count]=ev PROG[count]='dl*:::ev { @[probename] = count(); }'
DESC[count]="@[probename] = count()"
MODE[pred]=ev PROG[pred]='dl*:::ev /arg0 < 0/ { trace(arg0); }'
DESC[pred]="predicate false"
MODE[printf]=msg PROG[printf]='dl*:::msg { printf("%d %s\n", arg0, copyinstr(arg1)); }'
DESC[printf]="printf() of an integer and a string"
MODE[strkey]=msg PROG[strkey]='dl*:::msg { @[copyinstr(arg1)] = count(); }'
DESC[strkey]="@[copyinstr(arg1)] = count()"
MODE[error]=ev PROG[error]="${PROG[plain]} ERROR { @errors = count(); }"
DESC[error]="plain record, an ERROR clause enabled"
MODE[struct]=ev PROG[struct]='struct pt { long x, y; }; self struct pt pt;
dl*:::ev { self->pt.x = arg0; self->pt.y = arg1; trace(self->pt.x + self->pt.y); }'
DESC[struct]="struct variable: 2 members stored, read"

# measure V: one timed run of variant V, its ns filed
measure() {
	local v=$1 log=$OUT/$1.log
	if [ -z "${PROG[$v]}" ]; then
		"$OUT/dl" "${MODE[$v]}" "$N" >"$log" 2>&1
	else
		"$DTRACE" "${OPTS[@]}" -n "${PROG[$v]}" -o /dev/null -c "$OUT/dl ${MODE[$v]} $N 1" \
			>"$log" 2>"$OUT/$v.err" || echo "   bench: dtrace exited $? in $v: $(tail -n 1 "$OUT/$v.err")" >&2
		grep -h '^dtrace: [0-9]' "$OUT/$v.err" >>"$OUT/$v.notes"
	fi
	if [ -z "$(field "$log" events)" ]; then
		echo "   bench: $v gave no result: $(tail -n 1 "$log")" >&2
		return 1
	fi
	field "$log" ns >>"$OUT/$v.ns"
	field "$log" cpu_ns >>"$OUT/$v.cpu"
	field "$log" best_ns >>"$OUT/$v.best"
}

# instr V: callgrind's instructions per event of variant V's timed pass
# (--toggle-collect on its function; the untimed pass before it has made the
# tables and touched the buffers). valgrind runs the program, with the
# runtime preloaded as dtrace -c would; dl waits for its probe to be
# enabled, and dtrace attaches with -p once the program and the runtime are
# mapped.
instr() {
	local v=$1 cg=$OUT/$1.cg log=$OUT/$1.cg.log pid i
	rm -f "$cg"
	LD_PRELOAD=$RUNTIME valgrind --tool=callgrind --callgrind-out-file="$cg" \
		--toggle-collect="timed_${MODE[$v]}" "$OUT/dl" "${MODE[$v]}" "$CG_N" \
		"$([ -n "${PROG[$v]}" ] && echo 1 || echo 0)" >"$log" 2>&1 &
	pid=$!
	if [ -n "${PROG[$v]}" ]; then
		# until valgrind has loaded the program and the runtime (dtrace -p
		# fails at once before that): then it traces to the program's end
		for ((i = 0; i < 150; i++)); do
			"$DTRACE" "${OPTS[@]}" -n "${PROG[$v]}" -o /dev/null -p "$pid" >>"$log" 2>&1 && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		kill "$pid" 2>/dev/null # (only if dtrace never could: dl would wait for ever)
	fi
	wait "$pid"
	if [ -s "$cg" ]; then
		awk -v n="$CG_N" '/^summary:/ { printf "%.0f\n", $2 / n }' "$cg"
	else
		echo n/a
	fi
}

echo "udtrace D-language benchmark: $("$DTRACE" --version 2>&1 | head -n 1)"
echo "compiler: $("$CC" --version | head -n 1), $CFLAGS_BENCH; $(uname -m), $(nproc) CPUs, Linux $(uname -r)"
echo

for ((r = 0; r < ROUNDS; r++)); do
	for ((i = 0; i < ${#VARIANTS[@]}; i++)); do
		measure "${VARIANTS[$(((i + r) % ${#VARIANTS[@]}))]}"
	done
done
declare -A NS CPU BEST IR
for v in "${VARIANTS[@]}"; do
	NS[$v]=$(median <"$OUT/$v.ns" 2>/dev/null || echo nan)
	CPU[$v]=$(median <"$OUT/$v.cpu" 2>/dev/null || echo nan)
	BEST[$v]=$(median <"$OUT/$v.best" 2>/dev/null || echo nan)
done
have_valgrind=1
if command -v valgrind >/dev/null 2>&1; then
	for v in "${VARIANTS[@]}"; do IR[$v]=$(instr "$v"); done
else
	have_valgrind=0
	for v in "${VARIANTS[@]}"; do IR[$v]=n/a; done
fi

echo "== 8. D clauses: dl:::ev(long, long, long) or dl:::msg(long, char *), $N events in a"
echo "   tight loop after an untimed pass of as many, 1 thread"
echo "   dtrace ${OPTS[*]} -n PROG -o /dev/null -c 'dl MODE $N 1', PROG:"
for v in "${VARIANTS[@]}"; do
	[ -n "${PROG[$v]}" ] && printf '     %-7s %s\n' "$v" "$(echo "${PROG[$v]}" | tr '\n' ' ')"
done
echo "   ns: clock_gettime around the pass, per event; best 1/10: its fastest tenth; cpu ns:"
echo "   the thread's CPU time; each the median of $ROUNDS interleaved runs. instr: callgrind's"
echo "   instructions per event of the timed pass ($CG_N events; under valgrind, which lacks"
echo "   rseq, 38 of them are sched_getcpu)"
printf '   %-7s %-38s %9s %9s %9s %7s\n' name variant ns/event "best 1/10" "cpu ns" instr
for v in "${VARIANTS[@]}"; do
	printf '   %-7s %-38s %9.2f %9.2f %9.2f %7s\n' "$v" "${DESC[$v]}" "${NS[$v]}" "${BEST[$v]}" \
		"${CPU[$v]}" "${IR[$v]}"
done
[ $have_valgrind = 0 ] && echo "   SKIP instruction counts: valgrind not found (apt-get install valgrind)"
notes=$(cat "$OUT"/*.notes 2>/dev/null | sort | uniq -c | sed 's/^ */   note: /')
[ -n "$notes" ] && echo "$notes"
echo

# ratio A B KIND: A's / B's (KIND cpu or ir), to two decimals, or n/a
ratio() {
	local a b
	if [ "$3" = ir ]; then a=${IR[$1]} b=${IR[$2]}; else a=${CPU[$1]} b=${CPU[$2]}; fi
	case "$a$b" in *n/a* | *nan*) echo n/a; return ;; esac
	awk "BEGIN { printf \"%.2f\", $a / $b }"
}
# verdict VALUE OP TARGET: PASS or MISS (n/a when not measured)
verdict() {
	[ "$1" = n/a ] && { echo n/a; return; }
	if awk "BEGIN { exit !($1 $2 $3) }"; then echo PASS; else echo MISS; fi
}
echo "== summary, D clauses (targets: count() within 2x of the plain record, a false predicate"
echo "   within 1.5x of a disabled site with its semaphore set, printf() of a string within 4x"
echo "   and a count() by string within 3x of the plain record, an ERROR clause no instruction"
echo "   more; per event: the thread's own CPU time, the median of the runs, and callgrind's"
echo "   instructions)"
x=$(ratio count plain cpu)
printf 'count() / plain record: %.2f ns / %.2f ns = %sx (%s / %s instr = %sx) (target 2x): %s\n' \
	"${CPU[count]}" "${CPU[plain]}" "$x" "${IR[count]}" "${IR[plain]}" "$(ratio count plain ir)" \
	"$(verdict "$x" '<=' 2)"
x=$(ratio pred semset cpu)
printf 'false predicate / semaphore set: %.2f ns / %.2f ns = %sx (%s / %s instr = %sx) (target 1.5x): %s\n' \
	"${CPU[pred]}" "${CPU[semset]}" "$x" "${IR[pred]}" "${IR[semset]}" "$(ratio pred semset ir)" \
	"$(verdict "$x" '<=' 1.5)"
x=$(ratio printf plain cpu)
printf 'printf() / plain record: %.2f ns / %.2f ns = %sx (%s / %s instr = %sx) (target 4x): %s\n' \
	"${CPU[printf]}" "${CPU[plain]}" "$x" "${IR[printf]}" "${IR[plain]}" \
	"$(ratio printf plain ir)" "$(verdict "$x" '<=' 4)"
x=$(ratio strkey plain cpu)
printf '@[copyinstr()] = count() / plain record: %.2f ns / %.2f ns = %sx (%s / %s instr = %sx) (target 3x): %s\n' \
	"${CPU[strkey]}" "${CPU[plain]}" "$x" "${IR[strkey]}" "${IR[plain]}" \
	"$(ratio strkey plain ir)" "$(verdict "$x" '<=' 3)"
x=$(ratio error plain ir)
printf 'ERROR enabled / plain record: %.2f ns / %.2f ns = %sx (%s / %s instr = %sx) (target: the same instructions): %s\n' \
	"${CPU[error]}" "${CPU[plain]}" "$(ratio error plain cpu)" "${IR[error]}" "${IR[plain]}" "$x" \
	"$(verdict "$x" '<=' 1)"
printf 'struct variable / plain record: %.2f ns / %.2f ns = %sx (%s / %s instr = %sx) (no target)\n' \
	"${CPU[struct]}" "${CPU[plain]}" "$(ratio struct plain cpu)" "${IR[struct]}" "${IR[plain]}" \
	"$(ratio struct plain ir)"
exit 0
