#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The plockstat provider (docs/plockstat.md) on a program that takes locks in
# known ways (data/locks.c: a mutex N threads block on, one never contended,
# a trylock that fails and one that succeeds, EDEADLK, a recursive mutex,
# a timedlock that times out, an adaptive mutex spun on, a rwlock N readers
# wait on and a writer waits on): each probe's count on each lock, with its
# arguments, against what the program did; jumped and trapped; -p on a
# running process, and its C library's text as it was after. Then
# plockstat(1) on it: its tables, their rows, and its options.
. "$(dirname "$0")/../lib.sh"

cd "$WORK" || exit 1
D=$TOP/tests/integration/data
$CC -O2 -g -pthread -Wall -Wextra -o locks "$D/locks.c" >build.log 2>&1 || {
	fail "build locks" "$(tail -5 build.log)"
	finish
	exit
}
N=4
./locks $N >untraced.out

# each probe's firings on the program's locks: "function probe lock arg1 arg2!=0 count"
PROG='plockstat$target::: { @[probefunc, probename, arg0, arg1, arg2 != 0] = count(); }
END { printa("%s %s %a %d %d %@d\n", @); }'
rows() { grep ' locks`' "$1" | sort; }

# what the program did (data/locks.c says why each is so)
want() {
	cat <<EOF | sort
pthread_mutex_lock mutex-acquire locks\`m_block 0 0 $((N + 1))
pthread_mutex_lock mutex-block locks\`m_block 0 0 $N
pthread_mutex_lock mutex-blocked locks\`m_block 1 0 $N
pthread_mutex_unlock mutex-release locks\`m_block 0 0 $((N + 1))
pthread_mutex_lock mutex-acquire locks\`m_free 0 0 $N
pthread_mutex_unlock mutex-release locks\`m_free 0 0 $N
pthread_mutex_lock mutex-acquire locks\`m_try 0 0 1
pthread_mutex_trylock mutex-acquire locks\`m_try 0 0 1
pthread_mutex_unlock mutex-release locks\`m_try 0 0 2
pthread_mutex_lock mutex-acquire locks\`m_check 0 0 1
pthread_mutex_lock mutex-error locks\`m_check 35 0 1
pthread_mutex_unlock mutex-release locks\`m_check 0 0 1
pthread_mutex_lock mutex-acquire locks\`m_rec 0 0 1
pthread_mutex_lock mutex-acquire locks\`m_rec 1 0 2
pthread_mutex_unlock mutex-release locks\`m_rec 1 0 2
pthread_mutex_unlock mutex-release locks\`m_rec 0 0 1
pthread_mutex_lock mutex-acquire locks\`m_timed 0 0 1
pthread_mutex_timedlock mutex-block locks\`m_timed 0 0 1
pthread_mutex_timedlock mutex-blocked locks\`m_timed 0 0 1
pthread_mutex_timedlock mutex-error locks\`m_timed 110 0 1
pthread_mutex_unlock mutex-release locks\`m_timed 0 0 1
pthread_mutex_lock mutex-acquire locks\`m_adapt 0 0 1
pthread_mutex_lock mutex-acquire locks\`m_adapt 0 1 1
pthread_mutex_lock mutex-spin locks\`m_adapt 0 0 1
pthread_mutex_lock mutex-spun locks\`m_adapt 0 1 1
pthread_mutex_lock mutex-block locks\`m_adapt 0 0 1
pthread_mutex_lock mutex-blocked locks\`m_adapt 1 0 1
pthread_mutex_unlock mutex-release locks\`m_adapt 0 0 2
pthread_rwlock_wrlock rw-acquire locks\`rw 1 0 2
pthread_rwlock_rdlock rw-acquire locks\`rw 0 0 $((N + 1))
pthread_rwlock_rdlock rw-block locks\`rw 0 0 $N
pthread_rwlock_rdlock rw-blocked locks\`rw 0 1 $N
pthread_rwlock_wrlock rw-block locks\`rw 1 0 1
pthread_rwlock_wrlock rw-blocked locks\`rw 1 1 1
pthread_rwlock_unlock rw-release locks\`rw 1 0 2
pthread_rwlock_unlock rw-release locks\`rw 0 0 $((N + 1))
EOF
}
want >want.txt

for mode in auto trap; do
	"$DTRACE" -q -x pidsites=$mode -n "$PROG" -o c.$mode -c "./locks $N" >c.$mode.prog \
		2>c.$mode.err
	rows c.$mode >got.$mode
	check "-c, $mode: every probe's count on every lock, with its arguments" \
		diff want.txt got.$mode
	check "-c, $mode: the program's output is the untraced one's" diff untraced.out c.$mode.prog
	expect_eq "-c, $mode: nothing said" "$(cat c.$mode.err)" ""
done

# the probes dtrace -l lists, and where one's sites are
"$DTRACE" -l -n 'plockstat$target:::' -c "./locks 1" >list.out 2>list.err
expect_eq "-l: the twelve probes of DTrace's plockstat provider, on glibc's functions" \
	"$(awk 'NR > 1 { print $NF }' list.out | sort -u | tr '\n' ' ')" \
	"mutex-acquire mutex-block mutex-blocked mutex-error mutex-release mutex-spin mutex-spun rw-acquire rw-block rw-blocked rw-error rw-release "
check "-l: pthread_mutex_lock's in libc.so.6" \
	grep -qE '^ *[0-9]+ plockstat[0-9]+ +libc\.so\.6 +pthread_mutex_lock mutex-block$' list.out
"$DTRACE" -l -v -n 'plockstat$target::pthread_mutex_timedlock:mutex-block' -c "./locks 1" \
	>listv.out 2>&1
check "-l -v: timedlock's waits are in the function it jumps on to" \
	grep -q '__pthread_mutex_clocklock_common+0x[0-9a-f]*): a wait (block)' listv.out
"$DTRACE" -l -n 'plockstat$target::pthread_mutex_unlock:mutex-block' -c "./locks 1" \
	>none.out 2>none.err
check "-l: unlock has no block probe" grep -q 'does not match any probes' none.err

# -- A running process --------------------------------------------------------------------------

./locks $N go end >p.prog 2>&1 &
lpid=$!
wait_for p.prog ready
libc=$(awk '$6 ~ /\/libc\.so\.6$/ { print $6; exit }' "/proc/$lpid/maps")
sum_before=$(text_sum $lpid "$libc")
"$DTRACE" -q -n "$PROG" -o p.out -p $lpid 2>p.err &
dpid=$!
# (the program starts once the sites are in its C library's text)
for _ in $(seq 400); do [ "$(text_sum $lpid "$libc")" != "$sum_before" ] && break; sleep 0.05; done
touch go
wait_for p.prog '^locks:'
kill -INT $dpid
wait $dpid
st=$?
sum_after=$(text_sum $lpid "$libc")
touch end
wait $lpid
rows p.out >got.p
check "-p: every probe's count on every lock" diff want.txt got.p
expect_eq "-p: dtrace exits 0, nothing said" "$st:$(cat p.err)" "0:"
expect_eq "-p: when it left, the C library's text is as it was" "$sum_after" "$sum_before"

# -- plockstat(1) -------------------------------------------------------------------------------

PLOCKSTAT=$BUILD/bin/plockstat
# table TITLE FILE: the rows "Count Lock Caller-function" of table TITLE (without offsets)
table() {
	awk -v t="$1" '$0 == t { on = 1; next } on && /^$/ && seen { on = 0 }
		on && /^ *[0-9]+ +[0-9]+ / { seen = 1; c = $4; sub(/\+0x[0-9a-f]+$/, "", c); print $1, $3, c }' "$2"
}
"$PLOCKSTAT" ./locks $N >pl.out 2>pl.err
st=$?
expect_eq "plockstat CMD: exit 0, nothing said, the command's output passed on" \
	"$st:$(cat pl.err):$(grep -c '^locks: ' pl.out)" "0::1"
expect_eq "plockstat: Mutex block: the contended mutexes, each block counted, their callers" \
	"$(table 'Mutex block' pl.out | grep ' locks`' | sort)" \
	"1 locks\`m_adapt locks\`adapt_one
$N locks\`m_block locks\`block_one"
expect_eq "plockstat: Mutex unsuccessful spin: the adaptive mutex's" \
	"$(table 'Mutex unsuccessful spin' pl.out | grep ' locks`')" "1 locks\`m_adapt locks\`adapt_one"
expect_eq "plockstat: R/W reader block and writer block" \
	"$(table 'R/W reader block' pl.out):$(table 'R/W writer block' pl.out)" \
	"$N locks\`rw locks\`reader:1 locks\`rw locks\`writer"
check "plockstat: the table's legend and bar, as illumos's" grep -qx \
	'Count     nsec Lock                         Caller' pl.out
# titles FILE: plockstat's table titles in FILE, in order
titles() { grep -E '^(Mutex|R/W) ' "$1" | tr '\n' ','; }
expect_eq "plockstat: the contention tables only, without -H" "$(titles pl.out)" \
	"Mutex block,Mutex unsuccessful spin,R/W reader block,R/W writer block,"
expect_eq "plockstat: an uncontended mutex and a timed-out block are in no table" \
	"$(awk '$3 ~ /^locks`/ { print $3 }' pl.out | sort -u | tr '\n' ' ')" \
	"locks\`m_adapt locks\`m_block locks\`rw "

"$PLOCKSTAT" -H ./locks $N >plh.out 2>plh.err
expect_eq "plockstat -H: Mutex hold: m_free held $N times, by main" \
	"$(table 'Mutex hold' plh.out | grep 'm_free')" "$N locks\`m_free locks\`main"
expect_eq "plockstat -H: R/W reader hold ($N readers) and writer hold (main, the writer)" \
	"$(table 'R/W reader hold' plh.out | awk '$3 == "locks`reader" { print $1 }'):$(table 'R/W writer hold' plh.out | awk '{ print $3 }' | sort | tr '\n' ' ')" \
	"$N:locks\`waiters locks\`writer "
expect_eq "plockstat -H: the hold tables only" "$(titles plh.out)" \
	"Mutex hold,R/W reader hold,R/W writer hold,"

"$PLOCKSTAT" -A -n 1 ./locks $N >pln.out 2>&1
expect_eq "plockstat -A -n 1: every table of both kinds, one row each" \
	"$(for t in 'Mutex hold' 'Mutex block' 'R/W reader block'; do table "$t" pln.out | wc -l; done | tr '\n' ' ')" "1 1 1 "

"$PLOCKSTAT" -s 4 ./locks $N >pls.out 2>&1
check "plockstat -s 4: each row's distribution, its stack beside it" \
	awk '/^Mutex block$/ { on = 1 } on && /---- Time Distribution --- count Stack/ { h = 1 }
		on && h && /locks`block_one\+0x/ { ok = 1 } END { exit !ok }' pls.out

"$PLOCKSTAT" -V -v ./locks 1 >plv.out 2>plv.err
check "plockstat -V: the D program, on stderr" \
	awk '/^plockstat: vvvv D program vvvv$/ { a = 1 } a && /plockstat\$target:::mutex-blocked/ { b = 1 }
		b && /^plockstat: \^\^\^\^ D program \^\^\^\^$/ { ok = 1 } END { exit !ok }' plv.err
check "plockstat -v: says it traces, and whom" grep -qE '^plockstat: tracing enabled for pid [0-9]+$' plv.out

# -p and -e: a running process, for a second
rm -f go end
./locks $N go end >pe.prog 2>&1 &
lpid=$!
wait_for pe.prog ready
"$PLOCKSTAT" -v -e 1 -p $lpid >pe.out 2>pe.err &
ppid=$!
for _ in $(seq 400); do grep -q 'tracing enabled' pe.out && break; sleep 0.05; done
touch go
wait_for pe.prog '^locks:'
wait $ppid
st=$?
touch end
wait $lpid
expect_eq "plockstat -e 1 -p PID: ends by itself, exit 0, says whom it traced" \
	"$st:$(cat pe.err):$(grep -c "tracing enabled for pid $lpid\$" pe.out)" "0::1"
expect_eq "plockstat -p: the blocks of the running process" \
	"$(table 'Mutex block' pe.out | grep m_block)" "$N locks\`m_block locks\`block_one"

# bad usage and a process that is not there
"$PLOCKSTAT" >u.out 2>u.err
expect_eq "plockstat alone: exit 2, its usage" "$?:$(head -1 u.err)" "2:Usage:"
"$PLOCKSTAT" -n x ./locks >u.out 2>u.err
expect_eq "plockstat -n x: exit 2, why" "$?:$(head -1 u.err)" "2:plockstat: invalid count 'x'"
"$PLOCKSTAT" -p 1x >u.out 2>u.err
expect_eq "plockstat -p 1x: exit 2, why" "$?:$(head -1 u.err)" "2:plockstat: invalid pid '1x'"
/bin/true &
gone=$!
wait $gone
"$PLOCKSTAT" -p $gone >u.out 2>u.err
expect_eq "plockstat -p of no process: exit 1, dtrace's reason as plockstat's, no table" \
	"$?:$(cat u.err):$(wc -c <u.out)" "1:plockstat: failed to grab pid $gone: No such process:0"

finish
