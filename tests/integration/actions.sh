#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracemem(), raise(), stop(), system() and setopt() in real processes, where the
# D suite (tests/d) cannot look: tracemem() at hostile addresses (the target
# runs on, the error names the address), system() with -o, setopt()'s
# errors. Their output formats are in tests/d/tst.tracemem, tst.raise,
# tst.system*, tst.setopt*.
. "$(dirname "$0")/../lib.sh"

cd "$WORK" || exit 1
build_rtprog

# tracemem() of NULL, of a wild address and of a mapping's end: errors, the
# program finishes (rtprog bad fires rt:::bad with NULL, 0x10, then a good pointer)
"$DTRACE" -q -n 'rt$target:::bad { tracemem(arg0, 4); } rt$target:::once { printf("once %d\n", arg0); }' \
	-c './rtprog bad' >out.txt 2>err.txt
rc=$?
expect_eq "tracemem: bad addresses do not stop the target" "$rc" 0
expect_eq "tracemem: NULL is an invalid address in action #1" \
	"$(grep -c 'invalid address (0x0) in action #1 at DIF offset 0' err.txt)" 1
expect_eq "tracemem: 0x10 too" "$(grep -c 'invalid address (0x10) in action #1' err.txt)" 1
expect_eq "tracemem: the good pointer's 4 bytes (int 42), then the rest" \
	"$(grep -v '^$' out.txt | tr -s ' ')" \
	"$(printf ' 0 1 2 3 4 5 6 7 8 9 a b c d e f 0123456789abcdef\n 0: 2a 00 00 00 *...\nonce 7')"
# a range that starts readable and runs into a hole: one error, nothing half-copied
"$DTRACE" -q -n 'rt$target:::mem { tracemem(arg0, 65536); }' -c './rtprog mem' >out.txt 2>err.txt
expect_eq "tracemem: a range into a hole is an invalid address" \
	"$(grep -c 'invalid address (0x[0-9a-f]*) in action #1' err.txt)" 1
expect_eq "tracemem: and prints nothing" "$(grep -c ':' out.txt)" 0

# system() with -o: dtrace's records go to the file, the command's output to
# dtrace's standard output, as in DTrace
"$DTRACE" -q -w -o file.txt -n 'BEGIN { printf("to the file\n"); system("echo from the command"); exit(0); }' \
	>out.txt 2>err.txt
expect_eq "system: the command writes to dtrace's stdout" "$(cat out.txt)" "from the command"
expect_eq "system: the records to -o's file" "$(cat file.txt)" "to the file"
expect_eq "system: -w is noticed" "$(grep -v '^$' err.txt)" ""
"$DTRACE" -w -n 'BEGIN { exit(0); }' >out.txt 2>err.txt
expect_eq "-w without -q: dtrace says so" "$(cat err.txt)" \
	"dtrace: description 'BEGIN ' matched 1 probe
dtrace: allowing destructive actions"

# setopt(): an unknown option and a bad value are errors that name them
"$DTRACE" -q -n 'BEGIN { setopt("nosuchoption"); setopt("aggrate", "fast"); exit(0); }' \
	>out.txt 2>err.txt
expect_eq "setopt: an unknown option" \
	"$(grep -c 'couldn'"'"'t set option "nosuchoption" to "1": Invalid option name$' err.txt)" 1
expect_eq "setopt: a bad value" \
	"$(grep -c 'couldn'"'"'t set option "aggrate" to "fast": Invalid value for specified option$' err.txt)" 1

# raise() in the target: a signal the program does not handle ends it, as in DTrace
"$DTRACE" -w -n 'rt$target:::tick /arg1 == 5/ { raise(9); }' -c './rtprog ticks 1000 1' \
	>out.txt 2>err.txt
rc=$?
expect_eq "raise(9): the target is killed, and dtrace says so (exiting 0, as DTrace)" \
	"$rc:$(grep -c 'terminated by KILL' err.txt)" "0:1"
"$DTRACE" -w -x cmdstatus -n 'rt$target:::tick /arg1 == 5/ { raise(9); }' \
	-c './rtprog ticks 1000 1' >/dev/null 2>&1
expect_eq "raise(9), -x cmdstatus: dtrace exits with 128 + SIGKILL" "$?" 137
# stop(): the process stops (state T, SIGSTOP) as the fire ends, as DTrace's
# stop() stops it; SIGCONT resumes it, and the trace ends with it
"$DTRACE" -w -q -n 'rt$target:::once { printf("stopping\n"); stop(); }' -c './rtprog bad' \
	>stop.out 2>stop.err &
dpid=$!
wait_for stop.err '^ready '
spid=$(sed -n 's/^ready //p' stop.err)
for _ in $(seq 200); do
	[ "$(awk '{ print $3 }' "/proc/$spid/stat" 2>/dev/null)" = T ] && break
	sleep 0.05
done
expect_eq "stop(): the process is stopped" "$(awk '{ print $3 }' "/proc/$spid/stat" 2>/dev/null)" T
kill -CONT "$spid"
wait "$dpid"
expect_eq "stop(): SIGCONT resumes it, and it runs to its end" "$?:$(grep -c '^done' stop.err)" "0:1"
expect_eq "stop(): the clause's record" "$(grep -v '^$' stop.out)" "stopping"

finish
