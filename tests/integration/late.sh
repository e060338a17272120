#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Libraries loaded after the attach (docs/runtime.md): a program started
# with the runtime, traced, then dlopen()s a library with a `dtrace -G`
# provider and an SDT(9) provider whose probes the script names. The
# session enables them as they appear (a new generation of its enablings),
# under -p and -c: records with their module and function, aggregations and
# self-> variables across the library and the program, dtrace -l -p listing
# them, dlclose and dlopen again (twice and a few hundred times), the
# deadman restoring the library's semaphores, -Z (and its absence), and an
# enabling area that fills up.
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
RT=$BUILD/lib/libudtrace.so.1
cd "$WORK" || exit 1
"$DTRACE" -h -s "$D/late.d" -o late.h &&
	gcc -O2 -g -fPIC -Wall -Wextra -I. -I"$SDK_INCLUDE" -c "$D/late_lib.c" -o late_lib.o &&
	"$DTRACE" -G -fPIC -s "$D/late.d" -o late_prov.o late_lib.o &&
	gcc -shared late_lib.o late_prov.o -o liblate.so &&
	"$DTRACE" -h -s "$D/rt.d" -o rt.h &&
	gcc -O2 -g -Wall -Wextra -I. -c "$D/lateprog.c" -o lateprog.o &&
	"$DTRACE" -G -s "$D/rt.d" -o lateprog_prov.o lateprog.o &&
	gcc lateprog.o lateprog_prov.o -o lateprog -ldl || { fail "build the programs"; finish; exit; }
LIB=$WORK/liblate.so

# start_prog: lateprog with the runtime preloaded, its commands from fd 4 (fifo ctl)
start_prog() {
	rm -f ctl prog.out prog.err
	mkfifo ctl
	LD_PRELOAD=$RT ./lateprog "$LIB" <ctl >prog.out 2>prog.err &
	pid=$!
	exec 4>ctl
	wait_for prog.err ready
}

# cmd LINE REPLY: send a command to the program, wait for its reply (one more line
# starting with REPLY; 30 s at most)
cmd() {
	local n
	n=$(grep -c "^$2" prog.out 2>/dev/null)
	echo "$1" >&4
	for _ in $(seq 600); do
		[ "$(grep -c "^$2" prog.out 2>/dev/null)" -gt "${n:-0}" ] && return 0
		sleep 0.05
	done
	return 1
}

# The library's probes, the program's, and both in one aggregation and one self->.
cat >late.d <<'D'
BEGIN { printf("attached\n"); }
late*:::enter
{
	printf("enter %d %s:%s %s\n", arg0, probemod, probefunc, copyinstr(arg1));
	self->in = arg0 + 1;
	@n[probemod, "enter"] = count();
}
sdtlate*:::tick { printf("tick %d %s:%s\n", arg0, probemod, probefunc); @n[probemod, "tick"] = count(); }
rt*:::tick { @n[probemod, "main"] = count(); }
rt*:::once /self->in/ { printf("main saw %d after %d\n", self->in, arg0); }
END { printa("%s %s %@d\n", @n); }
D
WANT='attached|enter 0 liblate.so:lib_work lib|tick 0 liblate.so:|enter 1 liblate.so:lib_work lib|tick 1 liblate.so:|enter 2 liblate.so:lib_work lib|tick 2 liblate.so:|main saw 3 after 3|lateprog main 1|liblate.so enter 3|liblate.so tick 3||'

# -p: the library loaded after the attach (-Z: nothing matches late* yet)
start_prog
"$DTRACE" -Z -q -s late.d -p "$pid" >out.txt 2>err.txt &
dtpid=$!
wait_for out.txt attached
cmd open opened
cmd wait enabled
expect_eq "-p: the library's probes are enabled once it is loaded" "$(tail -1 prog.out)" "enabled"
listed=$("$DTRACE" -l -n 'late$target:::' -n 'sdtlate$target:::' -p "$pid" 2>&1 |
	awk 'NR > 1 { sub(/[0-9]+$/, "", $2); print $2, $3, $4, $5 }' | sort | tr '\n' '|')
expect_eq "-p: dtrace -l -p lists the library's probes" "$listed" \
	"late liblate.so lib_work enter|late liblate.so lib_work leave|sdtlate liblate.so tick |"
cmd "work 3" "worked 3"
cmd sems "sems"
expect_eq "-p: the semaphores of the probes the script names are set" "$(tail -1 prog.out)" \
	"sems 1 0 1 main 1"
kill -INT "$dtpid"
wait "$dtpid"
rc=$?
expect_eq "-p: records of the library (module, function), the program, one aggregation, one self->" \
	"$rc:$(tr '\n' '|' <out.txt)" "0:$WANT"
expect_eq "-p: nothing on stderr" "$(cat err.txt)" ""
cmd sems "sems"
expect_eq "-p: detached: the library's semaphores are down again" "$(tail -1 prog.out)" \
	"sems 0 0 0 main 0"
exec 4>&-
wait "$pid"
expect_eq "-p: the program ran on and exited 0" "$?" 0

# The first fires after dlopen() returns, with no wait: the library's probes were enabled
# inside dlopen() (its constructors' registration waits for the session)
start_prog
"$DTRACE" -Z -q -n 'BEGIN { printf("attached\n"); } late*:::enter, sdtlate*:::tick { @[probename] = count(); }
	END { printa("%s %@d\n", @); }' -p "$pid" >out.txt 2>err.txt &
dtpid=$!
wait_for out.txt attached
cmd "openwork 3" "opened worked 3"
kill -INT "$dtpid"
wait "$dtpid"
expect_eq "-p: the fires straight after dlopen() returns are recorded, every one" \
	"$?:$(grep . out.txt | sort | tr '\n' '|')" "0:attached|enter 3|tick 3|"
exec 4>&-
wait "$pid"

# An idle session is paced slowly (docs/runtime.md, "Pacing"): a few rounds a second
# before its first fire and after it (each round writes its heartbeat into the process:
# strace counts the writes; the system's other processes' events wake dtrace too, and are
# not rounds); and a library loaded while it idles at a slow switchrate (a round every
# 5 s, past dlopen()'s wait of 1 s) wakes it: its first fires straight after dlopen() are
# recorded all the same.
# writes PID: dtrace PID's writes into its target in 4 s, as strace counts them ("" when
# strace cannot trace it)
writes() {
	timeout -s INT 4 strace -f -c -e trace=process_vm_writev -o strace.out -p "$1" 2>strace.err
	grep -q "attach: ptrace" strace.err && return
	awk '$NF == "process_vm_writev" { n = $4 } END { print n + 0 }' strace.out
}
# rounds NAME: the check that dtrace $dtpid's 4 s just counted made some rounds, and few
rounds() {
	local w
	w=$(writes "$dtpid")
	if [ -z "$w" ]; then
		skip "$1" "strace cannot trace dtrace here: $(head -n 1 strace.err)"
	elif [ "$w" -ge 1 ] && [ "$w" -le 60 ]; then
		ok "$1: $w writes in 4 s (a heartbeat a round; at most 60)"
	else
		fail "$1: between 1 and 60 writes in 4 s (a heartbeat a round)" "$w"
	fi
}
start_prog
"$DTRACE" -Z -q -n 'BEGIN { printf("attached\n"); } rt*:::tick { @ = count(); }' \
	-p "$pid" >out.txt 2>err.txt &
dtpid=$!
wait_for out.txt attached
if ! have strace; then
	skip "-p, an idle session's rounds" "strace not installed"
else
	sleep 2 # (past the first second, when a session without memory is looked at often)
	rounds "-p, idle before any fire"
	cmd tick ticked
	sleep 2 # (past the quick rounds of buffers just made)
	rounds "-p, idle after a fire"
fi
kill -INT "$dtpid"
wait "$dtpid"
expect_eq "-p, idle: the fire counted" "$?:$(grep -v attached out.txt | tr -d ' \n')" "0:1"
exec 4>&-
wait "$pid"
start_prog
"$DTRACE" -Z -q -x switchrate=5s -x aggrate=10s -x deadman=60s -n 'BEGIN { printf("attached\n"); }
	late*:::enter, sdtlate*:::tick, rt*:::tick { @[probename] = count(); }
	END { printa("%s %@d\n", @); }' -p "$pid" >out.txt 2>err.txt &
dtpid=$!
wait_for out.txt attached
cmd tick ticked
sleep 6 # (its pace slows to a round every 5 s)
cmd "openwork 3" "opened worked 3"
kill -INT "$dtpid"
wait "$dtpid"
expect_eq "-p, a round every 5 s: the fires straight after dlopen() are recorded, every one" \
	"$?:$(grep . out.txt | sort | tr '\n' '|')" "0:attached|enter 3|tick 4|"
exec 4>&-
wait "$pid"

# and a session whose dtrace is stopped holds dlopen() up for a moment only (its bound),
# one whose dtrace is killed not at all
for how in STOP KILL; do
	start_prog
	"$DTRACE" -Z -q -n 'BEGIN { printf("attached\n"); } late*:::enter { @ = count(); }' \
		-p "$pid" >out.txt 2>err.txt &
	dtpid=$!
	wait_for out.txt attached
	if [ $how = KILL ]; then
		{ kill -KILL "$dtpid"; wait "$dtpid"; } 2>/dev/null
	else
		kill -STOP "$dtpid"
	fi
	cmd open opened
	expect_eq "-p: dtrace $([ $how = STOP ] && echo stopped || echo killed): dlopen() returns" \
		"$(tail -1 prog.out)" "opened"
	{ kill -KILL "$dtpid"; wait "$dtpid"; } 2>/dev/null
	exec 4>&-
	wait "$pid"
done

# Two sessions: each enables the library's probes in a generation of its own
start_prog
"$DTRACE" -Z -q -n 'late*:::enter { printf("A %d\n", arg0); }' -p "$pid" >a.txt 2>a.err &
da=$!
"$DTRACE" -Z -q -n 'late*:::enter /arg0 % 2 == 0/ { printf("B %d\n", arg0); }
	sdtlate*:::tick { @t = count(); }' -p "$pid" >b.txt 2>b.err &
db=$!
cmd open opened
for _ in $(seq 200); do
	cmd sems sems
	[ "$(tail -1 prog.out)" = "sems 2 0 1 main 0" ] && break
	sleep 0.05
done
expect_eq "two sessions: each counted in the library's semaphores" "$(tail -1 prog.out)" \
	"sems 2 0 1 main 0"
cmd "work 4" "worked 4"
cmd close closed
kill -INT "$da" "$db"
wait "$da"
ra=$?
wait "$db"
expect_eq "two sessions: each has its own records of the library" \
	"$ra:$?:$(tr '\n' '|' <a.txt):$(tr '\n' '|' <b.txt | tr -s ' ')" \
	"0:0:A 0|A 1|A 2|A 3||:B 0|B 2|| 4|"
cmd open opened
cmd sems sems
expect_eq "two sessions: detached after the unload, the library loaded again is untraced" \
	"$(tail -1 prog.out)" "sems 0 0 0 main 0"
exec 4>&-
wait "$pid"

# -c: the command loads the library after main() started
printf 'open\nwait\nwork 3\n' >cmds
"$DTRACE" -Z -q -s late.d -c "./lateprog $LIB" <cmds >out.txt 2>err.txt
rc=$?
grep -v -e '^opened$' -e '^enabled$' -e '^worked 3$' out.txt >rec.txt
expect_eq "-c: the library's probes, dlopen'ed by the command, recorded" \
	"$rc:$(tr '\n' '|' <rec.txt)" "0:$WANT"

# dlclose while enabled, and dlopen again: a new generation for each load
printf 'open\nwait\nwork 2\nclose\nopen\nwait\nwork 3\nclose\nopen\nwait\nwork 1\nsems\nclose\n' >cmds
"$DTRACE" -Z -q -n 'late*:::enter /arg0 == 0/ { printf("load\n"); }
	late*:::enter, late*:::leave, sdtlate*:::tick { @[probename] = count(); }' \
	-c "./lateprog $LIB" <cmds >out.txt 2>err.txt
rc=$?
expect_eq "dlclose and dlopen again, three times: records of every load" \
	"$rc:$(grep -c '^load$' out.txt):$(grep -c '^enabled$' out.txt)" "0:3:3"
expect_eq "dlclose and dlopen again: the counts of all loads" \
	"$(awk '$1 ~ /^(enter|leave|tick)$/ { print $1, $2 }' out.txt | sort | tr '\n' ' ')" \
	"enter 6 leave 6 tick 6 "
expect_eq "dlclose and dlopen again: the last load's semaphores set" \
	"$(grep '^sems' out.txt)" "sems 1 1 1 main 0"
expect_eq "dlclose and dlopen again: nothing on stderr (but the program's ready)" \
	"$(grep -v '^ready$' err.txt)" ""

# Loads and unloads faster than dtrace looks: no crash, the target exits 0
printf 'churn 300\nopen\nwait\nwork 1\nclose\nchurn 300\n' >cmds
"$DTRACE" -Z -q -n 'late*:::enter, sdtlate*:::tick { @[probename] = count(); }' \
	-c "./lateprog $LIB" <cmds >out.txt 2>err.txt
rc=$?
expect_eq "600 dlopen/dlclose while traced: exit 0, the waited-for load recorded" \
	"$rc:$(grep -c '^churned 300$' out.txt):$(grep -c '^enabled$' out.txt):$(grep -v '^ready$' err.txt)" \
	"0:2:1:"

# The deadman, after a generation was added: the library's semaphores are restored too
start_prog
"$DTRACE" -Z -q -x deadman=1s -x switchrate=50hz -s late.d -p "$pid" >out.txt 2>err.txt &
dtpid=$!
wait_for out.txt attached
cmd open opened
cmd wait enabled
cmd sems "sems"
before=$(tail -1 prog.out)
kill -KILL "$dtpid"
wait "$dtpid" 2>/dev/null
cmd "sleep 1500" slept
cmd tick ticked
cmd sems "sems 0"
expect_eq "deadman: the semaphores of the library's generation and the program's restored" \
	"$before / $(tail -1 prog.out)" "sems 1 0 1 main 1 / sems 0 0 0 main 0"
cmd "work 2" "worked 2"
exec 4>&-
wait "$pid"
expect_eq "deadman: the program ran on and exited 0" "$?" 0

# A description that matches nothing at the start: an error without -Z, as DTrace's
start_prog
out=$("$DTRACE" -n 'late*:::enter' -p "$pid" 2>&1)
expect_eq "without -Z, a description matching nothing yet is an error" "$?:$out" \
	"1:dtrace: invalid probe specifier late*:::enter: probe description late*:::enter does not match any probes"
# ... and one that matched the program's probes at the start takes the library's too
"$DTRACE" -q -n 'BEGIN { printf("attached\n"); } *:::tick { @[probemod] = count(); }' \
	-p "$pid" >out.txt 2>err.txt &
dtpid=$!
wait_for out.txt attached
cmd open opened
cmd "wait tick" enabled
cmd "work 4" "worked 4"
kill -INT "$dtpid"
wait "$dtpid"
expect_eq "*:::tick matched the program's probe at the start, and the library's once loaded" \
	"$(awk 'NF == 2 { print $1, $2 }' out.txt | sort | tr '\n' ' ')" "lateprog 1 liblate.so 4 "
exec 4>&-
wait "$pid"

# A dynamic provider (udtrace/udtrace.h) the command declares after main() started
gcc -O2 -g -Wall -Wextra -I"$SDK_INCLUDE" "$D/dynprov.c" -L"$BUILD/lib" -ludtrace \
	-Wl,-rpath,"$BUILD/lib" -o dynprov || fail "build the dynamic provider's program"
# (its stdin stays open, 30 s at most: the program ends at its end)
out=$("$DTRACE" -Z -q \
	-n 'dyn*:::hello { printf("%s %s %s\n", probemod, probefunc, args[0]); exit(0); }' \
	-c './dynprov loop' 2>err.txt < <(sleep 30; echo unload))
# (the program fires every 10 ms from i = 0: the first fire enabled may be either)
expect_eq "-c: a dynamic provider loaded after main() started is enabled (-Z)" \
	"$?:$(echo "$out" | sed 's/ odd$/ even/')" "0:dyn main even"

# An enabling area that fills up: said once, and the session goes on (240 clauses: the 2 MB
# area fills at a load near the 16th)
{
	echo 'BEGIN { printf("attached\n"); }'
	for i in $(seq 240); do
		printf 'late*:::enter /arg0 != %d/ { printf("%%d %%d %%d %%d %%d %%d %%s\\n", arg0, arg0 + 1, arg0 + 2, arg0 + 3, arg0 + 4, arg0 + 5, copyinstr(arg1)); }\n' "$i"
	done
	echo 'rt*:::tick { printf("tick %d\n", arg0); }'
} >big.d
start_prog
"$DTRACE" -Z -q -x switchrate=20hz -s big.d -p "$pid" >out.txt 2>err.txt &
dtpid=$!
wait_for out.txt attached
loads=0
for i in $(seq 40); do
	cmd open opened
	cmd "wait 3000 enter" "[a-z ]*enabled"
	echo close >&4
	loads=$i
	grep -q 'area full' err.txt && break
done
cmd tick ticked
sleep 0.3
kill -INT "$dtpid"
wait "$dtpid"
rc=$?
expect_eq "an area that fills up: said once, naming the library" \
	"$(grep -c 'area full' err.txt):$(grep 'area full' err.txt)" \
	"1:dtrace: cannot enable the probes of liblate.so: enabling area full"
expect_eq "an area that fills up: the session goes on (a probe of the program recorded), exit 0" \
	"$rc:$(grep -c '^tick 1$' out.txt)" "0:1"
echo "    (the area filled at load $loads)"
exec 4>&-
wait "$pid"
expect_eq "an area that fills up: the program exited 0" "$?" 0

# A library with SystemTap notes alone (<sys/sdt.h>, no -G object): its probes enabled once
# it is mapped (a round later: no registration tells), under -c and -p
if echo '#include <sys/sdt.h>' | $CC -E - >/dev/null 2>&1; then
	# (40 sites of the probe: more than the session had before it)
	cat >plug.c <<'C'
#include <sys/sdt.h>
#define T4 DTRACE_PROBE1(plug, tick, i); DTRACE_PROBE1(plug, tick, i); \
	DTRACE_PROBE1(plug, tick, i); DTRACE_PROBE1(plug, tick, i);
int plug_fire(int n)
{
	for (int i = 0; i < n; i++) {
		T4 T4 T4 T4 T4 T4 T4 T4 T4 T4
	}
	return n;
}
C
	cat >plugmain.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	(void)argc;
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*fire)(int) = h ? (int (*)(int))dlsym(h, "plug_fire") : NULL;
	if (!fire)
		return 1;
	for (int r = 0; r < 100; r++) {
		fire(10);
		usleep(10000);
	}
	return 0;
}
C
	$CC -O2 -fPIC -shared -o libplug.so plug.c && $CC -O2 -o plugmain plugmain.c -ldl ||
		fail "build the <sys/sdt.h> library and its program"
	"$DTRACE" -Z -q -n 'plug*:::tick { @[probemod, probefunc] = count(); } END { printa("%s %s %@d\n", @); }' \
		-c "./plugmain $WORK/libplug.so" >plug.out 2>plug.err
	got=$(grep . plug.out)
	check "-c: a <sys/sdt.h> library's probes, dlopen'ed by the command, recorded with their module and function" \
		awk -v g="$got" 'BEGIN { split(g, f, " "); exit !(f[1] == "libplug.so" && f[2] == "plug_fire" && f[3] > 0 && f[3] <= 40000) }'
	expect_eq "-c: and nothing said" "$(cat plug.err)" ""
else
	skip "a <sys/sdt.h> library loaded after the attach" "no <sys/sdt.h> (systemtap-sdt-dev)"
fi
# the JVM's probes, in the libjvm.so the java launcher loads
JAVA=$(ls /usr/lib/jvm/*/bin/java 2>/dev/null | head -1)
if [ -n "$JAVA" ] && readelf -n "$(dirname "$(dirname "$JAVA")")/lib/server/libjvm.so" 2>/dev/null |
	grep -q 'Provider: hotspot'; then
	# (a probe that fires after the start, again and again: the notes of a library loaded
	# later are enabled a round after it is mapped, not inside its dlopen())
	cat >Th.java <<'J'
public class Th {
	public static void main(String[] a) throws Exception {
		for (int i = 0; i < 200; i++) {
			Thread t = new Thread(() -> { });
			t.start();
			t.join();
			Thread.sleep(10);
		}
		System.out.println("done");
	}
}
J
	"$DTRACE" -Z -q -n 'hotspot$target:::thread-start { @ = count(); } END { printa("%@d\n", @); }' \
		-c "$JAVA Th.java" >jvm.out 2>jvm.err
	if grep -q '^done$' jvm.out; then
		check "-c java: the JVM's hotspot probes, in the libjvm.so it loads, enabled" \
			awk '$1 ~ /^[0-9]+$/ && $1 >= 100 { found = 1 } END { exit !found }' jvm.out
	else
		skip "-c java: the JVM's hotspot probes" "this JVM does not run a source file ($(head -c 200 jvm.err))"
	fi
else
	skip "the JVM's probes under -c" "no JVM with hotspot probes installed"
fi
finish
