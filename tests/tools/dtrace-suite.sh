#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs DTrace's own unit tests that need no kernel provider against our
# dtrace, and prints pass/fail counts by category (the test's directory).
# Not part of make test: the suite is not ours and is not in this
# repository. Give it a directory holding test/unittest/ as Oracle's
# dtrace-utils lays it out (derived from the OpenSolaris suite):
#
#   git -C dtrace-utils archive devel test/unittest | tar -x -C /tmp/suite
#   tests/tools/dtrace-suite.sh /tmp/suite [PATTERN]
#
# Picked: tst.*.d and err.*.d whose probes are BEGIN, END, ERROR, tick-n
# and profile-n only (no other provider named, no kernel symbol, no
# trigger program or target process, no .x environment check). Judged as
# the suite's runner judges them (with the options of @@runtest-opts): tst.* must exit 0 and, where a .r file
# is, print its standard-output part (sorted unless @@nosort, after the
# .r.p filter, with 0x... values as {ptr} and without the CPU and ID
# columns); err.D_TAG.* run with
# -x errtags and must exit 1 printing [D_TAG]; other err.* must exit 1.
# DTRACE (default build/bin/dtrace), JOBS (4), TIMEOUT (20 s); VERBOSE=1 lists
# each failure with the first line of its stderr; the log of every run is
# in $OUT (default /tmp/dtrace-suite).
set -u
ROOT=${1:?usage: $0 SUITE-ROOT [PATTERN]}
PAT=${2:-}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
DTRACE=${DTRACE:-$TOP/build/bin/dtrace}
case $DTRACE in /*) ;; *) DTRACE=$PWD/$DTRACE ;; esac
JOBS=${JOBS:-4} TIMEOUT=${TIMEOUT:-20} OUT=${OUT:-/tmp/dtrace-suite}
ROOT=$(cd "$ROOT" && pwd)
rm -rf "$OUT" && mkdir -p "$OUT"

# Names of providers a user-space DTrace has no kernel for, or the tests'
# trigger programs drive.
KERNEL='(syscall|fbt|sdt|proc|sched|io|lockstat|pid[0-9$]*|usdt|ip|tcp|udp|cpc|rawtp|vminfo|sysinfo|fasttrap|mib|perf|lockstat|test_prov[0-9$]*|dt_test|javascript|plockstat[0-9$]*)[[:space:]]*:'

pick() {
	local f=$1 b
	b=$(basename "$f")
	case $b in tst.*.d | err.*.d) ;; *) return 1 ;; esac
	[ -e "${f%.d}.x" ] && return 1
	[ -e "${f%.d}.sh" ] && return 1
	grep -Eq "$KERNEL" "$f" && return 1
	grep -q '`' "$f" && return 1
	grep -Eq '@@trigger:' "$f" && ! grep -Eq '@@trigger: *none' "$f" && return 1
	grep -Eq '\$target|\$_pid|@@skip|curthread|curpsinfo|curlwpsinfo|uregs|ustack|jstack' "$f" &&
		return 1
	return 0
}

# one TEST: run it, write PASS/FAIL/XFAIL lines to $OUT/result.N
one() {
	local f=$1 rel b base tag opts flags rc nosort xfail res=PASS why=
	rel=${f#"$ROOT"/} b=$(basename "$f") base=${f%.d}
	local log=$OUT/$(echo "$rel" | tr / _)
	# @@runtest-opts in the script, else in its directory's test.options
	opts=$(sed -n 's|.*@@runtest-opts: *\(.*\) \*/.*|\1|p' "$f" | head -n 1)
	[ -z "$opts" ] && [ -e "$(dirname "$f")/test.options" ] &&
		opts=$(sed -n 's|.*@@runtest-opts: *\(.*\)$|\1|p' "$(dirname "$f")/test.options")
	flags=
	tag=
	case $b in err.D_*) flags=-xerrtags tag=${b#err.} tag=${tag%%.*} ;; esac
	grep -q '@@nosort' "$f" && nosort=1 || nosort=
	grep -q '@@xfail' "$f" && xfail=1 || xfail=
	# shellcheck disable=SC2086 # options are words
	(cd "$ROOT" && timeout "$TIMEOUT" "$DTRACE" $flags -s "$rel" $opts \
		>"$log.out" 2>"$log.err" </dev/null)
	rc=$?
	case $b in
	err.*)
		if [ $rc -ne 1 ]; then
			res=FAIL why="exit $rc"
		elif [ -n "$tag" ] && ! grep -q "\[$tag\]" "$log.err"; then
			res=FAIL why="no [$tag]"
		fi ;;
	*)
		if [ $rc -ne 0 ]; then
			res=FAIL why="exit $rc"
		elif [ -e "$base.r" ]; then
			sed '/^-- @@stderr --$/,$d' "$base.r" >"$log.want"
			if [ -x "$base.r.p" ]; then
				(cd "$ROOT" && "$base.r.p" "$rel" <"$log.out" >"$log.pp" 2>/dev/null) ||
					cp "$log.out" "$log.pp"
			else
				cp "$log.out" "$log.pp"
			fi
			sed -i 's,0x[0-9a-f][0-9a-f]*,{ptr},g' "$log.pp"
			# the suite's expectations have no CPU and ID columns: its runner's
			# dtrace leaves them out
			grep -q '^CPU  *ID ' "$log.want" ||
				sed -i -E 's/^CPU     ID (.*FUNCTION:NAME)/\1/; /FUNCTION:NAME/!s/^[ 0-9]{3} [ 0-9]{6} ( *[^ ]*:[^ ]*)/\1/' "$log.pp"
			sed -i 's,0x[0-9a-f][0-9a-f]*,{ptr},g' "$log.want"
			if [ -n "$nosort" ]; then
				cmp -s "$log.want" "$log.pp" || res=FAIL why="output differs"
			else
				cmp -s <(sort "$log.want") <(sort "$log.pp") || res=FAIL why="output differs"
			fi
		fi ;;
	esac
	[ $res = FAIL ] && [ -n "$xfail" ] && res=XFAIL
	printf '%s %s %s | %s\n' "$res" "$rel" "$why" "$(grep -v '^$' "$log.err" | head -n 1)"
}
export -f one
export ROOT DTRACE OUT TIMEOUT

cd "$ROOT" || exit 1
: >"$OUT/list"
while IFS= read -r f; do
	[ -n "$PAT" ] && ! [[ $f == *$PAT* ]] && continue
	pick "$f" && echo "$ROOT/$f" >>"$OUT/list"
done < <(find test/unittest -name '*.d' | sort)
xargs -a "$OUT/list" -d '\n' -P "$JOBS" -I{} bash -c 'one "$1"' _ {} | sort -k2 >"$OUT/results"

awk '{ split($2, p, "/"); c = p[3]; n[c]++; r[c, $1]++; t[$1]++; all++ }
END {
	printf "%-14s %5s %5s %5s\n", "category", "pass", "fail", "xfail"
	for (c in n) printf "%-14s %5d %5d %5d\n", c, r[c, "PASS"], r[c, "FAIL"], r[c, "XFAIL"] | "sort"
	close("sort")
	printf "%-14s %5d %5d %5d   %d of %d pass (%.1f%%)\n", "total", t["PASS"], t["FAIL"], t["XFAIL"],
	    t["PASS"], all, all ? 100 * t["PASS"] / all : 0
}' "$OUT/results"
[ "${VERBOSE:-}" = 1 ] && grep -v '^PASS' "$OUT/results"
exit 0
