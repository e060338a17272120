#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Consumers attaching at once (docs/runtime.md, "Several sessions"): rounds of
# eight dtrace -p (the slot limit) started together on a fresh process whose
# SystemTap sites no runtime has loaded yet (data/stapprog.c, built with
# SystemTap's dtrace), in jump and trap modes, with SystemTap, pid entry and
# pid return probes. The first of them loads the runtime into it, the others
# wait for the attach lock; each must trace with exact counts or say a true
# reason, and once the last has gone the process is as it was: no tracer, its
# signal masks, its text byte for byte. A later single attach traces too.
. "$(dirname "$0")/../lib.sh"

cd "$WORK" || exit 1
ROUNDS=${ATTACH_ROUNDS:-6}
N=8 # UDT_SLOT_MAX
if ! build_stapprog; then
	skip "consumers attaching at once" "$STAP_WHY"
	finish
	exit
fi

# the consumers: each counts its probes' fires (jump or trap mode), and what it counts over
# one pass of the target's 100 rounds
opts=('' '-x notesites=trap' '' '' '-x notesites=trap' '' '-x pidsites=trap' '-x notesites=trap')
descs=('stapprog$target:::tick' 'stapprog$target:::tick' 'stapprog$target:::mem'
	'stapprog$target:::frame' 'stapprog$target:::nosem' 'pid$target:a.out:work:entry'
	'pid$target:a.out:frame:return' 'stapprog$target:::tick,stapprog$target:::mem')
wants=('tick 100|' 'tick 100|' 'mem 100|' 'frame 100|' 'nosem 100|' 'entry 100|' 'return 100|'
	'mem 100|tick 100|')
# masks PID: each thread's SigBlk and the process's TracerPid
masks() {
	cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^SigBlk/ { printf "%s ", $2 } /^TracerPid/ { t = $2 }
		END { print "tracer " t }'
}
# consumer I PID: start consumer I on PID
consumer() {
	# shellcheck disable=SC2086
	"$DTRACE" -q ${opts[$1]} -n "BEGIN { printf(\"go\\n\"); } ${descs[$1]} { @[probename] = count(); }" \
		-n 'END { printa("%s %@d\n", @); }' -p "$2" >"c$1.out" 2>"c$1.err" &
	cpid[$1]=$!
}
# started FILE PID: until consumer PID's BEGIN line is in FILE (20 s at most), or it has ended
started() {
	for _ in $(seq 400); do
		grep -q '^go$' "$1" 2>/dev/null && return
		kill -0 "$2" 2>/dev/null || return
		sleep 0.05
	done
}
# counts FILE: a consumer's counts, sorted, a line each
counts() {
	grep -v '^go$\|^$' "$1" | sort | tr '\n' '|'
}

bad_trace= bad_state= bad_single= bad_said=
for r in $(seq "$ROUNDS"); do
	rm -f prog.in
	mkfifo prog.in
	./stapprog 100 wait twice <prog.in >prog.out 2>prog.err &
	tp=$!
	exec 3>prog.in
	if ! wait_for prog.out '^ready'; then
		fail "round $r: the target started" "$(cat prog.err)"
		break
	fi
	t0=$(text_sum "$tp" "$WORK/stapprog")
	m0=$(masks "$tp")
	cpid=()
	for i in $(seq 0 $((N - 1))); do consumer "$i" "$tp"; done
	# BEGIN's line reaches the file with the first round, after the probes are enabled
	for i in $(seq 0 $((N - 1))); do started "c$i.out" "${cpid[$i]}"; done
	echo go >&3
	wait_for prog.out '^done' || bad_trace+="round $r: the target did not finish its rounds; "
	for i in $(seq 0 $((N - 1))); do kill -INT "${cpid[$i]}" 2>/dev/null; done
	for i in $(seq 0 $((N - 1))); do
		wait "${cpid[$i]}"
		rc=$?
		got="$rc:$(counts "c$i.out")"
		want="0:${wants[$i]}"
		[ "$got" = "$want" ] ||
			bad_trace+="round $r: consumer $i (${opts[$i]} ${descs[$i]}): $got (want $want) $(head -c 300 "c$i.err"); "
		[ -s "c$i.err" ] && bad_said+="round $r: consumer $i: $(head -c 300 "c$i.err"); "
	done
	# the last gone: the process as before
	got="$(text_sum "$tp" "$WORK/stapprog") $(masks "$tp") $(sem_values "$tp" "$WORK/stapprog")"
	want="$t0 $m0 0 0 "
	[ "$got" = "$want" ] || bad_state+="round $r: $got (want $want); "
	# a later single attach traces the second pass
	"$DTRACE" -q -n 'BEGIN { printf("go\n"); } stapprog$target:::tick, pid$target:a.out:work:entry
		{ @[probename] = count(); } END { printa("%s %@d\n", @); }' -p "$tp" >one.out 2>one.err &
	one=$!
	wait_for one.out '^go$'
	echo go >&3
	wait_for prog.out '^sum=[0-9]*$'
	kill -INT "$one" 2>/dev/null
	wait "$one"
	got="$?:$(counts one.out):$(cat one.err)"
	[ "$got" = "0:entry 100|tick 100|:" ] || bad_single+="round $r: $got; "
	echo go >&3
	exec 3>&-
	wait "$tp"
	[ "$(grep -c '^sum=' prog.out)" = 2 ] || bad_state+="round $r: the target's output: $(tr '\n' ' ' <prog.out); "
done

# one more than the slots take: eight trace, the ninth says why not
rm -f prog.in
mkfifo prog.in
./stapprog 100 wait <prog.in >prog.out 2>prog.err &
tp=$!
exec 3>prog.in
wait_for prog.out '^ready'
cpid=()
for i in $(seq 0 "$N"); do
	"$DTRACE" -q -n 'BEGIN { printf("go\n"); } stapprog$target:::tick { @ = count(); }' \
		-n 'END { printa("%@d\n", @); }' -p "$tp" >"n$i.out" 2>"n$i.err" &
	cpid[$i]=$!
done
for i in $(seq 0 "$N"); do started "n$i.out" "${cpid[$i]}"; done
echo go >&3
wait_for prog.out '^done'
for i in $(seq 0 "$N"); do kill -INT "${cpid[$i]}" 2>/dev/null; done
res=
for i in $(seq 0 "$N"); do
	wait "${cpid[$i]}"
	res+="$?:$(counts "n$i.out"):$(sed "s/pid $tp/pid P/; s/theirs: pids [^)]*/.../" "n$i.err")
"
done
echo go >&3
exec 3>&-
wait "$tp"
expect_eq "$((N + 1)) consumers at once: $N trace every fire, the last says the limit" \
	"$(grep -v '^$' <<<"$res" | LC_ALL=C sort | uniq -c | sed 's/^ *//' | tr '\n' '|')" \
	"$N 0:100|:|1 1::dtrace: failed to grab pid P: it is traced by 8 dtrace sessions, the most a process takes (...)|"

expect_eq "$ROUNDS rounds of $N consumers at once on a fresh process: each traced every fire, exactly" \
	"$bad_trace" ""
expect_eq "$ROUNDS rounds: no consumer refused or said anything" "$bad_said" ""
expect_eq "$ROUNDS rounds: once the last had gone, no tracer, the masks and the text as before, the semaphores 0" \
	"$bad_state" ""
expect_eq "$ROUNDS rounds: a later single attach traced the process's next pass" "$bad_single" ""
finish
