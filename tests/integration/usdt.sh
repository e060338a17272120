#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# USDT as DTrace's own tests use it (Oracle's test/unittest/usdt and ustack):
# a program whose probes come both from our header and from the system's
# <sys/sdt.h>, linked with our -G object; an is-enabled check in a hot -O2
# loop that a consumer attached later must see; a helper run through
# system() and popen() under -c, traced from its start; a stack through the
# C library's static functions; and dtrace -c's exit status. (A fire
# straight after dlopen() is late.sh's.)
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
cd "$WORK" || exit 1
if ! echo '#include <sys/sdt.h>' | $CC -E - >/dev/null 2>&1; then
	skip "USDT through <sys/sdt.h>" "no <sys/sdt.h> (systemtap-sdt-dev)"
	finish
	exit
fi
"$DTRACE" -h -s "$D/usdt.d" -o usdt.h &&
	for p in usdt_mix usdt_hot usdt_sys; do
		$CC -O2 -g -Wall -Wextra -I. -c "$D/$p.c" -o $p.o &&
			"$DTRACE" -G -s "$D/usdt.d" -o ${p}_prov.o $p.o &&
			$CC $p.o ${p}_prov.o -o $p || exit 1
	done >build.err 2>&1 || { fail "build the programs" "$(cat build.err)"; finish; exit; }

# start NAME CMD...: CMD reading its rounds from a FIFO (fd 3), its output in NAME.out; PID
start() {
	local name=$1
	shift
	rm -f "$name.in"
	mkfifo "$name.in"
	"$@" <"$name.in" >"$name.out" 2>"$name.err" &
	PID=$!
	exec 3>"$name.in"
	wait_for "$name.err" '^ready'
}

# -- 1. <sys/sdt.h> probes beside our header's, in a program linked with our -G object
MIXD='usdt*:::, solo*::: { printf("%s %s:%s %d %d\n", probeprov, probefunc, probename, arg0, arg1); }'
# (the provider's pid taken out; sorted: the order of the rounds is checked below)
WANT="solo:other:only 0 0|solo:other:only 1 0|usdt:main:both 10 0|usdt:main:both 10 1|"
WANT+="usdt:main:both 11 0|usdt:main:both 11 1|usdt:main:hdr 1 0|usdt:main:hdr 1 1|"
WANT+="usdt:other:both 20 0|usdt:other:both 20 1|"
printf 'go\ngo\n' >rounds
"$DTRACE" -q -n "$MIXD" -c ./usdt_mix <rounds >mix.txt 2>mix.err
rc=$?
got=$(grep -v '^round' mix.txt | grep . | sed -E 's/^([a-z]+)[0-9]+ /\1:/' | sort | tr '\n' '|')
expect_eq "-c: the <sys/sdt.h> sites fire beside the header's, a provider of their own too" \
	"$rc:$got" "0:$WANT"
expect_eq "-c: in the program's order, round by round" \
	"$(grep -v '^round' mix.txt | grep . | awk '{ print $2, $3 }' | head -5 | tr '\n' '|')" \
	"main:hdr 1|main:both 10|main:both 11|other:both 20|other:only 0|"
"$DTRACE" -l -v -n 'usdt$target:::both' -n 'solo$target:::' -c ./usdt_mix </dev/null >list.txt 2>&1
expect_eq "dtrace -l: a probe per function, the provider without a table listed too" \
	"$(awk '$1 ~ /^[0-9]+$/ { sub(/[0-9]+$/, "", $2); print $2, $4, $5 }' list.txt | sort | tr '\n' '|')" \
	"solo other only|usdt main both|usdt other both|"
expect_eq "dtrace -l -v: usdt:::both's types are the provider's; its <sys/sdt.h> sites listed" \
	"$(grep -c 'args\[[01]\]: int$' list.txt):$(grep -c 'Probe Sites (SystemTap notes' list.txt)" "4:3"
# args[] is the table's type (int), and a predicate on it works
got=$("$DTRACE" -q -n 'usdt*:::both /args[0] == 11/ { printf("%d ", args[1]); }' -c ./usdt_mix \
	<rounds 2>/dev/null | grep -v '^round' | tr -d '\n')
expect_eq "-c: args[] of a <sys/sdt.h> site typed by the provider" "$got" "0 1 "

# -p: attached to the running program, its text as before once detached
start mix ./usdt_mix
before=$(text_sum "$PID" "$WORK/usdt_mix")
"$DTRACE" -q -n 'BEGIN { printf("attached\n"); }' -n "$MIXD" -p "$PID" >mixp.txt 2>mixp.err &
dtpid=$!
wait_for mixp.txt attached
echo go >&3
echo go >&3
wait_for mix.out 'round 1'
for _ in $(seq 100); do [ "$(grep -c ' [0-9]* [01]$' mixp.txt)" -ge 10 ] && break; sleep 0.05; done
kill -INT "$dtpid"
wait "$dtpid"
rc=$?
got=$(grep -v attached mixp.txt | grep . | sed -E 's/^([a-z]+)[0-9]+ /\1:/' | sort | tr '\n' '|')
expect_eq "-p: the <sys/sdt.h> sites and the header's, every fire" "$rc:$got" "0:$WANT"
expect_eq "-p: detached, the program's text is its own again" "$(text_sum "$PID" "$WORK/usdt_mix")" \
	"$before"
exec 3>&-
wait "$PID"
expect_eq "-p: the program ran on and exited 0" "$?" 0

# -- 2. An is-enabled check in a hot -O2 loop, seen by a consumer attached after it started
./usdt_hot >hot.out 2>&1 &
PID=$!
wait_for hot.out ready
"$DTRACE" -q -n 'usdt*:::tick { @ = count(); } END { printa("%@d\n", @); }' -p "$PID" \
	>hot.txt 2>hot.err &
dtpid=$!
# (the program exits after its 1000th fire; dtrace with it)
for _ in $(seq 600); do kill -0 "$PID" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$PID" 2>/dev/null; then
	fail "-p: the hot loop's is-enabled check sees the session" "it never fired: $(cat hot.out)"
	kill "$PID" "$dtpid" 2>/dev/null
else
	wait "$dtpid"
	expect_eq "-p: the hot loop's is-enabled check sees the session, every fire recorded" \
		"$(cat hot.out | tail -1):$(grep . hot.txt)" "fired 1000 after spinning:1000"
fi
wait 2>/dev/null

# -- 3. A helper the traced program runs through system() and popen(), traced from its start
"$DTRACE" -q -n 'usdt*:::tick { printf("%s %d\n", execname, arg0); }' -c ./usdt_sys \
	>sys.txt 2>sys.err
rc=$?
expect_eq "-c: the helpers run by system() and popen() traced from their first fire" \
	"$rc:$(grep . sys.txt | sort | tr '\n' '|')" "0:usdt_sys 1|usdt_sys 2|usdt_sys 3|usdt_sys 4|"
expect_eq "-c: and nothing said on stderr" "$(cat sys.err)" ""
# not followed (-x nofollowfork): the helpers do not wait for dtrace, and are not traced
"$DTRACE" -x nofollowfork -q -n 'usdt*:::tick { printf("%d\n", arg0); }' -c ./usdt_sys \
	>nf.txt 2>nf.err
expect_eq "-c -x nofollowfork: the program's own fires only" "$?:$(grep . nf.txt | tr '\n' ' ')" "0:1 4 "

# -- 4. A stack through the C library's static functions, named from its debug file
LIBC=$(ldd ./usdt_mix | awk '/libc\.so\.6/ { print $3 }')
LIBC_ID=$(readelf -n "$LIBC" 2>/dev/null | awk '/Build ID/ { print $3 }')
if [ -n "$LIBC_ID" ] && [ -f "/usr/lib/debug/.build-id/${LIBC_ID:0:2}/${LIBC_ID:2}.debug" ] &&
	[ "$(readelf -S "$LIBC" | grep -c '\.symtab')" = 0 ]; then
	"$DTRACE" -q -n 'usdt*:::hdr /arg1 == 0/ { ustack(); printf("caller "); ufunc(ucaller); }' \
		-c ./usdt_mix <rounds >stk.txt 2>stk.err
	expect_eq "ustack(): main, then libc's static __libc_start_call_main, as gdb names it" \
		"$(grep -v caller stk.txt | grep -o 'usdt_mix`main\|libc\.so\.6`__libc_start_call_main' | tr '\n' ' ')" \
		'usdt_mix`main libc.so.6`__libc_start_call_main '
	expect_eq "ufunc(ucaller): libc's static function" \
		"$(grep -o 'caller *[^ ]*' stk.txt | tr -s ' ')" 'caller libc.so.6`__libc_start_call_main'
	"$DTRACE" -l -v -n 'pid$target:libc.so.6:__libc_start_call_main:entry' -c ./usdt_mix \
		</dev/null >pl.txt 2>&1
	check "dtrace -l -v says libc's symbols came from its debug file" \
		grep -q "libc.so.6: .dynsym and its debug file's .symtab (/usr/lib/debug/.build-id/${LIBC_ID:0:2}/${LIBC_ID:2}.debug)" pl.txt
else
	skip "a stack through libc's static functions" \
		"no debug file for $LIBC (/usr/lib/debug/.build-id/...: Debian's libc6-dbg), or it is not stripped"
fi

# -- 5. dtrace -c's exit status: DTrace's 0 whatever the command's, -x cmdstatus for the command's
"$DTRACE" -n 'BEGIN {}' -c false >/dev/null 2>st.err
rc=$?
expect_eq "-c false: dtrace exits 0, as DTrace does, and says the command's status" \
	"$rc:$(grep -c 'exited with status 1' st.err)" "0:1"
"$DTRACE" -q -x cmdstatus -n 'BEGIN {}' -c false >/dev/null 2>&1
expect_eq "-c false -x cmdstatus: the command's status" "$?" 1
"$DTRACE" -q -n 'usdt*:::hdr { exit(7); }' -c ./usdt_mix <rounds >/dev/null 2>&1
expect_eq "-c with exit(7): exit()'s status" "$?" 7
finish
