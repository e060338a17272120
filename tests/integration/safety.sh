#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The target's safety: a consumer killed or stopped mid-trace, a target that
# crashes or execs, fork, probes in signal handlers, a consumer of another
# uid, and the footprint of an untraced process. (Several consumers on one
# process: multi.sh.)
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
RT=$BUILD/lib/libudtrace.so.1
cd "$WORK" || exit 1
build_rtprog

# start_loop: rtprog firing every millisecond until its fifo is closed
start_loop() {
	rm -f ctl loop.out
	mkfifo ctl
	LD_PRELOAD=$RT ./rtprog loop <ctl >loop.out 2>loop.err &
	lpid=$!
	exec 4>ctl
	wait_for loop.err '^ready' || fail "the looping program started" "$(cat loop.err)"
}
stop_loop() {
	exec 4>&-
	wait "$lpid"
}
# A consumer killed with SIGKILL: the target runs on, and the deadman undoes the enabling.
start_loop
"$DTRACE" -q -x deadman=1s -x switchrate=50hz -n 'rt*:::tick { trace("t\n"); }' -p "$lpid" \
	>k.out 2>k.err &
dpid=$!
wait_for k.out t && ok "SIGKILL: tracing started" || fail "SIGKILL: tracing started" "$(cat k.err)"
kill -KILL "$dpid"
wait "$dpid" 2>/dev/null
sleep 1.5
kill -0 "$lpid" 2>/dev/null && ok "SIGKILL: the target keeps running" || fail "SIGKILL: the target keeps running"
stop_loop
expect_eq "SIGKILL: the deadman restored the semaphore" "$(cat loop.out)" "enabled=0"

# A consumer stopped with SIGSTOP: the same, and when it continues it says why it stops.
start_loop
"$DTRACE" -q -x deadman=1s -x switchrate=50hz -n 'rt*:::tick { trace("t\n"); }' -p "$lpid" \
	>s.out 2>s.err &
dpid=$!
wait_for s.out t || fail "SIGSTOP: tracing started" "$(cat s.err)"
kill -STOP "$dpid"
sleep 1.5
kill -0 "$lpid" 2>/dev/null && ok "SIGSTOP: the target keeps running" || fail "SIGSTOP: the target keeps running"
kill -CONT "$dpid"
wait "$dpid"
rc=$?
expect_eq "SIGSTOP: the consumer, continued, stops with DTrace's message, exit 1" \
	"$rc:$(grep -c 'Abort due to systemic unresponsiveness' s.err)" "1:1"
stop_loop
expect_eq "SIGSTOP: the deadman restored the semaphore" "$(cat loop.out)" "enabled=0"

# A target that crashes mid-trace: what it recorded is printed; dtrace ends cleanly.
"$DTRACE" -q -n 'rt*:::tick { trace(arg1); trace("\n"); }' -c './rtprog crash 5000' \
	>c.out 2>c.err
rc=$?
drop_final_empty c.out
expect_eq "crash: every record made before the crash is printed" "$(grep -c '^[0-9]' c.out):$(tail -1 c.out)" "5000:4999"
"$DTRACE" -n 'rt*:::tick /arg1 == 0/ { trace(arg1); }' -c './rtprog crash 10' >c2.out 2>c2.err
case $(cat c2.err) in *"dtrace: pid "*" terminated by SEGV"*) ok "crash: DTrace's notice" ;;
*) fail "crash: DTrace's notice" "$(cat c2.err)" ;; esac
expect_eq "crash: dtrace exits 0, as DTrace does" "$rc" 0
"$DTRACE" -q -x cmdstatus -n 'rt*:::tick { trace(arg1); }' -c './rtprog crash 10' >/dev/null 2>&1
expect_eq "crash, -x cmdstatus: dtrace exits like a shell would (128 + SIGSEGV)" "$?" 139

# exec: the records before it are printed, the new image is untraced, dtrace ends with it.
"$DTRACE" -q -n 'rt*:::once { trace(arg0); trace("\n"); }' -c './rtprog exec 100' >e.out 2>e.err
rc=$?
expect_eq "exec: the record before exec, and a clean end" "$rc:$(cat e.out)" "0:1"

# fork, not followed (-x nofollowfork; followed: procs.sh): the child is not traced and not
# corrupted; the parent is.
"$DTRACE" -x nofollowfork -q -n 'rt*:::once { trace(arg0); trace("\n"); }' \
	-c './rtprog fork 1000' >f.out 2>f.err
expect_eq "fork: only the parent's probes are recorded" "$(grep '^[0-9]' f.out | tr '\n' ' ')" "1 3 "
expect_eq "fork: the child runs untraced and exits 0" \
	"$(grep -E 'child (enabled|status)' f.out | tr '\n' ' ')" "child enabled=0 child status=0 "

# Probes fired from a signal handler: recorded, or counted as lost, never corrupted.
"$DTRACE" -q -b 32m -n 'rt*:::tick { trace("t\n"); } rt*:::sig { trace("s\n"); }' \
	-c './rtprog signal 300000' >g.out 2>g.err
sigs=$(sed -n 's/^signals=//p' g.out)
lost=$(sed -n 's/^dtrace: \([0-9]*\) records\{0,1\} lost.*/\1/p' g.err | paste -sd+ - | bc)
expect_eq "signal handlers: every tick recorded" "$(grep -c '^t$' g.out)" 300000
expect_eq "signal handlers: signal probes recorded + lost = signals ($sigs)" \
	"$(($(grep -c '^s$' g.out) + ${lost:-0}))" "$sigs"

# Another uid is refused (as root: target and consumer run as two other users).
if [ "$(id -u)" = 0 ] && have setpriv; then
	chmod 755 "$WORK"
	setpriv --reuid=65534 --regid=65534 --clear-groups env LD_PRELOAD="$RT" ./rtprog idle \
		</dev/zero >/dev/null 2>other.err &
	npid=$!
	wait_for other.err '^ready' || fail "another uid's program started" "$(cat other.err)"
	out=$(setpriv --reuid=65533 --regid=65533 --clear-groups "$DTRACE" -n 'rt*:::tick' \
		-p "$npid" 2>&1)
	rc=$?
	expect_eq "another uid: refused with DTrace's message" "$rc:$out" \
		"1:dtrace: failed to grab pid $npid: permission denied"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$DTRACE" -l -n 'rt*:::tick' \
		-p "$npid" 2>&1)
	if [ "$(echo "$out" | grep -c ' tick$')" -ge 1 ]; then ok "the same uid: allowed"
	else fail "the same uid: allowed" "$out"; fi
	kill "$npid"
	wait "$npid" 2>/dev/null
else
	skip "another uid is refused" "needs root and setpriv to run two other users"
fi

# An untraced process: no extra thread, no shared memory, no more anonymous memory.
# (The runtime's own: the libraries it links, libunwind for ustack(), bring their
# relocated data; the process compared with it loads them too.)
rss_anon() { awk '/^RssAnon:/ { print $2 }' "/proc/$1/status"; }
deps=$(ldd "$RT" | awk '$3 ~ /^\// && $1 !~ /^(libc|libpthread|ld-linux)/ { print $3 }' | paste -sd: -)
LD_PRELOAD=$deps ./rtprog idle </dev/zero >/dev/null 2>p0.err &
p0=$!
LD_PRELOAD=$RT ./rtprog idle </dev/zero >/dev/null 2>p1.err &
p1=$!
wait_for p0.err '^ready' && wait_for p1.err '^ready' ||
	fail "the idle programs started" "$(cat p0.err p1.err)"
expect_eq "untraced: one thread" "$(ls /proc/$p1/task | wc -l)" 1
expect_eq "untraced: no shared-memory mapping" "$(grep -c 'memfd:udtrace' /proc/$p1/maps)" 0
expect_eq "untraced: no descriptor beyond stdio" "$(ls /proc/$p1/fd | wc -l)" "$(ls /proc/$p0/fd | wc -l)"
d=$(($(rss_anon $p1) - $(rss_anon $p0)))
# (a few pages: the runtime's relocated data; libffi, for dynamic providers, is
# opened only by a program that makes one)
if [ "$d" -le 16 ]; then ok "untraced: anonymous memory within a few pages ($d kB more)"
else fail "untraced: anonymous memory within a few pages" "$d kB more"; fi
kill "$p0" "$p1"
wait 2>/dev/null
finish
