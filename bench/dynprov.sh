#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The dynamic-probe benchmark (docs/benchmarks.md, "Dynamic probes"): the
# cost of firing a dynamic probe (udtrace/udtrace.h) with three 64-bit
# arguments while dtrace records them, against a probe of a .d file with the
# same arguments (our dtrace -h header and -G object), in one process under
# one dtrace session; and both while nothing traces them. Prints the ratio;
# never fails on a number. Builds into $BUILD/bench/dynprov/.
#
# Environment: BUILD (default build), CC (default cc), BENCH_DYN_EVENTS
# (fires per timed pass, default 2000000), BENCH_DYN_ROUNDS (default 7).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
OUT=$BUILD/bench/dynprov
N=${BENCH_DYN_EVENTS:-2000000}
ROUNDS=${BENCH_DYN_ROUNDS:-7}

mkdir -p "$OUT"
cd "$OUT" || exit 1
"$DTRACE" -h -s "$TOP/bench/enabled/probes.d" -o probes.h &&
	$CC -O2 -Wall -Wextra -I. -I"$TOP/sdk/include" -c "$TOP/bench/dynprov/fire.c" -o fire.o &&
	"$DTRACE" -G -s "$TOP/bench/enabled/probes.d" -o probes.o fire.o &&
	$CC -o fire fire.o probes.o -L"$BUILD/lib" -Wl,-rpath,"$BUILD/lib" \
		-ludtrace || { echo "bench: cannot build bench/dynprov/fire.c"; exit 1; }

echo "== Dynamic probes: a probe declared at run time against one of a .d file"
echo "   three 64-bit arguments; dtrace records them (trace(arg0..2), a 4 MB ring per thread)"
rm -f go
./fire "$N" "$ROUNDS" >result.txt 2>fire.err &
fpid=$!
for _ in $(seq 1 200); do grep -q '^ready' fire.err && break; sleep 0.05; done
cmd=(-q -b 4m -x bufpolicy=ring -o /dev/null
	-n 'bench$target:::ev, dynbench$target:::ev { trace(arg0); trace(arg1); trace(arg2); }'
	-p "$fpid")
echo "   dtrace ${cmd[*]}"
"$DTRACE" "${cmd[@]}" 2>dtrace.err
wait "$fpid"
sed 's/^/   /' result.txt | grep -v RESULT
res=$(grep '^RESULT' result.txt)
if [ -z "$res" ]; then
	echo "bench: no result"; cat fire.err dtrace.err
	exit 1
fi
get() { echo "$res" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
d=$(get d_ns) y=$(get dyn_ns) doff=$(get d_off_ns) yoff=$(get dyn_off_ns)
printf '   %-44s %10s %10s\n' "variant" "ns/fire" "vs .d"
printf '   %-44s %10.2f %10s\n' ".d probe (dtrace -h/-G), enabled" "$d" "1.00x"
ratio=$(awk -v y="$y" -v d="$d" 'BEGIN { printf "%.2f", y / d }')
printf '   %-44s %10.2f %9.2fx\n' "dynamic probe (udt_probe_fire), enabled" "$y" "$ratio"
printf '   %-44s %10.2f %10s\n' ".d probe, nothing tracing" "$doff" ""
printf '   %-44s %10.2f %10s\n' "dynamic probe, nothing tracing" "$yoff" ""
printf '   ratio dynamic / .d, enabled: %.2fx (target: within 2x)\n' "$ratio"
