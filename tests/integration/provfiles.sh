#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Provider files of the shapes real builds feed SystemTap's dtrace script:
#  - annotated.d: '#' annotation lines inside and between providers, built
#    without -C (libvirt's "# file: src/util/event_poll.c", "# prefix: rpc");
#  - sysheaders.d: -C with <sys/types.h>, <stdint.h> and <sys/socket.h> before
#    the provider, whose typedefs redeclare names D predefines.
# For each: the header compiles as C and C++ with gcc and clang under -Wall
# -Wextra -Werror -pedantic; a program firing every probe with arguments of the
# declared types links with our -G object and runs; readelf -n shows one note
# per probe with its provider, name and argument sizes; and where SystemTap's
# script is installed, the same program built with its header and -G object
# for the same file has the same notes.
# Then the errors: a conditional without -C, and a typedef that conflicts
# with glibc's, which names both places; neither leaves an output file.
. "$(dirname "$0")/../lib.sh"
DATA=$TOP/tests/integration/data
cd "$WORK" || exit 1

STAP=
if [ -x /usr/bin/dtrace ] && head -1 /usr/bin/dtrace | grep -q python &&
	echo '#include <sys/sdt.h>' | gcc -E -x c - >/dev/null 2>&1; then
	STAP=/usr/bin/dtrace
fi

compilers=()
for c in "gcc -x c -std=c11" "clang -x c -std=c99" "g++ -x c++ -std=c++17" "clang++ -x c++ -std=c++11"; do
	have "${c%% *}" && compilers+=("$c")
done
WFLAGS="-Wall -Wextra -Werror -pedantic"

# "provider name size size ...", one line per note, sorted: the sizes of
# "-4@%eax 8@%rdx" are -4 and 8 (negative: signed).
notes_of() {
	readelf -n "$1" | awk '
		/Provider:/ { prov = $2 }
		/Name:/ { name = $2 }
		/Arguments:/ { s = prov " " name; for (i = 2; i <= NF; i++) { split($i, a, "@"); s = s " " a[1] }
			       print s }' | sort
}

# build NAME FLAGS: our header, the program in C with each compiler, -G, link, run, notes
build() {
	local name=$1 flags=$2 c
	# shellcheck disable=SC2086
	if ! "$DTRACE" $flags -h -s "$DATA/$name.d" -o "$name.h" >"$name.h.log" 2>&1; then
		fail "$name: dtrace $flags -h" "$(cat "$name.h.log")"
		return 1
	fi
	ok "$name: dtrace $flags -h"
	for c in "${compilers[@]}"; do
		# shellcheck disable=SC2086
		check "$name: the header compiles and checks the program's arguments: $c" \
			$c $WFLAGS -O2 -I. -DHEADER="\"$name.h\"" -c "$DATA/$name.c" -o "$name.cc.o"
	done
	gcc $WFLAGS -O2 -I. -DHEADER="\"$name.h\"" -c "$DATA/$name.c" -o "$name.o" &&
		"$DTRACE" $flags -G -s "$DATA/$name.d" -o "$name-prov.o" "$name.o" &&
		gcc "$name.o" "$name-prov.o" -o "$name"
	expect_eq "$name: the -G object links" "$?" 0
	check "$name: the program runs" "./$name"
	notes_of "$name" >"$name.notes"
	expect_eq "$name: one note per probe" "$(wc -l <"$name.notes")" "$3"
}

# stap NAME FLAGS: the same program with SystemTap's header and -G object; same notes
stap_compare() {
	local name=$1 flags=$2
	if [ -z "$STAP" ]; then
		skip "$name: notes compared with SystemTap's dtrace" "SystemTap's dtrace script or sys/sdt.h is not installed"
		return
	fi
	mkdir -p stap && (
		cd stap || exit 1
		# shellcheck disable=SC2086
		"$STAP" $flags -h -s "$DATA/$name.d" -o "$name.h" &&
			gcc -O2 -I. -DHEADER="\"$name.h\"" -c "$DATA/$name.c" -o "$name.o" &&
			"$STAP" $flags -G -s "$DATA/$name.d" -o "$name-prov.o" "$name.o" &&
			gcc "$name.o" "$name-prov.o" -o "$name"
	) >"stap-$name.log" 2>&1
	if [ $? -ne 0 ]; then
		fail "$name: SystemTap's dtrace builds the same program" "$(tail -15 "stap-$name.log")"
		return
	fi
	notes_of "stap/$name" >"stap-$name.notes"
	if diff -u "stap-$name.notes" "$name.notes" >"$name.notes.diff"; then
		ok "$name: notes (provider, name, argument sizes) as SystemTap's dtrace gives them"
	else
		fail "$name: notes differ from SystemTap's dtrace" "$(cat "$name.notes.diff")"
	fi
}

build annotated "" 4 && stap_compare annotated ""
grep -q '^#define EV_REMOVE_HANDLE(arg0)' annotated.h
expect_eq "annotated: probes after '# 2 probes ...' are still in the provider" "$?" 0

build sysheaders -C 3 && stap_compare sysheaders -C
# names every C mode has keep their spelling; id_t (POSIX only) and glibc's socklen_t are spelled out
expect_eq "sysheaders: the header's argument types" \
	"$(grep -A6 '^#define NET_ACCEPT(' sysheaders.h | grep -oE 'UDT__INT, [a-z_ ]+' | tr '\n' ',')" \
	"UDT__INT, int,UDT__INT, pid_t,UDT__INT, uid_t,UDT__INT, unsigned int,UDT__INT, unsigned int,"
grep -q '^net accept -4 -4 4 4 4$' sysheaders.notes
expect_eq "sysheaders: notes give pid_t signed, uid_t, id_t, socklen_t unsigned" "$?" 0

# A conditional without -C is an error, not a comment, and writes nothing.
printf 'provider c {\n# file: c.c\n#ifdef WITH_B\n\tprobe b(int x);\n#endif\n};\n' >cond.d
out=$("$DTRACE" -h -s cond.d -o cond.h 2>&1)
expect_eq "#ifdef without -C: an error that says to use -C" "$?:$out" \
	"1:dtrace: cond.d:3:1: error: preprocessor directive #ifdef requires cpp: run dtrace with -C"
[ ! -e cond.h ]
expect_eq "#ifdef without -C: no header written" "$?" 0

# A typedef that conflicts with glibc's (and D's) pid_t names both places.
printf '#include <sys/types.h>\ntypedef long long pid_t;\nprovider t { probe p(pid_t x); };\n' >conflict.d
out=$("$DTRACE" -C -h -s conflict.d -o conflict.h 2>&1)
rc=$?
case $out in
"dtrace: conflict.d:2:19: error: typedef 'pid_t' as long long conflicts with 'pid_t' as int (declared at /usr/include/"*"sys/types.h:"*", as D predefines it)")
	ok "a conflicting typedef names both places" ;;
*) fail "a conflicting typedef names both places" "$out" ;;
esac
expect_eq "a conflicting typedef: exit 1, no header written" "$rc:$([ -e conflict.h ] && echo written)" "1:"
finish
