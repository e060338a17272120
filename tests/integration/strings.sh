#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# copyinstr(argN) recorded by the direct path (UDT_ECB_DIRECT_STR: no VM,
# docs/runtime.md, "The probe path") against the same strings recorded by
# the VM's path (the address computed by a DIFO: arg1 + arg0 - arg0): the
# same output byte for byte, for every length
# from 0 to past strsize, at every alignment and across a page boundary,
# under several strsize values; and a bad pointer gives the same error.
. "$(dirname "$0")/../lib.sh"

build_rtprog
cd "$WORK" || exit 1

# run NAME OPTS CLAUSE MODE: rtprog's MODE traced by CLAUSE on rt:::once
run() {
	# shellcheck disable=SC2086
	"$DTRACE" -q $2 -n "rt*:::once $3" -c "./rtprog $4" >"$1.out" 2>"$1.err"
	echo $? >"$1.rc"
}
# errs FILE: the errors of FILE, the provider's pid masked
errs() { sed -n 's/rt[0-9]*:rtprog/rtPID:rtprog/; /invalid address/p' "$1"; }
# the string of rtprog's strings mode of length N, cut at strsize (default 256)
str() {
	local n=$1 max=$(($2 - 1))
	((n > max)) && n=$max
	printf '%s' "$(printf 'abcdefghijklmnopqrstuvwxyz%.0s' $(seq 12))" | head -c "$n"
}

direct='{ trace(arg0); trace(" ["); trace(copyinstr(arg1)); trace("]\n"); }'
vm='{ trace(arg0); trace(" ["); trace(copyinstr(arg1 + arg0 - arg0)); trace("]\n"); }'
for strsize in default 3 32 33 40 255; do
	opts= max=256
	[ "$strsize" = default ] || opts="-x strsize=$strsize" max=$strsize
	run d "$opts" "$direct" "strings 300"
	run v "$opts" "$vm" "strings 300"
	expect_eq "strsize $strsize: 301 strings recorded" "$(grep -c '\]$' d.out):$(cat d.rc)" "301:0"
	for n in 0 1 31 32 $((max - 1)) $max 300; do
		expect_eq "strsize $strsize: a string of $n bytes" "$(grep "^$n \[" d.out)" \
			"$n [$(str $n $max)]"
	done
	if cmp -s d.out v.out; then
		ok "strsize $strsize: the direct path's records are the VM path's, byte for byte"
	else
		fail "strsize $strsize: the direct path's records are the VM path's, byte for byte" \
			"$(diff d.out v.out | head -20)"
	fi
	expect_eq "strsize $strsize: the NULL pointer's error, as the VM's path reports it" \
		"$(errs d.err)" "$(errs v.err)"
done
expect_eq "a NULL pointer: DTrace's error" "$(grep -c 'invalid address (0x0) in action #2' d.err)" 1

# Hostile pointers (rtprog's hostile mode): NULL, unmapped, PROT_NONE, a string
# that runs into a PROT_NONE page, a string of 1 MB, good ones
run d "" "$direct" hostile
run v "" "$vm" hostile
# (the program's own line shares the file with dtrace's records: where it falls is a race)
expect_eq "hostile pointers: the same records on both paths" "$(sort d.out)" "$(sort v.out)"
expect_eq "hostile pointers: the same errors on both paths" \
	"$(errs d.err)" "$(errs v.err)"
expect_eq "hostile pointers: 4 errors, the target runs on" \
	"$(grep -c 'invalid address' d.err):$(grep -c '^alive$' d.out)" "4:1"

# Aggregations by those strings and arguments without the VM (UDT_ECB_DIRECT_AGG) against
# the same clause on the VM's path (a predicate always true): the same tables, and the same
# errors for hostile pointers
dagg='{ @c[copyinstr(arg1)] = count(); @s[arg0, copyinstr(arg1)] = sum(arg0);
	@a = avg(arg0); @mx = max(arg0); @mn = min(arg0); @q = quantize(arg0);
	@l = lquantize(arg0, 0, 300, 25); @k[arg0 & 3] = count(); }'
vagg="/arg0 >= 0/ $dagg"
for strsize in default 32; do
	opts= max=255
	[ "$strsize" = default ] || opts="-x strsize=$strsize" max=$((strsize - 1))
	run d "$opts" "$dagg" "strings 300"
	run v "$opts" "$vagg" "strings 300"
	run c "$opts" '{ @[copyinstr(arg1)] = count(); }' "strings 300"
	expect_eq "aggregations, strsize $strsize: 301 strings counted, by their first $max bytes" \
		"$(awk 'NF { n++; s += $NF } END { print n ":" s }' c.out):$(cat c.rc)" \
		"$((max + 1)):301:0"
	if cmp -s d.out v.out; then
		ok "aggregations, strsize $strsize: without the VM, its tables, byte for byte"
	else
		fail "aggregations, strsize $strsize: without the VM, its tables, byte for byte" \
			"$(diff d.out v.out | head -20)"
	fi
done
run d "" '{ @[copyinstr(arg1)] = count(); }' hostile
run v "" '/arg0 >= 0/ { @[copyinstr(arg1)] = count(); }' hostile
expect_eq "aggregations, hostile pointers: the same errors on both paths" \
	"$(errs d.err)" "$(errs v.err)"
expect_eq "aggregations, hostile pointers: 4 errors, the target runs on" \
	"$(grep -c 'invalid address' d.err):$(grep -c '^alive$' d.out)" "4:1"
finish
