#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a process keeps of dtrace once the last session has detached
# (docs/runtime.md, "Threads", the release): nothing. No mapping of a
# session's memory, and the SIGSEGV and SIGBUS dispositions it had (the fault
# handler of direct loads is put back), checked in /proc/PID/maps and
# /proc/PID/status; and a second session, attached after, records and leaves
# as little, so that the address space does not grow session by session.
. "$(dirname "$0")/../lib.sh"

RT=$BUILD/lib/libudtrace.so
cd "$WORK" || exit 1
build_rtprog

# the target: rtprog cmds, its commands through fifo ctl (fd 5), its answers in prog.out
rm -f ctl
mkfifo ctl
LD_PRELOAD=$RT ./rtprog cmds <ctl >prog.out 2>prog.err &
tpid=$!
exec 5>ctl
wait_for prog.err ready || fail "the target started" "$(cat prog.err)"
# cmd LINE ANSWER: send a command and wait for its answer (the n-th of that text)
cmd() {
	local n
	n=$(($(grep -c "^$2\$" prog.out 2>/dev/null) + 1))
	echo "$1" >&5
	for _ in $(seq 400); do
		[ "$(grep -c "^$2\$" prog.out 2>/dev/null)" -ge "$n" ] && return 0
		sleep 0.05
	done
	return 1
}
# memfds: the target's mappings of sessions' memory; caught: its caught signals (SigCgt)
memfds() { grep -c 'memfd:udtrace' "/proc/$tpid/maps"; }
caught() { awk '/^SigCgt:/ { print $2 }' "/proc/$tpid/status"; }
# segv_caught MASK: does SigCgt MASK catch SIGSEGV (signal 11, bit 10)?
segv_caught() { [ $(((0x$1 >> 10) & 1)) = 1 ]; }
nmaps() { wc -l <"/proc/$tpid/maps"; }

before=$(caught)
expect_eq "untraced: no session's memory" "$(memfds)" 0
segv_caught "$before" && fail "untraced: SIGSEGV not caught" "SigCgt $before" ||
	ok "untraced: SIGSEGV not caught"

# session: a clause that reads the process's memory (its loads may be direct), kept
# live until told, then ended by exit()
session() {
	rm -f d.out d.err
	"$DTRACE" -q -n 'rt*:::once /arg0 < 100/ { printf("%s %s %d\n", copyinstr(arg1),
		copyinstr(arg1), arg0); }
		rt*:::once /arg0 == 100/ { exit(0); }' -p "$tpid" >d.out 2>d.err &
	dpid=$!
	cmd "wait 1" "ok 1" || fail "$1: the session enabled rt:::once"
	for i in 1 2 3; do cmd "once $i" onced; done
	for _ in $(seq 100); do [ "$(grep -c once d.out)" -ge 3 ] && break; sleep 0.05; done
	expect_eq "$1: recorded" "$(tr '\n' '|' <d.out)" "once once 1|once once 2|once once 3|"
	expect_eq "$1: its memory mapped in the target" "$(memfds)" 1
	during=$(caught)
	cmd "once 100" onced
	wait "$dpid"
	expect_eq "$1: dtrace exited 0" "$?:$(cat d.err)" "0:"
}

session "first session"
segv_caught "$during" && ok "first session: the fault handler was in place (SigCgt $during)" ||
	skip "first session: the fault handler was in place" "no direct load made (SigCgt $during)"
after1=$(nmaps)
expect_eq "first session detached: no session's memory left" "$(memfds)" 0
expect_eq "first session detached: the signals caught as before" "$(caught)" "$before"

session "second session"
expect_eq "second session detached: no session's memory left" "$(memfds)" 0
expect_eq "second session detached: the signals caught as before" "$(caught)" "$before"
expect_eq "second session detached: no more mappings than after the first" "$(nmaps)" "$after1"

exec 5>&-
wait "$tpid"
expect_eq "the target ran on and exited 0" "$?" 0
finish
