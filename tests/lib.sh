# SPDX-License-Identifier: MIT
# Helpers for the shell tests: each check prints "ok", "FAIL" or "SKIP" with a
# name, and finish prints the "#counts" line tests/run.sh sums.
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
DTRACE=$BUILD/bin/dtrace
TABLEDUMP=$BUILD/tests/tabledump
CORPUS=$TOP/tests/corpus
SDK_INCLUDE=$TOP/sdk/include
CC=${CC:-cc}
CXX=${CXX:-c++}
# Under `make check` the tools are sanitized; the programs the tests build are not.
unset ASAN_OPTIONS UBSAN_OPTIONS
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

_pass=0 _fail=0 _skip=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/udtrace-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

ok()   { echo "ok   $1"; _pass=$((_pass + 1)); }
fail() { echo "FAIL $1"; shift; [ $# -gt 0 ] && printf '    %s\n' "$@"; _fail=$((_fail + 1)); }
skip() { echo "SKIP $1: $2"; _skip=$((_skip + 1)); }
finish() { echo "#counts $_pass $_fail $_skip"; [ $_fail -eq 0 ]; }

# check NAME CMD...: ok if CMD succeeds, else fail with its output
check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then ok "$name"; else fail "$name" "$(echo "$out" | tail -n 15)"; fi
}

# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" == "$3" ]; then ok "$1"; else fail "$1" "got:  $2" "want: $3"; fi
}

# expect_file NAME GOT-FILE EXPECTED-FILE: ok if they are the same, else
# the diff; GOLDEN_UPDATE=1 (make golden-update) copies GOT over EXPECTED.
expect_file() {
	if [ "${GOLDEN_UPDATE:-}" = 1 ]; then
		cp "$2" "$3"
		ok "$1 (updated)"
	elif [ ! -f "$3" ]; then
		fail "$1" "missing $3 (run make golden-update)"
	elif diff -u "$3" "$2" >"$WORK/diff"; then
		ok "$1"
	else
		fail "$1" "$(head -30 "$WORK/diff")"
	fi
}

have() { command -v "$1" >/dev/null 2>&1; }

# wait_for FILE PATTERN: until a line of FILE matches PATTERN (10 s at most)
wait_for() {
	for _ in $(seq 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
	return 1
}

# within NAME VALUE LO HI: ok if LO <= VALUE <= HI (decimals allowed)
within() {
	if awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(v >= lo && v <= hi) }'; then
		ok "$1"
	else
		fail "$1" "$2 is not within [$3, $4]"
	fi
}

# gdb_usable: gdb is installed and may run a program under ptrace here (some
# CI containers forbid ptrace); sets GDB_WHY when not.
gdb_usable() {
	if ! have gdb; then GDB_WHY="gdb is not installed"; return 1; fi
	local out
	out=$(gdb -nx -batch -ex run -ex quit /bin/true 2>&1)
	if echo "$out" | grep -qiE 'not permitted|cannot|error|denied'; then
		GDB_WHY="gdb cannot run programs here: $(echo "$out" | grep -m1 -iE 'not permitted|cannot|error|denied')"
		return 1
	fi
	return 0
}

# semaphore PID EXE SYMBOL: the value of semaphore SYMBOL of EXE in running process PID
semaphore() {
	local addr base=0
	addr=$(nm "$2" | awk -v s="$3" '$3 == s { print $1 }')
	if readelf -h "$2" | grep -q 'DYN'; then
		base=$(awk -v f="$(readlink -f "$2")" '$6 == f { split($1, a, "-"); print a[1]; exit }' \
			"/proc/$1/maps")
	fi
	dd if="/proc/$1/mem" bs=1 skip=$((0x$addr + 0x$base)) count=2 2>/dev/null | od -An -tu2 |
		tr -d ' '
}

# wait_enabled PID EXE SYMBOL: until a consumer has set the semaphore (10 s at most)
wait_enabled() {
	for _ in $(seq 200); do
		[ "$(semaphore "$@")" = 1 ] && return 0
		sleep 0.05
	done
	return 1
}

# start_httpd ROOT: the sample server on a free port, serving ROOT: spid, dpid (a dtrace
# of the test's, killed at exit if set) and URL; killed and WORK removed at exit
start_httpd() {
	"$BUILD/samples/http/httpd" --port 0 --root "$1" >httpd.out 2>httpd.err &
	spid=$!
	dpid=
	trap '[ -n "$dpid" ] && kill -9 "$dpid" 2>/dev/null; kill "$spid" 2>/dev/null
		wait 2>/dev/null; rm -rf "$WORK"' EXIT
	if ! wait_for httpd.out '^listening on'; then
		fail "the server starts" "$(cat httpd.out httpd.err)"
		finish
		exit
	fi
	URL=http://$(sed -n 's/^listening on //p' httpd.out)
}

# drop_final_empty FILE: remove the empty line dtrace ends its output with
# (as DTrace's does, before the aggregations), for checks of the last record.
drop_final_empty() {
	sed -i '${/^$/d}' "$1"
}

# build_rtprog [NAME]: a traced program of the runtime tests
# (tests/integration/data/NAME.c, rtprog by default, with provider rt.d,
# through our -h and -G) as $WORK/NAME, with rt.h; fails the test and stops
# the script when it cannot be built.
build_rtprog() {
	local d=$TOP/tests/integration/data name=${1:-rtprog}
	(cd "$WORK" && "$DTRACE" -h -s "$d/rt.d" -o rt.h &&
		gcc -O2 -g -Wall -Wextra -I. -c "$d/$name.c" -o "$name.o" &&
		"$DTRACE" -G -s "$d/rt.d" -o "${name}_prov.o" "$name.o" &&
		gcc "$name.o" "${name}_prov.o" -o "$name" -lpthread) || {
		fail "build the traced program $name"
		finish
		exit
	}
}

# text_sum PID FILE: a checksum of FILE's executable mappings in PID, read through /proc/PID/mem
text_sum() {
	local lo hi
	awk -v f="$2" '$6 == f && $2 ~ /x/ { print $1 }' "/proc/$1/maps" | while IFS=- read -r lo hi; do
		dd if="/proc/$1/mem" bs=4096 skip=$((0x$lo / 4096)) count=$(((0x$hi - 0x$lo) / 4096)) 2>/dev/null
	done | md5sum | cut -d' ' -f1
}
# load_base PID FILE: what FILE's addresses are moved by in PID (0 for a non-PIE executable)
load_base() {
	if readelf -h "$2" | grep -q 'Type: *DYN'; then
		echo $((0x$(awk -v f="$2" '$6 == f && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' "/proc/$1/maps")))
	else
		echo 0
	fi
}

# -- Programs built with SystemTap's dtrace script (systemtap-sdt-dev), not ours ----------------

# stap_usable: SystemTap's dtrace script and <sys/sdt.h> are here: STAP_DTRACE, else STAP_WHY
stap_usable() {
	STAP_DTRACE=/usr/bin/dtrace
	if ! echo "#include <sys/sdt.h>" | gcc -E - >/dev/null 2>&1 || ! grep -qsi 'systemtap' "$STAP_DTRACE"; then
		STAP_WHY="no SystemTap dtrace script and sys/sdt.h (systemtap-sdt-dev)"
		STAP_DTRACE=
		return 1
	fi
}
# build_stapprog: data/stapprog.c (no udtrace in it) through SystemTap's dtrace -h and -G, as
# $WORK/stapprog; clears STAP_DTRACE and says why in STAP_WHY (and a failure) when it cannot
build_stapprog() {
	local d=$TOP/tests/integration/data
	stap_usable || return 1
	(cd "$WORK" && "$STAP_DTRACE" -h -s "$d/stap.d" -o stap.h &&
		gcc -O2 -g -I. -c "$d/stapprog.c" -o stapprog.o &&
		gcc -O0 -g -c "$d/stapprog_lib.c" -o stapprog_lib.o &&
		"$STAP_DTRACE" -G -s "$d/stap.d" -o stap.o stapprog.o stapprog_lib.o &&
		gcc stapprog.o stapprog_lib.o stap.o -o stapprog -lpthread) >"$WORK/build.err" 2>&1 && return 0
	fail "build stapprog with SystemTap's dtrace -G" "$(cat "$WORK/build.err")"
	STAP_DTRACE=
	STAP_WHY="not built"
	return 1
}
# note_field FILE FIELD: each SystemTap note's Location or Semaphore, as numbers
note_field() {
	readelf -n "$1" | awk -v f="$2:" '{ for (i = 1; i < NF; i++) if ($i == f) { v = $(i + 1); sub(/,$/, "", v); print v } }'
}
# sem_values PID FILE: the values of FILE's semaphores in PID, in address order
sem_values() {
	local base s
	base=$(load_base "$1" "$2")
	for s in $(note_field "$2" Semaphore | sort -u); do
		[ $((s)) = 0 ] && continue
		dd if="/proc/$1/mem" bs=1 skip=$((base + s)) count=2 2>/dev/null | od -An -tu2 | tr -d ' \n'
		printf ' '
	done
}
# site_bytes PID FILE: the first byte of each of FILE's sites in PID
site_bytes() {
	local base s
	base=$(load_base "$1" "$2")
	for s in $(note_field "$2" Location); do
		dd if="/proc/$1/mem" bs=1 skip=$((base + s)) count=1 2>/dev/null | od -An -tx1 | tr -d ' \n'
		printf ' '
	done
}

# asan_build: dtrace is built with AddressSanitizer (make check), which makes its calls in a
# process itself: no child survives a kill of it mid-call (proc/inject.c, call_in())
asan_build() { nm "$DTRACE" 2>/dev/null | grep -q ' __asan_init$'; }
