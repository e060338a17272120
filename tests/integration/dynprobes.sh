#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The binding-style sample (samples/dynprobes): probes declared in a text file
# at start-up, fired from converted values, traced by dtrace -p with typed
# args[]; a bad declaration file gets FILE:LINE: and exit 1.
. "$(dirname "$0")/../lib.sh"

S=$TOP/samples/dynprobes
BIN=$BUILD/samples/dynprobes/dynprobes
cd "$WORK" || exit 1
[ -x "$BIN" ] || { fail "the sample is built (make)"; finish; exit; }

"$BIN" "$S/shop.probes" 0 10 2>run.err &
spid=$!
for _ in $(seq 1 100); do grep -q '^ready' run.err && break; sleep 0.05; done
expect_eq "the declared probes are listed" \
	"$("$DTRACE" -l -n 'shop$target:::' -p "$spid" 2>&1 | awk 'NR > 1 { print $NF }' | tr '\n' ' ')" \
	"order-placed order-failed heartbeat "
out=$("$DTRACE" -q -n 'shop$target:::order-placed { printf("placed %s %d %d\n", args[0], args[1], args[2]); }
	shop$target:::order-failed { printf("failed %s %d\n", args[0], args[1]); }
	shop$target:::heartbeat /++n == 2/ { exit(0); }' -p "$spid" 2>&1 | grep -v '^$' | head -3)
expect_eq "fired from the file's values, converted by the declared types" "$out" \
	"placed apple pie 3 12
placed pear 1 0
failed plum -404"
kill "$spid"
wait "$spid" 2>/dev/null

printf 'provider shop\nprobe - p int32\nfire p notanumber\n' >bad.probes
out=$("$BIN" bad.probes 2>&1)
rc=$?
expect_eq "a bad value: FILE:LINE: and exit 1" "$rc: $out" \
	"1: bad.probes:3: not a value of the probe's type: 'notanumber'"
printf 'provider shop\nprobe - p float\n' >bad.probes
expect_eq "an unknown type: FILE:LINE:" "$("$BIN" bad.probes 2>&1)" "bad.probes:2: unknown type 'float'"
finish
