#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Threads without a limit (docs/runtime.md, "Threads"): a session sees any
# number of threads over its life. A thread's buffer is given back at its
# exit, once dtrace has read it out, for a later thread to take; what the
# thread aggregated and recorded is all there; every fire is a record, a
# drop or a loss said with its reason, in every buffer policy.
#
# The program (data/churn.c) starts 20,000 threads, 200 at a time, each
# firing rt:::tick(thread, seq) a few times and exiting, and prints how
# many times it fired.
. "$(dirname "$0")/../lib.sh"

cd "$WORK" || exit 1
build_rtprog churn

# lost FILE: the records dtrace said it dropped or lost ("N drops on thread T",
# "N records lost: ...", "N records overwritten ...")
lost() {
	awk '/^dtrace: [0-9]+ (drops? on thread|records? lost|records? overwritten)/ { n += $2 }
	     END { print n + 0 }' "$1"
}
# nrecs FILE TAG: the lines of FILE that start with TAG, and how many distinct ones
nrecs() { grep -c "^$2 " "$1"; }
udist() { grep "^$2 " "$1" | sort -u | wc -l; }

# -- 20,000 short-lived threads, one fire each: 20,000 records, each thread's once ----------
"$DTRACE" -q -n 'rt*:::tick { printf("T %d %d\n", arg0, tid); }' \
	-c "./churn churn 20000 200 1" >a.out 2>a.err
expect_eq "20,000 threads: every fire recorded" "$(nrecs a.out T)" 20000
expect_eq "20,000 threads: each thread once" "$(grep '^T ' a.out | cut -d' ' -f2 | sort -u | wc -l)" 20000
expect_eq "20,000 threads: nothing dropped or lost" "$(cat a.err)" ""
expect_eq "20,000 threads: the program fired 20,000" "$(grep '^fired' a.out)" "fired 20000"

# -- 10,000 threads alive at once: a buffer each, 10,000 records -----------------------------
"$DTRACE" -q -n 'rt*:::tick { printf("L %d\n", arg0); }' -c "./churn live 10000" >l.out 2>l.err
expect_eq "10,000 live threads: every fire recorded" "$(udist l.out L)" 10000
expect_eq "10,000 live threads: nothing dropped or lost" "$(cat l.err)" ""

# -- A session's first fires, 100 threads at once under -p: they meet its memory being made,
# and wait for it (none lost); the runtime preloaded, or injected by dtrace
RT=$BUILD/lib/libudtrace.so.1 # (the file: libudtrace.so is a linker script)
for round in 1 2 3 4 5 6; do
	rm -f b.err
	if ((round % 2)); then
		LD_PRELOAD=$RT ./churn burst 100 >b.prog 2>b.err &
	else
		./churn burst 100 >b.prog 2>b.err &
	fi
	bpid=$!
	wait_for b.err waiting || fail "burst: the program waits" "$(cat b.err)"
	"$DTRACE" -q -n 'rt*:::tick { printf("B %d\n", arg0); } rt*:::once { exit(0); }' \
		-p "$bpid" >b.out 2>b.dt
	wait "$bpid"
	[ "$(udist b.out B):$(cat b.dt)" = "100:" ] || break
done
expect_eq "a session's first fires, 100 threads at once: all recorded, none lost" \
	"$(udist b.out B):$(cat b.dt)" "100:"

# -- count() over them, and a thread's aggregations and self-> state kept ---------------------
# Each thread fires twice: at seq 0 its self-> variables must be fresh (never a
# previous owner's of its buffer), at seq 1 they hold what seq 0 stored; its
# aggregations are read out at its exit.
cat >state.d <<'D'
self int x;
self int a[int];

rt*:::tick /arg1 == 0/
{
	@fresh[self->x == 0 && self->a[1] == 0] = count();
	self->x = arg0 + 1;
	self->a[1] = arg0 + 1;
}
rt*:::tick /arg1 == 1/
{
	@kept[self->x == arg0 + 1 && self->a[1] == arg0 + 1] = count();
	@total = count();
	@sum = sum(arg0);
}
END
{
	printa("fresh %d %@d\n", @fresh);
	printa("kept %d %@d\n", @kept);
	printa("total %@d\n", @total);
	printa("sum %@d\n", @sum);
}
D
"$DTRACE" -q -x dynvarsize=16m -s state.d -c "./churn churn 20000 200 2" >s.out 2>s.err
expect_eq "count() over 20,000 threads" "$(grep '^total' s.out)" "total 20000"
expect_eq "sum() over 20,000 threads" "$(grep '^sum' s.out)" "sum 199990000"
expect_eq "a thread's self-> variables start unset" "$(grep '^fresh' s.out)" "fresh 1 20000"
expect_eq "a thread's self-> variables kept until its exit" "$(grep '^kept' s.out)" "kept 1 20000"
expect_eq "count() and self-> over 20,000 threads: nothing dropped or said" "$(cat s.err)" ""
expect_eq "aggregations of exited threads: nothing dropped" "$(cat s.err)" ""

# -- Tiny buffers, each policy: records + drops + losses = fires -----------------------------
# switch: halves of 64 bytes (2 records); 2,000 threads fire 10 records each at
# once, faster than dtrace switches: most are drops
"$DTRACE" -q -x bufsize=64 -n 'rt*:::tick { printf("S %d %d\n", arg0, arg1); }' \
	-c "./churn churn 2000 100 10" >w.out 2>w.err
expect_eq "switch, tiny buffers: records + drops + losses = 20,000" \
	"$(($(nrecs w.out S) + $(lost w.err)))" 20000
within "switch, tiny buffers: drops said" "$(lost w.err)" 1 19999
# fill: a record per thread fits; 20,000 threads never fill a buffer
"$DTRACE" -q -x bufpolicy=fill -x bufsize=32 -n 'rt*:::tick { printf("F %d\n", arg0); }' \
	-c "./churn churn 20000 200 1" >f.out 2>f.err
expect_eq "fill, tiny buffers: records + drops + losses = 20,000" \
	"$(($(nrecs f.out F) + $(lost f.err)))" 20000
expect_eq "fill, tiny buffers: every fire recorded" "$(udist f.out F)" 20000
# ring: the threads' rings are read at their exit, printed at the end
"$DTRACE" -q -x bufpolicy=ring -x bufsize=128 -n 'rt*:::tick { printf("R %d\n", arg0); }' \
	-c "./churn churn 20000 200 1" >r.out 2>r.err
expect_eq "ring, tiny buffers: records + drops + losses = 20,000" \
	"$(($(nrecs r.out R) + $(lost r.err)))" 20000
expect_eq "ring, tiny buffers: every fire recorded" "$(udist r.out R)" 20000
# ring that wraps: 2,000 threads of 10 fires each, a ring of 2 chunks of 2 records
"$DTRACE" -q -x bufpolicy=ring -x bufsize=128 -n 'rt*:::tick { printf("R %d %d\n", arg0, arg1); }' \
	-c "./churn churn 2000 100 10" >o.out 2>o.err
expect_eq "ring, overwritten: records + overwritten = 20,000" \
	"$(($(nrecs o.out R) + $(lost o.err)))" 20000
expect_eq "ring, overwritten: each thread's newest kept" \
	"$(grep -c '^R [0-9]* 9$' o.out)" 2000
grep -q 'records overwritten in ring buffers' o.err && ok "ring, overwritten: said" ||
	fail "ring, overwritten: said" "$(cat o.err)"

finish
