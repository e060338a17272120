#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# samples/http/httpd as its clients see it: files served byte for byte (a
# 1 MiB one too), HEAD without a body, 404 for what is missing, targets with
# ".." never leaving the root, 400 for malformed requests, keep-alive and
# pipelining, 50 concurrent requests, and a clean exit on SIGTERM (with a
# connection still open) that reports every request answered.
. "$(dirname "$0")/../lib.sh"

HTTPD=$BUILD/samples/http/httpd
if ! have curl; then
	skip "httpd" "curl is not installed"
	finish
	exit
fi
if [ ! -x "$HTTPD" ]; then
	fail "the sample server is built" "missing $HTTPD"
	finish
	exit
fi
cd "$WORK" || exit 1
mkdir -p root/sub
printf '<!DOCTYPE html>\n<title>httpd</title>\n<p>the index</p>\n' >root/index.html
printf 'a text file\n' >root/a.txt
printf 'in a subdirectory\n' >root/sub/b.txt
head -c 1048576 /dev/urandom >root/big.bin
# beside the root, where no request may reach
echo "secret-$$-$RANDOM" >secret.txt

spid=
cleanup() {
	if [ -n "$spid" ]; then
		kill -9 "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

out=$("$HTTPD" 2>&1)
expect_eq "no --root is a usage error (exit 2)" "$?" 2
out=$("$HTTPD" --root root --port 99999 2>&1)
expect_eq "a bad port is a usage error (exit 2)" "$?:${out:0:6}" "2:httpd:"

"$HTTPD" --port 0 --root root >httpd.out 2>httpd.err &
spid=$!
for _ in $(seq 50); do
	grep -q '^listening on' httpd.out && break
	sleep 0.1
done
addr=$(sed -n 's/^listening on //p' httpd.out)
if [ -z "$addr" ]; then
	fail "the server starts" "$(cat httpd.out httpd.err)"
	finish
	exit
fi
case $addr in
127.0.0.1:[1-9]*) ok "one line 'listening on 127.0.0.1:PORT'" ;;
*) fail "one line 'listening on 127.0.0.1:PORT'" "$(cat httpd.out)" ;;
esac
URL=http://$addr
HOST=${addr%:*}
PORT=${addr##*:}
# every response the server sends, for its closing line
REQS=0

# raw TEXT: sends TEXT (a request, or several) on a new connection and prints
# all that comes back until the server closes it; at most 5 s
raw() {
	local fd
	exec {fd}<>"/dev/tcp/$HOST/$PORT" || return 1
	printf '%s' "$1" >&"$fd"
	timeout 5 cat <&"$fd"
	local rc=$?
	exec {fd}>&-
	return $rc
}
CRLF=$'\r\n'

# 1. files, byte for byte
code=$(curl -s -o got.index -w '%{http_code}' "$URL/")
REQS=$((REQS + 1))
check "GET / returns index.html's bytes (status $code)" cmp got.index root/index.html
code=$(curl -s -o got.big -w '%{http_code}' "$URL/big.bin")
REQS=$((REQS + 1))
check "GET of a 1 MiB file returns the same bytes (status $code)" cmp got.big root/big.bin
got=$(curl -s -o got.b -w '%{http_code} %{content_type}' "$URL/sub/b.txt?x=1&y=..")
REQS=$((REQS + 1))
expect_eq "a file in a subdirectory, its query left out: 200 text/plain" \
	"$got $(cat got.b)" "200 text/plain in a subdirectory"
expect_eq "Content-Type by extension" \
	"$(for f in / /a.txt /big.bin; do curl -s -o /dev/null -w '%{content_type} ' "$URL$f"; done)" \
	"text/html text/plain application/octet-stream "
REQS=$((REQS + 3))

# 2. HEAD: GET's headers, no body (nothing after the empty line, though the
# connection stays open long enough for one to arrive)
raw "HEAD /big.bin HTTP/1.1${CRLF}Host: t${CRLF}Connection: close${CRLF}${CRLF}" >head.out
REQS=$((REQS + 1))
expect_eq "HEAD: status 200, the file's Content-Length" \
	"$(tr -d '\r' <head.out | grep -E '^(HTTP/|Content-Length:)')" \
	"$(printf 'HTTP/1.1 200 OK\nContent-Length: 1048576')"
expect_eq "HEAD: no body after the headers" \
	"$(tail -c 4 head.out | od -An -tx1 | tr -d ' \n'):$(tr -d '\r' <head.out | grep -c '^$')" \
	"0d0a0d0a:1"

# 3. what is not there
expect_eq "a missing file is 404" "$(curl -s -o /dev/null -w '%{http_code}' "$URL/nothing.txt")" 404
expect_eq "a directory is 404" "$(curl -s -o /dev/null -w '%{http_code}' "$URL/sub/")" 404
expect_eq "a POST is 501" "$(curl -s -o /dev/null -w '%{http_code}' -d x=1 "$URL/a.txt")" 501
REQS=$((REQS + 3))

# 4. targets that try to leave the root, sent as they are (curl would
# resolve the dots itself)
for t in /../etc/passwd /../../../../../../etc/passwd /sub/../../etc/passwd /../secret.txt \
	/sub/../../secret.txt /%2e%2e/secret.txt /..%2fsecret.txt /%2E%2E%2F%2E%2E%2Fetc%2Fpasswd \
	//etc/passwd /%2fetc%2fpasswd; do
	resp=$(raw "GET $t HTTP/1.1${CRLF}Host: t${CRLF}Connection: close${CRLF}${CRLF}" | tr -d '\r')
	REQS=$((REQS + 1))
	status=$(echo "$resp" | head -n 1)
	if [ "$status" != "HTTP/1.1 404 Not Found" ]; then
		fail "GET $t is 404" "$resp"
	elif echo "$resp" | grep -qE '^root:|secret-'; then
		fail "GET $t is 404 and leaks nothing" "$resp"
	else
		ok "GET $t is 404 and leaks nothing"
	fi
done

# 5. malformed requests: 400, then the connection closes
raw "GARBAGE${CRLF}${CRLF}" >resp.raw
rc=$?
REQS=$((REQS + 1))
expect_eq "a garbage request line is 400, then the server closes" \
	"$rc:$(tr -d '\r' <resp.raw | head -n 1)" "0:HTTP/1.1 400 Bad Request"
resp=$(raw "GET /a.txt HTTP/1.1${CRLF}Host: t${CRLF}X-Big: $(printf 'x%.0s' $(seq 9000))${CRLF}${CRLF}" |
	tr -d '\r')
REQS=$((REQS + 1))
expect_eq "headers over 8 KiB are 400" "$(echo "$resp" | head -n 1)" "HTTP/1.1 400 Bad Request"
resp=$(raw "GET /a.txt HTTP/1.1${CRLF}${CRLF}" | tr -d '\r')
REQS=$((REQS + 1))
expect_eq "an HTTP/1.1 request without Host is 400" "$(echo "$resp" | head -n 1)" \
	"HTTP/1.1 400 Bad Request"

# 6. connections: kept alive, pipelined, closed for HTTP/1.0
got=$(curl -s -o /dev/null -o /dev/null -o /dev/null -w '%{http_code} %{num_connects}\n' \
	"$URL/a.txt" "$URL/a.txt" "$URL/a.txt")
REQS=$((REQS + 3))
expect_eq "keep-alive: 3 requests from one curl, all 200, over 1 connection" \
	"$(echo "$got" | awk '{ c[$1]++; n += $2 } END { for (k in c) print k, c[k]; print "connects", n }')" \
	"$(printf '200 3\nconnects 1')"
resp=$(raw "GET /a.txt HTTP/1.1${CRLF}Host: t${CRLF}${CRLF}HEAD /index.html HTTP/1.1${CRLF}Host: t${CRLF}${CRLF}GET /sub/b.txt HTTP/1.1${CRLF}Host: t${CRLF}Connection: close${CRLF}${CRLF}" |
	tr -d '\r')
REQS=$((REQS + 3))
expect_eq "pipelined requests in one write are answered in order" \
	"$(echo "$resp" | grep -E '^HTTP/|^Connection:|^a text|^in a sub')" \
	"$(printf '%s\n' 'HTTP/1.1 200 OK' 'Connection: keep-alive' 'a text file' \
		'HTTP/1.1 200 OK' 'Connection: keep-alive' 'HTTP/1.1 200 OK' 'Connection: close' \
		'in a subdirectory')"
raw "GET /a.txt HTTP/1.0${CRLF}${CRLF}" >resp.raw
rc=$?
REQS=$((REQS + 1))
expect_eq "HTTP/1.0 without keep-alive: the server closes after the response" \
	"$rc:$(tr -d '\r' <resp.raw | grep -E '^Connection:|^a text')" \
	"0:$(printf 'Connection: close\na text file')"

# 7. 50 requests, 10 at a time, each checked against the file
want=$(md5sum <root/big.bin)
seq 50 | xargs -P 10 -I{} sh -c 'curl -sf "$1" | md5sum' _ "$URL/big.bin" >concurrent.out
REQS=$((REQS + 50))
expect_eq "50 concurrent requests all return the file" \
	"$(grep -cxF -- "$want" concurrent.out)" 50

# 8. SIGTERM with an idle keep-alive connection open: a clean exit, every
# request counted
exec {idle}<>"/dev/tcp/$HOST/$PORT"
sleep 0.2
kill -TERM "$spid"
for _ in $(seq 50); do
	kill -0 "$spid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$spid" 2>/dev/null; then
	fail "SIGTERM stops the server within 5 s" "$(cat httpd.err)"
else
	wait "$spid"
	expect_eq "SIGTERM stops the server within 5 s, exit status 0" "$?" 0
	spid=
fi
exec {idle}>&-
expect_eq "the closing line counts every request ($REQS)" "$(cat httpd.err)" \
	"httpd: shut down after $REQS requests"
expect_eq "nothing else on stdout" "$(wc -l <httpd.out)" 1
finish
