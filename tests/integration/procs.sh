#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Many processes (docs/processes.md): a traced process's forks keep the
# session (-c, -p, and a description without either); a description without
# -p or -c reaches every process that has the provider, running before dtrace
# or started after it (-Z); an exec in a traced child ends the old image's
# tracing and the new image is picked up; a server that forks a backend per
# connection, as PostgreSQL does, has its queries counted across backends; a
# process of another user is a notice, not a failure.
#
# The program is tests/integration/data/pm.c with its provider pm.d (named
# postgresql, its query probes PostgreSQL's), built with our -h and -G. Its
# "wait" modes start firing only once their probe is enabled, so that every
# count is exact whenever dtrace finds the process. It is built as pm<pid of
# this script>, and the descriptions name that module: a description without
# -p or -c sees every process of the machine, a concurrent run's too.
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
PM=pm$$
cd "$WORK" || exit 1
chmod 755 "$WORK" # (another user's dtrace looks at pm's executable)
("$DTRACE" -h -s "$D/pm.d" -o pm.h && $CC -O2 -g -Wall -Wextra -I. -c "$D/pm.c" -o pm.o &&
	"$DTRACE" -G -s "$D/pm.d" -o pm_prov.o pm.o && $CC pm.o pm_prov.o -o "$PM") >build.log 2>&1 || {
	fail "build pm with our dtrace -h and -G" "$(tail -5 build.log)"
	finish
	exit
}

# counts FILE: the aggregation's rows "KEY COUNT", sorted, on one line
counts() { awk 'NF == 2 && $1 ~ /^-?[0-9]+$/ { print $1 ":" $2 }' "$1" | sort -n | tr '\n' ' '; }
WANT="-1:1 0:1000 1:1000 2:1000 3:1000 "
# With the kernel's process events, a fork child's first fire waits for dtrace to map its
# memory, and what it records is kept even if it _exit()s or execs at once; where dtrace may
# only scan /proc (a container), that is not so, and the checks of it are skipped.
"$DTRACE" -x procwatch=events -q -n 'postgresql*:'$PM'::work { exit(0); }' -c "./$PM workers 0 0" \
	>ev.out 2>ev.err
NOEVENTS=$(grep -c 'process events are not available' ev.err)
# keep_quick COUNTS: the counts, without the exec'd child's (1:N) where they may be lost
keep_quick() { if [ "$NOEVENTS" = 0 ]; then echo "$1"; else echo "$1" | sed 's/ 1:[0-9]*//'; fi; }
DONE='postgresql*:'$PM'::work /arg0 == -1/ { exit(0); }'

# -- -c: the parent and its 4 workers, every event --------------------------------------------
"$DTRACE" -q -n 'postgresql*:'$PM'::work { @[arg0] = count(); }' -c "./$PM workers 4 1000" \
	>c.out 2>c.err
expect_eq "-c: the parent and its 4 forked workers, each event counted" "$(counts c.out)" "$WANT"
expect_eq "-c: nothing said on stderr" "$(grep -v '^ready' c.err)" ""

# the pids the records say: 5 processes, the workers' pids not the parent's
"$DTRACE" -q -n 'postgresql*:'$PM'::work { @[pid == $target ? "parent" : "child", pid] = count(); }' \
	-c "./$PM workers 4 10" >p.out 2>p.err
expect_eq "-c: the records say each worker's own pid" \
	"$(awk 'NF == 3 { print $1 }' p.out | sort | uniq -c | awk '{ print $1, $2 }' | tr '\n' ' ')" \
	"4 child 1 parent "
expect_eq "-c: each worker's pid, a process of its own" \
	"$(awk 'NF == 3 && $1 == "child" { print $3 }' p.out | tr '\n' ' ')" "10 10 10 10 "

# global variables: one set for the process tree, as DTrace's for the system (a worker's stores
# are seen by END and by the other workers)
"$DTRACE" -q -n 'postgresql*:'$PM'::work /arg0 == 2/ { last = arg1; who = "worker 2"; }' \
	-n 'postgresql*:'$PM'::work /arg0 >= 0/ { n++; }' \
	-n 'postgresql*:'$PM'::work /arg0 == -1/ { seen = last; }' \
	-n 'END { printf("last=%d who=%s seen=%d n>1000=%d\n", last, who, seen, n > 1000); }' \
	-c "./$PM workers 4 1000" >g.out 2>g.err
expect_eq "globals: a worker's stores seen by END and by the parent; a counter of every worker" \
	"$(grep '^last=' g.out)" "last=999 who=worker 2 seen=999 n>1000=1"

# workers that end by _exit() right after their events (nothing of the runtime runs then):
# each one's first fire waited for dtrace to map its memory, so none is lost
if [ "$NOEVENTS" = 0 ]; then
	"$DTRACE" -q -n 'postgresql*:'$PM'::work { @[arg0] = count(); }' \
		-c "./$PM workers 4 1000 _exit" >x.out 2>x.err
	expect_eq "-c: workers that _exit() at once, every event" "$(counts x.out)" "$WANT"
	"$DTRACE" -q -n 'postgresql*:'$PM'::work { @ = count(); }' -c "./$PM workers 40 3 _exit" \
		>x40.out 2>x40.err
	expect_eq "-c: 40 workers that fire 3 events and _exit(), every event" \
		"$(awk 'NF == 1 { print $1 }' x40.out)" "121"
else
	skip "-c: workers that _exit() at once" "$(grep -m1 "process events" ev.err)"
fi

# -x nofollowfork: the workers leave the session
"$DTRACE" -x nofollowfork -q -n 'postgresql*:'$PM'::work { @[arg0] = count(); }' \
	-c "./$PM workers 4 1000" >n.out 2>n.err
expect_eq "-x nofollowfork: the parent's events only" "$(counts n.out)" "-1:1 "

# -- A description without -p or -c, -Z, dtrace started first ---------------------------------
"$DTRACE" -Z -q -n 'postgresql*:'$PM'::work { @[arg0] = count(); }' -n "$DONE" >z.out 2>z.err &
dpid=$!
sleep 1 # (dtrace has looked at the processes there are: pm is one started after)
./$PM workers 4 1000 wait >zpm.out 2>&1
wait "$dpid"
expect_eq "-Z, started before the program: the program and its workers, every event" \
	"$(counts z.out)" "$WANT"

# without -Z, a description that matches no process is an error, as DTrace's
out=$("$DTRACE" -q -n 'nosuchprov*:::work' 2>&1)
expect_eq "no process has the provider, no -Z: DTrace's error" "$?:$out" \
	"1:dtrace: invalid probe specifier nosuchprov*:::work: probe description nosuchprov*:::work does not match any probes"

# -- dtrace started after the program ----------------------------------------------------------
./$PM workers 4 1000 wait >apm.out 2>&1 &
ppid=$!
wait_for apm.out ready
"$DTRACE" -q -n 'postgresql*:'$PM'::work { @[arg0] = count(); }' -n "$DONE" >a.out 2>a.err
wait "$ppid"
expect_eq "no -Z, the program running first: found, its workers followed, every event" \
	"$(counts a.out)" "$WANT"

# -- exec: the old image's tracing ends, the new image is picked up ----------------------------
"$DTRACE" -Z -q -n 'postgresql*:'$PM'::work { @[arg0] = count(); }' -n "$DONE" >e.out 2>e.err &
dpid=$!
sleep 1
./$PM exec 5 wait >epm.out 2>&1
wait "$dpid"
expect_eq "exec in a traced child: the parent's event, the child's before its exec, and the new image found and traced" \
	"$(keep_quick "$(counts e.out)")" "$(keep_quick "-1:1 0:1 1:5 ")"
expect_eq "exec: nothing said on stderr" "$(cat e.err)" ""
"$DTRACE" -q -n 'postgresql*:'$PM'::work { @[arg0] = count(); }' -c "./$PM exec 5 wait" \
	>ec.out 2>ec.err
expect_eq "-c, exec in a child: the child's events before its exec, the new image traced" \
	"$(keep_quick "$(counts ec.out)"):$(grep -c 'workers done' ec.out)" \
	"$(keep_quick "-1:1 0:1 1:5 "):1"
expect_eq "-c, exec in a child: nothing said on stderr" "$(grep -v '^ready' ec.err)" ""

# -c's own process execs (env runs the program): the new image is traced, and -c ends with it
"$DTRACE" -Z -q -n 'postgresql*:'$PM'::work { @[arg0] = count(); }' \
	-c "env ./$PM workers 4 1000 wait" >ee.out 2>ee.err
expect_eq "-c env PROGRAM: the image -c's process execs, and its forks, every event" \
	"$(counts ee.out):$(grep -c 'workers done' ee.out)" "$WANT:1"
expect_eq "-c env PROGRAM: nothing said on stderr" "$(grep -v '^ready' ee.err)" ""
"$DTRACE" -x procwatch=scan -Z -q -n 'postgresql*:'$PM'::work { @[arg0] = count(); }' \
	-c "env ./$PM workers 4 1000 wait" >es.out 2>es.err
expect_eq "-c env PROGRAM, /proc scanned (no exec event): the new image found all the same" \
	"$(counts es.out)" "$WANT"

# -p on a shell that then execs the program: the new image traced (the runtime loaded into it)
mkfifo go.fifo
bash -c "read -r x; exec ./$PM workers 4 1000 wait" <go.fifo >pe.pm 2>&1 &
bpid=$!
exec 6>go.fifo
"$DTRACE" -Z -q -n 'postgresql*:'$PM'::work { @[arg0] = count(); }' -p "$bpid" \
	-n 'BEGIN { printf("tracing\n"); }' >pe.out 2>pe.err &
dpid=$!
wait_for pe.out tracing || fail "-p on a shell: dtrace started" "$(cat pe.err)"
echo go >&6
exec 6>&-
wait "$dpid"
expect_eq "-p on a shell that execs the program: its events and its forks', every one" \
	"$(counts pe.out)" "$WANT"

# -- A postmaster and its backends, queries counted across backends ----------------------------
./$PM server "$WORK/pm.sock" >srv.out 2>srv.err &
spid=$!
wait_for srv.err listening || fail "the server started" "$(cat srv.err)"
"$DTRACE" -q -n 'postgresql*:'$PM'::query-start { @q[copyinstr(arg0)] = count(); @b[pid] = count(); }' \
	-n 'postgresql*:'$PM'::backend-start { @s = count(); }' \
	-n 'END { printa("%s %@d\n", @q); printa("backend %@d\n", @b); printa("started %@d\n", @s); }' \
	>s.out 2>s.err &
dpid=$!
sleep 1 # (the postmaster found and traced)
for i in 1 2 3; do ./$PM client "$WORK/pm.sock" 10 >>cl.out 2>&1 & done
wait_for_n() { for _ in $(seq 200); do [ "$(grep -c "$2" "$1")" -ge "$3" ] && return; sleep 0.05; done; }
wait_for_n cl.out 'client done' 3
sleep 0.5 # (a round reads the backends' last records)
kill -INT "$dpid"
wait "$dpid"
# dtrace -l without -p or -c: the probes of every process a description may match
"$DTRACE" -l -n 'postgresql*:'$PM'::' >l.out 2>l.err
expect_eq "-l without -p: the server's probes, those of pm.d" \
	"$(awk -v p="postgresql$spid" '$2 == p { print $NF }' l.out | sort -u | tr '\n' ' ')" \
	"backend-start idle query-done query-start work "
expect_eq "-l without -p: no other process of this module (the backends are gone)" \
	"$(awk 'NR > 1 { print $2 }' l.out | sort -u)" "postgresql$spid"
"$DTRACE" -l -n 'postgresql*:'$PM'::query-start' >l1.out 2>&1
expect_eq "-l -n without -p: the one probe, with the server's pid, module and function" \
	"$(awk 'NR > 1 { print $2, $3, $5 }' l1.out)" "postgresql$spid $PM query-start"
out=$("$DTRACE" -l -n 'nosuchprov*:::work' 2>&1)
expect_eq "-l, no process has the provider: DTrace's error" "$?:$(tail -n 1 <<<"$out")" \
	"1:dtrace: invalid probe specifier nosuchprov*:::work: probe description nosuchprov*:::work does not match any probes"
kill -TERM "$spid"
wait "$spid"
expect_eq "server: 3 backends, forked after dtrace started, each counted" \
	"$(grep -c '^backend 10$' s.out):$(grep '^started' s.out)" "3:started 3"
expect_eq "server: every query of every backend counted (SELECT 0..9, 3 each)" \
	"$(grep -c '^SELECT [0-9] 3$' s.out)" 10
expect_eq "server: nothing said on stderr" "$(cat s.err)" ""

# -- A process of another user: a notice, the session goes on ----------------------------------
if [ "$(id -u)" = 0 ] && have setpriv; then
	mkfifo idle.in
	"$WORK/$PM" idle <idle.in >idle.out 2>&1 &
	ipid=$!
	exec 6>idle.in
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
	$AS ./$PM workers 1 100 wait >own.out 2>&1 &
	opid=$!
	wait_for own.out ready
	$AS "$DTRACE" -q -n 'postgresql*:'$PM'::work { @[arg0] = count(); }' -n "$DONE" >u.out 2>u.err
	wait "$opid"
	exec 6>&-
	wait "$ipid"
	expect_eq "another user's process: one notice for it" \
		"$(grep -c "pid $ipid ($PM) is not traced: it runs as uid 0" u.err)" 1
	expect_eq "another user's process: the session went on" "$(counts u.out)" "-1:1 0:100 "
else
	skip "another user's process" "needs root and setpriv to become another user"
fi

finish
