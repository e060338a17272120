#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per fire of udt__fire, exact and repeatable (callgrind): the
# cached fire (one probe fired again and again: the thread's one-probe ECB
# cache hits) and the missing one (two probes in turn: every fire looks its
# ECBs up in the area). A program fires N and then M times under callgrind
# (--toggle-collect=udt__fire), traced with `dtrace -p` and the enabled
# benchmark's program (three arguments and the timestamp traced); the
# difference of the counts divided by M - N leaves out what a session's
# first fires cost (its verification, the shared memory, the thread's
# buffer). Under valgrind, which lacks rseq, 38 instructions of each fire
# are sched_getcpu(). Builds into $BUILD/bench/fire/. With FIRE_SESSIONS=K,
# K dtrace sessions trace the program at once (docs/runtime.md, "Several
# sessions"), each with the same clause: a fire is K sessions' work.
#
# Environment: BUILD (default build), CC (default cc), FIRE_SESSIONS (default 1).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
RT=$BUILD/lib/libudtrace.so.1
OUT=$BUILD/bench/fire
N=20000
M=220000
PROG='cg*:::a, cg*:::b { trace(arg0); trace(arg1); trace(arg2); trace(timestamp); }'
SESSIONS=${FIRE_SESSIONS:-1}

command -v valgrind >/dev/null 2>&1 || { echo "SKIP: valgrind not found (apt-get install valgrind)"; exit 0; }
[ -x "$DTRACE" ] || die "$DTRACE not found: run make first"
rm -rf "$OUT"
mkdir -p "$OUT"
"$DTRACE" -h -s "$TOP/bench/fire/probes.d" -o "$OUT/probes.h" &&
	"$CC" -O2 -Wall -Wextra -I"$OUT" -c "$TOP/bench/fire/fire.c" -o "$OUT/fire.o" &&
	"$DTRACE" -G -s "$TOP/bench/fire/probes.d" -o "$OUT/probes.o" "$OUT/fire.o" &&
	"$CC" "$OUT/fire.o" "$OUT/probes.o" -o "$OUT/fire" || die "could not build the program"

# count N ALT: callgrind's instruction count inside udt__fire for N rounds
count() {
	local f=$OUT/cg.$1.$2 pid
	LD_PRELOAD=$RT valgrind --tool=callgrind --toggle-collect=udt__fire \
		--callgrind-out-file="$f" "$OUT/fire" "$1" "$2" "$SESSIONS" 2>/dev/null &
	pid=$!
	# the program waits (bounded) for its probe to be enabled by every session
	for s in $(seq "$SESSIONS"); do
		for _ in $(seq 100); do
			"$DTRACE" -q -n "$PROG" -p "$pid" >/dev/null 2>"$OUT/dtrace.$s.err" && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done &
	done
	wait
	sed -n 's/^summary: //p' "$f"
}

for alt in 0 1; do
	a=$(count $N $alt)
	b=$(count $M $alt)
	[ -n "$a" ] && [ -n "$b" ] || die "no callgrind count (see $OUT/dtrace.*.err)"
	fires=$(((M - N) * (alt + 1)))
	printf '%-44s %8.1f\n' "$([ $alt = 0 ] && echo "cached fire (one probe again and again)" ||
		echo "missing fire (two probes in turn)")" "$(awk "BEGIN { print ($b - $a) / $fires }")"
done
