#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Dynamic variables under load, in a real multithreaded process: many threads
# inserting, reading and deleting elements of one associative array at once
# (lock-free insertion, deletion by marking), the consumer cleaning the
# deleted ones and reporting drops as DTrace does. What is checked holds
# however the threads interleave and however often the cleaner runs: no
# fire loses an element it stored unless a drop was reported for it, and
# none reads another's value.
. "$(dirname "$0")/../lib.sh"

cd "$WORK" || exit 1
build_rtprog

# Each fire stores its own key (thread, seq), reads it back in the next clause
# and deletes it. A read that finds another value would be a torn or shared
# element; a read of 0 is an insertion dropped (the space was full).
cat >churn.d <<'EOF'
#pragma D option quiet
rt$target:::tick { a[arg0, arg1] = arg1 + 100000 * arg0 + 1; }
rt$target:::tick { this->v = a[arg0, arg1]; a[arg0, arg1] = 0; }
rt$target:::tick /this->v == arg1 + 100000 * arg0 + 1/ { @ok = count(); }
rt$target:::tick /this->v == 0/ { @missed = count(); }
rt$target:::tick /this->v != 0 && this->v != arg1 + 100000 * arg0 + 1/ { @wrong = count(); }
END { printa("ok %@d\n", @ok); printa("missed %@d\n", @missed); printa("wrong %@d\n", @wrong); }
EOF
for size in 1m 16k; do
	"$DTRACE" -x dynvarsize=$size -s churn.d -c './rtprog ticks 20000 8' >out.txt 2>err.txt
	rc=$?
	expect_eq "dynvarsize=$size: 8 threads churning one array: dtrace exits 0" "$rc" 0
	okc=$(sed -n 's/^ok //p' out.txt)
	missed=$(sed -n 's/^missed //p' out.txt)
	drops=$(sed -n 's/^dtrace: \([0-9]*\) dynamic variable drops\{0,1\}.*/\1/p' err.txt |
		awk '{ n += $1 } END { print n + 0 }')
	expect_eq "dynvarsize=$size: every fire stored and read back its element or missed it" \
		"$(( ${okc:-0} + ${missed:-0} ))" 160000
	expect_eq "dynvarsize=$size: no fire read another's value" "$(grep -c '^wrong' out.txt)" 0
	expect_eq "dynvarsize=$size: every element missed was reported as a drop" \
		"${missed:-0}" "$drops"
	if grep -v '^ready\|^done\|dynamic variable drop' err.txt | grep -q .; then
		fail "dynvarsize=$size: nothing else on stderr" "$(head -5 err.txt)"
	else
		ok "dynvarsize=$size: nothing else on stderr"
	fi
done

# Deleted elements come back once the cleaner has run: 1000 fires a
# millisecond apart (a second at least), each storing a new key and deleting
# the previous one, in a space of about 370 elements. Without the cleaner the
# 371st key would be dropped; with it (at cleanrate, 101 Hz) none is. (The
# space leaves dtrace a third of a second between cleanings: a machine busy
# with other work may deschedule it for tens of milliseconds.)
cat >reuse.d <<'EOF'
#pragma D option quiet
rt$target:::tick { a[arg1] = 1; a[arg1 - 1] = 0; }
rt$target:::tick /a[arg1]/ { @stored = count(); }
END { printa("stored %@d\n", @stored); }
EOF
"$DTRACE" -x dynvarsize=16k -s reuse.d -c './rtprog clock 1000' >out.txt 2>err.txt
expect_eq "the cleaner gives deleted elements back: 1000 keys through a space of 370" \
	"$(sed -n 's/^stored //p' out.txt)" 1000
expect_eq "... and none was dropped" "$(grep -c 'dynamic variable drop' err.txt)" 0

finish
