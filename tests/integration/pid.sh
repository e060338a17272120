#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The pid provider (docs/pid.md) on a program of functions with the
# properties it must handle (data/pidfn.c: a tiny leaf, a tail call, several
# returns, a jump table, a ret alone, recursion, ten arguments, threads,
# signals, a fork), jumped and trapped: every count against what the
# program says it did, its output the same as untraced, DTrace's -F output,
# its names and errors, -p on a running process and two consumers on one
# function, the text as it was after.
. "$(dirname "$0")/../lib.sh"

cd "$WORK" || exit 1
chmod 755 "$WORK"
D=$TOP/tests/integration/data
$CC -O2 -g -pthread -Wall -Wextra -o pidfn "$D/pidfn.c" >build.log 2>&1 || {
	fail "build pidfn" "$(tail -5 build.log)"
	finish
	exit
}
PIDFN=$WORK/pidfn
N=300

./pidfn run $N >untraced.out

# counts FILE: the aggregation's rows "KEY VALUE" as "KEY=VALUE", sorted, on one line
counts() { awk 'NF == 2 && $2 ~ /^[0-9]+$/ { print $1 "=" $2 }' "$1" | sort | tr '\n' ' '; }

ENTRY='pid$target:a.out:leaf:entry,pid$target:a.out:tail:entry,pid$target:a.out:after:entry,
pid$target:a.out:multi:entry,
pid$target:a.out:table:entry,pid$target:a.out:shortest:entry,pid$target:a.out:args10:entry,
pid$target:a.out:rec:entry'
RET='pid$target:a.out:leaf:return,pid$target:a.out:tail:return,pid$target:a.out:after:return,
pid$target:a.out:multi:return,
pid$target:a.out:table:return,pid$target:a.out:shortest:return,pid$target:a.out:rec:return'
PROG="$ENTRY { @e[probefunc] = count(); }
$RET { @r[strjoin(probefunc, \"-ret\")] = count(); }
pid\$target:a.out:multi:return { @m[strjoin(\"multi-\", lltostr(arg1))] = count(); }
pid\$target:a.out:args10:entry /arg0 == 0 && arg1 == 1 && arg2 == 2 && arg3 == 3 && arg4 == 4 &&
    arg5 == 5 && arg6 == 6 && arg7 == 7 && arg8 == 8 && arg9 == 9/ { @a[\"args-0-to-9\"] = count(); }"
# what the program did (leaf: its own calls, tail's, after's, the threads', the signals', the
# child's)
WANT="after-ret=$N after=$N args-0-to-9=$N args10=$N leaf-ret=$((7 * N + 15)) \
leaf=$((7 * N + 15)) multi-1=$((N / 3)) \
multi-2=$((N / 3)) multi-3=$((N / 3)) multi-ret=$N multi=$N rec-ret=11 rec=11 shortest-ret=$N \
shortest=$N table=$N tail-ret=$N tail=$N "
for mode in auto trap; do
	"$DTRACE" -q -x pidsites=$mode -n "$PROG" -o c.$mode -c "./pidfn run $N" >c.$mode.prog \
		2>c.$mode.err
	expect_eq "-c, $mode: every entry and return, ten arguments, return values" \
		"$(counts c.$mode)" "$WANT"
	check "-c, $mode: the program's output is the untraced one's" diff untraced.out c.$mode.prog
	expect_eq "-c, $mode: nothing said" "$(cat c.$mode.err)" ""
done

# -- How DTrace shows them -----------------------------------------------------------------------

# -F: rec's calls as DTrace's flowindent shows them (one thread: the recursion)
"$DTRACE" -F -q -n 'pid$target:a.out:rec:entry,pid$target:a.out:rec:return { printf("\n"); }' \
	-o flow.out -c "./pidfn run 1" >/dev/null 2>flow.err
{
	printf '%3s %-41s\n' CPU FUNCTION
	for i in $(seq 0 10); do printf '%3s %-41s \n' X "$(printf '%*s -> rec' $((2 * i)) '')"; done
	for i in $(seq 10 -1 0); do printf '%3s %-41s \n' X "$(printf '%*s <- rec' $((2 * i)) '')"; done
} >flow.want
sed -E 's/^ *[0-9]+ /  X /' flow.out | grep . >flow.got
expect_file "-F: the recursion's entries and returns, two spaces a level, as DTrace prints them" \
	flow.got flow.want

# names: the probes of a function, as dtrace -l lists them
"$DTRACE" -l -n 'pid$target:a.out:leaf:' -c "./pidfn run 1" >l.out 2>&1
expect_eq "-l: leaf's entry, return and an offset probe at each instruction" \
	"$(awk 'NR > 1 { print $5 }' l.out | sort | tr '\n' ' ')" \
	"$( (echo entry; echo return; size=$((0x$(nm -S pidfn | awk '$4 == "leaf" { print $2 }')))
	    objdump -d --no-show-raw-insn pidfn |
	    awk '/<leaf>:/ { f = 1; next } f && /^$/ { exit } f { sub(":", "", $1); print $1 }' |
	    { read -r base; echo 0; while read -r a; do
		    [ $((0x$a - 0x$base)) -lt "$size" ] && printf '%x\n' $((0x$a - 0x$base)); done; }) |
	    sort | tr '\n' ' ')"
for m in libc libc.so libc.so.6; do
	"$DTRACE" -l -n "pid\$target:$m:malloc:entry" -c "./pidfn run 1" >lm.out 2>&1
	expect_eq "-l: the module $m is libc.so.6" "$(awk 'NR > 1 { print $3, $4, $5 }' lm.out)" \
		"libc.so.6 malloc entry"
done
"$DTRACE" -l -v -n 'pid$target:a.out:table:return' -c "./pidfn run 1" >lv.out 2>&1
check "-l -v: no return probe site where an indirect jmp may take a jump table (illumos's rule)" \
	grep -q 'none: it has an indirect jmp' lv.out
"$DTRACE" -l -v -n 'pid$target:a.out:leaf:entry' -c "./pidfn run 1" >le.out 2>&1
check "-l -v: how a site is enabled" grep -q 'enabled by a jump to a trampoline' le.out

# stacks and registers at an entry: the function, its caller
"$DTRACE" -q -n 'pid$target:a.out:args10:entry { @s[usym(uregs[R_PC]), ufunc(ucaller)] = count(); }
	pid$target:a.out:args10:entry { @u[ustack(2)] = count(); }' -c "./pidfn run 5" >st.out 2>&1
check "uregs[R_PC] at an entry is the function, ucaller its caller" \
	grep -Eq 'pidfn`args10 +pidfn`(run|main) +5' st.out
check "ustack() at an entry: the function, then its caller" \
	grep -Pzq 'pidfn`args10\n *pidfn`(run|main)\+0x[0-9a-f]+\n *5' st.out
# (after's first instruction, and its ret)
read -r a0 aret < <(objdump -d --no-show-raw-insn pidfn | awk '/<after>:/ { f = 1; next }
	f && !a { sub(":", "", $1); a = $1 } f && $2 == "ret" { sub(":", "", $1); print a, $1; exit }')
for mode in auto trap; do
	"$DTRACE" -q -x pidsites=$mode -n 'pid$target:a.out:args10:entry,pid$target:a.out:after:return
		{ printf("%a\n", uregs[R_PC]); }' -c "./pidfn run 1" >pc.$mode 2>&1
	expect_eq "$mode: uregs[R_PC] is the probe's instruction" \
		"$(grep '`' pc.$mode | sort | tr '\n' ' ')" \
		"$(printf 'pidfn`after+0x%x pidfn`args10 ' $((0x$aret - 0x$a0)))"
done

# DTrace's errors (-x errtags: their tags)
err() { "$DTRACE" -x errtags -n "$1" -c "./pidfn run 1" 2>&1 >/dev/null | tail -n 1; }
off=$(objdump -d --no-show-raw-insn pidfn | awk '/<leaf>:/ { getline; print $2; exit }')
expect_eq "no such function: D_PROC_FUNC" "$(err 'pid$target:a.out:nosuchfn:entry')" \
	"dtrace: [D_PROC_FUNC] invalid probe specifier pid\$target:a.out:nosuchfn:entry: failed to lookup 'nosuchfn' in module 'a.out'"
expect_eq "an offset past the function: D_PROC_OFF" "$(err 'pid$target:a.out:leaf:1000')" \
	"dtrace: [D_PROC_OFF] invalid probe specifier pid\$target:a.out:leaf:1000: offset 0x1000 outside of function 'leaf'"
expect_eq "an offset inside an instruction: D_PROC_ALIGN" "$(err 'pid$target:a.out:leaf:1')" \
	"dtrace: [D_PROC_ALIGN] invalid probe specifier pid\$target:a.out:leaf:1: offset 0x1 is not aligned on an instruction"
expect_eq "a name that is none of them: D_PROC_NAME" "$(err 'pid$target:a.out:leaf:beginning')" \
	"dtrace: [D_PROC_NAME] invalid probe specifier pid\$target:a.out:leaf:beginning: 'beginning' is an invalid probe name"
expect_eq "pid0: D_PROC_BADPID" "$(err 'pid0:::entry')" \
	"dtrace: [D_PROC_BADPID] invalid probe specifier pid0:::entry: 'pid0' does not contain a valid pid"
expect_eq "no such library: D_PDESC_ZERO" "$(err 'pid$target:nosuchlib::entry')" \
	"dtrace: [D_PDESC_ZERO] invalid probe specifier pid\$target:nosuchlib::entry: probe description pid\$target:nosuchlib::entry does not match any probes"
[ "$off" ] || fail "leaf's first instruction found by objdump"

# a stripped program's static functions, from its separate debug file (by its build ID)
printf 'static __attribute__((noinline)) int hidden_fn(int x) { return x * 7; }\n
int main(int c, char **v) { (void)v; return hidden_fn(c) == 7 ? 0 : 1; }\n' >dbg.c
id=""
if $CC -O2 -g -Wl,--build-id -o dbg dbg.c && id=$(readelf -n dbg | awk '/Build ID/ { print $3 }') &&
	[ -n "$id" ] && mkdir -p "/usr/lib/debug/.build-id/${id:0:2}" 2>/dev/null &&
	objcopy --only-keep-debug dbg "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" 2>/dev/null; then
	strip dbg
	expect_eq "strip took the program's .symtab" "$(readelf -S dbg | grep -c '\.symtab')" 0
	"$DTRACE" -l -n 'pid$target:a.out:hidden_fn:entry' -c ./dbg >dbg.out 2>&1
	expect_eq "a stripped program's static function, from its debug file" \
		"$(awk 'NR > 1 { print $4, $5 }' dbg.out)" "hidden_fn entry"
	rm -f "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
	rmdir "/usr/lib/debug/.build-id/${id:0:2}" 2>/dev/null
	"$DTRACE" -l -n 'pid$target:a.out:hidden_fn:entry' -c ./dbg >dbg2.out 2>&1
	check "and without the debug file, no such function" grep -q "failed to lookup 'hidden_fn'" dbg2.out
else
	skip "a stripped program's static function, from its debug file" \
		"/usr/lib/debug/.build-id is not writable here (not root)"
fi

# and from its MiniDebugInfo (.gnu_debugdata: an xz-compressed .symtab of its functions, as
# Fedora ships its libraries; gdb's recipe), with no debug file
if have xz && have objcopy; then
	$CC -O2 -g -Wl,--build-id=none -o mdi dbg.c &&
		nm mdi --format=posix --defined-only | awk '$2 ~ /^[Tt]$/ { print $1 }' | sort >mdi.funcs &&
		nm -D mdi --format=posix --defined-only | awk '{ print $1 }' | sort >mdi.dyn &&
		comm -13 mdi.dyn mdi.funcs >mdi.keep &&
		objcopy --only-keep-debug mdi mdi.debug &&
		objcopy -S --remove-section .gdb_index --remove-section .comment \
			--keep-symbols=mdi.keep mdi.debug mdi.mini &&
		strip --strip-all -R .comment mdi && xz -f mdi.mini &&
		objcopy --add-section .gnu_debugdata=mdi.mini.xz mdi 2>mdi.err
	expect_eq "MiniDebugInfo: the program has .gnu_debugdata and no .symtab" \
		"$(readelf -S mdi | grep -c '\.gnu_debugdata'):$(readelf -S mdi | grep -c '\.symtab')" "1:0"
	"$DTRACE" -l -v -n 'pid$target:a.out:hidden_fn:entry' -c ./mdi >mdi.out 2>&1
	expect_eq "a stripped program's static function, from its MiniDebugInfo" \
		"$(awk '$1 ~ /^[0-9]+$/ { print $4, $5 }' mdi.out)" "hidden_fn entry"
	check "dtrace -l -v says the symbols came from .gnu_debugdata" \
		grep -q "mdi: .dynsym and .gnu_debugdata's .symtab (MiniDebugInfo)" mdi.out
	# a corrupt one: no names from it, no crash
	printf 'garbage, not xz' >bad.xz
	cp mdi mdi_bad && objcopy --update-section .gnu_debugdata=bad.xz mdi_bad 2>/dev/null
	"$DTRACE" -l -n 'pid$target:a.out:hidden_fn:entry' -c ./mdi_bad >mdib.out 2>&1
	check "a corrupt .gnu_debugdata names nothing (and dtrace says so)" \
		grep -q "failed to lookup 'hidden_fn'" mdib.out
else
	skip "a stripped program's static function, from its MiniDebugInfo" "no xz or objcopy"
fi

# -- A running process -----------------------------------------------------------------------------

leaf_bytes() { # PID: leaf's first 16 bytes in the process
	local a
	a=$(($(load_base "$1" "$PIDFN") + 0x$(nm pidfn | awk '$3 == "leaf" { print $1 }')))
	dd if="/proc/$1/mem" bs=1 skip="$a" count=16 2>/dev/null | od -An -tx1 | tr -d ' \n'
}
./pidfn spin go >spin.out 2>&1 &
spid=$!
wait_for spin.out ready
before=$(leaf_bytes $spid)
sum_before=$(text_sum $spid "$PIDFN")
"$DTRACE" -q -n 'pid$target:a.out:leaf:entry { @n = count(); } tick-1s { exit(0); }' -p $spid \
	>p1.out 2>p1.err &
d1=$!
# (the second once the first has the runtime in the process: the first injection is one's)
for _ in $(seq 200); do grep -q libudtrace "/proc/$spid/maps" && break; sleep 0.05; done
"$DTRACE" -q -x pidsites=trap -n 'pid$target:a.out:leaf:entry,pid$target:a.out:leaf:return
	{ @n[probename] = count(); } tick-2s { exit(0); }' -p $spid >p2.out 2>p2.err &
d2=$!
wait $d1
s1=$?
during=$(leaf_bytes $spid)
wait $d2
s2=$?
after=$(leaf_bytes $spid)
sum_after=$(text_sum $spid "$PIDFN")
touch go
wait $spid
expect_eq "-p: two consumers on one function, both exit 0, nothing said" "$s1:$s2:$(cat p1.err p2.err)" "0:0:"
check "-p: the first consumer counted calls" awk 'NF == 1 && $1 > 100 { ok = 1 } END { exit !ok }' p1.out
# (its entry and return probes start a moment apart: the first jump serves its entry at once,
# its return once that jump's trampoline fires it too)
expect_eq "-p: the second (traps) about as many returns as entries" \
	"$(awk '$1 == "entry" { e = $2 } $1 == "return" { r = $2 } END { print (e > 100 && r >= 0.9 * e && r <= e) }' p2.out)" 1
check "-p: while the second ran, leaf's bytes were not the program's" test "$during" != "$before"
expect_eq "-p: when the last consumer left, leaf's bytes are the program's again" "$after" "$before"
expect_eq "-p: and the whole text of the program" "$sum_after" "$sum_before"
check "-p: the program ran on" grep -q '^spun [0-9]' spin.out

# every function of the C library at once, in a running process: enabled (their patches a
# batch, whose phases the runtime writes without calling the C library), counted, removed
rm -f go
./pidfn spin go >spin3.out 2>&1 &
spid=$!
wait_for spin3.out ready
libc=$(awk '$6 ~ /\/libc\.so\.6$/ { print $6; exit }' "/proc/$spid/maps")
lsum_before=$(text_sum $spid "$libc")
"$DTRACE" -q -n 'pid$target:libc.so.6::entry { @n = count(); @f[probefunc] = count(); }
	tick-1s { printa("%@d\n", @n); exit(0); }' -p $spid \
	>all.out 2>all.err
s1=$?
lsum_after=$(text_sum $spid "$libc")
touch go
wait $spid
s2=$?
nfn=$("$DTRACE" -l -n 'pid$target:libc.so.6::entry' -c "./pidfn run 1" 2>/dev/null | awk 'NR > 1' | wc -l)
expect_eq "-p, every libc function's entry ($nfn): exit 0, nothing left out or said" \
	"$s1 $(wc -c <all.err)" "0 0"
check "-p, every libc function's entry: calls counted" \
	awk 'NR == 1 && $1 > 0 { ok = 1 } END { exit !ok }' all.out
expect_eq "-p, every libc function's entry: libc's text as it was after, the program ran on" \
	"$lsum_after $s2" "$lsum_before 0"

# children that share the memory until they exec (vfork, posix_spawn): their probes are their
# parent's, as illumos's fasttrap takes them, and they never take the parent's patches away
# (posix_spawn()'s child calls execve() with every signal blocked: a trap there would kill it,
# docs/pid.md; its entry is a jump)
for mode in auto trap; do
	rm -f spawn.trace
	execve='pid$target:libc.so.6:execve:entry { @["execve"] = count(); }'
	[ $mode = trap ] && execve=
	"$DTRACE" -q -x pidsites=$mode -n 'pid$target:a.out:leaf:entry { @["leaf"] = count(); }'"
		$execve" -o spawn.trace -c "./pidfn spawn 100" >spawn.out 2>&1
	expect_eq "vfork and posix_spawn children ($mode): every call of the parent and the vforked child" \
		"$(cat spawn.out) $(counts spawn.trace | grep -o 'leaf=[0-9]*')" "spawned 200 of 200 leaf=200"
	[ $mode = trap ] || check "vfork and posix_spawn children: their execve() seen" \
		awk '$1 == "execve" && $2 >= 100 { ok = 1 } END { exit !ok }' spawn.trace
done

# the flags where they are live, across an instruction jumped and trapped: as they were
fo=$(printf %x $((0x$(nm pidfn | awk '$3 == "flag_site" { print $1 }') - \
	0x$(nm pidfn | awk '$3 == "flagfn" { print $1 }'))))
for mode in auto trap; do
	rm -f flags.trace # (-o appends, as DTrace's)
	"$DTRACE" -q -x pidsites=$mode -n "pid\$target:a.out:flagfn:$fo { @[\"at\"] = count(); }" \
		-o flags.trace -c "./pidfn flags 20000" >flags.out 2>&1
	expect_eq "flags across a probed instruction ($mode): as they were (DF too), every call" \
		"$(grep changed flags.out) $(counts flags.trace)" "flags changed 0 at=20000 "
done

# a library loaded while the session runs (dlopen): its functions matched by the descriptions
# as at the start (-Z: a module not loaded yet), the probes enabled once it is loaded
$CC -O2 -g -shared -fPIC -o libpidlib.so "$D/pidlib.c" 2>>build.log
M=2000
"$DTRACE" -Z -q -n 'pid$target:libpidlib.so:plug_work:entry { @["entry"] = count(); }
	pid$target:libpidlib.so:plug_work:return { @[strjoin("ret-mod3-", lltostr(arg1 % 3))] =
	    count(); }
	pid$target:*pidlib*:plug_*:entry { @[probefunc] = count(); }' \
	-o dl.trace -c "./pidfn dl ./libpidlib.so $M" >dl.out 2>dl.err
expect_eq "-c, dlopen: the library's probes enabled after its load, every call counted" \
	"$(grep -c '^enabled$' dl.out) $(counts dl.trace)" \
	"1 entry=$M plug_other=$M plug_work=$M ret-mod3-1=$M "
expect_eq "-c, dlopen: the program's output as untraced" \
	"$(grep -E '^(plug|sum) ' dl.out | tr '\n' ' ')" \
	"$(./pidfn dl ./libpidlib.so $M | grep -E '^(plug|sum) ' | tr '\n' ' ')"
check "-c, dlopen: nothing said but the exit" \
	test -z "$(grep -v 'has exited' dl.err)"

# the same in a running process (-p), whose library's text is the file's again after
lib_text_vs_file() { # PID FILE: "same" when FILE's executable mappings hold the file's bytes
	local lo hi off
	awk -v f="$2" '$6 == f && $2 ~ /x/ { print $1, $3 }' "/proc/$1/maps" |
	while IFS='- ' read -r lo hi off; do
		cmp -s <(dd if="/proc/$1/mem" bs=4096 skip=$((0x$lo / 4096)) \
			count=$(((0x$hi - 0x$lo) / 4096)) 2>/dev/null) \
			<(dd if="$2" bs=4096 skip=$((0x$off / 4096)) count=$(((0x$hi - 0x$lo) / 4096)) \
			2>/dev/null) && echo same || echo differs
	done | sort -u | tr '\n' ' '
}
rm -f dlgo
./pidfn dl "$WORK/libpidlib.so" $M dlgo >dlp.out 2>&1 &
spid=$!
wait_for dlp.out ready
before=$(leaf_bytes $spid)
"$DTRACE" -Z -q -n 'pid$target:a.out:leaf:entry { @["leaf"] = count(); }
	pid$target:libpidlib.so::entry { @[probefunc] = count(); }' -p $spid >dlp.trace 2>dlp.err &
d1=$!
for _ in $(seq 200); do [ "$(leaf_bytes $spid)" != "$before" ] && break; sleep 0.05; done
touch dlgo
wait_for dlp.out called
kill -INT $d1
wait $d1
s1=$?
same=$(lib_text_vs_file $spid "$WORK/libpidlib.so")
rm -f dlgo
wait $spid
expect_eq "-p, dlopen: enabled after the load, every call counted, dtrace exits 0" \
	"$(grep -c '^enabled$' dlp.out) $(counts dlp.trace) $s1" "1 plug_other=$M plug_work=$M  0"
expect_eq "-p, dlopen: after dtrace left, the library's text is its file's" "$same" "same "
expect_eq "-p, dlopen: dtrace said nothing" "$(cat dlp.err)" ""

# a consumer stopped: the deadman ends its session in the process, which runs on as it was
rm -f go
./pidfn spin go >spin2.out 2>&1 &
spid=$!
wait_for spin2.out ready
before=$(leaf_bytes $spid)
"$DTRACE" -q -x deadman=1s -n 'pid$target:a.out:leaf:entry,pid$target:a.out:leaf:return,
	pid$target:a.out:main:entry { @n = count(); }' -p $spid >/dev/null 2>&1 &
d1=$!
for _ in $(seq 200); do [ "$(leaf_bytes $spid)" != "$before" ] && break; sleep 0.05; done
kill -STOP $d1
for _ in $(seq 100); do [ "$(leaf_bytes $spid)" = "$before" ] && break; sleep 0.05; done
alive=$(kill -0 $spid 2>/dev/null && echo alive)
after=$(leaf_bytes $spid)
{ kill -KILL $d1; wait $d1; } 2>/dev/null
touch go
wait $spid
expect_eq "-p: a consumer stopped: after the deadman, leaf's bytes are the program's, it runs on" \
	"$after $alive $?" "$before alive 0"
finish
