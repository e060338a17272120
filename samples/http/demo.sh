#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make demo`: the http sample's server traced live. httpd serves
# samples/http/www on a free port; dtrace -p attaches to it (no root, no
# BPF: the permission to ptrace it is enough) and runs samples/http/demo.d,
# which reads the translated arguments of provider-support/http.d; a bounded
# load of requests goes through; ^C (SIGINT) ends dtrace, which prints the
# requests by URI and status and their latency. Then a few requests as JSON
# lines read by jq, and the same probes as the other tools on this machine
# see them.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
OUT=$BUILD/samples/http
DTRACE=$BUILD/bin/dtrace
HTTPD=$OUT/httpd
REQUESTS=${REQUESTS:-40}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/udtrace-demo.XXXXXX")
spid= dpid=
cleanup() {
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

# get URL-PATH: one request, with curl, or bash's /dev/tcp where curl is missing
get() {
	if command -v curl >/dev/null; then
		curl -s -o /dev/null -A "udtrace-demo/1.0" "http://$ADDR$1"
	else
		exec 3<>"/dev/tcp/${ADDR%:*}/${ADDR#*:}" || return
		printf 'GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: udtrace-demo/1.0\r\nConnection: close\r\n\r\n' \
			"$1" "$ADDR" >&3
		cat <&3 >/dev/null
		exec 3<&-
	fi
}

echo "== $HTTPD --port 0 --root samples/http/www"
"$HTTPD" --port 0 --root samples/http/www >"$WORK/httpd.out" 2>"$WORK/httpd.err" &
spid=$!
for _ in $(seq 50); do grep -q '^listening on' "$WORK/httpd.out" && break; sleep 0.1; done
ADDR=$(sed -n 's/^listening on //p' "$WORK/httpd.out")
if [ -z "$ADDR" ]; then
	echo "demo: the server did not start: $(cat "$WORK/httpd.err")" >&2
	exit 1
fi
echo "  listening on $ADDR, pid $spid"
echo
echo "== dtrace -l -p $spid -P http$spid: the server's probes"
"$DTRACE" -l -p "$spid" -P "http$spid" 2>&1 | sed 's/^/  /'
echo
echo "== dtrace -s samples/http/demo.d -p $spid, while $REQUESTS requests go through"
"$DTRACE" -s samples/http/demo.d -p "$spid" > >(sed 's/^/  /') 2>&1 &
dpid=$!
sleep 1 # (dtrace attaches in a few milliseconds)
paths=(/ /index.html /style.css /about.txt /missing.html)
for i in $(seq "$REQUESTS"); do
	get "${paths[$((i % ${#paths[@]}))]}" &
	[ $((i % 4)) = 0 ] && wait "$!" # four at a time
done
wait "$!" 2>/dev/null
sleep 0.5
# ^C, as a user would type it: dtrace runs END and prints the aggregations
kill -INT "$dpid"
wait "$dpid" 2>/dev/null
dpid=
sleep 0.2 # (the last lines through sed)
echo
echo "== the requests as JSON lines (-x oformat=jsonl, docs/output.md), read by jq"
"$DTRACE" -q -x oformat=jsonl -p "$spid" -n 'http*:::request-done {
	trace(args[1]->hri_uri); trace(args[1]->hri_respcode); trace(args[1]->hri_byteswritten); }' \
	>"$WORK/req.jsonl" 2>"$WORK/req.err" &
dpid=$!
sleep 1
for p in /index.html /about.txt /missing.html; do get "$p"; done
sleep 0.5
kill -INT "$dpid"
wait "$dpid" 2>/dev/null
dpid=
sed 's/^/  /' "$WORK/req.jsonl" | head -3
if command -v jq >/dev/null; then
	echo "  jq -r '[.tid, (.output[] | .value)] | @tsv':"
	jq -r '[.tid, (.output[] | .value)] | @tsv' "$WORK/req.jsonl" | sed 's/^/    /'
fi
echo
echo "== the pid provider (docs/pid.md): the server's own functions, and libc's, that nobody declared"
echo "   dtrace -n 'pid\$target:a.out::entry { @[probefunc] = count(); }"
echo "              pid\$target:libc.so.6:send:entry { @s = quantize(arg2); }' -p $spid"
"$DTRACE" -q -p "$spid" -n 'pid$target:a.out::entry { @[probefunc] = count(); }
	pid$target:libc.so.6:send:entry { @s = quantize(arg2); }
	END { printa("  %-32s %@8u\n", @); printf("  send() sizes (bytes):"); printa(@s); }' \
	>"$WORK/pid.out" 2>"$WORK/pid.err" &
dpid=$!
sleep 1
for p in /index.html /about.txt /missing.html /style.css; do get "$p"; done
sleep 0.5
kill -INT "$dpid"
wait "$dpid" 2>/dev/null
dpid=
sed -n '/sizes (bytes)/q; /./p' "$WORK/pid.out"
sed -n '/sizes (bytes)/,$p' "$WORK/pid.out" | sed '/^$/d'
sed 's/^/  /' "$WORK/pid.err"
echo
echo "== the same probes as every SystemTap-note reader sees them (readelf -n $HTTPD)"
readelf -n "$HTTPD" | awk '/Provider:/ { p = $2 } /Name:/ { n = $2 }
	/Arguments:/ { $1 = ""; printf "  %s:%s  args:%s\n", p, n, $0 }'
if command -v bpftrace >/dev/null && [ "$(id -u)" = 0 ]; then
	echo
	echo "== bpftrace counts the requests by URI through the same probe (if it may attach here)"
	timeout 20 bpftrace -e 'usdt:'"$HTTPD"':http:request__done { @[str(*(uint64 *)(arg0 + 32))] = count(); }' \
		-p "$spid" >"$WORK/bpf.out" 2>&1 &
	bpid=$!
	sleep 3
	for p in / /about.txt /about.txt; do get "$p"; done
	sleep 1
	kill -INT "$bpid" 2>/dev/null
	wait "$bpid" 2>/dev/null
	if grep -q '^@' "$WORK/bpf.out"; then sed -n 's/^/  /; /^  @/p' "$WORK/bpf.out"; else
		echo "  (bpftrace could not attach here)"; fi
fi
kill -TERM "$spid"
wait "$spid" 2>/dev/null
spid=
echo
echo "== the server, on SIGTERM: $(cat "$WORK/httpd.err")"
