#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The plockstat provider (docs/plockstat.md) on a program that takes locks in
# known ways (data/locks.c: a mutex N threads block on, one never contended,
# a trylock that fails and one that succeeds, EDEADLK, a recursive mutex,
# a timedlock that times out, an adaptive mutex spun on, a rwlock N readers
# wait on and a writer waits on): each probe's count on each lock, with its
# arguments, against what the program did; jumped and trapped; -p on a
# running process, and its C library's text as it was after.
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

finish
