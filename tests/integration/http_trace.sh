#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The http sample traced live: dtrace -p attaches to the running server and
# reads the translated arguments of the provider support file
# (provider-support/http.d) while curl loads it over loopback. What issue #5
# asks to show: the anatomy's one-liner prints each URI once per request
# under concurrent load; counts by URI sum to the requests made; statuses and
# bytes match what the client saw; a consumer killed with SIGKILL mid-load
# costs the server nothing, and a new one attaches afterwards.
. "$(dirname "$0")/../lib.sh"

HTTPD=$BUILD/samples/http/httpd
if ! have curl; then
	skip "http tracing" "curl is not installed"
	finish
	exit
fi
if [ ! -x "$HTTPD" ]; then
	fail "the sample server is built" "missing $HTTPD"
	finish
	exit
fi
cd "$WORK" || exit 1
mkdir root
cp "$TOP"/samples/http/www/* root/
head -c 300000 /dev/urandom >root/big.bin

start_httpd root

# start_dtrace OUT ARGS...: dtrace -p on the server, once it is seen tracing
# (a warm-up request it prints); the warm-up lines are left out of OUT. A
# warm-up request carries a long header, so that a script can tell it from
# the load by args[1]->hri_bytesread (1000 bytes or more) and leave it out.
WARM=$(printf 'x%.0s' $(seq 1100))
start_dtrace() {
	local out=$1
	shift
	"$DTRACE" -p "$spid" "$@" >"$out.raw" 2>"$out.err" &
	dpid=$!
	for _ in $(seq 100); do
		curl -s -o /dev/null -H "X-Warm-Up: $WARM" "$URL/warmup" 2>/dev/null
		grep -q warmup "$out.raw" && return 0
		sleep 0.1
	done
	return 1
}

# stop_dtrace OUT: SIGINT, as ^C; the output without warm-ups in OUT
stop_dtrace() {
	kill -INT "$dpid"
	wait "$dpid"
	local rc=$?
	dpid=
	grep -v warmup "$1.raw" >"$1"
	return $rc
}

# the requests: 60 URIs, 8 at a time, each with what the client saw
for i in $(seq 20); do
	echo /index.html
	echo /about.txt
	echo "/nothing-$i"
done >urls
N=$(wc -l <urls)
load() {
	xargs -P 8 -I{} curl -s -o /dev/null \
		-w '{} %{http_code} %{size_header} %{size_download}\n' "$URL{}" <urls >"$1"
}

# 1. the anatomy's one-liner, as written
start_dtrace oneliner -n 'http*:::request-start{printf("%s\n", args[1]->hri_uri);}' ||
	fail "dtrace -p attaches to the server" "$(cat oneliner.err)"
load client1
stop_dtrace oneliner
# (DTrace's default output: the CPU, ID and FUNCTION:NAME columns, then the URI)
expect_eq "the one-liner prints each URI once per request, under concurrent load" \
	"$(awk '/:request-start / { print $NF }' oneliner | sort | md5sum)" "$(sort urls | md5sum)"

# 2. counts, statuses and bytes, from request-done
start_dtrace aggs -q -n 'http*:::request-done /args[1]->hri_bytesread >= 1000/ {
	printf("warmup\n");
}
http*:::request-done /args[1]->hri_bytesread < 1000/ {
	@uri[args[1]->hri_uri] = count();
	@status[args[1]->hri_respcode] = count();
	@bytes = sum(args[1]->hri_byteswritten);
	@n = count();
}
END {
	printa("uri %s %@d\n", @uri);
	printa("status %d %@d\n", @status);
	printa("bytes %@d\n", @bytes);
	printa("total %@d\n", @n);
}' || fail "dtrace -p attaches again" "$(cat aggs.err)"
load client2
stop_dtrace aggs
expect_eq "@[args[1]->hri_uri] = count() sums to the requests made ($N)" \
	"$(awk '$1 == "uri" { s += $3 } END { print s }' aggs)" "$N"
expect_eq "every URI counted as often as requested" \
	"$(awk '$1 == "uri" { print $2, $3 }' aggs | sort)" \
	"$(sort urls | uniq -c | awk '{ print $2, $1 }' | sort)"
expect_eq "statuses as the client saw them" \
	"$(awk '$1 == "status" { print $2, $3 }' aggs | sort)" \
	"$(awk '{ print $2 }' client2 | sort | uniq -c | awk '{ print $2, $1 }' | sort)"
expect_eq "bytes written as the client received them (headers and bodies)" \
	"$(awk '$1 == "bytes" { print $2 }' aggs)" \
	"$(awk '{ s += $3 + $4 } END { print s }' client2)"
expect_eq "a file's body is its size" \
	"$(awk '$1 == "/index.html" { print $4 }' client2 | sort -u)" "$(wc -c <root/index.html)"

# 3. a consumer killed mid-load: the server serves every request, and a new
# consumer attaches afterwards
start_dtrace killed -q -n 'http*:::request-done { @[args[1]->hri_uri] = count(); printf("%s\n", args[1]->hri_uri); }' ||
	fail "dtrace -p attaches for the kill" "$(cat killed.err)"
(for _ in 1 2 3 4 5; do cat urls; done) >urls5
xargs -P 8 -I{} curl -s -o /dev/null -w '%{http_code}\n' "$URL{}" <urls5 >client3 &
lpid=$!
sleep 0.3
kill -9 "$dpid"
wait "$dpid" 2>/dev/null
dpid=
wait "$lpid"
expect_eq "after SIGKILL of the consumer, every request of the load is answered" \
	"$(grep -c '^[24]0[04]$' client3)" "$((5 * N))"
start_dtrace again -q -n 'http*:::request-start{printf("%s\n", args[1]->hri_uri);}' ||
	fail "a new consumer attaches after the killed one" "$(cat again.err)"
curl -s -o /dev/null "$URL/after-the-kill"
sleep 0.5
stop_dtrace again
expect_eq "the new consumer traces requests" "$(grep -c after-the-kill again)" 1

kill -TERM "$spid"
wait "$spid"
expect_eq "the server shuts down cleanly on SIGTERM" "$?" 0
finish
