#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What tracing costs the sample server in system calls: with the clause of
# benchmark 6 (a printf() and an aggregation of args[1]->hri_uri, strings
# the runtime reads from the server's memory), strace -c -f counts no
# rt_sigaction or rt_sigprocmask per request beyond what the server makes
# untraced (its own: glibc's pthread_create() masks signals for each
# connection's thread). docs/runtime.md, "Reading the process's memory".
. "$(dirname "$0")/../lib.sh"

for tool in strace curl; do
	if ! have $tool; then
		skip "system calls of a traced server" "$tool is not installed"
		finish
		exit
	fi
done
cd "$WORK" || exit 1
mkdir root
cp "$TOP"/samples/http/www/* root/

start_httpd root

# load: 4 clients at once, each 100 requests on one connection (keep-alive)
CONNS=4
PER=100
N=$((CONNS * PER))
load() {
	local args=() pids=() i
	for i in $(seq $PER); do args+=(-o /dev/null "$URL/index.html?$i"); done
	for i in $(seq $CONNS); do
		curl -s "${args[@]}" &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# counted NAME: strace -c -f attached to the server during a load; the calls
# of rt_sigaction and rt_sigprocmask (together) in $calls
counted() {
	strace -c -f -U name,calls -e trace=rt_sigaction,rt_sigprocmask -o "$1.strace" \
		-p "$spid" 2>"$1.err" &
	local st=$!
	# (strace says "Process N attached" for each thread it has seized)
	for _ in $(seq 100); do
		grep -q 'Process .* attached' "$1.err" && break
		sleep 0.1
	done
	sleep 0.2
	load
	kill -INT $st
	wait $st
	calls=$(awk '$1 == "rt_sigaction" || $1 == "rt_sigprocmask" { s += $2 } END { print s + 0 }' \
		"$1.strace")
}

load # (the server's own start-up, untraced)
counted untraced
base=$calls

"$DTRACE" -q -p "$spid" -n 'http*:::request-done {
	printf("%s %d\n", args[1]->hri_uri, args[1]->hri_respcode);
	@[args[1]->hri_uri] = count();
}' -o traced.out 2>dtrace.err &
dpid=$!
for _ in $(seq 100); do
	curl -s -o /dev/null "$URL/warmup"
	grep -q warmup traced.out 2>/dev/null && break
	sleep 0.1
done
load # (the runtime's first fires in the server: handlers, pages)
counted traced
kill -INT "$dpid"
wait "$dpid"
dpid=

expect_eq "the traced requests were recorded" \
	"$(grep -c '^/index.html?[0-9]* 200$' traced.out)" "$((2 * N))"
if [ "$calls" -le $((base + N / 20)) ]; then
	ok "traced: no rt_sigaction or rt_sigprocmask per request ($calls for $N requests, untraced $base)"
else
	fail "traced: no rt_sigaction or rt_sigprocmask per request" \
		"$calls for $N requests, untraced $base" "$(cat traced.strace)"
fi
finish
