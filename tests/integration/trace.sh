#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tracing real processes end to end: dtrace -c and -p against a program built
# with our header and -G object, with the runtime preloaded. Output is
# checked value by value against what the program fired.
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
RT=$BUILD/lib/libudtrace.so.1
cd "$WORK" || exit 1
build_rtprog

# -c: two threads, known values, all printed, in order per thread
"$DTRACE" -q -n 'rt$target:::tick { trace(arg0); trace(" "); trace(arg1); trace("\n"); }' \
	-c './rtprog ticks 1000 2' >out.txt 2>err.txt
rc=$?
expect_eq "-c: dtrace exits with the command's status" "$rc" 0
expect_eq "-c: 2000 records printed" "$(grep -c '^[01] ' out.txt)" 2000
for th in 0 1; do
	expect_eq "-c: thread $th's values in order, none missing" \
		"$(grep "^$th " out.txt | cut -d' ' -f2 | tr '\n' ' ' | md5sum)" \
		"$(seq 0 999 | tr '\n' ' ' | md5sum)"
done

# The default output: heading and CPU ID FUNCTION:NAME lines
"$DTRACE" -n 'rt*:::once { trace(arg0); }' -c './rtprog bad' >out.txt 2>err.txt
expect_eq "default output: the heading" "$(head -1 out.txt)" \
	"CPU     ID                    FUNCTION:NAME"
# "%3d %6d %32s " and " %16lld" (the CPU varies: mask it)
id=$("$DTRACE" -l -n 'rt*:::once' -c './rtprog idle' 2>/dev/null </dev/null | awk 'NR == 2 { print $1 }')
expect_eq "default output: CPU, ID, FUNCTION:NAME and the value" \
	"$(sed -n 2p out.txt | sed 's/^ *[0-9]* /CPU /')" \
	"$(printf 'CPU %6d %32s  %16d' "$id" main:once 7)"
# Builtins in the target: recorded directly, and through the VM (a predicate)
for pred in "" "/arg0 == 7/"; do
	"$DTRACE" -q -n "rt*:::once $pred { trace(pid); trace(\" \"); trace(tid); trace(\" \");
		trace(arg0); trace(\" \"); trace(cpu); }" -c './rtprog bad' >out.txt 2>err.txt
	p=$(sed -n 's/^ready //p' err.txt)
	expect_eq "pid, tid, arg0, cpu${pred:+ under a predicate}" \
		"$(awk -v n="$(nproc)" '{ if ($4 >= 0 && $4 < n) $4 = "CPU"; print }' out.txt)" \
		"$p $p 7 CPU"
done

# The records come before the notice that the command has gone, END after it
"$DTRACE" -n 'rt*:::once { trace(arg0); } END { trace(1); }' -c './rtprog bad' >out.txt 2>&1
expect_eq "the exit notice between the records and END" \
	"$(grep -v '^ready\|^done' out.txt | sed 's/^ *[0-9]* *[0-9]* *//; s/pid [0-9]*/pid N/' | tr -s ' ' | tr '\n' '|')" \
	"dtrace: description 'rt*:::once ' matched 2 probes|CPU ID FUNCTION:NAME|main:once 7|dtrace: pid N has exited|:END 1||"

# Predicates and exit(): the status is dtrace's
"$DTRACE" -q -n 'rt*:::tick /arg1 == 500/ { trace(arg1); exit(3); }' \
	-c './rtprog ticks 1000 1' >out.txt 2>err.txt
rc=$?
expect_eq "exit(3): dtrace exits 3" "$rc" 3
expect_eq "exit(3): the predicate picked the record" "$(cat out.txt)" "500"

# BEGIN and END run in the consumer
"$DTRACE" -q -n 'BEGIN { trace(1); } rt*:::once { trace(2); } END { trace(3); }' \
	-c './rtprog bad' >out.txt 2>err.txt
expect_eq "BEGIN, the probe, END, in order" "$(cat out.txt)" "123"

# A bad pointer: a DTrace-style error, and the target keeps running
"$DTRACE" -q -n 'rt*:::bad { trace(*(int *)arg0); } rt*:::once { trace(arg0); }' \
	-c './rtprog bad' >out.txt 2>err.txt
rc=$?
expect_eq "bad pointers: dtrace exits 0" "$rc" 0
expect_eq "bad pointers: the good one and the later probe are traced" "$(cat out.txt)" "427"
case $(cat err.txt) in
*"error on enabled probe ID 1 (ID "*": rt"*":rtprog:main:bad): invalid address (0x0) in action #1"*"invalid address (0x10) in action #1"*)
	ok "bad pointers: invalid address errors" ;;
*) fail "bad pointers: invalid address errors" "$(cat err.txt)" ;;
esac

# Loads of every width and sign from the application's memory, and a string.
# trace() formats by size as DTrace does: 1- and 2-byte values print unsigned,
# 4-byte values signed (so -8 prints 248 and 4000000000 prints -294967296).
"$DTRACE" -q -n 'rt*:::mem {
	trace(*(char *)arg0); trace(" "); trace(*(unsigned char *)(arg0 + 1)); trace(" ");
	trace(*(short *)(arg0 + 2)); trace(" "); trace(*(unsigned short *)(arg0 + 4)); trace(" ");
	trace(*(int *)(arg0 + 8)); trace(" "); trace(*(unsigned int *)(arg0 + 12)); trace(" ");
	trace(*(long long *)(arg0 + 16)); trace(" "); trace(copyinstr(*(long *)(arg0 + 24)));
}' -c './rtprog mem' >out.txt 2>err.txt
expect_eq "loads of 1, 2, 4 and 8 bytes, signed and unsigned, and copyinstr" "$(cat out.txt)" \
	"248 200 63936 60000 -320000 -294967296 -6400000000000 a string"

# Timestamps agree with the program's CLOCK_MONOTONIC, read from the TSC
# (where the kernel's clocksource is the TSC) or from clock_gettime: each
# between the program's readings before and after (50 us of slack), in
# order, at least the 1 ms the program slept apart.
check_clock() {
	local what=$1 b a
	drop_final_empty ts.txt
	b=$(sed -n 's/^before //p' prog.txt) a=$(sed -n 's/^after //p' prog.txt)
	if [ -z "$b" ] || [ -z "$a" ] || [ "$(wc -l <ts.txt)" != 20 ]; then
		fail "$what: timestamps of 20 fires" "$(cat prog.txt ts.txt err.txt)"
		return
	fi
	expect_eq "$what: 20 timestamps within the program's clock readings, 1 ms apart or more" \
		"$(awk -v b="$b" -v a="$a" 'NR == 1 && $1 < b - 50000 { print "early: " $1 - b }
			$1 > a + 50000 { print "late: " $1 - a }
			NR > 1 && $1 - p < 1000000 { print "gap " NR ": " $1 - p } { p = $1 }' ts.txt)" ""
}
"$DTRACE" -q -n 'rt*:::tick { trace(timestamp); trace("\n"); }' -o ts.txt \
	-c './rtprog clock 20' >prog.txt 2>err.txt
check_clock "timestamps"
rm -f ts.txt # -o appends
UDTRACE_CLOCK=monotonic "$DTRACE" -q -n 'rt*:::tick { trace(timestamp); trace("\n"); }' -o ts.txt \
	-c './rtprog clock 20' >prog.txt 2>err.txt
check_clock "timestamps (UDTRACE_CLOCK=monotonic)"
# A record holds the clock's reading, which dtrace scales; a clause's own timestamp (the
# VM's, a printf() argument's) is scaled in the target: the same ns in one fire
"$DTRACE" -q -n 'rt*:::tick { trace(timestamp); printf(" %d %d\n", timestamp, timestamp + 0); }' \
	-c './rtprog clock 5' >ts.txt 2>err.txt
expect_eq "timestamp from the record, printf() and the VM: the same" \
	"$(awk 'NF == 3 && $1 == $2 && $2 == $3 { n++ } END { print n + 0 }' ts.txt)" 5

# Small buffers: printed records plus reported drops equal the probes fired
"$DTRACE" -q -b 4k -x switchrate=1000hz -n 'rt*:::tick { trace(arg1); trace("\n"); }' \
	-c './rtprog ticks 20000 2' >out.txt 2>err.txt
printed=$(grep -c '^[0-9]' out.txt)
dropped=$(sed -n 's/^dtrace: \([0-9]*\) drops\{0,1\} on thread .*/\1/p' err.txt | paste -sd+ - | bc)
expect_eq "bufsize=4k: printed + dropped = fired (40000; printed $printed)" \
	"$((printed + ${dropped:-0}))" 40000

# -x temporal: records of four threads in timestamp order (more threads than CPUs: some
# are preempted between a fire's timestamp and its record)
"$DTRACE" -q -x temporal -n 'rt*:::tick { trace(timestamp); trace("\n"); }' \
	-c './rtprog ticks 5000 4' >out.txt 2>err.txt
drop_final_empty out.txt
expect_eq "temporal: 20000 records" "$(grep -c . out.txt)" 20000
if sort -n -c out.txt 2>/dev/null; then ok "temporal: in timestamp order"; else
	fail "temporal: in timestamp order" "$(sort -n -c out.txt 2>&1)"; fi

# Predicates the runtime evaluates before the VM's context (light ones: docs/runtime.md, "The
# probe path"): true, false and faulting fires, each as the interpreter has them
"$DTRACE" -q -n 'rt*:::tick /100 / (arg1 % 2) > 10/ { printf("%d\n", arg1); }' \
	-c './rtprog ticks 10 1' >out.txt 2>err.txt
expect_eq "a light predicate: the fires it is true for" "$(grep '^[0-9]' out.txt | tr '\n' ' ')" "1 3 5 7 9 "
expect_eq "a light predicate: the fires it divides by zero in, reported as DTrace does" \
	"$(grep -c 'divide-by-zero in predicate at DIF offset' err.txt)" 5
"$DTRACE" -q -n 'rt*:::tick /arg1 == 3/ { self->seen = 1; }
	rt*:::tick /self->seen && pid == $target/ { printf("%d\n", arg1); }' \
	-c './rtprog ticks 6 1' >out.txt 2>err.txt
expect_eq "light predicates on self-> and a builtin" "$(grep '^[0-9]' out.txt | tr '\n' ' ')" "3 4 5 "

# fill: tracing stops at the first full buffer and dtrace exits
"$DTRACE" -q -x bufpolicy=fill -b 4k -n 'rt*:::tick { trace(arg1); trace("\n"); }' \
	-c './rtprog ticks 100000 1' >out.txt 2>err.txt
drop_final_empty out.txt
printed=$(grep -c '^[0-9]' out.txt)
if [ "$printed" -gt 0 ] && [ "$printed" -lt 1000 ] &&
	[ "$(head -1 out.txt)" = 0 ] && [ "$(tail -1 out.txt)" = $((printed - 1)) ]; then
	ok "fill: the first $printed records, then tracing stopped"
else
	fail "fill: the first records, then tracing stopped" "printed $printed" "$(tail -3 out.txt)"
fi
# as in DTrace, a full fill buffer stops tracing: that is not a drop
expect_eq "fill: no drop reported" "$(grep -c 'drop' err.txt)" 0

# ring: only the newest records, at exit
"$DTRACE" -q -x bufpolicy=ring -b 4k -n 'rt*:::tick { trace(arg1); trace("\n"); }' \
	-c './rtprog ticks 100000 1' >out.txt 2>err.txt
drop_final_empty out.txt
printed=$(grep -c '^[0-9]' out.txt)
# 4096 bytes of 32-byte records hold 128; the tail moves a chunk (1/16) at a time
if [ "$printed" -ge 120 ] && [ "$printed" -le 128 ] && [ "$(tail -1 out.txt)" = 99999 ] &&
	[ "$(head -1 out.txt)" = $((100000 - printed)) ]; then
	ok "ring: the newest $printed records (of the 128 the buffer holds), oldest to newest"
else
	fail "ring: the newest records, oldest to newest" "printed $printed" "$(head -2 out.txt)" "$(tail -2 out.txt)"
fi
# records of two sizes (32 and 48 bytes): chunks end in pads, nothing is lost between
"$DTRACE" -q -x bufpolicy=ring -b 8k -n 'rt*:::tick /arg1 % 3/ { printf("%d\n", arg1); }
	rt*:::tick /arg1 % 3 == 0/ { printf("%d %d %d\n", arg1, arg1, arg1); }' \
	-c './rtprog ticks 100000 1' >out.txt 2>err.txt
drop_final_empty out.txt
first=$(head -1 out.txt | cut -d' ' -f1)
bytes=$(awk 'NF == 1 { b += 32 } NF == 3 { b += 48 } END { print b }' out.txt)
gaps=$(awk -v n="$first" '$1 != n || (NF == 3) != (n % 3 == 0) { bad++ } { n++ } END { print bad + 0 }' out.txt)
if [ "$(tail -1 out.txt)" = "99999 99999 99999" ] && [ "$gaps" = 0 ] && [ "$bytes" -ge 7680 ] &&
	[ "$bytes" -le 8192 ]; then
	ok "ring, two record sizes: ${bytes} of 8192 bytes kept, every record from $first to the last"
else
	fail "ring, two record sizes" "first $first, $bytes bytes, $gaps out of order" "$(tail -2 out.txt)"
fi
# ring: exit() ends the session (the ring is read then), with the exit() status and END
timeout 20 "$DTRACE" -q -x bufpolicy=ring -b 4k -n 'rt*:::tick { n++; trace(arg1); trace("\n"); }
	rt*:::tick /n == 500/ { exit(3); } END { printf("end %d\n", n); }' \
	-c './rtprog ticks 100000000 1' >out.txt 2>err.txt
rc=$?
drop_final_empty out.txt
if [ $rc = 3 ] && [ "$(tail -1 out.txt)" = "end 500" ] &&
	[ "$(tail -2 out.txt | head -1)" = 499 ]; then
	ok "ring: exit() ends the session, the ring's newest records then END's"
else
	fail "ring: exit() ends the session" "exit $rc" "$(tail -3 out.txt)" "$(tail -3 err.txt)"
fi

# -p: attach to a running process
mkfifo ctl
LD_PRELOAD=$RT ./rtprog loop <ctl >loop.out 2>loop.err &
lpid=$!
exec 4>ctl
wait_for loop.err '^ready' || fail "the looping program started" "$(cat loop.err)"
"$DTRACE" -q -n 'rt*:::tick /arg1 > 0/ { trace("hit\n"); exit(0); }' -p "$lpid" >out.txt 2>err.txt
rc=$?
expect_eq "-p: attached and traced a running process" "$rc:$(head -1 out.txt)" "0:hit"
exec 4>&-
wait "$lpid"
expect_eq "-p: after detach the probe is disabled again" "$(grep enabled loop.out)" "enabled=0"

# -p and a library dlopen'ed before the attach: its probe is enabled, and
# dlclose while enabled leaves the process and the session working
"$DTRACE" -h -s "$D/lnk.d" -o lnk.h &&
	gcc -O2 -g -fPIC -I. -c "$D/lnk_lib.c" -o lnk_lib.o &&
	"$DTRACE" -G -fPIC -s "$D/lnk.d" -o lnk_prov.o lnk_lib.o &&
	gcc -shared lnk_lib.o lnk_prov.o -o liblnk.so &&
	gcc -O2 -g -Wall -Wextra -I. "$D/dlprog.c" -c -o dlprog.o &&
	"$DTRACE" -G -s "$D/rt.d" -o dlprog_prov.o dlprog.o &&
	gcc dlprog.o dlprog_prov.o -o dlprog -ldl || fail "build the dlopen program"
mkfifo ctl2
LD_PRELOAD=$RT ./dlprog "$WORK/liblnk.so" <ctl2 >dl.out 2>dl.err &
dlpid=$!
exec 5>ctl2
for _ in $(seq 50); do grep -q ready dl.err && break; sleep 0.1; done
"$DTRACE" -q -n 'BEGIN { trace("attached\n"); } lnk*:::hit { trace(arg0); trace(" "); }
	rt*:::once { trace(copyinstr(arg1)); exit(0); }' -p "$dlpid" >out.txt 2>err.txt &
dtpid=$!
for _ in $(seq 50); do grep -q attached out.txt && break; sleep 0.1; done
echo go >&5
wait "$dtpid"
rc=$?
exec 5>&-
wait "$dlpid"
expect_eq "-p: a dlopen'ed library's probe, then dlclose while it is enabled" \
	"$rc:$(tr '\n' '|' <out.txt):$(cat dl.out)" "0:attached|7 after dlclose|:result 8"

# errors: a dead pid, a process without the runtime
out=$("$DTRACE" -n 'rt*:::tick' -p 999999 2>&1)
rc=$?
expect_eq "a dead pid: exit 1 and DTrace's message" "$rc:$out" \
	"1:dtrace: failed to grab pid 999999: No such process"
sleep 5 &
spid=$!
out=$("$DTRACE" -n 'rt*:::tick' -p "$spid" 2>&1)
rc=$?
kill "$spid" 2>/dev/null
case $out in
*"does not match any probes"*) expect_eq "a process without probes: exit 1" "$rc" 1 ;;
*) fail "a process without probes: a clear error" "$out" ;;
esac
finish
