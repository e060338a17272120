#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tracing command line as DTrace's users give it: when the output reaches
# -o's file or a pipe (each round, not at exit), the options and their
# errors (sizes, version, stdc, -X), -e, -H, -i, -V and -Z.
. "$(dirname "$0")/../lib.sh"

cd "$WORK" || exit 1
build_rtprog

# dtrace_bg OUT ARGS...: dtrace ARGS in the background, its stdout in OUT; DPID is its pid
dtrace_bg() {
	local out=$1
	shift
	"$DTRACE" "$@" >"$out" 2>"$out.err" &
	DPID=$!
}

# stop_dtrace: ^C to the background dtrace, and its exit status in DRC
stop_dtrace() {
	kill -INT "$DPID" 2>/dev/null
	wait "$DPID"
	DRC=$?
}

# -- Output timing ---------------------------------------------------------------------------

# -o FILE: what each round prints is in the file while dtrace runs, as DTrace
# flushes after each round (BEGIN's and tick-n's lines are printed by dtrace
# itself, with no record of the target's to flush them)
dtrace_bg tick.out -q -o tick.txt -n 'BEGIN { printf("begin\n"); }' \
	-n 'tick-50ms { printf("tick %d\n", n++); }'
if wait_for tick.txt '^tick 2$' && kill -0 "$DPID" 2>/dev/null; then
	ok "-o FILE: BEGIN's and tick's lines are in the file while dtrace runs"
else
	fail "-o FILE: BEGIN's and tick's lines are in the file while dtrace runs" \
		"$(cat tick.txt tick.out.err)"
fi
stop_dtrace
expect_eq "-o FILE: ^C ends it with status 0, begin first" "$DRC:$(head -n 1 tick.txt)" "0:begin"

# the target's records too, round by round
mkfifo ctl
LD_PRELOAD=$BUILD/lib/libudtrace.so.1 ./rtprog loop <ctl >/dev/null 2>loop.err &
lpid=$!
exec 4>ctl
wait_for loop.err '^ready' || fail "the looping program started" "$(cat loop.err)"
dtrace_bg target.out -q -o target.txt -n 'rt*:::tick { printf("seq %d\n", arg1); }' -p "$lpid"
if wait_for target.txt '^seq ' && kill -0 "$DPID" 2>/dev/null; then
	ok "-o FILE: the target's records are in the file while dtrace runs"
else
	fail "-o FILE: the target's records are in the file while dtrace runs" \
		"$(cat target.txt target.out.err)"
fi
stop_dtrace
exec 4>&-
wait "$lpid"

# a pipe: the reader gets the first line at once, and dtrace ends when the reader
# has gone (DTrace dies of SIGPIPE; dtrace detaches and exits)
timeout 60 "$DTRACE" -q -n 'tick-50ms { printf("line %d\n", n++); }' | head -n 1 >line.txt
st=("${PIPESTATUS[@]}")
expect_eq "a pipe: the reader gets the first line" "$(cat line.txt)" "line 0"
expect_eq "a pipe: dtrace ends once its reader has gone (exit 1, not timeout's 124)" \
	"${st[0]}" 1

# -- -V, -x version ------------------------------------------------------------------------------

expect_eq "-V: the version of D, as DTrace prints it" "$("$DTRACE" -V)" "dtrace: Sun D 1.13"
v=$("$DTRACE" -V | awk '{ print $NF }')
out=$("$DTRACE" -x "version=$v" -q -n 'BEGIN { printf("ok\n"); exit(0); }' 2>&1)
expect_eq "-x version= what -V prints (Oracle's tst.version.sh)" "$?:$out" "$(printf '0:ok\n')"
out=$("$DTRACE" -x version=99.1 -n 'BEGIN { exit(0); }' 2>&1)
expect_eq "-x version=99.1: DTrace's message, exit 1" "$?:$out" \
	"1:dtrace: failed to set -x version: Requested version is not supported by compiler"
out=$("$DTRACE" -x version=1.0 -x version=1.1 -n 'BEGIN { exit(0); }' 2>&1)
expect_eq "-x version twice, two versions: DTrace's message" "$?:$out" \
	"1:dtrace: failed to set -x version: Requested version conflicts with earlier setting"

# -- Option errors: DTrace's words, exit 1 ---------------------------------------------------------

out=$("$DTRACE" -x bufsize=-1 -n 'BEGIN { exit(0); }' 2>&1)
expect_eq "-x bufsize=-1 (DTrace's err.bufsize-negative.d)" "$?:$out" \
	"1:dtrace: failed to set -x bufsize: Invalid value for specified option"
out=$("$DTRACE" -x stdc=X -n 'BEGIN { exit(0); }' 2>&1)
expect_eq "-x stdc=X (DTrace's err.stdc-x.d)" "$?:$out" \
	"1:dtrace: failed to set -x stdc: Invalid value for specified option"
out=$("$DTRACE" -X q -n 'BEGIN { exit(0); }' 2>&1)
expect_eq "-X q" "$?:$out" "1:dtrace: failed to set -X q: Invalid value for specified option"
out=$("$DTRACE" -x cpu=0 -n 'BEGIN { exit(0); }' 2>&1)
expect_eq "-x cpu: refused with why (buffers are per thread)" "$?:$out" \
	"1:dtrace: failed to set -x cpu: not supported: buffers are per thread, not per CPU"
out=$("$DTRACE" -q -x tree=4 -x evaltime=main -x stackframes=20 -x iregs=8 \
	-n 'BEGIN { printf("ok\n"); exit(0); }' 2>&1)
expect_eq "DTrace's options for what udtrace lacks are accepted" "$?:$out" "$(printf '0:ok\n')"

# -- Sizes -------------------------------------------------------------------------------------------

for o in bufsize=4k bufsize=16 aggsize=1k aggsize=4M dynvarsize=2m specsize=1K scratchsize=64 \
	strsize=0x40 bufsize=1g; do
	out=$("$DTRACE" -q -x "$o" -n 'BEGIN { @ = count(); a[1] = 1; printf("%d\n", a[1]); exit(0); }' 2>&1)
	expect_eq "-x $o" "$?:$(echo "$out" | head -n 1)" "0:1"
done
out=$("$DTRACE" -q -b 16 -x bufpolicy=ring -n 'rt$target:::tick { trace(arg1); }' \
	-c './rtprog ticks 100 1' 2>ring.err | grep -v '^ready\|^done' | tr -d '\n')
case $out in *99) ok "-b 16, ring: raised to hold a record, the newest kept ($out)" ;;
*) fail "-b 16, ring: raised to hold a record, the newest kept" "$out" ;; esac
# (what was overwritten is counted: every fire is a record or said)
expect_eq "-b 16, ring: the records overwritten said" \
	"$(grep overwritten ring.err | grep -v '^ready\|^done')" \
	"dtrace: $((100 - ${#out} / 2)) records overwritten in ring buffers (the newest kept)"


# -- -e: compile, enable nothing ------------------------------------------------------------------

out=$("$DTRACE" -b 1k -b 2k -e 2>&1)
expect_eq "-e with options and no program: exit 0 (DTrace's tst.BufsizeKilo)" "$?:$out" "0:"
out=$("$DTRACE" -b 1t -b 2t -e 2>&1)
expect_eq "-e -b 1t: the size is an option, nothing is allocated (tst.BufsizeTera)" "$?:$out" "0:"
out=$("$DTRACE" -e -x bogus 2>&1)
expect_eq "-e still checks the options" "$?:$out" "1:dtrace: failed to set -x bogus: Invalid option name"
out=$("$DTRACE" -e -n 'BEGIN { system("echo ran"); }' 2>&1)
expect_eq "-e: a destructive program needs no -w, as nothing is enabled" "$?:$out" "0:"
out=$("$DTRACE" -e -q -n 'BEGIN { printf("It executed\n"); exit(0); }' 2>&1)
expect_eq "-e: BEGIN does not run (DTrace's tst.runopt-e.d)" "$?:$out" "0:"
out=$("$DTRACE" -e -n 'BEGIN { nosuch(); }' 2>&1)
expect_eq "-e: compile errors are reported" "$?:$out" \
	"1:dtrace: -n:1:15: error: undefined function name: nosuch"
out=$("$DTRACE" -e -n 'rt$target:::tick { trace(arg1); }' -c './rtprog ticks 3' 2>&1)
expect_eq "-e -c: compiled against the command's probes, which never runs its main()" "$?:$out" "0:"
out=$("$DTRACE" -e -l -n 'dtrace:::ERROR' 2>&1 | awk 'NR > 1 { print $2, $NF }')
expect_eq "-e -l: lists" "$out" "dtrace ERROR"

# -- cpp: -H, -X, -x define, undef, incdir, cpppath ----------------------------------------------

mkdir -p inc
printf '#ifndef TWO\n#define TWO 2\n#endif\n' >inc/two.h
printf '#include "two.h"\nBEGIN { printf("%%d\\n", TWO); exit(0); }\n' >inc.d
out=$("$DTRACE" -q -C -H -I inc -s inc.d 2>&1)
expect_eq "-H: cpp names the files it includes, on stderr" "$?:$out" "$(printf '0:. inc/two.h\n2\n')"
out=$("$DTRACE" -q -x cpp -x cpphdrs -x incdir=inc -s inc.d 2>&1)
expect_eq "-x cpp -x cpphdrs -x incdir" "$?:$out" "$(printf '0:. inc/two.h\n2\n')"
out=$("$DTRACE" -q -x cpp -x cpppath=/nonexistent/cpp -s inc.d 2>&1)
expect_eq "-x cpppath: that preprocessor" "$?:$out" \
	"1:dtrace: failed to run the preprocessor /nonexistent/cpp: No such file or directory"
printf 'BEGIN\n{\n#ifdef __STDC__\n\tprintf("ISO\\n");\n#else\n\tprintf("K&R\\n");\n#endif\n\texit(0);\n}\n' >stdc.d
for m in a c s t; do
	want=ISO
	[ $m = s ] && want="K&R"
	expect_eq "-X $m: __STDC__ ${want/K&R/undefined}" "$("$DTRACE" -q -C -X $m -s stdc.d)" "$want"
done
out=$("$DTRACE" -q -C -x define=probe=BEGIN -s /dev/stdin <<<'probe { printf("defined\n"); exit(0); }' 2>&1)
expect_eq "-x define (DTrace's tst.define.d)" "$?:$out" "$(printf '0:defined\n')"
out=$("$DTRACE" -q -C -x undef=__linux -s /dev/stdin <<<'BEGIN {
#ifdef __linux
printf("defined\n");
#else
printf("undefined\n");
#endif
exit(0); }' 2>&1)
expect_eq "-x undef (DTrace's tst.undef.d)" "$?:$out" "$(printf '0:undefined\n')"

# -- -x setenv, unsetenv: -c's command's environment ------------------------------------------------

out=$(FOO2=old "$DTRACE" -q -x setenv=FOO1=one -x unsetenv=FOO2 -n 'BEGIN { }' -c env 2>&1 |
	grep '^FOO')
expect_eq "-x setenv, -x unsetenv" "$out" "FOO1=one"

# -- -i: probes by ID; dtrace:::, -P dtrace ---------------------------------------------------------

expect_eq "-l -i 3: ERROR" "$("$DTRACE" -l -i 3 | awk 'NR > 1 { print $1, $2, $NF }')" "3 dtrace ERROR"
out=$("$DTRACE" -q -i '1 { printf("by id\n"); exit(0); }' 2>&1)
expect_eq "-i 1 with an action: BEGIN" "$?:$out" "$(printf '0:by id\n')"
out=$("$DTRACE" -i 0 2>&1)
expect_eq "-i 0: DTrace's message (tst.ZeroProbeIdentifier)" "$?:$out" \
	"1:dtrace: invalid probe specifier 0: invalid probe identifier 0: Unknown probe identifier"
out=$("$DTRACE" -Z -i 99999 2>&1)
expect_eq "-Z -i 99999: an ID matches now or never" "$?:$out" \
	"1:dtrace: invalid probe specifier 99999: invalid probe identifier 99999: Unknown probe identifier"
"$DTRACE" -l -c './rtprog idle' </dev/null >l.out 2>/dev/null
id=$(awk '$NF == "once" { print $1; exit }' l.out)
out=$("$DTRACE" -q -i "$id { printf(\"%d %s\\n\", arg0, probename); }" -c './rtprog bad' 2>&1 |
	grep -v '^ready\|^done')
expect_eq "-i of a probe of the target (ID $id, rt:::once)" "$out" "7 once"
expect_eq "-l -P dtrace: BEGIN, END and ERROR" \
	"$("$DTRACE" -l -P dtrace | awk 'NR > 1 { print $NF }' | tr '\n' ' ')" "BEGIN END ERROR "
out=$("$DTRACE" -q -P 'dtrace { printf("%s\n", probename); }' -n 'BEGIN { exit(0); }' 2>&1)
expect_eq "-P dtrace with an action: BEGIN and END fire" "$?:$out" "$(printf '0:BEGIN\nEND\n')"
out=$("$DTRACE" -P 'dtrace { }' -n 'BEGIN { exit(0); }' 2>&1 >/dev/null | head -n 1)
expect_eq "-P with an action: the description is cropped in the notice" "$out" \
	"dtrace: description 'dtrace ' matched 3 probes"

# -- -Z ------------------------------------------------------------------------------------------

out=$("$DTRACE" -qZn 'wassup { printf("Iamkool"); }' -qn 'BEGIN { printf("I am done"); exit(0); }' 2>&1)
expect_eq "-Z: a description matching nothing, with one that does (tst.ZeroNameProbes)" "$?:$out" \
	"$(printf '0:I am done\n')"
out=$("$DTRACE" -Z -n 'nosuch:::probe' -c ./rtprog 2>&1 | grep -v '^ready\|^done')
expect_eq "-Z -c, nothing matched: dtrace ends with the command" "$?:$out" \
	"$(printf "0:dtrace: description 'nosuch:::probe' matched 0 probes\ndtrace: pid %s has exited" \
	"$(echo "$out" | sed -n 's/.*pid \([0-9]*\) has exited/\1/p')")"

# -- ustack(): maxframes, stackindent --------------------------------------------------------------

out=$("$DTRACE" -q -x maxframes=2 -n 'rt$target:::once { ustack(50); }' -c './rtprog bad' 2>&1 |
	grep -v '^ready\|^done' | grep -c 'rtprog`\|libc')
expect_eq "-x maxframes=2: ustack(50) records 2 frames (Oracle's tst.ustack95_max25)" "$out" 2
out=$("$DTRACE" -q -x stackindent=3 -n 'rt$target:::once { ustack(1); }' -c './rtprog bad' 2>&1 |
	grep 'rtprog`')
case $out in "   rtprog\`"*) ok "-x stackindent=3: frames indented by 3" ;;
*) fail "-x stackindent=3: frames indented by 3" "$out" ;; esac

finish
