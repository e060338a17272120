# SPDX-License-Identifier: MIT
# The benchmark scripts' shared helpers: sourced (after TOP is set) by
# bench/*.sh. What they build with: BUILD (made absolute), its dtrace, CC.

BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
DTRACE=$BUILD/bin/dtrace
CC=${CC:-cc}

have() { command -v "$1" >/dev/null 2>&1; }
die() { echo "bench: $*" >&2; exit 1; }
# run CMD...: run it quietly; on failure show its output and stop
run() {
	local out
	out=$("$@" 2>&1) || die "failed: $*"$'\n'"$out"
}
# median: of the numbers on standard input, one a line ("nan" when there are none)
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan";
		else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# calc EXPR: awk's value of it
calc() { awk "BEGIN { print $1 }"; }
# field FILE NAME: NAME's value in the last "RESULT name=value ..." line of FILE
field() { sed -n "s/^RESULT .*\\<$2=\\([^ ]*\\).*/\\1/p" "$1" | tail -n 1; }
# uprobe_unavailable: why bpftrace's uprobes cannot run here (nothing when they can)
uprobe_unavailable() {
	if ! have bpftrace; then
		echo "bpftrace not installed (apt-get install bpftrace)"
	elif [ "$(id -u)" != 0 ]; then
		echo "bpftrace needs root to load BPF programs"
	fi
}
# keep_fields V LOG NAME...: file each NAME of LOG's RESULT line (ev.c's) under $OUT/V.NAME;
# 1, said, when LOG has none
keep_fields() {
	local v=$1 log=$2 f
	shift 2
	if [ -z "$(field "$log" events)" ]; then
		echo "   bench: $v gave no result: $(tail -n 2 "$log" | tr '\n' ' ')" >&2
		return 1
	fi
	for f; do field "$log" "$f" >>"$OUT/$v.$f"; done
}
# interleave ROUNDS V...: the script's measure() of each variant ROUNDS times, the order
# turned by one each round
interleave() {
	local rounds=$1 r i
	shift
	for ((r = 0; r < rounds; r++)); do
		for ((i = 0; i < $#; i++)); do
			local k=$((((i + r) % $#) + 1))
			measure "${!k}"
		done
	done
}
