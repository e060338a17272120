#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Speculations in real processes: DTrace's reports of failed speculations
# and speculative drops, and threads speculating into a speculation while
# another thread commits it (every record printed once, whole, or not at
# all). The single-threaded semantics are in tests/d/tst.spec.*.
. "$(dirname "$0")/../lib.sh"

cd "$WORK" || exit 1
build_rtprog

# DTrace's reports, on stderr: speculation() with no buffer free, and
# records that do not fit in a speculative buffer
"$DTRACE" -q -n 'rt$target:::tick { s = speculation(); }' -c './rtprog ticks 5 1' \
	>out.txt 2>err.txt
# (dtrace reports what it finds at each look: the 4 can come in several lines)
expect_eq "4 failed speculations (no speculative buffer available)" \
	"$(awk '/^dtrace: [0-9]+ failed speculations? \(no speculative buffer available\)$/ {
		n += $2; good++ } /^dtrace: [0-9]+ failed/ { all++ } END { print n, (good == all) }' \
		err.txt)" "4 1"
"$DTRACE" -q -x specsize=64 -n 'rt$target:::tick /arg1 == 0/ { s = speculation(); }
	rt$target:::tick { speculate(s); trace(arg1); }
	rt$target:::once { commit(s); }' -c './rtprog handoff 5' >out.txt 2>err.txt
expect_eq "speculative drops: the records that fit are committed" "$(cat out.txt)" "01"
expect_eq "3 speculative drops" \
	"$(awk '/^dtrace: [0-9]+ speculative drops?$/ { n += $2 } END { print n }' err.txt)" 3

# Four threads speculate into one speculation; thread 0 commits it every 50
# of its ticks and takes another. A commit finds the other threads writing
# now and then: it is finished later (the speculation is busy meanwhile),
# and nothing is lost or torn. Each line is "thread seq thread*1000000+seq";
# the buffers are large enough never to drop.
N=20000
"$DTRACE" -q -x nspec=4 -x specsize=4m -n '
	rt$target:::tick /arg0 == 0 && arg1 == 0/ { spec = speculation(); }
	rt$target:::tick /spec/ { speculate(spec); printf("%d %d %d\n", arg0, arg1, arg0 * 1000000 + arg1); }
	rt$target:::tick /arg0 == 0 && arg1 % 50 == 49/ { commit(spec); }
	rt$target:::tick /arg0 == 0 && arg1 % 50 == 49 && arg1 < '$((N - 1))'/ { spec = speculation(); }
	END { commit(spec); }' -c "./rtprog ticks $N 4" >out.txt 2>err.txt
rc=$?
drop_final_empty out.txt
expect_eq "threads: dtrace exits 0" "$rc" 0
expect_eq "threads: every line whole" \
	"$(awk 'NF != 3 || $3 != $1 * 1000000 + $2 || $1 > 3 || $2 >= '$N' { bad++ } END { print bad + 0 }' out.txt)" 0
expect_eq "threads: no line twice" "$(sort out.txt | uniq -d | wc -l)" 0
# thread 0's ticks go by windows of 50, each into one speculation: a window is
# there whole, or (its speculation() failed: all four busy) not at all
whole=$(awk '$1 == 0 { n[int($2 / 50)]++ } END { for (w in n) if (n[w] != 50) bad++; print bad + 0 }' out.txt)
expect_eq "threads: thread 0's windows whole" "$whole" 0
missing=$((N / 50 - $(awk '$1 == 0 { n[int($2 / 50)]++ } END { print length(n) }' out.txt)))
failed=$(sed -n 's/^dtrace: \([0-9]*\) failed speculations\{0,1\}.*/\1/p' err.txt | awk '{ s += $1 } END { print s + 0 }')
expect_eq "threads: a window missing for each failed speculation ($failed)" "$missing" "$failed"
# (how many of the other threads' records are committed depends on how the
# threads overlapped: thread 0 may be done before the others start)
echo "    $(wc -l <out.txt) lines, $(grep -vc '^0 ' out.txt) of the other threads"
expect_eq "threads: no drop, no error" "$(grep -v '^ready\|^done\|failed speculation' err.txt)" ""
finish
