#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The consumer's command line: -l with its filters and -v, -s scripts with
# #pragma D option, -o, -x, -b, -e, buffer resizing, and bad input.
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
RT=$BUILD/lib/libudtrace.so.1
cd "$WORK" || exit 1
build_rtprog

# -l without a process: the dtrace provider, then the profile provider's default probes
expect_eq "-l: DTrace's heading and the dtrace provider" "$("$DTRACE" -l | head -n 4)" "$(printf \
	'%5s %10s %17s %33s %s\n' ID PROVIDER MODULE FUNCTION NAME 1 dtrace '' '' BEGIN \
	2 dtrace '' '' END 3 dtrace '' '' ERROR)"

# -l with a process: its probes, named as DTrace names USDT probes
"$DTRACE" -l -c './rtprog idle' </dev/null >l.out 2>l.err
expect_eq "-l -c: one line per probe and function, the provider named with the pid" \
	"$(awk 'NR > 1 && $2 != "dtrace" && $2 != "profile" { sub(/^rt[0-9]+$/, "rtPID", $2); print $2, $3, $4, $5 }' l.out |
		sort | tr '\n' '|')" \
	"rtPID rtprog main bad|rtPID rtprog main info|rtPID rtprog main mem|rtPID rtprog main narrow|rtPID rtprog main once|rtPID rtprog main tick|rtPID rtprog main write-entry|rtPID rtprog main write-return|rtPID rtprog on_alarm sig|rtPID rtprog ticker tick|rtPID rtprog try_open open-entry|rtPID rtprog try_open open-return|rtPID rtprog try_open step|"
expect_eq "-l -n filters by name" \
	"$("$DTRACE" -l -n 'rt*:::tick' -c './rtprog idle' </dev/null 2>/dev/null | awk 'NR > 1 { print $4 }' | sort | tr '\n' ' ')" \
	"main ticker "
expect_eq "-l -f filters by function" \
	"$("$DTRACE" -l -f ticker -c './rtprog idle' </dev/null 2>/dev/null | awk 'NR > 1 { print $5 }')" "tick"
expect_eq "-l -m filters by module" \
	"$("$DTRACE" -l -m rtprog -c './rtprog idle' </dev/null 2>/dev/null | awk 'NR > 1' | wc -l)" 13
expect_eq "-l -P filters by provider" \
	"$("$DTRACE" -l -P dtrace -c './rtprog idle' </dev/null 2>/dev/null | awk 'NR > 1' | wc -l)" 3
"$DTRACE" -l -v -n 'rt*::main:once' -c './rtprog idle' </dev/null >v.out 2>/dev/null
expect_eq "-l -v: stability and argument types" "$(sed -n '3,$p' v.out)" "$(cat <<'V'

	Probe Description Attributes
		Identifier Names: Unstable
		Data Semantics:   Unstable
		Dependency Class: Common

	Argument Attributes
		Identifier Names: Unstable
		Data Semantics:   Unstable
		Dependency Class: Common

	Argument Types
		args[0]: int
		args[1]: const char *
V
)"
out=$("$DTRACE" -l -n 'nosuch*:::' -c './rtprog idle' </dev/null 2>&1 >/dev/null | grep -v ready)
expect_eq "-l: a description matching nothing" "$out" \
	"dtrace: invalid probe specifier nosuch*:::: probe description nosuch*::: does not match any probes"

# A script with #pragma D option, -o appending
cat >s.d <<'S'
#pragma D option quiet
#pragma D option switchrate=20hz
BEGIN
{
	trace("begin\n");
}

rt*:::once
/arg0 == 7/
{
	trace(arg0);
	trace("\n");
}
S
echo previous >o.txt
"$DTRACE" -s s.d -o o.txt -c './rtprog bad' 2>/dev/null
expect_eq "-s with pragmas, -o appends" "$(cat o.txt)" "$(printf 'previous\nbegin\n7')"

# -x and -b set options; bad ones are DTrace's errors (exit 1, as its dfatal())
check "-x switchrate=10hz -b 1m" "$DTRACE" -q -x switchrate=10hz -b 1m -n 'rt*:::once' -c './rtprog bad'
out=$("$DTRACE" -x bogus=1 -n 'BEGIN' 2>&1)
expect_eq "-x with an unknown option: exit 1" "$?:$(echo "$out" | head -1)" \
	"1:dtrace: failed to set -x bogus: Invalid option name"
out=$("$DTRACE" -b 12q -n 'BEGIN' 2>&1)
expect_eq "-b with a bad size: exit 1" "$?:$(echo "$out" | head -1)" \
	"1:dtrace: failed to set -b 12q: Invalid value for specified option"

# -e: compile only
out=$("$DTRACE" -e -n 'rt*:::once { trace(arg0); }' -c './rtprog idle' </dev/null 2>&1)
expect_eq "-e: compiles, enables nothing" "$?:$out" "0:"

# A malformed script, an unsupported action: clear errors
printf 'rt*:::once\n{\n\ttrace(arg0\n}\n' >bad.d
out=$("$DTRACE" -s bad.d -c './rtprog idle' </dev/null 2>&1 | grep -v ready)
expect_eq "a malformed script: file, line, column" "$out" \
	"dtrace: bad.d:4:1: error: syntax error: expected ')' before \"}\""
out=$("$DTRACE" -n 'BEGIN { this->x[1] = 1; exit(0); }' 2>&1)
case $out in *"-n:1:20: error: this->x[ ]: clause-local variables cannot be associative arrays"*)
	ok "a clause-local associative array: a clear error" ;;
*) fail "a clause-local associative array: a clear error" "$out" ;; esac

# BEGIN and exit() need no process
expect_eq "BEGIN { exit(4) }: no process needed" \
	"$("$DTRACE" -q -n 'BEGIN { trace("hi"); exit(4); }'; echo "$?")" "$(printf 'hi\n4')"

# bufresize: a target that cannot map big buffers
rm -f ctl.fifo
mkfifo ctl.fifo
(ulimit -v 600000; LD_PRELOAD=$RT exec ./rtprog loop) <ctl.fifo >/dev/null 2>ctl.err &
lpid=$!
exec 5>ctl.fifo
wait_for ctl.err '^ready' || fail "the looping program started" "$(cat ctl.err)"
out=$("$DTRACE" -q -x maxthreads=4 -b 256m -n 'rt*:::tick /arg1 > 2/ { exit(0); }' -p "$lpid" 2>&1)
expect_eq "bufresize=auto: the buffers shrink until they fit, and dtrace says so" \
	"$(echo "$out" | grep -c 'dtrace: buffer size lowered to ')" 1
out=$("$DTRACE" -q -x maxthreads=4 -b 256m -x bufresize=manual \
	-n 'rt*:::tick /arg1 > 2/ { exit(0); }' -p "$lpid" 2>&1)
rc=$?
case $out in *"could not allocate buffers in pid $lpid"*) expect_eq "bufresize=manual: fails" "$rc" 1 ;;
*) fail "bufresize=manual: fails with a clear error" "$rc: $out" ;; esac
exec 5>&-
wait "$lpid" 2>/dev/null

out=$(timeout 10 "$DTRACE" -x bufpolicy=fill -b 64 -n 'END { trace(vtimestamp); trace(walltimestamp); trace(pid); trace(tid); trace(cpu); trace(pid); }' 2>&1)
expect_eq "fill: END enablings that cannot fit" "$out" \
	"dtrace: description 'END ' matched 1 probe
dtrace: END enablings exceed size of principal buffer"
finish
