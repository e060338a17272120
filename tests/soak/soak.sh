#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The soak (make soak; make check runs a shorter one): a multi-threaded
# target (soakprog.c) fires USDT, SystemTap and pid probes for SOAK_SECONDS
# (300) while consumers attach, enable, trace, detach and are killed in a
# loop, four at a time: SIGINT after a while (they must end normally, with
# every record of each thread between the first and the last they saw, or
# the drops they report), SIGKILL after a while, and SIGKILL in the middle of
# the call dtrace makes in the process to patch its sites (data/killmid.c).
# At the end the target has run without a fault, its output is an untraced
# run's of as many steps, and once the last session has gone it holds no
# patched byte, no semaphore, no tracer and no mapping of dtrace's. The
# seed (SOAK_SEED) is printed: the same seed gives the same choices.
. "$(dirname "$0")/../lib.sh"

S=$TOP/tests/soak
D=$TOP/tests/integration/data
DURATION=${SOAK_SECONDS:-300}
SEED=${SOAK_SEED:-$$}
RANDOM=$SEED
AT_ONCE=4
ASAN=
asan_build && ASAN=1
echo "# soak: $DURATION s, seed $SEED"
cd "$WORK" || exit 1

("$DTRACE" -h -s "$S/soak.d" -o soak.h &&
	gcc -O2 -g -Wall -Wextra -I. -c "$S/soakprog.c" -o soakprog.o &&
	"$DTRACE" -G -s "$S/soak.d" -o soak_prov.o soakprog.o &&
	gcc soakprog.o soak_prov.o -o soakprog -lpthread &&
	gcc -O2 -o killmid "$D/killmid.c") >build.err 2>&1 || {
	fail "build the soak's target" "$(cat build.err)"
	finish
	exit
}
EXE=$WORK/soakprog

# the consumers: options, probes, and whether they print (thread, seq) records to check
opts=('' '' '-x notesites=trap' '' '-x pidsites=trap' '' '-x bufpolicy=ring -x bufsize=64k'
	'-x bufpolicy=fill -x bufsize=256k')
descs=('soak$target:::step' 'soaknote$target:::step' 'soaknote$target:::step'
	'pid$target:a.out:step:entry' 'pid$target:a.out:step:entry'
	'soak$target:::burst { @s[copyinstr(arg2)] = count(); } pid$target:a.out:step:return, soaknote$target:::step'
	'soak$target:::step' 'soaknote$target:::step')
acts=('printf("%d %d\n", arg0, arg1);' 'printf("%d %d\n", arg0, arg1);'
	'printf("%d %d\n", arg0, arg1);' 'printf("%d %d\n", arg0, arg1);'
	'printf("%d %d\n", arg0, arg1);' '@[probename, arg0 % 2] = count();'
	'printf("%d %d\n", arg0, arg1);' 'printf("%d %d\n", arg0, arg1);')
# which of them patch sites (so that dtrace makes a call in the process: killmid's moment)
patches=(0 1 1 1 1 1 0 1)

# records FILE: "" if each thread's records in FILE are every step from its first to its last,
# once each; else what is wrong
records() {
	awk 'NF == 2 && $1 ~ /^[0-9]+$/ {
		t = $1; s = $2
		if ((t, s) in seen) dup[t]++
		seen[t, s] = 1; n[t]++
		if (!(t in lo) || s < lo[t]) lo[t] = s
		if (!(t in hi) || s > hi[t]) hi[t] = s
	}
	END {
		for (t in n)
			if (dup[t] || hi[t] - lo[t] + 1 != n[t] - dup[t])
				printf "thread %s: %d records of %d..%d, %d twice; ", t, n[t], lo[t], hi[t], dup[t]
	}' "$1"
}
masks() {
	cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^SigBlk/ { b[$2]++ } /^TracerPid/ { t = $2 }
		END { for (m in b) printf "%s ", m; print "tracer " t }'
}
# foreign: the session memory and the anonymous code of dtrace's left in the target: its
# memory (memfd:udtrace), an injected call's page (mapped anywhere); not the runtime's
# trampolines, which stay with it (docs/pid.md) within 2 GiB of the text they serve
foreign() {
	local exe lo hi
	exe=$(awk -v f="$EXE" '$6 == f { split($1, a, "-"); print a[1]; exit }' "/proc/$tp/maps")
	awk '/memfd:udtrace/ || ($2 ~ /x/ && NF == 5) { print $1, $6 }' "/proc/$tp/maps" |
		while IFS='- ' read -r lo hi name; do
			local d=$((16#$lo - 16#$exe))
			[ -z "$name" ] && [ "${d#-}" -lt $((1 << 31)) ] && continue
			echo -n "$lo-$hi ${name:-(anonymous, executable)}; "
		done
}
# lives: the live bytes of the target's sessions (udt__control's header)
lives() {
	local rt base off
	rt=$(awk '/libudtrace/ { print $6; exit }' "/proc/$tp/maps")
	[ -n "$rt" ] || { echo " 0 0 0 0 0 0 0 0"; return; } # (none loaded yet)
	base=$(awk -v f="$rt" '$6 == f { split($1, a, "-"); print a[1]; exit }' "/proc/$tp/maps")
	off=$(nm "$rt" | awk '$3 == "udt__control" { print $1 }')
	dd if="/proc/$tp/mem" bs=1 skip=$((16#$base + 16#$off)) count=8 2>/dev/null | od -An -tu1 | tr -s ' '
}
state() {
	echo "text $(text_sum "$tp" "$EXE") sites $(site_bytes "$tp" "$EXE")"
	echo "semaphores $(semaphore "$tp" "$EXE" soak_step_semaphore) $(semaphore "$tp" "$EXE" soak_burst_semaphore)"
	echo "masks $(masks "$tp")"
	echo "live sessions:$(lives)"
	echo "mappings of dtrace's: $(foreign)"
}

rm -f prog.in
mkfifo prog.in
./soakprog 4 250 <prog.in >prog.out 2>prog.err &
tp=$!
exec 3>prog.in
wait_for prog.err '^ready' || { fail "the soak's target started" "$(cat prog.err)"; finish; exit; }
state >state0

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
declare -A c_pid=() c_kind=() c_end=() c_how=() c_t0=() c_sig=()
launched=0 ended=0 killed=0 midkills=0 midtraced=0 problems= n=0 with_records=0
end_of() { # I: a consumer that has ended: its checks
	local i=$1 rc
	{ wait "${c_pid[$i]}"; } 2>/dev/null
	rc=$?
	ended=$((ended + 1))
	if [ "${c_how[$i]}" != int ]; then
		killed=$((killed + 1))
	else
		local bad
		bad=$(records "c$i.out")
		# (a drop is said, never silent: then the records may have gaps; a ring's
		# overwritten records are its policy's, and said too)
		grep -q 'drop' "c$i.err" && bad=
		grep -q '^[0-9]* [0-9]*$' "c$i.out" && with_records=$((with_records + 1))
		[ "$rc" = 0 ] && [ -z "$bad" ] && ! grep -qv 'drop\|records overwritten in ring buffers' "c$i.err" ||
			problems+="consumer $i (${opts[${c_kind[$i]}]} ${descs[${c_kind[$i]}]}): exit $rc, $bad $(head -c 300 "c$i.err"); "
	fi
	[ -n "${SOAK_KEEP:-}" ] || rm -f "c$i.out"
	echo "$i ${c_how[$i]} ${c_t0[$i]} $(now_ms) ${opts[${c_kind[$i]}]} ${descs[${c_kind[$i]}]}" >>consumers.log
	unset "c_pid[$i]"
}
deadline=$(($(now_ms) + DURATION * 1000))
while [ "$(now_ms)" -lt "$deadline" ] && kill -0 "$tp" 2>/dev/null; do
	now=$(now_ms)
	for i in "${!c_pid[@]}"; do
		if ! kill -0 "${c_pid[$i]}" 2>/dev/null; then
			end_of "$i"
		elif [ "$now" -ge "${c_end[$i]}" ]; then
			[ "${c_how[$i]}" = int ] && kill -INT "${c_pid[$i]}" || kill -KILL "${c_pid[$i]}"
			c_sig[$i]=$now
			c_end[$i]=$((now + 3600000))
		fi
	done
	while [ "${#c_pid[@]}" -lt "$AT_ONCE" ]; do
		n=$((n + 1))
		k=$((RANDOM % ${#descs[@]}))
		r=$((RANDOM % 10))
		how=int
		[ "$r" -ge 7 ] && how=kill
		[ "$r" -ge 9 ] && [ "${patches[$k]}" = 1 ] && how=mid
		# (an AddressSanitizer dtrace makes its calls itself: killed in one, it would leave
		# the thread parked; it is killed only where it makes none)
		[ -n "$ASAN" ] && [ "${patches[$k]}" = 1 ] && how=int
		# shellcheck disable=SC2086
		"$DTRACE" -q ${opts[$k]} -n "${descs[$k]} { ${acts[$k]} }" -p "$tp" >"c$n.out" 2>"c$n.err" &
		c_pid[$n]=$!
		c_kind[$n]=$k
		c_how[$n]=$how
		c_t0[$n]=$(now_ms)
		c_end[$n]=$(($(now_ms) + 300 + RANDOM % 2700))
		if [ "$how" = mid ]; then
			midkills=$((midkills + 1))
			[ "$(./killmid "$tp" "${c_pid[$n]}" $((RANDOM % 4000)))" = traced ] &&
				midtraced=$((midtraced + 1))
		fi
		launched=$((launched + 1))
	done
	sleep 0.1
done
# (a consumer told to end long ago and still there: its ^C was lost; a round is a second)
for i in "${!c_pid[@]}"; do
	[ -n "${c_sig[$i]:-}" ] && [ $(($(now_ms) - c_sig[$i])) -gt 30000 ] &&
		problems+="consumer $i (${descs[${c_kind[$i]}]}): still running $((($(now_ms) - c_sig[$i]) / 1000)) s after its SIGINT; "
done
for i in "${!c_pid[@]}"; do
	[ "${c_how[$i]}" = int ] && kill -INT "${c_pid[$i]}" 2>/dev/null || kill -KILL "${c_pid[$i]}" 2>/dev/null
done
for i in "${!c_pid[@]}"; do
	for _ in $(seq 300); do kill -0 "${c_pid[$i]}" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "${c_pid[$i]}" 2>/dev/null; then
		problems+="consumer $i (${descs[${c_kind[$i]}]}): still running 30 s after its SIGINT; "
		kill -KILL "${c_pid[$i]}"
	fi
	end_of "$i"
done
echo "# $launched consumers: $((ended - killed)) ended by SIGINT, $killed killed ($midkills of them mid-call, $midtraced of those while the call was made)"

check "the target ran to the end of the soak" kill -0 "$tp"
check "consumers ended by SIGINT with records checked: $with_records (of $launched)" \
	test "$with_records" -ge $((DURATION / 10))
expect_eq "every consumer ended by SIGINT exited 0 with all its records, or said what it dropped" \
	"$problems" ""
# the last one gone: nothing of dtrace's (a killed consumer's session ends at its deadman: the
# next fire 5 s after its last heartbeat)
for _ in $(seq 300); do
	state >state1
	cmp -s state0 state1 && break
	sleep 0.05
done
expect_eq "once the last session had gone: its text, semaphores, masks and mappings as before" \
	"$(cat state1)" "$(cat state0)"
exec 3>&-
wait "$tp"
expect_eq "the target exited 0" "$?" 0
steps=$(awk '{ printf "%s ", $4 }' prog.out)
# shellcheck disable=SC2086
./soakprog ref $steps >ref.out
expect_file "its output is an untraced run's of as many steps ($steps)" prog.out ref.out
[ -n "${SOAK_KEEP:-}" ] && rm -rf "$SOAK_KEEP" && cp -r "$WORK" "$SOAK_KEEP"
if [ -z "$ASAN" ]; then
	check "the soak had SIGKILLs in the middle of dtrace's calls in the process ($midtraced)" \
		test "$midtraced" -gt 0
else
	skip "SIGKILLs in the middle of dtrace's calls" "an AddressSanitizer build makes its calls itself (proc/inject.c)"
fi
finish
