#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# User stacks and addresses (docs/profile.md, "Stacks"): ustack() in a USDT
# probe and in profile samples, uaddr() usym() ufunc() umod(), a hot function
# found where it is, a library dlopen()ed after the attach named, a frame
# chain corrupted on purpose (the target runs on), the kernel-only functions
# refused, and the output flame graphs are made from: DTrace's, as
# FlameGraph's stackcollapse.pl reads it (checked by its rules, written
# again here in awk: stackcollapse.pl is not in Debian), and -x aggfmt=folded,
# checked against it.
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
RT=$BUILD/lib/libudtrace.so.1
cd "$WORK" || exit 1
build_rtprog
gcc -O2 -g -Wall -Wextra -o profprog "$D/profprog.c" -lpthread -ldl &&
	gcc -O2 -g -Wall -Wextra -shared -fPIC -o libprofhot.so "$D/proflib.c" || {
	fail "build the profiled program and its library"
	finish
	exit
}

# stackcollapse FILE: FlameGraph's stackcollapse.pl's rules: skip the first three lines
# (dtrace's heading, the ending probe's line, the empty line); a line of digits ends a
# stack with its count; empty lines are skipped; any other line is a frame, leading
# blanks and its last "+..." cut, C++ arguments cut, prepended (the outermost first);
# the stacks joined by ';', summed, sorted.
stackcollapse() {
	awk 'NR <= 3 { next }
	/^[ \t]*[0-9]+$/ { c[s] += $1; s = ""; next }
	/^[ \t]*$/ { next }
	{ f = $0; sub(/^[ \t]*/, "", f); sub(/\+[^+]*$/, "", f)
	  if (match(f, /..[(<]/)) f = substr(f, 1, RSTART + 1)
	  if (f == "") f = "-"
	  s = (s == "") ? f : f ";" s }
	END { for (k in c) print k, c[k] }' "$1" | LC_ALL=C sort
}
# stack_format FILE: what DTrace prints for @[ustack()] = count() after its three lines:
# for each entry an empty line, frames of 14 blanks and module`function+0xoff (or
# module`0xaddr, or 0xaddr), then the count as " %16lld". Prints the first line that
# breaks the rule.
stack_format() {
	awk 'NR <= 3 { next }
	state == 0 { if ($0 != "") { print NR ": " $0; exit } state = 1; next }
	state == 1 && /^              [^ ]+`[^ ]+$|^              0x[0-9a-f]+$/ { state = 2; next }
	state == 2 && /^              [^ ]+`[^ ]+$|^              0x[0-9a-f]+$/ { next }
	state == 2 && /^ +[0-9]+$/ && length($0) >= 17 { state = 0; n++; next }
	{ print NR ": " $0; exit }
	END { if (state != 0 || !n) print "ended in the middle of an entry, or had none" }' "$1"
}

# -- ustack() and the addresses in a USDT probe -------------------------------------------

"$DTRACE" -n 'rt*:::once { ustack(); }' -c './rtprog bad' >u.out 2>u.err
frames=$(grep '^              [^ ]' u.out | sed 's/^ *//; s/+0x[0-9a-f]*$//')
expect_eq "ustack() in a USDT probe: the probe's function first, _start last" \
	"$(echo "$frames" | head -1) $(echo "$frames" | tail -1)" "rtprog\`main rtprog\`_start"
expect_eq "ustack(): the record's line, then a newline and the frames (DTrace's layout)" \
	"$(sed -n '2p' u.out | sed 's/^ *[0-9]*/CPU/')" "CPU      7                        main:once "
"$DTRACE" -q -n 'rt*:::once { ustack(2); }' -c './rtprog bad' >u2.out 2>/dev/null
expect_eq "ustack(2): two frames" "$(grep -c '^              ' u2.out)" 2
"$DTRACE" -q -x ustackframes=3 -n 'rt*:::once { ustack(); }' -c './rtprog bad' >u3.out 2>/dev/null
expect_eq "-x ustackframes=3: three frames" "$(grep -c '^              ' u3.out)" 3

# profile samples of a program whose CPU goes to burn(): uaddr usym ufunc umod of arg1
"$DTRACE" -q -n 'profile-499 { uaddr(arg1); usym(arg1); ufunc(arg1); umod(arg1); printf("\n"); }' \
	-n 'tick-500ms { exit(0); }' -c './profprog spin 3' >a.out 2>/dev/null
line=$(grep -m1 'profprog`burn+' a.out)
expect_eq "uaddr, usym, ufunc, umod of arg1: DTrace's names, each as \"  %-50s\"" \
	"$(echo "$line" | awk '{ L = length($0); sub(/\+0x[0-9a-f]+$/, "+0xOFF", $1); print L, $1, $2, $3, $4 }')" \
	"208 profprog\`burn+0xOFF profprog\`burn profprog\`burn profprog"

# printf()'s %a and %A: the address named as uaddr() names it (with width and '-'), and
# printa()'s %a of an address key
"$DTRACE" -q -n 'profile-499 { printf("%a|%A|%-40a|", arg1, arg1, arg1); uaddr(arg1); printf("\n"); }' \
	-n 'tick-500ms { exit(0); }' -c './profprog spin 3' >pa.out 2>/dev/null
expect_eq "printf %a, %A, %-40a: the name uaddr() prints, padded as asked" \
	"$(grep -m1 '^profprog`burn+' pa.out | awk -F'|' '{ p = $3; sub(/ +$/, "", p); u = $4; gsub(/^ +| +$/, "", u);
		print ($1 == $2 && $1 == p && $1 == u && length($3) == 40) ? "same" : $0 }')" "same"
"$DTRACE" -q -n 'profile-499 { @[arg1] = count(); } tick-500ms { printa("%a %@d\n", @); exit(0); }' \
	-c './profprog spin 3' >pb.out 2>/dev/null
expect_eq "printa %a of an address key: module\`function+0xoff and its count" \
	"$(grep -c '^profprog`burn+0x[0-9a-f]* [0-9][0-9]*$' pb.out | sed 's/^[1-9][0-9]*$/some/')" "some"

# -- The hot function, and the flame graph's input -----------------------------------------

# 2000 samples, however long a busy machine takes to give the program that much CPU
# (the shares' spread is then 1% of the total)
cat >hot.d <<'EOF'
profile-997
/pid == $target/
{
	@[ustack()] = count();
	n++;
}

profile-997
/n == 2000/
{
	exit(0);
}
EOF
"$DTRACE" -s hot.d -c './profprog hot 60' >hot.out 2>hot.err
expect_eq "@[ustack()]: DTrace's output, as stackcollapse.pl reads it" "$(stack_format hot.out)" ""
stackcollapse hot.out >hot.folded
total=$(awk '{ n += $NF } END { print n + 0 }' hot.folded)
inhot=$(awk '/profprog`work;profprog`hot;/ { n += $NF } END { print n + 0 }' hot.folded)
incold=$(awk '/profprog`work;profprog`cold;/ { n += $NF } END { print n + 0 }' hot.folded)
# (7 units of work against 3: a sample lands where the CPU is, and a shared machine's CPU
# runs some units slower than others; the spread of 2000 samples alone is about 1%)
within "a hot function (70% of the CPU): $inhot of $total samples in its stacks" \
	"$(awk -v a="$inhot" -v t="$total" 'BEGIN { print t ? 100 * a / t : 0 }')" 60 80
within "and the rest in the other's: $incold" \
	"$(awk -v a="$inhot" -v b="$incold" -v t="$total" 'BEGIN { print t ? 100 * (a + b) / t : 0 }')" \
	97 100
expect_eq "every stack of work() goes down to main and _start" \
	"$(grep 'profprog`work;' hot.folded | grep -vc '^profprog`_start;.*profprog`main;profprog`work;')" 0

# The same stacks, twice (USDT probes: the same counts): stackcollapse.pl of DTrace's
# output is the folded output (-x aggfmt=folded) line for line
"$DTRACE" -n 'rt*:::tick { @[ustack()] = count(); } END { }' -c './rtprog ticks 500 2' \
	>t.out 2>/dev/null
"$DTRACE" -x aggfmt=folded -n 'rt*:::tick { @[ustack()] = count(); }' \
	-c './rtprog ticks 500 2' >t.folded 2>/dev/null
sed -i '/^CPU /d' t.folded
# (no ending probe: the heading and the end's empty line, then the entries)
{ echo; cat t.out; } | sed -n '1,$p' >t.dt
# (the libraries' unnamed functions are addresses, which ASLR moves from run to run)
expect_eq "-x aggfmt=folded is stackcollapse.pl's reading of DTrace's output" \
	"$(stackcollapse t.dt | sed 's/0x[0-9a-f]*/0xADDR/g')" "$(sed 's/0x[0-9a-f]*/0xADDR/g' t.folded)"
expect_eq "-x aggfmt=folded: 1000 fires, in two lines (the threads' one stack; a lone empty line none)" \
	"$(awk '{ n += $NF } END { print NR, n }' t.folded) $(grep -c '^$' t.folded)" "1 1000 0"
out=$("$DTRACE" -q -x aggfmt=folded -n 'rt*:::tick { @n = count(); }' -c './rtprog ticks 10 1' 2>/dev/null)
expect_eq "-x aggfmt=folded: an aggregation without a stack prints as DTrace's" \
	"$(echo "$out" | awk 'NF')" "$(printf '%17s' 10)"

# -- A library loaded after the attach ------------------------------------------------------

rm -f ctl
mkfifo ctl
LD_PRELOAD=$RT ./profprog dlopen 3 "$WORK/libprofhot.so" <ctl >/dev/null 2>dl.err &
ppid=$!
exec 4>ctl
wait_for dl.err ready
"$DTRACE" -x aggfmt=folded -n 'profile-997 { @[ustack()] = count(); } tick-2sec { exit(0); }' \
	-p "$ppid" >dl.out 2>dl.dt &
dpid=$!
sleep 0.5
echo go >&4
exec 4>&-
wait "$dpid"
wait "$ppid"
if grep -q 'could not run code' dl.dt; then
	skip "a library dlopen()ed after the attach" "$(cat dl.dt)"
else
	n=$(awk '/profprog`main;libprofhot.so`lib_spin;libprofhot.so`lib_burn [0-9]+$/ { n += $NF }
		END { print n + 0 }' dl.out)
	within "a library dlopen()ed after the attach: main;lib_spin;lib_burn named ($n samples)" \
		"$n" 100 100000
fi

# -- A corrupt frame chain ------------------------------------------------------------------

"$DTRACE" -x aggfmt=folded -n 'profile-997 { @[ustack()] = count(); }' -c './profprog corrupt 3' \
	>c.out 2>c.err
rc=$?
expect_eq "a corrupt frame chain: the target runs on and exits 0" "$rc:$(grep -c '^survived$' c.out)" \
	"0:1"
n=$(awk '/profprog`victim;profprog`burn [0-9]+$/ { n += $NF } END { print n + 0 }' c.out)
within "a corrupt frame chain: its samples recorded ($n)" "$n" 100 100000
n=$(awk '/^profprog`corrupt;profprog`victim;profprog`burn [0-9]+$/ { n += $NF } END { print n + 0 }' c.out)
within "a corrupt frame chain: walks that end at the bad frame pointer ($n)" "$n" 50 100000

# -- Refused --------------------------------------------------------------------------------

out=$("$DTRACE" -n 'rt*:::once { stack(); }' -c './rtprog bad' 2>&1 | grep -v '^ready')
expect_eq "stack() is refused: a kernel facility" "$out" \
	"dtrace: -n:1:19: error: stack( ) records a kernel stack: use ustack( ), and udtrace traces processes only"
out=$("$DTRACE" -n 'rt*:::once { @[sym(arg0)] = count(); }' -c './rtprog bad' 2>&1 | grep -v '^ready')
expect_eq "sym() is refused" "$out" \
	"dtrace: -n:1:19: error: sym( ) names a kernel symbol: use usym( ), and udtrace traces processes only"
out=$("$DTRACE" -n 'tick-1s { ustack(); }' 2>&1)
expect_eq "ustack() in a tick clause is refused: it runs in dtrace" "$out" \
	"dtrace: -n:1:17: error: ustack( ) has no stack to record in tick-1s: the clause runs in dtrace"
out=$("$DTRACE" -n 'rt*:::once { ustack(0); }' -c './rtprog bad' 2>&1 | grep -v '^ready')
expect_eq "ustack(0) is refused" "$out" \
	"dtrace: -n:1:20: error: ustack( ) argument #1 must be between 1 and 1024 frames"
out=$("$DTRACE" -n 'rt*:::once { usym("x"); }' -c './rtprog bad' 2>&1 | grep -v '^ready')
expect_eq "usym() of a string is refused" "$out" \
	"$(printf 'dtrace: -n:1:19: error: usym( ) argument #1 is incompatible with prototype:\n\tprototype: uintptr_t\n\t argument: string')"
finish
