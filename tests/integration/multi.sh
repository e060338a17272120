#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Several dtrace sessions on one process (docs/runtime.md, "Several
# sessions"): two and three consumers with exact, separate streams; buffer
# policies, speculations, dynamic variables and aggregations of each its
# own; a consumer killed while another goes on; attach, detach, re-attach;
# fork; the profile provider in two sessions; the limit of 8 and a slot
# taken back from a consumer that is gone.
#
# The target (rtprog cmds) fires only when told, and waits until K sessions
# have enabled rt:::once (its semaphore counts them), so every count below
# is exact: each consumer must print exactly the records of its own clauses.
# (ready fires rt:::once(5) first, which no clause prints: each session's
# first fire makes its memory.)
. "$(dirname "$0")/../lib.sh"

RT=$BUILD/lib/libudtrace.so
cd "$WORK" || exit 1
build_rtprog

# start: rtprog cmds, its commands through fifo ctl (fd 5), its answers in prog.out
start() {
	rm -f ctl prog.out
	mkfifo ctl
	LD_PRELOAD=$RT ./rtprog cmds <ctl >prog.out 2>prog.err &
	tpid=$!
	exec 5>ctl
	wait_for prog.err ready || fail "the target started" "$(cat prog.err)"
}
stop() {
	exec 5>&-
	wait "$tpid"
}
# ready K: wait until K sessions are there, then make their memories (see above)
ready() {
	cmd "wait $1" "ok $1" && cmd "once 5" onced
}
# cmd LINE ANSWER: send a command and wait for its answer (the n-th of that text)
cmd() {
	local n
	n=$(($(grep -c "^$2\$" prog.out 2>/dev/null) + 1))
	echo "$1" >&5
	for _ in $(seq 400); do
		[ "$(grep -c "^$2\$" prog.out 2>/dev/null)" -ge "$n" ] && return 0
		sleep 0.05
	done
	echo "no answer '$2' to '$1': $(tail -3 prog.out)"
	return 1
}
# sems: the target's semaphores now ("tick=A once=B"): the answer after those before it
# (counted here: it runs in a command substitution, which keeps no variable)
sems() {
	local n
	n=$(($(grep -c '^tick=' prog.out 2>/dev/null) + 1))
	echo sems >&5
	for _ in $(seq 400); do
		[ "$(grep -c '^tick=' prog.out)" -ge "$n" ] && {
			grep '^tick=' prog.out | sed -n "${n}p"
			return
		}
		sleep 0.05
	done
	echo "no answer"
}
# lines FILE: its lines, the empty one dtrace ends with left out
lines() { grep -vc '^$' "$1"; }
# pairs FILE TAG: how many distinct "TAG thread seq" lines it has
pairs() { grep "^$2 [0-9]" "$1" | sort -u | wc -l; }

DONE='rt*:::once /arg0 == 1/ { exit(0); }'

# -- Two consumers, one probe, each its own clauses: exact, separate streams -----------------
start
"$DTRACE" -q -n "rt*:::tick { printf(\"A %d %d\\n\", arg0, arg1); } $DONE" -p "$tpid" \
	>a.out 2>a.err &
a=$!
"$DTRACE" -q -n "rt*:::tick /arg1 % 3 == 0/ { printf(\"B %d %d\\n\", arg0, arg1); } $DONE" \
	-p "$tpid" >b.out 2>b.err &
b=$!
check "two consumers: both attached" ready 2
expect_eq "two consumers: each counted in the semaphores" "$(sems)" "tick=2 once=2"
check "two consumers: 2 threads fire 3000 each" cmd "fire 3000 2" fired
cmd "once 1" onced >/dev/null
wait "$a"
ra=$?
wait "$b"
rb=$?
expect_eq "two consumers: both end normally" "$ra:$rb:$(cat a.err b.err)" "0:0:"
expect_eq "two consumers: the first has all 6000 of its records, each once" \
	"$(lines a.out):$(pairs a.out A)" "6000:6000"
expect_eq "two consumers: the second has its 2000 (seq % 3 == 0), each once" \
	"$(lines b.out):$(pairs b.out B):$(awk '$1 == "B" && $3 % 3 == 0' b.out | wc -l)" \
	"2000:2000:2000"
expect_eq "two consumers: neither sees the other's records" \
	"$(grep -vc '^A \|^$' a.out):$(grep -vc '^B \|^$' b.out)" "0:0"
expect_eq "two consumers: after both, the semaphores are back to 0" "$(sems)" "tick=0 once=0"
stop

# -- Three consumers: three buffer policies, speculations, aggregations, variables ----------
start
# switch (default), the whole stream
"$DTRACE" -q -n "rt*:::tick { printf(\"S %d %d\\n\", arg0, arg1); } $DONE" -p "$tpid" \
	>s.out 2>s.err &
s=$!
# ring, large enough for all: read at the end (so it is ended by SIGINT, not exit(),
# whose record it reads only then); a speculation committed for even seqs; its own
# associative array (a speculation per thread: nspec 2)
"$DTRACE" -q -x bufpolicy=ring -b 8m -x nspec=2 -n "
rt*:::tick { self->spec = speculation(); speculate(self->spec); printf(\"R %d %d\\n\", arg0, arg1); }
rt*:::tick /arg1 % 2 == 0/ { commit(self->spec); }
rt*:::tick /arg1 % 2 == 1/ { discard(self->spec); }
rt*:::tick { last[arg0] = arg1 + 1000000; }
END { printf(\"R last %d %d\\n\", last[0], last[1]); }
rt*:::once { }" -p "$tpid" >r.out 2>r.err &
r=$!
# fill, too small for all: it stops at its first full buffer (any thread's: the other
# thread may have recorded nothing), the others go on; an aggregation, and its own
# associative array under the same name
"$DTRACE" -q -x bufpolicy=fill -b 16k -n "
rt*:::tick { @n[arg0] = count(); last[arg0] = arg1 + 2000000; printf(\"F %d %d\\n\", arg0, arg1); }
END { printf(\"F last %d %d\\n\", last[0], last[1]); }
$DONE" -p "$tpid" >f.out 2>f.err &
f=$!
check "three consumers: all attached" ready 3
check "three consumers: 2 threads fire 2000 each" cmd "fire 2000 2" fired
cmd "once 1" onced >/dev/null
wait "$s"
rs=$?
kill -INT "$r"
wait "$r"
rr=$?
wait "$f"
rf=$?
expect_eq "three consumers: all end normally" "$rs:$rr:$rf:$(cat s.err r.err f.err)" "0:0:0:"
expect_eq "three consumers, switch: all 4000 records, each once" \
	"$(lines s.out):$(pairs s.out S)" "4000:4000"
expect_eq "three consumers, ring: the 2000 committed (even seqs), each once, nothing else" \
	"$(grep -c '^R [01] ' r.out):$(pairs r.out R):$(grep '^R [01] ' r.out | awk '$3 % 2' | wc -l)" \
	"2000:2000:0"
expect_eq "three consumers, ring: its own associative array" \
	"$(grep '^R last' r.out)" "R last 1001999 1001999"
fcount=$(grep -c '^F [01] ' f.out)
if [ "$fcount" -gt 0 ] && [ "$fcount" -lt 4000 ] && [ "$(pairs f.out F)" = "$fcount" ]; then
	ok "three consumers, fill: stopped at its full buffer ($fcount records, each once)"
else
	fail "three consumers, fill: stopped at its full buffer" "$fcount records of 4000"
fi
# fill stops recording, not aggregating, nor its variables (as DTrace's fill)
# (a full fill buffer stops the whole clause: its aggregation counts what it recorded)
expect_eq "three consumers, fill: its aggregation, of its records" \
	"$(awk 'NF == 2 && $1 ~ /^[01]$/ { print $1 ":" $2 }' f.out | sort | paste -sd' ')" \
	"$(awk '$1 == "F" && NF == 3 { n[$2]++ } END { for (t in n) print t ":" n[t] }' f.out |
		sort | paste -sd' ')"
expect_eq "three consumers, fill: its own associative array" "$(grep '^F last' f.out)" \
	"$(awk '$1 == "F" && NF == 3 { m[$2] = $3 + 2000000 } END { printf "F last %d %d", m[0], m[1] }' f.out)"
expect_eq "three consumers: nobody else's records" \
	"$(grep -c '^[RF] ' s.out):$(grep -c '^[SF] ' r.out):$(grep -c '^[SR] ' f.out)" "0:0:0"
stop

# -- A consumer killed while another goes on ------------------------------------------------
start
"$DTRACE" -q -n "rt*:::tick { printf(\"A %d %d\\n\", arg0, arg1); } $DONE" -p "$tpid" \
	>a.out 2>a.err &
a=$!
"$DTRACE" -q -x deadman=1s -n "rt*:::tick { printf(\"K %d %d\\n\", arg0, arg1); } $DONE" \
	-p "$tpid" >k.out 2>k.err &
k=$!
ready 2 >/dev/null
check "SIGKILL: 1000 fires with both" cmd "fire 1000 1" fired
{
	kill -KILL "$k"
	wait "$k"
} 2>/dev/null
sleep 1.5
check "SIGKILL: 1000 fires after its deadman interval" cmd "fire 1000 1" fired
expect_eq "SIGKILL: the deadman undid the killed one's share of the semaphores only" \
	"$(sems)" "tick=1 once=1"
check "SIGKILL: 1000 fires more" cmd "fire 1000 1" fired
cmd "once 1" onced >/dev/null
wait "$a"
expect_eq "SIGKILL: the other consumer ends normally" "$?:$(cat a.err)" "0:"
expect_eq "SIGKILL: the other consumer has all of its 3000 records, each once" \
	"$(lines a.out):$(grep -c '^A 0 ' a.out):$(sort -u a.out | grep -c '^A ')" "3000:3000:1000"
expect_eq "SIGKILL: then the semaphores are back to 0" "$(sems)" "tick=0 once=0"
stop

# -- Attach, detach, re-attach while another session goes on --------------------------------
start
"$DTRACE" -q -n "rt*:::tick { printf(\"A %d\\n\", arg1); } rt*:::once /arg0 == 9/ { exit(0); }" \
	-p "$tpid" >a.out 2>a.err &
a=$!
cmd "wait 1" "ok 1" >/dev/null
"$DTRACE" -q -n "rt*:::tick { printf(\"B1 %d\\n\", arg1); } $DONE" -p "$tpid" >b1.out 2>b1.err &
b=$!
ready 2 >/dev/null
cmd "fire 500 1" fired >/dev/null
cmd "once 1" onced >/dev/null
wait "$b"
expect_eq "re-attach: the second session ends, the first goes on" "$?:$(sems)" "0:tick=1 once=1"
cmd "fire 300 1" fired >/dev/null
"$DTRACE" -q -n "rt*:::tick { printf(\"B2 %d\\n\", arg1); } $DONE" -p "$tpid" >b2.out 2>b2.err &
b=$!
ready 2 >/dev/null
cmd "fire 200 1" fired >/dev/null
cmd "once 1" onced >/dev/null
wait "$b"
cmd "once 9" onced >/dev/null
wait "$a"
expect_eq "re-attach: the first session saw all three batches (500, 300, 200)" \
	"$(lines a.out):$(grep -c '^A ' a.out)" "1000:1000"
expect_eq "re-attach: the session that left saw its batch only" "$(lines b1.out)" 500
expect_eq "re-attach: the session attached again saw its batch only" \
	"$(lines b2.out):$(grep -v '^$' b2.out | head -1):$(grep -v '^$' b2.out | tail -1)" \
	"200:B2 0:B2 199"
expect_eq "re-attach: in the end, the semaphores are back to 0" "$(sems)" "tick=0 once=0"

# -- fork, not followed: the child's copies of two sessions are undone, the parent's go on --
# (followed, as by default: procs.sh)
"$DTRACE" -x nofollowfork -q -n "rt*:::tick { printf(\"A %d %d\\n\", arg0, arg1); } $DONE" \
	-p "$tpid" >a.out 2>a.err &
a=$!
"$DTRACE" -x nofollowfork -q -n "rt*:::tick { @[arg0] = count(); } $DONE" -p "$tpid" \
	>b.out 2>b.err &
b=$!
ready 2 >/dev/null
cmd "fork 100" forked >/dev/null
cmd "fire 100 1" fired >/dev/null
cmd "once 1" onced >/dev/null
wait "$a" "$b"
expect_eq "fork: the child, untraced, has undone both sessions' semaphores" \
	"$(grep '^child' prog.out)" "child tick=0 once=0"
expect_eq "fork: the parent's sessions have the parent's records only" \
	"$(lines a.out):$(grep -c '^A 0 ' a.out):$(awk 'NF == 2' b.out | tr -s ' ')" "100:100: 0 100"
stop

# -- The profile provider in two sessions at once --------------------------------------------
# (rtprog's fires of a probe enabled with a false predicate keep two threads busy; each
# session has its own profile probe)
start
"$DTRACE" -q -n "profile-97 { @p = count(); } rt*:::tick /arg1 < 0/ { } $DONE" -p "$tpid" \
	>pa.out 2>pa.err &
a=$!
"$DTRACE" -q -n "profile-1234 { @q = count(); } rt*:::tick /arg1 < 0/ { } $DONE" -p "$tpid" \
	>pb.out 2>pb.err &
b=$!
ready 2 >/dev/null
cmd "fire 20000000 2" fired >/dev/null
cmd "once 1" onced >/dev/null
wait "$a"
ra=$?
wait "$b"
rb=$?
pa=$(tr -d ' \n' <pa.out)
pb=$(tr -d ' \n' <pb.out)
if [ "$ra:$rb" = 0:0 ] && [ "${pa:-0}" -gt 0 ] && [ "${pb:-0}" -gt "${pa:-0}" ]; then
	ok "profile: two sessions each sampled by their own probe ($pa at 97 Hz, $pb at 1234 Hz)"
else
	fail "profile: two sessions each sampled by their own probe" \
		"$ra:$rb: $pa, $pb" "$(cat pa.err pb.err)"
fi
# 16 profile probes in all: a session whose probes would be more is refused, the other goes on
"$DTRACE" -q -n "$(seq -s, -f 'profile-%g' 101 110) { } $DONE" -p "$tpid" >pa.out 2>pa.err &
a=$!
ready 1 >/dev/null
out=$("$DTRACE" -q -n "$(seq -s, -f 'profile-%g' 201 207) { }" -p "$tpid" 2>&1)
expect_eq "profile: past 16 probes in all, a session is refused, saying why" "$?:$out" \
	"1:dtrace: failed to start the profile provider in pid $tpid: its sessions' profile probes would be more than the 16 a process takes"
cmd "once 1" onced >/dev/null
wait "$a"
expect_eq "profile: the session armed first goes on, and ends normally (idle: no sample)" \
	"$?:$(grep -v 'took no sample of pid' pa.err)" "0:"
stop

# -- The limit: 8 sessions; the 9th refused, or given the slot of one whose consumer died ---
start
pids=()
for i in 1 2 3 4 5 6 7 8; do
	"$DTRACE" -q -x deadman=1s -n "rt*:::tick { printf(\"%d\\n\", arg1); } $DONE" \
		-p "$tpid" >l$i.out 2>l$i.err &
	pids+=($!)
	cmd "wait $i" "ok $i" >/dev/null || break
done
expect_eq "limit: 8 sessions at once" "$(sems)" "tick=8 once=8"
out=$("$DTRACE" -q -n 'rt*:::tick' -p "$tpid" 2>&1)
rc=$?
expect_eq "limit: a 9th is refused, the limit and the sessions' pids named" "$rc:$out" \
	"1:dtrace: failed to grab pid $tpid: it is traced by 8 dtrace sessions, the most a process takes (theirs: pids $(echo "${pids[@]}" | sed 's/ /, /g'))"
{
	kill -KILL "${pids[3]}"
	wait "${pids[3]}"
} 2>/dev/null
sleep 1.2
"$DTRACE" -q -n "rt*:::tick { printf(\"N %d\\n\", arg1); } rt*:::step { } $DONE" -p "$tpid" \
	>n.out 2>n.err &
n=$!
# the killed one's slot is taken back (its semaphores undone), the newcomer's added
check "limit: the slot of a consumer that died is taken back" cmd "wait 1 step" "ok 1"
expect_eq "limit: the dead session's share of the semaphores is gone" "$(sems)" "tick=8 once=8"
cmd "fire 100 1" fired >/dev/null
cmd "once 1" onced >/dev/null
for i in 0 1 2 4 5 6 7; do wait "${pids[$i]}"; done
wait "$n"
expect_eq "limit: the newcomer has its 100 records" "$(lines n.out):$(cat n.err)" "100:"
all=0
for i in 1 2 3 5 6 7 8; do all=$((all + $(lines l$i.out))); done
expect_eq "limit: the 7 others have theirs (7 x 100)" "$all" 700
expect_eq "limit: in the end, the semaphores are back to 0" "$(sems)" "tick=0 once=0"
stop

# -- Two dtrace -p at once on a process without the runtime: loaded once, both trace ------
rm -f ctl prog.out
mkfifo ctl
./rtprog cmds <ctl >prog.out 2>prog.err &
tpid=$!
exec 5>ctl
wait_for prog.err ready || fail "the target without the runtime started" "$(cat prog.err)"
"$DTRACE" -q -n "rt*:::tick { printf(\"A %d\\n\", arg1); } $DONE" -p "$tpid" >a.out 2>a.err &
a=$!
"$DTRACE" -q -n "rt*:::tick { printf(\"B %d\\n\", arg1); } $DONE" -p "$tpid" >b.out 2>b.err &
b=$!
if ready 2 >/dev/null; then
	cmd "fire 300 1" fired >/dev/null
	cmd "once 1" onced >/dev/null
	wait "$a"
	ra=$?
	wait "$b"
	expect_eq "injection: two dtrace -p at once, one after the other, both trace all" \
		"$ra:$?:$(lines a.out):$(lines b.out):$(cat a.err b.err)" "0:0:300:300:"
	expect_eq "injection: the runtime is loaded once" \
		"$(awk '$6 ~ /libudtrace/ { print $6 }' "/proc/$tpid/maps" | sort -u | wc -l)" 1
elif grep -q 'ptrace\|not allowed' a.err b.err; then
	kill "$a" "$b" 2>/dev/null
	skip "injection: two dtrace -p at once" "ptrace is not allowed here: $(head -1 a.err)"
else
	fail "injection: two dtrace -p at once" "$(cat a.err b.err)"
fi
stop
finish
