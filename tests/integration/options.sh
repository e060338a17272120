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
LD_PRELOAD=$BUILD/lib/libudtrace.so ./rtprog loop <ctl >/dev/null 2>&1 &
lpid=$!
exec 4>ctl
sleep 0.3
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

finish
