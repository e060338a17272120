#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The sample HTTP server under load, with and without tracing (issue #5):
# the throughput one client (bench/http/load.c) gets from (a) the server
# built with its probes compiled out (-DUDTRACE_DISABLE), (b) the
# instrumented server with no consumer attached, and (c) the instrumented
# server while dtrace -p prints every request and counts it in an
# aggregation. Each run gets a freshly started server; the variants are
# interleaved over the rounds. Prints the median requests per second, the
# ratios b/a and c/b and the targets; it never fails on a number. Builds
# into $BUILD/bench/http/.
#
# Environment: BUILD (default build), CC (default cc), BENCH_HTTP_ROUNDS
# (interleaved runs per variant, default 5), BENCH_HTTP_SECS (seconds of load
# a run, default 2), BENCH_HTTP_CONNS (keep-alive connections of the client,
# default 4).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
OUT=$BUILD/bench/http
SRC=$TOP/bench/http
ROUNDS=${BENCH_HTTP_ROUNDS:-5}
SECS=${BENCH_HTTP_SECS:-2}
CONNS=${BENCH_HTTP_CONNS:-4}
HTTPD=$BUILD/samples/http/httpd
HDR=$BUILD/samples/http/http_provider.h
# The file the load asks for, and its size: small, so that a request costs
# the server its per-request work (parse, open, probes) rather than copying.
URI=/bench.bin
FILE_SZ=1024
# Warm-up requests, one a connection, tell when dtrace is attached; their own
# path keeps them apart from the load in dtrace's output.
WARM_URI=/warmup.txt
PROG='http*:::request-done { printf("%s %d\n", args[1]->hri_uri, args[1]->hri_respcode); @[args[1]->hri_uri] = count(); }'
# The server's flags are samples/http/build.mk's, so that (a) and (b) differ
# in the probes only.
HTTPD_CFLAGS="-O2 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -pthread"
LOAD_CFLAGS="-O2 -Wall -Wextra -Werror -pthread"

skip() { echo "SKIP the HTTP server benchmark: $*"; exit 0; }
warn() { echo "   bench: $*" >&2; }
# median_of FILE: the median of FILE's numbers, nan if there is no FILE
median_of() {
	if [ -s "$1" ]; then median <"$1"; else echo nan; fi
}
# cpu_ticks PID: the user and system time of PID, all its threads, in clock ticks
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

[ -x "$DTRACE" ] || skip "$DTRACE not found (run make first)"
[ -x "$HTTPD" ] || skip "$HTTPD not found (run make first)"
[ -f "$HDR" ] || skip "$HDR not found (run make first)"
have "$CC" || skip "no C compiler ($CC)"
[ -r /proc/self/stat ] || skip "no /proc (the server's CPU time is read from it)"
TICK=$(getconf CLK_TCK 2>/dev/null || echo 100)

rm -rf "$OUT"
mkdir -p "$OUT/www"

###########################################################################
# Build: the client, and the server with its probes compiled out
###########################################################################

LOAD=$OUT/load
OFF=$OUT/httpd-noprobes
# shellcheck disable=SC2086
run "$CC" $LOAD_CFLAGS "$SRC/load.c" -o "$LOAD"
# The generated header's macros expand to nothing under UDTRACE_DISABLE: no
# semaphore is referenced, so neither dtrace -G's object nor libudtrace is
# linked.
# shellcheck disable=SC2086
run "$CC" $HTTPD_CFLAGS -DUDTRACE_DISABLE -I"$BUILD/samples/http" -I"$TOP/samples/http" \
	"$TOP/samples/http/httpd.c" -o "$OFF"
if have readelf && readelf -n "$OFF" | grep -q stapsdt; then
	die "$OFF still has probe notes: UDTRACE_DISABLE did not compile them out"
fi

head -c "$FILE_SZ" /dev/urandom >"$OUT/www${URI}"
echo "warm-up" >"$OUT/www${WARM_URI}"

###########################################################################
# One run: a server, perhaps dtrace, the load
###########################################################################

spid='' dpid=''
cleanup() {
	[ -n "$dpid" ] && kill -INT "$dpid" 2>/dev/null
	[ -n "$spid" ] && kill -TERM "$spid" 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT

# start_server BIN: BIN on a free port of 127.0.0.1; sets spid and ADDR
start_server() {
	"$1" --port 0 --root "$OUT/www" >"$OUT/httpd.out" 2>"$OUT/httpd.err" &
	spid=$!
	ADDR=
	for _ in $(seq 100); do
		ADDR=$(sed -n 's/^listening on //p' "$OUT/httpd.out")
		[ -n "$ADDR" ] && return 0
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.05
	done
	warn "the server did not start: $(tail -n 1 "$OUT/httpd.err")"
	stop_server
	return 1
}

# stop_server: SIGTERM, and the count of requests it says it answered in SERVED
stop_server() {
	kill -TERM "$spid" 2>/dev/null
	wait "$spid" || warn "the server exited $?: $(tail -n 1 "$OUT/httpd.err")"
	spid=
	SERVED=$(sed -n 's/^httpd: shut down after \([0-9]*\) requests.*/\1/p' "$OUT/httpd.err")
}

# warm_up: one request on a connection of its own (bash's /dev/tcp: no
# curl needed), read to the end, which the server marks by closing
warm_up() {
	local host=${ADDR%:*} port=${ADDR##*:}
	exec 3<>"/dev/tcp/$host/$port" || return 1
	printf 'GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$WARM_URI" "$ADDR" >&3
	cat <&3 >/dev/null
	exec 3<&-
	WARMUPS=$((WARMUPS + 1))
}

# start_trace: dtrace -p on the server, once it is seen tracing: a warm-up
# request at a time until one is printed (a few, usually). Sets dpid.
start_trace() {
	rm -f "$OUT/trace.out" # -o appends
	"$DTRACE" -q -p "$spid" -n "$PROG" -o "$OUT/trace.out" 2>"$OUT/trace.err" &
	dpid=$!
	for _ in $(seq 200); do
		warm_up
		grep -q "^$WARM_URI " "$OUT/trace.out" 2>/dev/null && return 0
		kill -0 "$dpid" 2>/dev/null || break
		sleep 0.05
	done
	TRACE_WHY="dtrace -p did not attach: $(grep -v '^dtrace: [0-9]' "$OUT/trace.err" | tail -n 1)"
	kill -INT "$dpid" 2>/dev/null
	wait "$dpid" 2>/dev/null
	dpid=
	return 1
}

# stop_trace V: SIGINT, as ^C: dtrace prints the aggregation and exits.
# Checks what it recorded against the requests made: warnings, not failures.
stop_trace() {
	local v=$1 n=$2 rc lines agg agg_warm traced_warm drops lost
	kill -INT "$dpid"
	wait "$dpid"
	rc=$?
	dpid=
	[ $rc = 0 ] || warn "dtrace exited $rc: $(tail -n 1 "$OUT/trace.err")"
	# printf lines start with the URI; printa's default lines with two spaces
	lines=$(grep -c "^$URI 200\$" "$OUT/trace.out")
	traced_warm=$(grep -c "^$WARM_URI 200\$" "$OUT/trace.out")
	agg=$(awk -v u="$URI" '/^ / && $1 == u { print $2 }' "$OUT/trace.out")
	agg_warm=$(awk -v u="$WARM_URI" '/^ / && $1 == u { print $2 }' "$OUT/trace.out")
	drops=$(sed -n 's/^dtrace: \([0-9]*\) drops\{0,1\} on .*/\1/p' "$OUT/trace.err" |
		awk '{ s += $1 } END { print s + 0 }')
	lost=$(sed -n 's/^dtrace: \([0-9]*\) records\{0,1\} lost.*/\1/p' "$OUT/trace.err" |
		awk '{ s += $1 } END { print s + 0 }')
	echo "$n $lines ${agg:-none} $traced_warm ${agg_warm:-none} $drops $lost" >>"$OUT/$v.traced"
	if [ "$lines" != "$n" ] || [ "${agg:-none}" != "$n" ] ||
		[ "${agg_warm:-none}" != "$traced_warm" ] || [ "$drops" != 0 ] || [ "$lost" != 0 ]; then
		warn "warning: the client completed $n requests; dtrace printed $lines and" \
			"@[uri] = count() gave ${agg:-none} ($traced_warm and ${agg_warm:-none} for the" \
			"warm-ups); $drops drops, $lost lost"
	fi
}

declare -A RPS
# measure V R: variant V (off, idle, traced) in round R
measure() {
	local v=$1 r=$2 bin=$HTTPD log=$OUT/$1.$2.load n rps t0 t1 d0 d1 rc
	[ "$v" = off ] && bin=$OFF
	WARMUPS=0
	start_server "$bin" || return
	if [ "$v" = traced ]; then
		# an attach that failed once is not tried again: (c) is left out
		if [ -n "$TRACE_WHY" ]; then
			stop_server
			return
		fi
		if ! start_trace; then
			warn "$TRACE_WHY; the traced variant is left out"
			stop_server
			return
		fi
		d0=$(cpu_ticks "$dpid")
	else
		# the same single request as the traced runs' first warm-up
		warm_up
	fi
	t0=$(cpu_ticks "$spid")
	"$LOAD" "$ADDR" "$SECS" "$CONNS" "$URI" >"$log" 2>&1
	rc=$?
	t1=$(cpu_ticks "$spid")
	n=$(sed -n 's/^requests \([0-9]*\) .*/\1/p' "$log")
	rps=$(sed -n 's/.* rps \([0-9.]*\)$/\1/p' "$log")
	if [ "$v" = traced ]; then
		d1=$(cpu_ticks "$dpid")
		stop_trace "$v" "${n:-0}"
	fi
	stop_server
	if [ $rc != 0 ] || [ -z "$rps" ] || [ "${n:-0}" = 0 ]; then
		warn "the load failed against $v: $(tail -n 1 "$log")"
		return
	fi
	[ "$SERVED" = $((n + WARMUPS)) ] ||
		warn "warning: the server answered ${SERVED:-?} requests, the client $n and $WARMUPS warm-ups"
	RPS[$v.$r]=$rps
	echo "$rps" >>"$OUT/$v.rps"
	# CPU microseconds per request, over the load alone
	calc "($t1 - $t0) * 1000000 / $TICK / $n" >>"$OUT/$v.cpu"
	[ "$v" = traced ] && calc "($d1 - $d0) * 1000000 / $TICK / $n" >>"$OUT/$v.dcpu"
}

###########################################################################
# The rounds
###########################################################################

VARIANTS=(off idle traced)
declare -A DESC=(
	[off]="(a) probes compiled out"
	[idle]="(b) instrumented, no consumer"
	[traced]="(c) instrumented, dtrace -p tracing"
)
TRACE_WHY=

echo "udtrace HTTP server benchmark: $("$DTRACE" --version 2>&1 | head -n 1)"
echo "compiler: $("$CC" --version | head -n 1); $(uname -m), $(nproc) CPUs, Linux $(uname -r)"
echo

for ((r = 0; r < ROUNDS; r++)); do
	for ((i = 0; i < ${#VARIANTS[@]}; i++)); do
		measure "${VARIANTS[$(((i + r) % ${#VARIANTS[@]}))]}" "$r"
	done
done

declare -A MED MCPU
for v in "${VARIANTS[@]}"; do
	MED[$v]=$(median_of "$OUT/$v.rps")
	MCPU[$v]=$(median_of "$OUT/$v.cpu")
done
MDCPU=$(median_of "$OUT/traced.dcpu")
# ok V: variant V ran and has a number
ok() { [ -n "${MED[$1]:-}" ] && [ "${MED[$1]}" != nan ]; }
# ratio A B: A's median rps / B's, to three decimals, or n/a
ratio() {
	if ok "$1" && ok "$2"; then
		awk "BEGIN { printf \"%.3f\", ${MED[$1]} / ${MED[$2]} }"
	else
		echo n/a
	fi
}
# per_round A B: A / B in each round both ran, as a list in LIST; BELOW: the
# rounds where A was the slower, PAIRS: the rounds both ran
per_round() {
	local r
	LIST='' BELOW=0 PAIRS=0
	for ((r = 0; r < ROUNDS; r++)); do
		if [ -z "${RPS[$1.$r]:-}" ] || [ -z "${RPS[$2.$r]:-}" ]; then
			continue
		fi
		LIST+="$(awk "BEGIN { printf \"%.3f\", ${RPS[$1.$r]} / ${RPS[$2.$r]} }") "
		PAIRS=$((PAIRS + 1))
		awk "BEGIN { exit !(${RPS[$1.$r]} < ${RPS[$2.$r]}) }" && BELOW=$((BELOW + 1))
	done
	LIST=${LIST% }
	LIST=${LIST:--}
}

###########################################################################
# Results
###########################################################################

echo "== the sample HTTP server under load: GET $URI ($FILE_SZ bytes), $CONNS keep-alive"
echo "   connections, one request outstanding on each, $SECS s a run (bench/http/load.c)"
echo "   (a) $(basename "$OFF"): samples/http/httpd.c with -DUDTRACE_DISABLE, no -G object, no libudtrace"
echo "   (b) $HTTPD, no consumer (every probe site a disabled branch)"
echo "   (c) the same while dtrace -q -p PID -n '$PROG' -o FILE"
echo "   rps: completed 200 responses per second, the median of $ROUNDS interleaved runs, each"
echo "   on a freshly started server; cpu: the server's CPU time (all threads, /proc, in"
echo "   ticks of $((1000000 / TICK)) us) per request over the load, and dtrace's in (c)"
echo "   note: the client, the server and dtrace share this machine's $(nproc) CPUs (and other"
echo "   users' work, on a shared machine): the rates are the whole system's, and noisy"
printf '   %-40s %10s %12s %14s\n' variant rps "cpu us/req" "dtrace us/req"
for v in "${VARIANTS[@]}"; do
	if ok "$v"; then
		d=-
		[ "$v" = traced ] && d=$(printf '%.2f' "$MDCPU")
		printf '   %-40s %10.0f %12.2f %14s\n' "${DESC[$v]}" "${MED[$v]}" "${MCPU[$v]}" "$d"
	else
		printf '   %-40s %10s\n' "${DESC[$v]}" "n/a"
	fi
done
for v in "${VARIANTS[@]}"; do
	[ -s "$OUT/$v.rps" ] || continue
	printf '   %-40s %s\n' "  rps of each run, ${v}" \
		"$(awk '{ printf "%s%.0f", (NR > 1 ? " " : ""), $1 }' "$OUT/$v.rps")"
done
if [ -s "$OUT/traced.traced" ]; then
	# client requests, printf lines, @[URI], warm-up lines, @[WARM_URI], drops, lost; a run a line
	awk '{ n += $1; l += $2; a += $3; bad += ($3 != $1) + ($5 != $4) + ($2 != $1); d += $6; x += $7 }
		END { printf "   recorded in (c), all runs: %d requests completed, %d printed, %d counted by\n", n, l, a;
			printf "   @[uri] = count() (the warm-ups apart); %d drops, %d lost: %s\n", d, x,
				bad || d || x ? "NOT ALL RECORDED (the warnings above say which runs)" : "all recorded" }' \
		"$OUT/traced.traced"
fi
echo "   ratios of the medians, and of each round's runs (a round runs the three back to back)"
per_round idle off
BA_BELOW=$BELOW BA_PAIRS=$PAIRS
printf '   %-40s %7s   per round: %s\n' "b/a, no consumer / compiled out" "$(ratio idle off)" "$LIST"
per_round traced idle
printf '   %-40s %7s   per round: %s\n' "c/b, tracing / no consumer" "$(ratio traced idle)" "$LIST"
echo

###########################################################################
# Summary
###########################################################################

# verdict VALUE OP TARGET: PASS or MISS (n/a when not measured)
verdict() {
	[ "$1" = n/a ] && { echo n/a; return; }
	if awk "BEGIN { exit !($1 $2 $3) }"; then echo PASS; else echo MISS; fi
}
# A drop counts as measurable when (b) was slower than (a) in every round:
# with 5 rounds, a chance of 1 in 32 if the two were the same server.
# Fewer rounds cannot tell a drop from the noise that way.
x=$(ratio idle off)
if [ "$x" = n/a ] || [ "$BA_PAIRS" -lt 5 ]; then
	ba_verdict="n/a (needs 5 rounds of both)"
elif [ "$BA_BELOW" = "$BA_PAIRS" ]; then
	ba_verdict=MISS
else
	ba_verdict=PASS
fi
echo "== summary, the HTTP server (targets: no measurable drop without a consumer, b/a; at"
echo "   least 0.98 of that throughput while a consumer traces every request, c/b; the"
echo "   server's CPU time per request, untraced / traced, reported beside it)"
if ok idle && ok off; then
	printf 'no consumer / compiled out: %.0f / %.0f rps = %s, slower in %d of %d rounds (target: no measurable drop, not slower in every round): %s\n' \
		"${MED[idle]}" "${MED[off]}" "$x" "$BA_BELOW" "$BA_PAIRS" "$ba_verdict"
else
	echo "no consumer / compiled out: n/a (a variant did not run; see the messages above)"
fi
x=$(ratio traced idle)
if ok traced && ok idle; then
	printf 'tracing / no consumer: %.0f / %.0f rps = %s (target at least 0.98): %s\n' \
		"${MED[traced]}" "${MED[idle]}" "$x" "$(verdict "$x" '>=' 0.98)"
	printf '  server CPU per request, no consumer / tracing: %.2f / %.2f us = %s\n' \
		"${MCPU[idle]}" "${MCPU[traced]}" "$(awk "BEGIN { printf \"%.3f\", ${MCPU[idle]} / ${MCPU[traced]} }")"
else
	echo "tracing / no consumer: n/a (${TRACE_WHY:-a variant did not run; see the messages above})"
fi
exit 0
