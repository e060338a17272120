#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Probes from SystemTap notes (docs/notes.md), on the binaries of this
# machine: Debian's python3, libstdc++'s libstdcxx provider under a C++
# program, and a program of ours built with SystemTap's own dtrace -G and
# <sys/sdt.h>. dtrace lists them as readelf reads the notes, as root and as
# an unprivileged user tracing its own process.
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
cd "$WORK" || exit 1
chmod 755 "$WORK"

# Debian's python3 (not one of a virtual environment or pyenv first in PATH)
PY=$(readlink -f /usr/bin/python3 2>/dev/null)
if [ -z "$PY" ] || ! readelf -n "$PY" 2>/dev/null | grep -q 'Provider: python'; then
	PY_WHY="no /usr/bin/python3 with SystemTap notes (Debian's python3 has them)"
	PY=
fi
# SystemTap's dtrace script (systemtap-sdt-dev), not ours: stapprog built with it
build_stapprog
gcc -O2 -g "$D/hop.c" -o hop 2>build.err && gcc -O2 -g "$D/vecs.c" -o vecs 2>>build.err ||
	{ fail "build hop.c and vecs.c" "$(cat build.err)"; finish; exit; }
CXX_OK=1
g++ -O2 -g "$D/throw.cc" -o throw 2>build.err || { fail "build throw.cc" "$(cat build.err)"; CXX_OK=; }
LIBSTDCXX=$( [ -n "$CXX_OK" ] && readlink -f "$(ldd ./throw | awk '/libstdc\+\+/ { print $3 }')")
if [ -n "$CXX_OK" ] && ! readelf -n "$LIBSTDCXX" 2>/dev/null | grep -q 'Provider: libstdcxx'; then
	CXX_WHY="$LIBSTDCXX has no libstdcxx SystemTap notes"
	CXX_OK=
fi

# start AS NAME CMD...: run CMD (as AS) waiting on a FIFO; sets PID, and FD 3 releases it
start() {
	local as=$1 name=$2
	shift 2
	rm -f "$name.in"
	mkfifo "$name.in"
	chmod 666 "$name.in"
	$as "$@" <"$name.in" >"$name.out" 2>"$name.err" &
	PID=$!
	exec 3>"$name.in"
	wait_for "$name.out" '^ready'
}
# go: let it run on (to "done" after "ready"); release: to the end
go() {
	echo go >&3
}
release() {
	echo go >&3 2>/dev/null
	exec 3>&-
	wait "$PID"
}

# The notes as readelf gives them: "provider name args" per site, in order.
notes_of() {
	readelf -n "$1" | awk '
		/Provider:/ { p = $2 }
		/Name:/ { n = $2; gsub(/__/, "-", n) }
		/Arguments:/ { sub(/^ *Arguments: */, ""); print p, n, $0 }'
}

# -- Listing ------------------------------------------------------------------------------------

list_checks() {
	local as=$1 who=$2

	if [ -n "$PY" ]; then
		start "$as" py "$PY" "$D/lines.py" 3 wait
		got=$($as "$DTRACE" -l -p "$PID" 2>&1 | awk -v p="python$PID" '$2 == p { print $3, $NF }')
		want=$(notes_of "$PY" | awk -v m="$(basename "$PY")" '$1 == "python" { print m, $2 }')
		expect_eq "$who: python3 probes listed as its notes say (module, name)" \
			"$(echo "$got" | tr '\n' '|')" "$(echo "$want" | tr '\n' '|')"
		got=$($as "$DTRACE" -l -v -n "python$PID:::line" -p "$PID" 2>&1 |
			grep -E 'args\[|Probe Sites|semaphore' | tr -d '\t' | tr '\n' '|')
		site=$(readelf -n "$PY" | awk '/Name: line$/ { l = 1 } l && /Location:/ { gsub(/,/, ""); print $2, $6; exit }')
		args=$(notes_of "$PY" | awk '$1 == "python" && $2 == "line" { $1 = ""; $2 = ""; sub(/^  /, ""); print }')
		want="args[0]: uint64_t|args[1]: uint64_t|args[2]: int32_t|"
		want+="Probe Sites (SystemTap notes, .note.stapsdt)|"
		# shellcheck disable=SC2086
		want+="$(printf '0x%x semaphore 0x%x' $site): $args|"
		expect_eq "$who: dtrace -l -v: python:::line's types from its operands' sizes, its site from the note" \
			"$got" "$want"
		release
	else
		skip "$who: python3 probes" "$PY_WHY"
	fi

	if [ -n "$CXX_OK" ]; then
		start "$as" cxx ./throw 3 wait
		got=$($as "$DTRACE" -l -n 'libstdcxx$target:::' -p "$PID" 2>&1 | awk 'NR > 1 { print $3, $4, $5 }')
		want="$(basename "$LIBSTDCXX") __cxa_begin_catch catch|$(basename "$LIBSTDCXX") __cxa_throw throw|$(basename "$LIBSTDCXX") __cxa_rethrow rethrow|"
		expect_eq "$who: libstdcxx probes of a C++ program, with their functions" \
			"$(echo "$got" | tr '\n' '|')" "$want"
		release
		expect_eq "$who: the C++ program runs on" "$(grep thrown cxx.out)" "thrown=3 rethrown=1"
	else
		skip "$who: libstdcxx probes" "${CXX_WHY:-no C++ program}"
	fi

	if [ -n "$STAP_DTRACE" ]; then
		start "$as" stap ./stapprog 3 wait
		got=$($as "$DTRACE" -l -p "$PID" 2>&1 | awk -v p="stapprog$PID" '$2 == p { print $3, $4, $5 }')
		expect_eq "$who: SystemTap-built program: its probes, functions and names" \
			"$(echo "$got" | tr '\n' '|')" "stapprog report mem|stapprog work tick|stapprog frame frame|stapprog frame nosem|"
		got=$($as "$DTRACE" -l -v -n 'stapprog$target:::' -p "$PID" 2>&1 | grep 'args\[' | tr -d '\t' | tr '\n' ' ')
		expect_eq "$who: SystemTap-built program: args[] typed by size and sign" "$got" \
			"args[0]: int64_t args[1]: int32_t args[0]: int32_t args[1]: int64_t args[2]: int64_t args[0]: int32_t args[1]: int64_t args[2]: int16_t args[3]: int8_t "
		got=$($as "$DTRACE" -l -v -n 'stapprog$target:::' -p "$PID" 2>&1 | grep -A1 'Probe Sites' |
			grep -v 'Probe Sites\|^--' | sed 's/.*: //' | tr '\n' '|')
		want=$(notes_of ./stapprog | awk '{ $1 = ""; $2 = ""; sub(/^ +/, ""); print $0 == "" ? "(no arguments)" : $0 }' | tr '\n' '|')
		expect_eq "$who: SystemTap-built program: each site's operands as readelf reads them" "$got" "$want"
		release
	else
		skip "$who: SystemTap-built program" "$STAP_WHY"
	fi
}

# -- Tracing ------------------------------------------------------------------------------------

# until_patched PID FILE SUM: wait (5 s at most) until FILE's text in PID is no longer SUM
until_patched() {
	for _ in $(seq 100); do
		[ "$(text_sum "$1" "$2")" != "$3" ] && return 0
		sleep 0.05
	done
	return 1
}

cat >stap.trace.d <<'EOF'
stapprog$target:::tick { printf("tick %d %d %d\n", args[0], args[1], args[2]); }
stapprog$target:::mem { printf("mem %d %d\n", args[0], args[1]); }
stapprog$target:::frame { printf("frame %d %d %d %d\n", args[0], args[1], args[2], args[3]); }
stapprog$target:::nosem { @n = count(); }
END { printa("nosem %@d\n", @n); }
EOF
# what it prints for stapprog N: each round's arguments, as the program computes them
stap_want() {
	local acc=0
	for ((i = 0; i < $1; i++)); do
		echo "tick $i $acc $((3 * i))"
		echo "mem $((2 * (i + 1))) $i"
		acc=$((acc + i))
		echo "frame $i $acc $((-i)) $i"
	done
	echo "nosem $1"
}

trace_checks() {
	local as=$1 who=$2

	if [ -n "$STAP_DTRACE" ]; then
		# -c: arguments from registers, constants, the stack and %rip-relative memory
		$as "$DTRACE" -q -s stap.trace.d -c './stapprog 5' >stc.out 2>stc.err
		expect_eq "$who: SystemTap-built program under -c: every probe, its arguments as the program has them" \
			"$(grep -v '^$\|^sum' stc.out | tr '\n' '|')" "$(stap_want 5 | tr '\n' '|')"

		# -p: the text and the semaphores while traced, and after
		start "$as" stp "$WORK/stapprog" 5 wait
		t0=$(text_sum "$PID" "$WORK/stapprog")
		s0=$(sem_values "$PID" "$WORK/stapprog")
		b0=$(site_bytes "$PID" "$WORK/stapprog")
		$as "$DTRACE" -q -s stap.trace.d -p "$PID" >stp.trace 2>stp.terr &
		dpid=$!
		until_patched "$PID" "$WORK/stapprog" "$t0"
		# (frame's nop is followed by nosem's: its jump would copy it; nosem's would take
		# the next function's first bytes: both trap)
		expect_eq "$who: -p: jumps where sound, an int3 elsewhere, each semaphore one more" \
			"$(site_bytes "$PID" "$WORK/stapprog") / $(sem_values "$PID" "$WORK/stapprog")" \
			"e9 e9 cc cc  / 1 1 "
		go
		wait_for stp.out '^done'
		kill -INT "$dpid"
		wait "$dpid"
		expect_eq "$who: -p: the probes' arguments" "$(grep -v '^$' stp.trace | tr '\n' '|')" \
			"$(stap_want 5 | tr '\n' '|')"
		expect_eq "$who: -p: after dtrace, the text and the semaphores are as before, byte for byte" \
			"$(text_sum "$PID" "$WORK/stapprog") $(site_bytes "$PID" "$WORK/stapprog")/ $(sem_values "$PID" "$WORK/stapprog")" \
			"$t0 $b0/ $s0"
		release
		expect_eq "$who: -p: the program's output is unchanged" "$(grep sum stp.out)" "sum=10 hist=10"

		# two sessions at once: each site patched once, each semaphore counted twice; the
		# first to leave leaves the other's sites and its share of the semaphores
		start "$as" st2 "$WORK/stapprog" 5 wait
		t0=$(text_sum "$PID" "$WORK/stapprog")
		s0=$(sem_values "$PID" "$WORK/stapprog")
		$as "$DTRACE" -q -s stap.trace.d -p "$PID" >st2a.trace 2>st2a.err &
		da=$!
		$as "$DTRACE" -q -s stap.trace.d -p "$PID" >st2b.trace 2>st2b.err &
		db=$!
		for _ in $(seq 200); do
			[ "$(sem_values "$PID" "$WORK/stapprog")" = "2 2 " ] && break
			sleep 0.05
		done
		expect_eq "$who: two sessions: each site patched once, each semaphore two more" \
			"$(site_bytes "$PID" "$WORK/stapprog") / $(sem_values "$PID" "$WORK/stapprog")" \
			"e9 e9 cc cc  / 2 2 "
		go
		wait_for st2.out '^done'
		kill -INT "$da"
		wait "$da"
		expect_eq "$who: two sessions: the first gone, the other's sites stay, one more each" \
			"$(site_bytes "$PID" "$WORK/stapprog") / $(sem_values "$PID" "$WORK/stapprog")" \
			"e9 e9 cc cc  / 1 1 "
		kill -INT "$db"
		wait "$db"
		expect_eq "$who: two sessions: each has every probe's arguments" \
			"$(grep -v '^$' st2a.trace | tr '\n' '|'):$(grep -v '^$' st2b.trace | tr '\n' '|')" \
			"$(stap_want 5 | tr '\n' '|'):$(stap_want 5 | tr '\n' '|')"
		expect_eq "$who: two sessions: after both, the text and the semaphores are as before" \
			"$(text_sum "$PID" "$WORK/stapprog")/ $(sem_values "$PID" "$WORK/stapprog")" "$t0/ $s0"
		release

		# traps only, when asked
		start "$as" stt "$WORK/stapprog" 5 wait
		t0=$(text_sum "$PID" "$WORK/stapprog")
		$as "$DTRACE" -q -x notesites=trap -s stap.trace.d -p "$PID" >stt.trace 2>stt.terr &
		dpid=$!
		until_patched "$PID" "$WORK/stapprog" "$t0"
		expect_eq "$who: -x notesites=trap: each site's nop is an int3" \
			"$(site_bytes "$PID" "$WORK/stapprog")" "cc cc cc cc "
		go
		wait_for stt.out '^done'
		kill -INT "$dpid"
		wait "$dpid"
		expect_eq "$who: -x notesites=trap: the same arguments, the text as before after" \
			"$(grep -v '^$' stt.trace | tr '\n' '|') $(text_sum "$PID" "$WORK/stapprog")" \
			"$(stap_want 5 | tr '\n' '|') $t0"
		release

		# the application's own SIGTRAP handler, its raise() and its own int3: untouched
		start "$as" trp "$WORK/stapprog" 50 wait traps
		t0=$(text_sum "$PID" "$WORK/stapprog")
		$as "$DTRACE" -q -n 'stapprog$target:::frame { @ = count(); } END { printa("frames %@d\n", @); }' \
			-p "$PID" >trp.trace 2>&1 &
		dpid=$!
		until_patched "$PID" "$WORK/stapprog" "$t0"
		go
		wait_for trp.out '^done'
		kill -INT "$dpid"
		wait "$dpid"
		release
		expect_eq "$who: the application's SIGTRAPs and int3s reach its own handler, ours fire" \
			"$(grep -v '^$\|ready\|done' trp.out trp.trace | sed 's/^[^:]*://' | tr '\n' ' ')" \
			"sum=1225 hist=100 traps=100 frames 50 "

		# a debugger beside the jumps: its breakpoints are its own, our jumps trap nothing;
		# dtrace, whose ptrace gdb holds, cannot have the runtime sync at the end: the
		# runtime restores the jumps at their next fire
		if gdb_usable; then
			start "$as" gdb "$WORK/stapprog" 5 wait
			t0=$(text_sum "$PID" "$WORK/stapprog")
			$as "$DTRACE" -q -n 'stapprog$target:::tick, stapprog$target:::mem { @[probename] = count(); }' \
				-n 'END { printa("%s %@d\n", @); }' -p "$PID" >gdb.trace 2>&1 &
			dpid=$!
			until_patched "$PID" "$WORK/stapprog" "$t0"
			printf '%s\n' 'set $n = 0' 'break frame' 'commands' 'silent' 'set $n = $n + 1' \
				'continue' 'end' 'continue' 'printf "breaks %d\n", $n' >gdb.cmds
			$as gdb -nx -batch -p "$PID" -x gdb.cmds >gdb.out2 2>&1 &
			gpid=$!
			wait_for gdb.out2 'Breakpoint 1'
			sleep 0.5
			go
			wait_for gdb.out '^done'
			kill -INT "$dpid"
			wait "$dpid"
			release
			wait "$gpid"
			expect_eq "$who: gdb attached: its breakpoint hit 5 times, our jumped probes fired 5 times" \
				"$(grep -h '^breaks\|^tick\|^mem' gdb.out2 gdb.trace | sort | tr '\n' ' ')$(grep sum gdb.out)" \
				"breaks 5 mem 5 tick 5 sum=10 hist=10"
		else
			skip "$who: a debugger's breakpoints beside our jumps" "$GDB_WHY"
		fi

		# a fork child runs the patched text, correctly, traced: it keeps the session
		start "$as" frk "$WORK/stapprog" 4 wait fork
		t0=$(text_sum "$PID" "$WORK/stapprog")
		$as "$DTRACE" -q -n 'stapprog$target:::tick, stapprog$target:::frame { @[probename] = count(); }' \
			-n 'END { printa("%s %@d\n", @); }' -p "$PID" >frk.trace 2>&1 &
		dpid=$!
		until_patched "$PID" "$WORK/stapprog" "$t0"
		go
		wait_for frk.out '^done'
		kill -INT "$dpid"
		wait "$dpid"
		release
		expect_eq "$who: fork: the child runs its patched copy, both are traced" \
			"$(grep -v 'ready\|done' frk.out | tr '\n' ' ')$(grep -v '^$' frk.trace | sort | tr '\n' ' ')" \
			"sum=6 hist=8 child sum=6 child status=0 frame 8 tick 8 "

		# a thread that blocks SIGTRAP would be killed at a trap: nothing is patched
		start "$as" blk "$WORK/stapprog" 3 wait blocker
		t0=$(text_sum "$PID" "$WORK/stapprog")
		sleep 0.2
		out=$($as "$DTRACE" -q -s stap.trace.d -p "$PID" 2>&1)
		expect_eq "$who: a thread blocks SIGTRAP: refused, with the thread, the text untouched" \
			"$(echo "$out" | sed 's/thread [0-9]*/thread N/') $(text_sum "$PID" "$WORK/stapprog")" \
			"dtrace: failed to enable the SystemTap probe sites of pid $PID: its thread N blocks SIGTRAP, and the kernel would kill it at a trap $t0"
		release

		# a consumer killed: the deadman's first trap restores everything
		start "$as" dmn "$WORK/stapprog" 3 wait
		t0=$(text_sum "$PID" "$WORK/stapprog")
		s0=$(sem_values "$PID" "$WORK/stapprog")
		$as "$DTRACE" -q -x deadman=1s -s stap.trace.d -p "$PID" >/dev/null 2>&1 &
		dpid=$!
		until_patched "$PID" "$WORK/stapprog" "$t0"
		kill -KILL "$dpid"
		wait "$dpid" 2>/dev/null
		sleep 1.5
		go
		wait_for dmn.out '^done'
		expect_eq "$who: dtrace killed: after the deadman, the text and the semaphores are as before" \
			"$(text_sum "$PID" "$WORK/stapprog")/ $(sem_values "$PID" "$WORK/stapprog")" "$t0/ $s0"
		release
		expect_eq "$who: dtrace killed: the program's output is unchanged" "$(grep sum dmn.out)" \
			"sum=3 hist=6"

		# a consumer killed, and another one comes: the sites it does not want are restored
		start "$as" nxt "$WORK/stapprog" 3 wait
		t0=$(text_sum "$PID" "$WORK/stapprog")
		$as "$DTRACE" -q -s stap.trace.d -p "$PID" >/dev/null 2>&1 &
		dpid=$!
		until_patched "$PID" "$WORK/stapprog" "$t0"
		kill -KILL "$dpid"
		wait "$dpid" 2>/dev/null
		$as "$DTRACE" -q -n 'stapprog$target:::nosem { @ = count(); } END { printa("nosem %@d\n", @); }' \
			-p "$PID" >nxt.trace 2>&1 &
		dpid=$!
		for _ in $(seq 100); do
			[ "$(site_bytes "$PID" "$WORK/stapprog")" = "90 90 90 cc " ] && break
			sleep 0.05
		done
		expect_eq "$who: the next dtrace: only its own site is patched" \
			"$(site_bytes "$PID" "$WORK/stapprog")" "90 90 90 cc "
		go
		wait_for nxt.out '^done'
		kill -INT "$dpid"
		wait "$dpid"
		expect_eq "$who: the next dtrace: its probe fires, and then the text is as before" \
			"$(grep nosem nxt.trace) $(text_sum "$PID" "$WORK/stapprog")" "nosem 3 $t0"
		release
	else
		skip "$who: tracing a SystemTap-built program" "$STAP_WHY"
	fi

	# a site entered past its nop by a jump nothing in its function shows: the runtime's
	# int3 where the displaced instruction started sends the thread to its copy
	start "$as" hop "$WORK/hop" 20000 wait
	t0=$(text_sum "$PID" "$WORK/hop")
	$as "$DTRACE" -q -n 'hop$target:::site { @ = count(); @s = sum(arg0); }' \
		-n 'END { printa("fired %@d sum %@d\n", @, @s); }' -p "$PID" >hop.trace 2>&1 &
	dpid=$!
	until_patched "$PID" "$WORK/hop" "$t0"
	base=$(load_base "$PID" "$WORK/hop")
	at=$(note_field "$WORK/hop" Location)
	expect_eq "$who: hop: a jump whose displacement has int3s where instructions start" \
		"$(dd if="/proc/$PID/mem" bs=1 skip=$((base + at)) count=5 2>/dev/null | od -An -tx1 |
		   awk '{ print $1, $2, $5 }')" "e9 cc cc"
	go
	wait_for hop.out '^done'
	kill -INT "$dpid"
	wait "$dpid"
	expect_eq "$who: hop: each call fires, each entry past the nop runs its copy, and the text is back" \
		"$(grep -v '^$' hop.trace) $(grep sum hop.out) $(text_sum "$PID" "$WORK/hop")" \
		"fired 20000 sum 199990000 sum=800000000 $t0"
	release

	# what the program holds at a site: vector registers (AVX, AVX-512), general
	# registers, flags, the red zone; whatever the clause does, through a jump and a trap
	for mode in auto trap; do
		out=$($as "$DTRACE" -q -x notesites=$mode -n 'vecs$target:::site { @[ustack(2)] = count(); }' \
			-n 'vecs$target:::site { @s[strjoin("r", lltostr(arg0 & 0xff))] = count(); }' \
			-n 'vecs$target:::site { @m = max(arg1); printf("%s", ""); }' -c './vecs 300' 2>&1)
		expect_eq "$who: notesites=$mode: the program's registers, flags and red zone as before the site" \
			"$(echo "$out" | head -1) $(echo "$out" | grep -c '^ *r[0-9]')" "ok 300 256"
	done

	if [ -n "$CXX_OK" ]; then
		# the throws' stacks, from the right function; rethrows and catches counted
		$as "$DTRACE" -q -n 'libstdcxx$target:::throw { @[ustack(3)] = count(); }' \
			-n 'libstdcxx$target:::rethrow { @r = count(); } libstdcxx$target:::catch { @c = count(); }' \
			-n 'END { printa("rethrow %@d\n", @r); printa("catch %@d\n", @c); }' \
			-c './throw 7' >cxx.trace 2>cxx.terr
		got=$(grep -v '^$\|thrown' cxx.trace | sed 's/+0x[0-9a-f]*//' | tr -s ' ' | tr '\n' '|')
		expect_eq "$who: C++: libstdcxx:::throw counted with its stack (__cxa_throw, then thrower)" \
			"$got$(grep thrown cxx.trace)" "rethrow 2|catch 9| $(basename "$LIBSTDCXX")\`__cxa_throw| throw\`_Z7throweri| throw\`_ZL5relayi| 7|thrown=7 rethrown=2"

		start "$as" cxp "$WORK/throw" 4 wait
		$as "$DTRACE" -q -n 'libstdcxx$target:::throw { @[ustack(2)] = count(); }' -p "$PID" \
			>cxp.trace 2>cxp.terr &
		dpid=$!
		t0=$(text_sum "$PID" "$LIBSTDCXX")
		until_patched "$PID" "$LIBSTDCXX" "$t0"
		go
		wait_for cxp.out '^done'
		kill -INT "$dpid"
		wait "$dpid"
		release
		expect_eq "$who: C++ under -p: throws counted by their stacks" \
			"$(grep -v '^$' cxp.trace | sed 's/+0x[0-9a-f]*//' | tr -s ' ' | tr '\n' '|')$(grep thrown cxp.out)" \
			" $(basename "$LIBSTDCXX")\`__cxa_throw| throw\`_Z7throweri| 4|thrown=4 rethrown=1"
	else
		skip "$who: tracing libstdcxx" "${CXX_WHY:-no C++ program}"
	fi

	if [ -n "$PY" ]; then
		# python:::line: each line of the script as it runs, against Python's own tracing
		cat >pyref.py <<'EOF'
import collections, sys
script = sys.argv[1]
counts = collections.Counter()
def tracer(frame, event, arg):
    if frame.f_code.co_filename != script:
        return None
    if event == 'line':
        counts[frame.f_lineno] += 1
    return tracer
sys.argv = sys.argv[1:]
sys.settrace(tracer)
exec(compile(open(script).read(), script, 'exec'), {'__name__': '__main__'})
sys.settrace(None)
for k in sorted(counts):
    print(k, counts[k])
EOF
		"$PY" pyref.py "$D/lines.py" 200 >pyref.out 2>&1
		$as "$DTRACE" -q -n "python\$target:::line /copyinstr(arg0) == \"$D/lines.py\"/ { @[arg2] = count(); }" \
			-n 'END { printa("%d %@d\n", @); }' -c "$PY $D/lines.py 200" >py.trace 2>py.terr
		expect_eq "$who: python3: python:::line counts each line of the script as Python's settrace() does" \
			"$(grep -v '^$\|total=' py.trace | sort -n | tr '\n' '|')" \
			"$(grep -v total= pyref.out | tr '\n' '|')"
		if [ -z "$as" ] && have bpftrace && bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1; then
			bpftrace -e "usdt:$PY:python:line /str(arg0) == \"$D/lines.py\"/ { @[arg2] = count(); }" \
				-c "$PY $D/lines.py 200" >bpf.out 2>&1
			expect_eq "$who: python3: bpftrace's uprobes count the same" \
				"$(sed -n 's/^@\[\([0-9]*\)\]: \([0-9]*\)$/\1 \2/p' bpf.out | sort -n | tr '\n' '|')" \
				"$(grep -v total= pyref.out | tr '\n' '|')"
		elif [ -z "$as" ]; then
			skip "$who: python3 against bpftrace" "bpftrace is missing or may not load programs here"
		fi

		# -p: the lines of f() by function name (function-entry's arg1, which Python 3.11
		# fires only while line is enabled too); python's own output unchanged
		start "$as" pyp "$PY" "$D/lines.py" 300 wait
		t0=$(text_sum "$PID" "$PY")
		s0=$(sem_values "$PID" "$PY")
		$as "$DTRACE" -q -n 'python$target:::function-entry { self->fn = copyinstr(arg1); }' \
			-n 'python$target:::line /self->fn != ""/ { @[self->fn, arg2] = count(); }' \
			-n 'python$target:::function-return { self->fn = ""; }' \
			-p "$PID" >pyp.trace 2>pyp.terr &
		dpid=$!
		until_patched "$PID" "$PY" "$t0"
		go
		wait_for pyp.out '^done'
		kill -INT "$dpid"
		wait "$dpid"
		expect_eq "$who: python3 under -p: the lines of f() by function, from several probes" \
			"$(awk '$1 == "f" { print $2, $3 }' pyp.trace | sort -n | tr '\n' '|')" "9 300|10 300|"
		expect_eq "$who: python3 under -p: after dtrace, its text and semaphores as before" \
			"$(text_sum "$PID" "$PY")/ $(sem_values "$PID" "$PY")" "$t0/ $s0"
		release
		expect_eq "$who: python3 under -p: its output unchanged" "$(grep total pyp.out)" "total=90000"
	else
		skip "$who: tracing python3" "$PY_WHY"
	fi
}

# The runtime calls no memory or string function of the C library (runtime/string.c):
# their AVX and AVX-512 versions would change registers a trampoline does not save.
imports=$(nm -D --undefined-only "$BUILD/lib/libudtrace.so.1" | grep ' U ')
[ -n "$imports" ] || fail "nm lists what libudtrace.so.1 imports"
expect_eq "libudtrace imports no memory or string function" \
	"$(echo "$imports" | awk '{ print $2 }' | grep -E '^(mem|str|stp|wmem|wcs)' |
	   grep -vE '^(memfd_create|strdup|strerror|strtol)@' | tr '\n' ' ')" ""

list_checks "" root
if [ "$(id -u)" = 0 ] && have setpriv; then
	list_checks "setpriv --reuid=65534 --regid=65534 --clear-groups" "unprivileged"
else
	skip "unprivileged listing" "needs root and setpriv to become another user"
fi
trace_checks "" root
if [ "$(id -u)" = 0 ] && have setpriv; then
	trace_checks "setpriv --reuid=65534 --regid=65534 --clear-groups" "unprivileged"
else
	skip "unprivileged tracing" "needs root and setpriv to become another user"
fi

finish
