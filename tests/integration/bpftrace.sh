#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpftrace as a real client: it lists every probe of a program built with our
# header and -G object, and where the kernel lets it attach (root, BPF,
# uprobes), the semaphore turns _ENABLED() true and the values come through.
. "$(dirname "$0")/../lib.sh"

if ! have bpftrace; then
	skip "bpftrace" "bpftrace is not installed"
	finish
	exit
fi
D=$TOP/tests/integration/data
cd "$WORK" || exit 1
"$DTRACE" -h -s "$D/vals.d" -o vals.h &&
	gcc -O2 -g -I. -c "$D/vals.c" -o vals.o &&
	"$DTRACE" -G -s "$D/vals.d" -o vals_prov.o vals.o &&
	gcc vals.o vals_prov.o -o vals || { fail "build the probe program"; finish; exit; }

expect_eq "bpftrace -l lists every probe" \
	"$(timeout 60 bpftrace -l 'usdt:./vals:*' 2>&1 | sort | tr '\n' ' ')" \
	"usdt:./vals:vals:consts usdt:./vals:vals:ints usdt:./vals:vals:none usdt:./vals:vals:ptrs "
expect_eq "untraced, _ENABLED() is false" "$(./vals | grep enabled)" "enabled=0"

# Attaching needs privileges this machine may not give (CI containers).
prog='usdt:./vals:vals:consts { printf("C %d %u %ld %d\n", arg0, arg1, arg2, arg3); }
usdt:./vals:vals:ptrs { printf("P %s %s\n", str(arg0), str(arg3)); }
usdt:./vals:vals:ints { printf("I %d %d %u %d %u %d\n", arg0, arg1, arg2, arg3, arg4, arg5); }'
out=$(timeout 120 bpftrace -e "$prog" -c ./vals 2>&1)
if ! echo "$out" | grep -q '^enabled='; then
	reason=$(echo "$out" | grep -m1 -iE 'error|permission|not permitted|denied' || echo "$out" | head -n 1)
	skip "bpftrace attaches" "bpftrace could not attach here: $reason"
	finish
	exit
fi
expect_eq "attached, the semaphore turns _ENABLED() true" "$(echo "$out" | grep enabled)" "enabled=1"
expect_eq "bpftrace reads constants" "$(echo "$out" | grep '^C ')" "C -7 4000000000 -1234567890123 120"
expect_eq "bpftrace reads strings" "$(echo "$out" | grep '^P ')" "P hello, probe second string"
# (bpftrace 0.17 refuses arg6 and above on x86-64; gdb.sh checks all twelve)
expect_eq "bpftrace reads integers of every size and sign" "$(echo "$out" | grep '^I ')" \
	"I -128 -1 255 -32768 65535 -2147483648"
finish
