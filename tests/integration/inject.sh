#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dtrace -p on a process without the runtime (docs/injection.md): programs
# linked as the README's recipe links them (`cc -o prog prog.o provider.o`,
# no library), blocked in accept(), read(), nanosleep() and epoll_wait()
# while dtrace loads the runtime into them, print exactly what an untraced
# run prints; a 50-thread process, one with its own SIGSEGV, SIGTRAP and
# SIGPROF handlers, PIE and not, SDT(9) probes; registers and errno across
# the injections; attach, detach and attach again (the runtime is reused,
# nothing is left running); and the processes it must refuse, left untouched.
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
cd "$WORK" || exit 1
# the README's recipe, exactly
"$DTRACE" -h -s "$D/inj.d" -o inj.h &&
	cc -O2 -g -I. -c "$D/injprog.c" -o injprog.o &&
	"$DTRACE" -G -s "$D/inj.d" -o inj_prov.o injprog.o &&
	cc -o injprog injprog.o inj_prov.o &&
	cc -no-pie -fno-pie -O2 -g -I. -c "$D/injprog.c" -o injprog_np.o &&
	"$DTRACE" -G -s "$D/inj.d" -o inj_prov_np.o injprog_np.o &&
	cc -no-pie -o injprog_nopie injprog_np.o inj_prov_np.o &&
	cc -O2 -o tracer "$D/tracer.c" &&
	cc -O2 -o killmid "$D/killmid.c" &&
	cc -O2 -g -Wall -o profprog "$D/profprog.c" -lpthread &&
	cc -O2 -g -I"$SDK_INCLUDE" -o sdt_ip "$D/sdt_ip.c" || {
	fail "build the injection targets"
	finish
	exit
}
expect_eq "the targets have no runtime: nothing of udtrace is NEEDED" \
	"$(readelf -d injprog injprog_nopie sdt_ip | grep -c 'NEEDED.*udtrace')" 0

# start NAME CMD...: run CMD in the background, its stdin a fifo held open on fd 5,
# its stdout NAME.out, stderr NAME.err; sets pid once it said "ready"
start() {
	local name=$1
	shift
	rm -f "$name.in"
	mkfifo "$name.in"
	"$@" <"$name.in" >"$name.out" 2>"$name.err" &
	pid=$!
	exec 5>"$name.in"
	wait_for "$name.err" '^ready' || fail "$name: the target started" "$(cat "$name.err")"
}

# anon_exec PID: anonymous executable mappings (the injection's code page, if left)
anon_exec() { awk '$2 ~ /x/ && NF == 5' "/proc/$1/maps" | wc -l; }

# feed NAME INPUT: give the target started as NAME its INPUT (a line on stdin, or "tcp":
# a line over a connection to the port it listens on), then close its stdin; wait for it
feed() {
	if [ "$2" = tcp ]; then
		wait_for "$1.err" '^listening on' || fail "$1: the target listened"
		exec 6<>"/dev/tcp/127.0.0.1/$(sed -n 's/^listening on //p' "$1.err")"
		echo "over tcp" >&6
		exec 6>&-
	elif [ -n "$2" ]; then
		echo "$2" >&5
	fi
	exec 5>&-
	wait "$pid"
}

# blocked NAME EXE MODE INPUT [RESULTS]: the target blocked in its call while dtrace -p
# loads the runtime and enables inj:::result; then INPUT (feed); its output must be the
# untraced run's, and dtrace must see the RESULTS (1) results. (The script reads nothing
# from the process: the runtime's fault handler for loads, which stays, is
# docs/runtime.md's.)
blocked() {
	local name=$1 exe=$2 mode=$3 input=$4
	start "$name" "./$exe" $mode
	sleep 0.2 # (in its system call)
	"$DTRACE" -q -n 'inj$target:::result { n++; printf("%d\n", arg0); }
		inj$target:::result /n == $1/ { exit(0); }' \
		-p "$pid" "${5:-1}" >"$name.dt" 2>"$name.dterr" &
	local dpid=$!
	wait_enabled "$pid" "$exe" inj_result_semaphore ||
		fail "$name: dtrace enabled inj:::result" "$(cat "$name.dterr")"
	expect_eq "$name: our code page is gone once the runtime is in" "$(anon_exec "$pid")" 0
	feed "$name" "$input"
	wait "$dpid"
	# the same program, untraced, given the same
	start "$name.u" "./$exe" $mode
	feed "$name.u" "$input"
	expect_file "$name: its output is the untraced run's, byte for byte" "$name.out" "$name.u.out"
}

blocked accept injprog accept tcp 2
expect_eq "accept: dtrace traced both results" "$(cat accept.dt)" "0
9"
blocked read injprog read "hello"
expect_eq "read: dtrace traced the result" "$(cat read.dt)" "6"
expect_eq "read: as the untraced run" "$(cat read.out)" "read: 6, errno 0 (none), data: hello"
blocked sleep injprog "sleep 1500" ""
expect_eq "nanosleep: neither EINTR nor a short sleep" "$(cat sleep.out)" \
	"nanosleep: 0, errno 0 (none)
slept its full 1500 ms: yes"
blocked epoll injprog epoll "ping"
expect_eq "epoll_wait: no EINTR" "$(head -1 epoll.out)" "epoll_wait: 1, errno 0 (none)"
blocked nopie injprog_nopie read "not PIE"
expect_eq "a non-PIE executable" "$(cat nopie.dt)" "8"
blocked handlers injprog handlers "go"
expect_eq "its own SIGSEGV, SIGTRAP and SIGPROF handlers kept and working" \
	"$(tail -2 handlers.out)" "SIGSEGV kept, SIGTRAP kept, SIGPROF kept
handled: 1 SIGSEGV, 1 SIGTRAP, 1 SIGPROF"

# 50 threads, each in and out of nanosleep(): every one of them seen (each thread counts
# itself once: a global counter would race between the threads, as it does between
# DTrace's CPUs)
start threads ./injprog threads 50
sleep 0.3
out=$("$DTRACE" -q -n 'self int seen; inj$target:::work /!self->seen/ { self->seen = 1; @ = count(); }
	tick-3s { exit(0); } END { printa("%@d threads\n", @); }' -p "$pid" 2>threads.dterr)
expect_eq "a 50-thread process: the runtime loaded, all 50 threads' probes traced" "$out" "50 threads"
tasks=$(ls "/proc/$pid/task" | wc -l)
exec 5>&-
wait "$pid"
expect_eq "a 50-thread process: no thread added" "$tasks" 51
expect_eq "a 50-thread process: every thread joined" "$(cat threads.out)" "threads: 50 joined"

# registers and errno across the injections (the load, then the profile provider's)
if [ "$(uname -m)" = x86_64 ]; then
	./profprog regs 3 >rg.out 2>rg.err &
	spid=$!
	wait_for rg.err ready
	"$DTRACE" -q -n 'profile-997 { @ = count(); } tick-300ms { exit(0); }' -p "$spid" \
		>rg.dt 2>&1
	"$DTRACE" -q -n 'profile-997 { @ = count(); } tick-300ms { exit(0); }' -p "$spid" \
		>>rg.dt 2>&1
	wait "$spid"
	case $(cat rg.out) in "regs clobbered in 0 of "*) ok "registers are preserved: $(cat rg.out)" ;;
	*) fail "registers are preserved" "$(cat rg.out) $(cat rg.dt)" ;; esac
fi
./profprog errno 2 >er.out 2>er.err &
spid=$!
wait_for er.err ready
"$DTRACE" -q -n 'profile-4999 { @ = count(); } tick-500ms { exit(0); }' -p "$spid" >/dev/null 2>&1
wait "$spid"
expect_eq "errno is preserved" "$(cat er.out)" "errno changed 0 times"

# SDT(9) probes: the runtime's constructor registers the providers already loaded
start sdt ./sdt_ip loop
sleep 0.2
out=$("$DTRACE" -q -n 'ip$target:::receive { printf("len %d\n", args[1] ? ((struct ip *)args[1])->ip_len : 0); exit(0); }
	struct ip { unsigned char ip_vhl, ip_tos; unsigned short ip_len; };' -p "$pid" 2>&1)
expect_eq "SDT(9) probes of a process without the runtime" "$out" "len 84"
exec 5>&-
wait "$pid"

# Attach, detach, attach again: one copy of the runtime, reused; nothing left running
status_of() { awk '/^(Threads|SigCgt|SigBlk):/ { printf "%s %s ", $1, $2 }' "/proc/$1/status"; }
start again ./injprog threads 2
sleep 0.2
before=$(status_of "$pid")
fds=$(ls "/proc/$pid/fd" | wc -l)
"$DTRACE" -q -n 'inj$target:::work { @ = count(); } tick-300ms { exit(0); }' -p "$pid" >/dev/null 2>&1
rt=$(awk '/libudtrace/ { print $6 }' "/proc/$pid/maps" | sort -u)
expect_eq "detached: the runtime stays, one copy" "$(echo "$rt" | wc -l)" 1
expect_eq "detached: no thread, handler or blocked signal added" "$(status_of "$pid")" "$before"
expect_eq "detached: no descriptor left" "$(ls "/proc/$pid/fd" | wc -l)" "$fds"
maps=$(awk '/libudtrace/' "/proc/$pid/maps")
out=$("$DTRACE" -q -n 'inj$target:::work { printf("again\n"); exit(0); }' -p "$pid" 2>again.dterr)
# (both threads may fire before exit() stops the recording, as two CPUs may in DTrace)
expect_eq "attached again: traced" "$(echo "$out" | sort -u)" "again"
expect_eq "attached again: the runtime reused, not loaded twice" \
	"$(awk '/libudtrace/' "/proc/$pid/maps")" "$maps"
exec 5>&-
wait "$pid"
expect_eq "attached again: the process ran on" "$(cat again.out)" "threads: 2 joined"

# dtrace killed (SIGKILL) while the call is being made: the call is made by dtrace's child,
# which finishes it and puts the thread back; the process reads on, as untraced, and a later
# dtrace traces it. (Each round kills dtrace once the process has a tracer, a moment later
# each time: the seize, the system calls of ours, the call, the put-back.)
tracer_of() { awk '$1 == "TracerPid:" { print $2 }' "/proc/$1/status"; }
killed= stuck=
ks="0 1 2 3 4 5"
asan_build && ks=
for k in $ks; do
	start "kill$k" ./injprog read
	"$DTRACE" -q -n 'inj$target:::result { printf("%d\n", arg0); }' -p "$pid" >"kill$k.dt" 2>&1 &
	dpid=$!
	killed+="$(./killmid "$pid" "$dpid" $((k * 1000))) "
	wait "$dpid" 2>/dev/null
	for _ in $(seq 200); do [ "$(tracer_of "$pid")" = 0 ] && break; sleep 0.05; done
	[ "$(tracer_of "$pid")" = 0 ] || stuck+="round $k: still traced by $(tracer_of "$pid"); "
	[ "$(anon_exec "$pid")" = 0 ] || stuck+="round $k: our code page left; "
	"$DTRACE" -q -n 'inj$target:::result { printf("%d\n", arg0); exit(0); }' -p "$pid" \
		>"kill$k.dt2" 2>&1 &
	dpid=$!
	wait_enabled "$pid" injprog inj_result_semaphore || stuck+="round $k: not traced after: $(cat "kill$k.dt2"); "
	feed "kill$k" "hello"
	wait "$dpid"
	[ "$(cat "kill$k.out"):$(cat "kill$k.dt2")" = "read: 6, errno 0 (none), data: hello:6" ] ||
		stuck+="round $k: $(cat "kill$k.out" "kill$k.dt2" | tr '\n' ' '); "
done
if [ -n "$ks" ]; then
	expect_eq "dtrace killed mid-call, 6 times: the thread put back, the process reads on, traced again" \
		"$stuck" ""
	check "dtrace killed mid-call: the kills came while the process had a tracer ($killed)" \
		test "$(grep -ow traced <<<"$killed" | wc -l)" -ge 3
else
	skip "dtrace killed mid-call" "an AddressSanitizer build makes its calls itself (proc/inject.c)"
fi

# -- What it refuses, leaving the process untouched --------------------------------------

# refused NAME WANT-MESSAGE EXE MODE: dtrace -p fails with one line, the process's
# mappings are as they were, and it then runs on as untraced
refused() {
	local name=$1 want=$2 exe=$3 maps
	start "$name" "./$exe" read
	sleep 0.2
	maps=$(cat "/proc/$pid/maps")
	out=$(timeout 10 "$DTRACE" -n 'inj$target:::result' -p "$pid" 2>&1)
	expect_eq "$name: refused with one clear line" "$?:$out" "1:dtrace: failed to grab pid $pid: $want"
	expect_eq "$name: its mappings untouched" "$(cat "/proc/$pid/maps")" "$maps"
	echo "on" >&5
	exec 5>&-
	wait "$pid"
	expect_eq "$name: it ran on" "$(cat "$name.out")" "read: 3, errno 0 (none), data: on"
}

if cc -static -o injprog_static injprog.o inj_prov.o 2>/dev/null; then
	refused static "it is statically linked: it has no dynamic linker to load the udtrace runtime with" \
		injprog_static
	out=$(timeout 10 "$DTRACE" -n 'inj$target:::result' -c './injprog_static sleep 5000' 2>&1)
	rc=$?
	cpid=$(sed -n 's/^ready //p' <<<"$out")
	expect_eq "dtrace -c of a static program: refused at once, saying why" "$rc:$out" \
		"1:ready $cpid
dtrace: failed to grab pid $cpid: it is statically linked: it has no dynamic linker to load the udtrace runtime with"
else
	skip "a static program is refused" "no static C library to link one"
fi

if [ "$(id -u)" = 0 ] && have setpriv; then
	cp injprog injprog_sgid
	chgrp 1 injprog_sgid && chmod 2755 injprog_sgid
	chmod 755 "$WORK"
	refused setgid "it runs set-id (uids 0/0/0, gids 0/1/1), and dtrace loads no code into a set-id process" \
		injprog_sgid
	start undumpable setpriv --reuid=65534 --regid=65534 --clear-groups ./injprog undumpable
	sleep 0.2
	out=$(timeout 10 "$DTRACE" -n 'inj$target:::result' -p "$pid" 2>&1)
	expect_eq "a non-dumpable process is refused" "$?:$out" \
		"1:dtrace: failed to grab pid $pid: it is not dumpable (it changed its credentials, or called prctl(PR_SET_DUMPABLE, 0)), and dtrace loads no code into such a process"
	exec 5>&-
	wait "$pid"
else
	skip "set-id and non-dumpable processes are refused" "needs root and setpriv"
fi

start debugged ./injprog read
sleep 0.2
rm -f tr.in
mkfifo tr.in
./tracer "$pid" <tr.in >tr.out 2>&1 &
tpid=$!
exec 7>tr.in
if wait_for tr.out seized; then
	maps=$(cat "/proc/$pid/maps")
	out=$(timeout 10 "$DTRACE" -n 'inj$target:::result' -p "$pid" 2>&1)
	expect_eq "a process being debugged is refused, saying by whom" "$?:$out" \
		"1:dtrace: failed to grab pid $pid: could not load the udtrace runtime into it: it is being traced by pid $tpid (a debugger?), and a process has one tracer at a time; to trace it without ptrace, start it with LD_PRELOAD=$(readlink -f "$BUILD/lib/libudtrace.so.1")"
	expect_eq "a process being debugged: untouched" "$(cat "/proc/$pid/maps")" "$maps"
else
	skip "a process being debugged is refused" "ptrace is not allowed here: $(cat tr.out)"
fi
exec 7>&-
wait "$tpid"
echo "on" >&5
exec 5>&-
wait "$pid"
expect_eq "a process being debugged: it ran on" "$(cat debugged.out)" "read: 3, errno 0 (none), data: on"

out=$("$DTRACE" -n 'BEGIN { exit(0); }' -c ./nonexistent 2>&1)
expect_eq "dtrace -c of a missing command: one error" "$?:$out" \
	"1:dtrace: failed to execute ./nonexistent: No such file or directory"

# a program of BEGIN, END and tick probes only loads nothing; nor does a process without
# probes (but profile-n samples any process)
start nothing ./injprog read
sleep 0.2
"$DTRACE" -q -n 'BEGIN { exit(0); }' -p "$pid" >/dev/null 2>&1
expect_eq "BEGIN alone: nothing loaded" "$(grep -c libudtrace "/proc/$pid/maps")" 0
exec 5>&-
wait "$pid"
sleep 5 &
spid=$!
out=$("$DTRACE" -n 'inj*:::result' -p "$spid" 2>&1)
expect_eq "a process without probes: nothing loaded, nothing matched" \
	"$?:$(grep -c libudtrace "/proc/$spid/maps"):$out" \
	"1:0:dtrace: invalid probe specifier inj*:::result: probe description inj*:::result does not match any probes"
out=$("$DTRACE" -q -n 'profile-97 { @ = count(); } tick-300ms { exit(0); }' -p "$spid" 2>&1)
expect_eq "profile-n in a process without probes: the runtime loaded" \
	"$?:$(grep -c libudtrace "/proc/$spid/maps" | sed 's/^[1-9][0-9]*$/loaded/')" "0:loaded"
kill "$spid"
wait "$spid" 2>/dev/null

finish
