#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The profile provider (docs/profile.md): profile-n and tick-n probes made on
# demand, the chapter's examples against a CPU-bound process, samples that
# follow CPU time, the timers' resolution, threads started after the attach,
# and what the traced process must never notice: its own SIGPROF and SIGALRM
# handlers, EINTR, errno, its registers under the -p injection, and nothing
# left behind after dtrace detaches or dies. Counts are checked with
# tolerant bounds against the CPU time the program reports, never against
# a clock.
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
RT=$BUILD/lib/libudtrace.so.1
cd "$WORK" || exit 1
gcc -O2 -g -Wall -Wextra -o profprog "$D/profprog.c" -lpthread || {
	fail "build the profiled program"
	finish
	exit
}

# sigcgt PID: the process's caught-signals mask; timers PID: its POSIX timers;
# perf_fds PID: its perf event descriptors
sigcgt() { awk '/^SigCgt:/ { print $2 }' "/proc/$1/status"; }
timers() { grep -c '^ID:' "/proc/$1/timers"; }
perf_fds() { ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'perf_event'; }

# -- Probes made on demand -----------------------------------------------------------------

expect_eq "dtrace -l: profile-n and tick-n exist once named" \
	"$("$DTRACE" -l -n profile-97 -n profile:::tick-1sec | awk 'NR > 1 { print $2, $3 }')" \
	"$(printf 'profile profile-97\nprofile tick-1sec')"
out=$("$DTRACE" -l -P profile 2>&1 | awk 'NR > 1 { print $2, $NF }' | tr '\n' ' ')
expect_eq "dtrace -l -P profile: DTrace's default probes (illumos's profile_provide())" "$out" \
	"$(printf 'profile %s ' profile-97 profile-199 profile-499 profile-997 profile-1999 \
	profile-4001 profile-4999 tick-1 tick-10 tick-100 tick-500 tick-1000 tick-5000)"
out=$("$DTRACE" -qZP 'wassup { printf("Iamkool"); }' -qP 'profile { printf("I am done\n"); exit(0); }' 2>&1)
expect_eq "-P profile without a process: the default tick-n probes fire (illumos's tst.ZeroProviderProbes)" \
	"$?:$out" "0:I am done"
out=$("$DTRACE" -n 'profile-5001 { exit(0); }' -c './profprog spin 0' 2>&1)
expect_eq "an interval under 200 microseconds is refused" "$?:$out" \
	"1:dtrace: invalid probe specifier profile-5001: profile-5001 fires every 199960 nanoseconds, and the profile provider's shortest interval is 200 microseconds"
out=$("$DTRACE" -n 'profile-10zz { exit(0); }' -c './profprog spin 0' 2>&1)
expect_eq "a name that is no interval is refused" "$?:$out" \
	"1:dtrace: invalid probe specifier profile-10zz: 10zz is not an interval: give n times a second, or n with a suffix (nsec ns usec us msec ms sec s min m hour h day d hz)"
out=$("$DTRACE" -n 'profile-97 { exit(0); }' 2>&1)
expect_eq "profile-n needs a process" "$?:$out" \
	"1:dtrace: invalid probe specifier profile-97: the profile provider samples a process: use -p PID or -c CMD"
out=$("$DTRACE" -n 'profile-97 { self->n++; }' -c './profprog spin 0' 2>&1)
expect_eq "self-> is refused in the profile provider's probes (the chapter's note)" "$?:$out" \
	"1:dtrace: -n:1:18: error: self->n: thread-local variables are not available in the profile provider's probes (profile-97)"

# Every suffix of Table 19-1 names an interval (dtrace -e: compiled, never run)
for sfx in nsec ns usec us msec ms sec s min m hour h day d hz; do
	n=999999
	case $sfx in nsec | ns) n=999999 ;; usec | us) n=1000 ;; hz) n=97 ;; *) n=1 ;; esac
	check "suffix $sfx: profile-$n$sfx" "$DTRACE" -e -n "profile-$n$sfx { exit(0); }" \
		-c './profprog spin 0'
done

# tick-n runs in dtrace: with no process, as BEGIN and END do
out=$("$DTRACE" -q -n 'tick-50ms /i++ >= 2/ { printf("tick %d\n", i); exit(3); }' 2>&1)
expect_eq "tick-n without a process: the third tick exits" "$?:$out" "3:tick 3"

# -- The chapter's examples, adapted to a process -----------------------------------------

cat >prof.d <<'EOF'
#pragma D option quiet

profile-97
/pid != 0/
{
	@proc[pid, execname] = count();
}

END
{
	printf("%-8s %-40s %s\n", "PID", "CMD", "COUNT");
	printa("%-8d %-40s %@d\n", @proc);
}
EOF
"$DTRACE" -s prof.d -o prof.out -c './profprog spin 2' >spin.out 2>prof.err
pid=$(sed -n 's/^ready //p' prof.err)
cpu=$(sed -n 's/^cpu=//p' spin.out)
expect_eq "prof.d: the heading, then one line for the process" \
	"$(awk 'NF { print $1, $2 }' prof.out)" "$(printf 'PID CMD\n%s profprog' "$pid")"
# samples follow CPU time: 97 a second of it, give or take
count=$(awk -v p="$pid" '$1 == p { print $3 }' prof.out)
within "prof.d: $count samples for ${cpu}s of CPU at 97 Hz" "$count" \
	"$(awk -v c="$cpu" 'BEGIN { print int(c * 97 * 0.85) }')" \
	"$(awk -v c="$cpu" 'BEGIN { print int(c * 97 * 1.15) + 2 }')"

cat >restest.d <<'EOF'
#pragma D option quiet

profile-5000
{
	/*
	 * We divide by 1,000,000 to convert nanoseconds to milliseconds, and
	 * then we take the value mod 10 to get the current millisecond within
	 * a 10 millisecond window.  On platforms that do not support truly
	 * arbitrary resolution profile probes, all of the profile-5000 probes
	 * will fire on roughly the same millisecond.  On platforms that
	 * support a truly arbitrary resolution, the probe firings will be
	 * evenly distributed across the milliseconds.
	 */
	@ms = lquantize((timestamp / 1000000) % 10, 0, 10, 1);
}

tick-1sec
/i++ >= 2/
{
	exit(0);
}
EOF
"$DTRACE" -s restest.d -c './profprog spin 10' >res.out 2>res.err
mode_note=$(grep -c 'may not use perf events' res.err)
# the ten buckets' counts, from DTrace's lquantize table
awk '$1 ~ /^[0-9]$/ && $2 ~ /^\|/ { print $3 }' res.out >buckets
if [ "$mode_note" -gt 0 ]; then
	skip "restest.d: an even distribution" \
		"perf events are not allowed here (kernel.perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)): the kernel's tick times the samples"
elif [ "$(wc -l <buckets)" -ne 10 ]; then
	fail "restest.d: an even distribution" "$(cat res.out res.err)"
else
	# each millisecond within 30% of the mean (a count near 1000 varies by ~3% by chance)
	read -r lo hi mean < <(awk '{ s += $1; if (NR == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
		END { print lo, hi, s / NR }' buckets)
	if awk -v lo="$lo" -v hi="$hi" -v m="$mean" \
		'BEGIN { exit !(m > 200 && lo >= 0.7 * m && hi <= 1.3 * m) }'; then
		ok "restest.d: an even distribution over the ten milliseconds (${lo}..${hi}, mean $mean)"
	else
		fail "restest.d: an even distribution over the ten milliseconds" "$(cat res.out)"
	fi
fi

# @ticks[arg0 ? "kernel" : "user"]: arg0 is never a kernel PC here, arg1 always a user PC
out=$("$DTRACE" -q -n 'profile-997 { @ticks[arg0 ? "kernel" : "user"] = count(); }' \
	-n 'tick-1sec { exit(0); }' -c './profprog spin 3' 2>&1 | grep -v '^ready\|^cpu=')
expect_eq "@ticks[arg0 ? \"kernel\" : \"user\"]: user only" \
	"$(echo "$out" | awk 'NF { print $1 }')" "user"
out=$("$DTRACE" -q -n 'profile-997 { @[arg0 == 0 && arg1 != 0] = count(); }' \
	-n 'tick-1sec { exit(0); }' -c './profprog spin 3' 2>/dev/null)
expect_eq "arg0 is 0 and arg1 the user PC in every sample" "$(echo "$out" | awk 'NF { print $1 }')" 1

# 997 Hz timed by perf event clocks (-x profclock=perf) as 97 Hz was by CPU-time timers
"$DTRACE" -q -x profclock=perf -n 'profile-997 { @ = count(); } END { printa("%@d\n", @); }' \
	-o perf.out -c './profprog spin 2' >spin.out 2>perf.err
cpu=$(sed -n 's/^cpu=//p' spin.out)
count=$(awk 'NF { print $1 }' perf.out)
if grep -q 'may not use perf events' perf.err; then
	skip "profclock=perf: 997 Hz" "perf events are not allowed here"
else
	within "profclock=perf: $count samples for ${cpu}s of CPU at 997 Hz" "$count" \
		"$(awk -v c="$cpu" 'BEGIN { print int(c * 997 * 0.85) }')" \
		"$(awk -v c="$cpu" 'BEGIN { print int(c * 997 * 1.15) + 2 }')"
fi
# and profile-5000 by CPU-time timers (-x profclock=timer): the counts are right, in bursts
"$DTRACE" -q -x profclock=timer -n 'profile-5000 { @ = count(); } END { printa("%@d\n", @); }' \
	-o timer.out -c './profprog spin 2' >spin.out 2>timer.err
cpu=$(sed -n 's/^cpu=//p' spin.out)
count=$(awk 'NF { print $1 }' timer.out)
within "profclock=timer: $count samples for ${cpu}s of CPU at 5000 Hz" "$count" \
	"$(awk -v c="$cpu" 'BEGIN { print int(c * 5000 * 0.85) }')" \
	"$(awk -v c="$cpu" 'BEGIN { print int(c * 5000 * 1.15) + 2 }')"

# -- What the process must not notice ------------------------------------------------------

# Threads the process starts after the attach are sampled too (the census), the main
# thread waiting in pthread_join is not
rm -f ctl
mkfifo ctl
LD_PRELOAD=$RT ./profprog threads 2 3 <ctl >/dev/null 2>thr.err &
tpid=$!
exec 4>ctl
wait_for thr.err ready
"$DTRACE" -q -n 'profile-997 { @[tid] = count(); } tick-1500ms { exit(0); }' -p "$tpid" \
	>thr.out 2>thr.dt &
dpid=$!
sleep 0.3
echo go >&4
exec 4>&-
wait "$dpid"
if grep -q 'could not run code' thr.dt; then
	skip "threads started after the attach" "$(cat thr.dt)"
	ptrace_ok=0
else
	ptrace_ok=1
	# (main's CPU time while it starts them may take a sample or two: not while it waits)
	expect_eq "threads started after the attach: each of the 3 sampled, main (waiting) hardly" \
		"$(awk 'NF && $2 >= 20 && $1 != '"$tpid"' { n++ } END { print n + 0 }' thr.out):$(awk '$1 == '"$tpid"' && $2 > 2' thr.out)" "3:"
fi
wait "$tpid"

if [ "$ptrace_ok" = 1 ]; then
	# A process with its own SIGPROF (ITIMER_PROF) and SIGALRM (ITIMER_REAL) handlers,
	# SA_RESTART, reading a pipe: dtrace -p arms by a brief ptrace injection, chains to
	# them, and removes everything at the end
	LD_PRELOAD=$RT ./profprog signals 4 >sigp.out 2>sigp.err &
	spid=$!
	wait_for sigp.err ready
	before=$(sigcgt "$spid")
	"$DTRACE" -q -n 'profile-997 { @ = count(); } tick-2sec { exit(0); }' \
		-n 'END { printa("%@d\n", @); }' -p "$spid" >p.out 2>p.err &
	dpid=$!
	sleep 0.5
	during="$(timers "$spid") $(perf_fds "$spid")"
	wait "$dpid"
	expect_eq "own handlers: after the detach, theirs, no timer, no perf descriptor" \
		"$(sigcgt "$spid") $(timers "$spid") $(perf_fds "$spid")" "$before 0 0"
	case $during in "0 0") fail "own handlers: timers or perf events while traced" "$during" ;;
	*) ok "own handlers: timers or perf events while traced ($during)" ;; esac
	wait "$spid"
	read -r prof alrm foreign eintr reads cpu < <(sed 's/[a-z]*=//g' sigp.out)
	within "own handlers: its ITIMER_PROF SIGPROFs arrive ($prof for ${cpu}s of CPU at 100 Hz)" \
		"$prof" "$(awk -v c="$cpu" 'BEGIN { print int(c * 100 * 0.7) }')" \
		"$(awk -v c="$cpu" 'BEGIN { print int(c * 100 * 1.3) + 2 }')"
	within "own handlers: its SIGALRMs arrive ($alrm in 4 s at 50 Hz)" "$alrm" 130 210
	expect_eq "own handlers: none of ours reached them; no EINTR in $reads reads" \
		"$foreign:$eintr" "0:0"
	within "own handlers: our samples all the same ($(cat p.out) in 2 s)" "$(cat p.out)" 200 2300

	# A target asleep in nanosleep() while the injection arms and disarms: it sleeps on
	LD_PRELOAD=$RT ./profprog sleep 2 >sl.out 2>sl.err &
	spid=$!
	wait_for sl.err ready
	"$DTRACE" -q -n 'profile-97 { @ = count(); } tick-200ms { exit(0); }' -p "$spid" \
		>/dev/null 2>&1
	wait "$spid"
	expect_eq "-p: a nanosleep() in progress is restarted, not cut short" "$(cat sl.out)" \
		"slept=2.0 errno=0"

	# errno, and every register, as they were: samples at 4999 Hz and six injections
	LD_PRELOAD=$RT ./profprog errno 2 >er.out 2>er.err &
	spid=$!
	wait_for er.err ready
	"$DTRACE" -q -n 'profile-4999 { @ = count(); } tick-1sec { exit(0); }' -p "$spid" \
		>/dev/null 2>&1
	wait "$spid"
	expect_eq "errno is preserved" "$(cat er.out)" "errno changed 0 times"

	# Detached ten times while sampled at 4999 Hz: a perf signal the kernel had already
	# taken for our handler when the detach disarmed must not reach the application's
	# action (SIG_DFL: "Profiling timer expired" ended one process in six)
	LD_PRELOAD=$RT ./profprog spin 30 >dd.out 2>dd.err &
	spid=$!
	wait_for dd.err ready
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		"$DTRACE" -q -n 'profile-4999 { @ = count(); } tick-200ms { exit(0); }' \
			-p "$spid" >/dev/null 2>&1 || break
	done
	if kill -0 "$spid" 2>/dev/null; then ok "ten detaches at 4999 Hz: the process lives on"
	else fail "ten detaches at 4999 Hz: the process lives on" "$(wait "$spid"; echo "exit $?")"; fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	if [ "$(uname -m)" = x86_64 ]; then
		LD_PRELOAD=$RT ./profprog regs 4 >rg.out 2>rg.err &
		spid=$!
		wait_for rg.err ready
		for _ in 1 2 3; do
			"$DTRACE" -q -n 'profile-997 { @ = count(); } tick-200ms { exit(0); }' \
				-p "$spid" >/dev/null 2>&1
		done
		wait "$spid"
		case $(cat rg.out) in "regs clobbered in 0 of "*) ok "registers are preserved: $(cat rg.out)" ;;
		*) fail "registers are preserved" "$(cat rg.out)" ;; esac
	fi

	# dtrace -l -p lists the profile probes the process's session has enabled
	LD_PRELOAD=$RT ./profprog spin 3 >/dev/null 2>l.err &
	spid=$!
	wait_for l.err ready
	"$DTRACE" -q -n 'profile-331 { @ = count(); } tick-2sec { exit(0); }' -p "$spid" \
		>/dev/null 2>&1 &
	dpid=$!
	# (once the session is there: a loaded machine may take a while to attach)
	for _ in $(seq 50); do
		out=$("$DTRACE" -l -P profile -p "$spid" 2>&1 | awk 'NR == 2 { print $2, $NF }')
		[ "$out" = "profile profile-331" ] && break
		sleep 0.1
	done
	expect_eq "dtrace -l -p: the probes enabled in it appear (before the default ones)" \
		"$out" "profile profile-331"
	wait "$dpid"
	wait "$spid"

	# A consumer killed mid-trace: the deadman ends the session, and the next timer
	# signal takes everything down
	LD_PRELOAD=$RT ./profprog spin 4 >/dev/null 2>k.err &
	spid=$!
	wait_for k.err ready
	before=$(sigcgt "$spid")
	"$DTRACE" -q -x deadman=1s -n 'profile-997 { @ = count(); }' -p "$spid" >/dev/null 2>&1 &
	dpid=$!
	sleep 0.5
	kill -KILL "$dpid"
	wait "$dpid" 2>/dev/null
	# (the deadman's second, then the next sample; up to 10 s on a loaded machine)
	for _ in $(seq 50); do
		[ "$(sigcgt "$spid") $(timers "$spid") $(perf_fds "$spid")" = "$before 0 0" ] && break
		sleep 0.2
	done
	expect_eq "consumer killed: the deadman leaves no handler, timer or descriptor" \
		"$(sigcgt "$spid") $(timers "$spid") $(perf_fds "$spid")" "$before 0 0"
	wait "$spid"
else
	skip "-p: the injection" "ptrace is not allowed here"
fi
finish
