#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdb as a real client of our probe sites: `break -probe-stap prov:name` stops
# at each, and $_probe_argN read back exactly the values fired (integers of
# every size and sign in registers and as constants, pointers, strings).
. "$(dirname "$0")/../lib.sh"

if ! gdb_usable; then
	skip "gdb" "$GDB_WHY"
	finish
	exit
fi
D=$TOP/tests/integration/data
cd "$WORK" || exit 1
"$DTRACE" -h -s "$D/vals.d" -o vals.h &&
	gcc -O2 -g -Wall -Wextra -Werror -I. -c "$D/vals.c" -o vals.o &&
	"$DTRACE" -G -s "$D/vals.d" -o vals_prov.o vals.o &&
	gcc vals.o vals_prov.o -o vals || { fail "build the probe program"; finish; exit; }

# gdb prints "$N = value"; keep the values in order
values() {
	sed -n 's/^\$[0-9]* = //p'
}

out=$(gdb -nx -batch -ex 'break -probe-stap vals:ints' -ex run \
	-ex 'p $_probe_argc' \
	-ex 'p $_probe_arg0' -ex 'p $_probe_arg1' -ex 'p $_probe_arg2' -ex 'p $_probe_arg3' \
	-ex 'p $_probe_arg4' -ex 'p $_probe_arg5' -ex 'p $_probe_arg6' -ex 'p $_probe_arg7' \
	-ex 'p $_probe_arg8' -ex 'p $_probe_arg9' -ex 'p $_probe_arg10' -ex 'p $_probe_arg11' \
	./vals 2>&1)
got=$(echo "$out" | values | tr '\n' ' ')
want="12 -128 -1 255 -32768 65535 -2147483648 4294967295 -9223372036854775808 18446744073709551615 -2 9223372036854775809 1 "
expect_eq "gdb reads 12 integer arguments of every size and sign" "$got" "$want"

out=$(gdb -nx -batch -ex 'break -probe-stap vals:ptrs' -ex run \
	-ex 'p $_probe_argc' -ex 'p (char *)$_probe_arg0' -ex 'p/x $_probe_arg1' \
	-ex 'p *(int *)$_probe_arg2' -ex 'p (char *)$_probe_arg3' ./vals 2>&1)
ip=$(echo "$out" | sed -n 's/^ip=//p')
got=$(echo "$out" | values | sed 's/^0x[0-9a-f]* //' | tr '\n' '|')
expect_eq "gdb reads pointers and strings" "$got" "4|\"hello, probe\"|$ip|42|\"second string\"|"

out=$(gdb -nx -batch -ex 'break -probe-stap vals:consts' -ex run \
	-ex 'p $_probe_argc' -ex 'p $_probe_arg0' -ex 'p $_probe_arg1' -ex 'p $_probe_arg2' \
	-ex 'p $_probe_arg3' ./vals 2>&1)
expect_eq "gdb reads constant arguments" "$(echo "$out" | values | tr '\n' ' ')" \
	"4 -7 4000000000 -1234567890123 120 "
notes=$(readelf -n vals | grep Arguments: | sed -n 3p)
case $notes in
*'-4@$-7 4@$4000000000 -8@$-1234567890123 -1@$120'*) ok "constants are immediates with their values" ;;
*) fail "constants are immediates with their values" "$notes" ;;
esac
if readelf -n vals | grep Arguments: | grep -qE '\.L|\(%rip\)'; then
	fail "no operand names a label or memory" "$(readelf -n vals | grep Arguments:)"
else
	ok "no operand names a label or memory"
fi

out=$(gdb -nx -batch -ex 'break -probe-stap vals:none' -ex run -ex 'p $_probe_argc' ./vals 2>&1)
expect_eq "gdb stops at a probe without arguments" "$(echo "$out" | values)" "0"

out=$(gdb -nx -batch -ex 'info probes stap vals' ./vals 2>&1)
expect_eq "gdb lists the four probes" "$(echo "$out" | grep -c '^stap  *vals ')" "4"
finish
