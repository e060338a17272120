#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Probes from SystemTap notes (docs/notes.md), on the binaries of this
# machine: Debian's python3, libstdc++'s libstdcxx provider under a C++
# program, and a program of ours built with SystemTap's own dtrace -G and
# <sys/sdt.h>. dtrace lists them as readelf reads the notes, as root and as
# an unprivileged user tracing its own process.
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
cd "$WORK" || exit 1
chmod 755 "$WORK"

# Debian's python3 (not one of a virtual environment or pyenv first in PATH)
PY=$(readlink -f /usr/bin/python3 2>/dev/null)
if [ -z "$PY" ] || ! readelf -n "$PY" 2>/dev/null | grep -q 'Provider: python'; then
	PY_WHY="no /usr/bin/python3 with SystemTap notes (Debian's python3 has them)"
	PY=
fi
# SystemTap's dtrace script (systemtap-sdt-dev), not ours
STAP_DTRACE=/usr/bin/dtrace
if ! echo "#include <sys/sdt.h>" | gcc -E - >/dev/null 2>&1 || ! grep -qsi 'systemtap' "$STAP_DTRACE"; then
	STAP_WHY="no SystemTap dtrace script and sys/sdt.h (systemtap-sdt-dev)"
	STAP_DTRACE=
fi
if [ -n "$STAP_DTRACE" ]; then
	("$STAP_DTRACE" -h -s "$D/stap.d" -o stap.h &&
		gcc -O2 -g -I. -c "$D/stapprog.c" -o stapprog.o &&
		gcc -O0 -g -c "$D/stapprog_lib.c" -o stapprog_lib.o &&
		"$STAP_DTRACE" -G -s "$D/stap.d" -o stap.o stapprog.o stapprog_lib.o &&
		gcc stapprog.o stapprog_lib.o stap.o -o stapprog) >build.err 2>&1 ||
		{ fail "build stapprog with SystemTap's dtrace -G" "$(cat build.err)"; STAP_DTRACE=; STAP_WHY="not built"; }
fi
CXX_OK=1
g++ -O2 -g "$D/throw.cc" -o throw 2>build.err || { fail "build throw.cc" "$(cat build.err)"; CXX_OK=; }
LIBSTDCXX=$( [ -n "$CXX_OK" ] && readlink -f "$(ldd ./throw | awk '/libstdc\+\+/ { print $3 }')")
if [ -n "$CXX_OK" ] && ! readelf -n "$LIBSTDCXX" 2>/dev/null | grep -q 'Provider: libstdcxx'; then
	CXX_WHY="$LIBSTDCXX has no libstdcxx SystemTap notes"
	CXX_OK=
fi

# start AS NAME CMD...: run CMD (as AS) waiting on a FIFO; sets PID, and FD 3 releases it
start() {
	local as=$1 name=$2
	shift 2
	rm -f "$name.in"
	mkfifo "$name.in"
	chmod 666 "$name.in"
	$as "$@" <"$name.in" >"$name.out" 2>"$name.err" &
	PID=$!
	exec 3>"$name.in"
	wait_for "$name.out" '^ready'
}
release() {
	echo go >&3
	exec 3>&-
	wait "$PID"
}

# The notes as readelf gives them: "provider name args" per site, in order.
notes_of() {
	readelf -n "$1" | awk '
		/Provider:/ { p = $2 }
		/Name:/ { n = $2; gsub(/__/, "-", n) }
		/Arguments:/ { sub(/^ *Arguments: */, ""); print p, n, $0 }'
}

# -- Listing ------------------------------------------------------------------------------------

list_checks() {
	local as=$1 who=$2

	if [ -n "$PY" ]; then
		start "$as" py "$PY" "$D/lines.py" 3 wait
		got=$($as "$DTRACE" -l -p "$PID" 2>&1 | awk -v p="python$PID" '$2 == p { print $3, $NF }')
		want=$(notes_of "$PY" | awk -v m="$(basename "$PY")" '$1 == "python" { print m, $2 }')
		expect_eq "$who: python3 probes listed as its notes say (module, name)" \
			"$(echo "$got" | tr '\n' '|')" "$(echo "$want" | tr '\n' '|')"
		got=$($as "$DTRACE" -l -v -n "python$PID:::line" -p "$PID" 2>&1 |
			grep -E 'args\[|Probe Sites|semaphore' | tr -d '\t' | tr '\n' '|')
		site=$(readelf -n "$PY" | awk '/Name: line$/ { l = 1 } l && /Location:/ { gsub(/,/, ""); print $2, $6; exit }')
		args=$(notes_of "$PY" | awk '$1 == "python" && $2 == "line" { $1 = ""; $2 = ""; sub(/^  /, ""); print }')
		want="args[0]: uint64_t|args[1]: uint64_t|args[2]: int32_t|"
		want+="Probe Sites (SystemTap notes, .note.stapsdt)|"
		# shellcheck disable=SC2086
		want+="$(printf '0x%x semaphore 0x%x' $site): $args|"
		expect_eq "$who: dtrace -l -v: python:::line's types from its operands' sizes, its site from the note" \
			"$got" "$want"
		release
	else
		skip "$who: python3 probes" "$PY_WHY"
	fi

	if [ -n "$CXX_OK" ]; then
		start "$as" cxx ./throw 3 wait
		got=$($as "$DTRACE" -l -n 'libstdcxx$target:::' -p "$PID" 2>&1 | awk 'NR > 1 { print $3, $4, $5 }')
		want="$(basename "$LIBSTDCXX") __cxa_begin_catch catch|$(basename "$LIBSTDCXX") __cxa_throw throw|$(basename "$LIBSTDCXX") __cxa_rethrow rethrow|"
		expect_eq "$who: libstdcxx probes of a C++ program, with their functions" \
			"$(echo "$got" | tr '\n' '|')" "$want"
		release
		expect_eq "$who: the C++ program runs on" "$(cat cxx.out | tail -1)" "thrown=3 rethrown=1"
	else
		skip "$who: libstdcxx probes" "${CXX_WHY:-no C++ program}"
	fi

	if [ -n "$STAP_DTRACE" ]; then
		start "$as" stap ./stapprog 3 wait
		got=$($as "$DTRACE" -l -p "$PID" 2>&1 | awk -v p="stapprog$PID" '$2 == p { print $3, $4, $5 }')
		expect_eq "$who: SystemTap-built program: its probes, functions and names" \
			"$(echo "$got" | tr '\n' '|')" "stapprog report mem|stapprog work tick|stapprog frame frame|stapprog frame nosem|"
		got=$($as "$DTRACE" -l -v -n 'stapprog$target:::' -p "$PID" 2>&1 | grep 'args\[' | tr -d '\t' | tr '\n' ' ')
		expect_eq "$who: SystemTap-built program: args[] typed by size and sign" "$got" \
			"args[0]: int64_t args[1]: int32_t args[0]: int32_t args[1]: int64_t args[2]: int64_t args[0]: int32_t args[1]: int64_t args[2]: int16_t args[3]: int8_t "
		got=$($as "$DTRACE" -l -v -n 'stapprog$target:::' -p "$PID" 2>&1 | grep -A1 'Probe Sites' |
			grep -v 'Probe Sites\|^--' | sed 's/.*: //' | tr '\n' '|')
		want=$(notes_of ./stapprog | awk '{ $1 = ""; $2 = ""; sub(/^ +/, ""); print $0 == "" ? "(no arguments)" : $0 }' | tr '\n' '|')
		expect_eq "$who: SystemTap-built program: each site's operands as readelf reads them" "$got" "$want"
		release
	else
		skip "$who: SystemTap-built program" "$STAP_WHY"
	fi
}

list_checks "" root
if [ "$(id -u)" = 0 ] && have setpriv; then
	list_checks "setpriv --reuid=65534 --regid=65534 --clear-groups" "unprivileged"
else
	skip "unprivileged listing" "needs root and setpriv to become another user"
fi

finish
