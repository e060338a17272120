#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Dynamic providers (udtrace/udtrace.h) end to end, in a running process
# (tests/integration/data/dynprov.c): dtrace -l -p lists them with their
# types, a D script traces them with typed args[] (a string, a negative
# 16-bit integer, a double), gdb and bpftrace see the in-memory object's
# probes, the provider is removed while dtrace traces it, 10,000
# create/remove cycles keep the resident set flat, and with executable
# memfds forbidden (vm.memfd_noexec=2) the object comes from an unnamed file.
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
cd "$WORK" || exit 1
gcc -O2 -g -Wall -Wextra -Werror -I"$SDK_INCLUDE" "$D/dynprov.c" -L"$BUILD/lib" -ludtrace \
	-Wl,-rpath,"$BUILD/lib" -o dynprov || { fail "build the dynamic provider program"; finish; exit; }

expect_eq "untraced, the program runs" "$(./dynprov once 3)" "done"

# start_loop: ./dynprov loop with its standard input on fd 4; sets lpid and path
start_loop() {
	rm -f ctl
	mkfifo ctl
	./dynprov loop <ctl >loop.out 2>loop.err &
	lpid=$!
	exec 4>ctl
	for _ in $(seq 1 100); do grep -q '^ready' loop.err && break; sleep 0.05; done
	path=$(sed -n 's/^path //p' loop.err)
}
stop_loop() {
	exec 4>&-
	wait "$lpid"
}

start_loop
case $path in /proc/$lpid/fd/*) ok "the object's path names the process, not /proc/self" ;;
*) fail "the object's path names the process, not /proc/self" "$path" ;; esac
expect_eq "no file was left in a directory: the object is a memfd" \
	"$(grep -c "/memfd:udtrace:dyn (deleted)" "/proc/$lpid/maps")" 2
expect_eq "dtrace -l -p lists the dynamic probes: provider, module, function, name" \
	"$("$DTRACE" -l -n 'dyn$target:::' -p "$lpid" 2>&1 | awk 'NR > 1 { print $2, $3, ($4 == $NF ? "-" : $4), $NF }')" \
	"dyn$lpid dyn main hello
dyn$lpid dyn - all-types"
expect_eq "dtrace -l -v shows their types (a double is an int64_t)" \
	"$("$DTRACE" -l -v -n 'dyn$target:::' -p "$lpid" 2>&1 | grep 'args\[' | tr -d '\t' | tr '\n' '|')" \
	"args[0]: string|args[1]: int16_t|args[2]: int64_t|args[0]: int8_t|args[1]: uint8_t|args[2]: int16_t|args[3]: uint16_t|args[4]: int32_t|args[5]: uint32_t|args[6]: int64_t|args[7]: uint64_t|args[8]: string|args[9]: void *|args[10]: int64_t|args[11]: int32_t|"

# hello(i % 2 ? "odd" : "even", -7 - i, 2.75 + i): args[1] and args[2] determine each other
out=$("$DTRACE" -q -n 'dyn$target:::hello { printf("%s %d %d\n", args[0], args[1], args[2]); }
	dyn$target:::hello /++n == 20/ { exit(0); }' -p "$lpid" 2>&1)
expect_eq "traced: 20 records" "$(echo "$out" | grep -c .)" 20
expect_eq "traced: a string, a negative int16, a double (truncated) in each, consistent" \
	"$(echo "$out" | awk '{ i = -$2 - 7; if ($3 != i + 2 || $1 != (i % 2 ? "odd" : "even")) print "bad:", $0 }')" ""
out=$("$DTRACE" -q -n 'dyn$target:::all-types { printf("%d %u %d %u %d %u %d %u %s %d %d\n",
	args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8],
	*(int *)args[9], args[10]); exit(0); }' -p "$lpid" 2>&1 | grep -v '^$')
expect_eq "traced: 12 arguments of every type (a pointer followed, -1e30 clamped)" "$out" \
	"-128 255 -32768 65535 -2147483648 4294967295 -1234567890123 18446744073709551615 all 42 -9223372036854775808"

# gdb attached to the process: the object is one of its shared libraries
if gdb_usable; then
	out=$(timeout 60 gdb -nx -batch -p "$lpid" -ex 'info probes stap dyn' 2>&1 | awk '$1 == "stap" { print $2, $3, $NF }')
	expect_eq "gdb (info probes) lists the dynamic probes in the object at $path" "$out" \
		"dyn all__types $path
dyn hello $path"
	out=$(timeout 60 gdb -nx -batch -p "$lpid" -ex 'break -probe-stap dyn:all__types' -ex continue \
		-ex 'p $_probe_argc' -ex 'p $_probe_arg0' -ex 'p $_probe_arg3' -ex 'p $_probe_arg5' \
		-ex 'p $_probe_arg7' -ex 'p (char *)$_probe_arg8' -ex 'p *(int *)$_probe_arg9' \
		-ex 'p $_probe_arg10' -ex delete -ex detach 2>&1 | sed -n 's/^\$[0-9]* = //p' | sed 's/^0x[0-9a-f]* //' | tr '\n' ' ')
	expect_eq "gdb stops at a dynamic probe and reads its 12 arguments (stack ones too)" "$out" \
		'12 -128 65535 4294967295 18446744073709551615 "all" 42 -9223372036854775808 '
	out=$(timeout 60 gdb -nx -batch -p "$lpid" -ex 'break -probe-stap dyn:hello' -ex continue \
		-ex 'p (char *)$_probe_arg0' -ex 'p $_probe_arg1 + 7 + $_probe_arg2 - 2' -ex delete -ex detach \
		2>&1 | sed -n 's/^\$[0-9]* = //p' | sed 's/^0x[0-9a-f]* //' | tr '\n' ' ')
	case $out in '"odd" 0 '|'"even" 0 ') ok "gdb reads a string, an int16 and a double" ;;
	*) fail "gdb reads a string, an int16 and a double" "$out" ;; esac
else
	skip "gdb" "$GDB_WHY"
fi

if have bpftrace; then
	expect_eq "bpftrace -l lists the probes of $path" \
		"$(timeout 60 bpftrace -l "usdt:$path:*" 2>&1 | sort | tr '\n' ' ')" \
		"usdt:$path:dyn:all__types usdt:$path:dyn:hello "
	timeout 10 bpftrace -p "$lpid" -e "usdt:$path:dyn:hello { printf(\"H %s %d %d\\n\", str(arg0), arg1, arg2); }" \
		>bt.out 2>&1
	if grep -q '^H ' bt.out; then
		expect_eq "bpftrace reads a string, an int16 and a double" \
			"$(grep '^H ' bt.out | awk '{ i = -$3 - 7; if ($4 != i + 2 || $2 != (i % 2 ? "odd" : "even")) print "bad:", $0 }')" ""
	else
		skip "bpftrace attaches" "bpftrace could not attach here: $(grep -m1 -iE 'error|permission' bt.out)"
	fi
else
	skip "bpftrace" "bpftrace is not installed"
fi

# Removed while dtrace traces it: both go on; the program ends normally and so does dtrace
"$DTRACE" -q -n 'dyn$target:::hello { printf("%d\n", args[1]); }' -p "$lpid" >rm.out 2>rm.err 4>&- &
dpid=$!
for _ in $(seq 1 100); do [ -s rm.out ] && break; sleep 0.05; done
echo unload >&4
for _ in $(seq 1 100); do grep -q '^unloaded' loop.err && break; sleep 0.05; done
last=$(sed -n 's/^unloaded after //p' loop.err)
sleep 0.3
kill -0 "$lpid" 2>/dev/null && ok "removed under a consumer: the program runs on" ||
	fail "removed under a consumer: the program runs on"
kill -0 "$dpid" 2>/dev/null && ok "removed under a consumer: dtrace runs on" ||
	fail "removed under a consumer: dtrace runs on" "$(cat rm.err)"
stop_loop
rc=$?
wait "$dpid"
drc=$?
expect_eq "removed under a consumer: the program and dtrace exit 0" "$rc $drc $(cat loop.out)" "0 0 done"
# hello's args[1] is -7 - i: every record is of an i fired before the removal
expect_eq "removed under a consumer: records before it, none after" \
	"$(awk -v last="$last" 'NF && $1 < -7 - last { bad = bad " " $1 } END { print (NR > 0) bad }' rm.out)" "1"

# 10,000 create/remove cycles: the resident set stays flat (after the first 1,000)
read -r _ before after <<<"$(./dynprov cycles 10000)"
if [ -n "$after" ] && [ $((after - before)) -lt 4096 ]; then
	ok "10,000 create/remove cycles: resident set ${before} KB -> ${after} KB"
else
	fail "10,000 create/remove cycles: the resident set grows" "$before KB -> $after KB"
fi

# vm.memfd_noexec=2 (in a pid namespace of our own: the setting is per namespace)
if [ "$(id -u)" = 0 ] && have unshare && [ -e /proc/sys/vm/memfd_noexec ]; then
	out=$(unshare --pid --fork --mount-proc sh -c \
		'echo 2 >/proc/sys/vm/memfd_noexec && UDT_DEBUG=1 ./dynprov loop </dev/null 2>&1' 2>&1)
	case $out in
	*"no executable memfd"*"an unnamed file in /"*"path /proc/"*"/fd/"*)
		ok "memfd_noexec=2: the object is loaded from an unnamed file instead" ;;
	*"echo: "*|*"Permission denied"*|*"Operation not permitted"*)
		skip "memfd_noexec=2" "cannot set vm.memfd_noexec in a new pid namespace here: $out" ;;
	*) fail "memfd_noexec=2: the object is loaded from an unnamed file instead" "$out" ;;
	esac
else
	skip "memfd_noexec=2" "needs root, unshare and a kernel with vm.memfd_noexec"
fi
finish
