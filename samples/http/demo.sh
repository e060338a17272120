#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make demo`: the http sample traced live by udtrace's consumer (dtrace -l,
# -n with a D program reading the application's structure, the default
# output), then its provider through dtrace -h and dtrace -G and its probes
# as the other tools on this machine see them. (The instrumented HTTP
# server, with translators, replaces the tour with issue #5.)
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
OUT=$BUILD/samples/http
DTRACE=$BUILD/bin/dtrace

echo "== dtrace -l -c $OUT/tour: the probes of a process, its runtime preloaded"
"$DTRACE" -l -c "$OUT/tour" 2>&1 | sed 's/^/  /'
echo
# request-done's argument is the application's httpproto_t (tour.c):
# the URI at offset 8, the bytes written at 24, the status at 32
PROG='http*:::request-done {
	printf("%-12s %d %4d bytes\n", copyinstr(*(long *)(arg0 + 8)),
	    *(int *)(arg0 + 32), *(long *)(arg0 + 24));
}'
echo "== dtrace -q -n '$PROG' -c $OUT/tour"
"$DTRACE" -q -n "$PROG" -c "$OUT/tour" 2>&1 | sed 's/^/  /'
echo
echo "== dtrace -n 'http*:::conn-accept, http*:::conn-close { trace(arg0); }' -c $OUT/tour"
"$DTRACE" -n 'http*:::conn-accept, http*:::conn-close { trace(arg0); }' -c "$OUT/tour" 2>&1 |
	sed 's/^/  /'
echo
echo "== dtrace -h -s samples/http/http.d -o $OUT/http_provider.h"
grep -E '^#define HTTP_[A-Z_]+\(' "$OUT/http_provider.h" |
	sed -E 's/^#define ([A-Z_]+\([^)]*\)).*/  #define \1/' | sort -u
echo
echo "== dtrace -G -s samples/http/http.d -o $OUT/http_provider.o $OUT/tour.o"
echo "== cc -o $OUT/tour tour.o http_provider.o; $OUT/tour"
"$OUT/tour"
echo
echo "== the probe sites, as every SystemTap-note reader sees them (readelf -n)"
readelf -n "$OUT/tour" | awk '/Provider:/ { p = $2 } /Name:/ { n = $2 }
	/Arguments:/ { $1 = ""; printf "  %s:%s  args:%s\n", p, n, $0 }'
if [ -x "$BUILD/tests/tabledump" ]; then
	echo
	echo "== the probe table dtrace -G wrote (what dtrace -l -v will list)"
	"$BUILD/tests/tabledump" "$OUT/tour" | grep -v '^dispatch='
fi
if command -v gdb >/dev/null; then
	echo
	echo "== gdb stops at http:request-done and reads the application's structure"
	gdb -nx -batch -ex 'break -probe-stap http:request__done' -ex run \
		-ex 'printf "  uri=%s status=%d bytes=%d\n", *(char **)($_probe_arg0 + 8), *(int *)($_probe_arg0 + 32), *(long *)($_probe_arg0 + 24)' \
		"$OUT/tour" 2>/dev/null | grep '  uri='
fi
if command -v bpftrace >/dev/null && [ "$(id -u)" = 0 ]; then
	echo
	echo "== bpftrace counts the requests by URI (if this machine lets it attach)"
	timeout 60 bpftrace -e 'usdt:'"$OUT"'/tour:http:request__done { @[str(*(uint64 *)(arg0 + 8))] = count(); }' \
		-c "$OUT/tour" 2>/dev/null | grep -v '^tour:' || echo "  (bpftrace could not attach here)"
fi
