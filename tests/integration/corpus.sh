#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every real provider file of tests/corpus through dtrace -h and dtrace -G:
#  - the header defines the same probe macros, with the same arities, as
#    SystemTap's dtrace script writes for the same file (when it is installed);
#  - a program firing every probe once compiles with -Wall -Wextra -Werror
#    -pedantic as C11 and C++17 under gcc and clang, and links with our -G object;
#  - readelf -n shows one note per probe site with the provider, the probe name
#    and the argument count of the definition;
#  - the probe table lists every probe, with its semaphore at the address of
#    the semaphore symbol.
. "$(dirname "$0")/../lib.sh"

# file  probes(after cpp)  dtrace flags
CASES="
bind9__libdns_probes.d 0
cpython__pydtrace.d 14
glib__glib_probes.d 61
glib__gobject_probes.d 10
h2o__probes.d 2
httpd__apache_probes.d 161
illumos__iscsi_provider.d 16
memcached__memcached_dtrace.d 31
nodejs__node_provider.d 4 -xnolibs
openjdk__hotspot_jni.d 479
perl__perldtrace.d 3
php__zend_dtrace.d 11
postgresql__probes.d 57 -C
ruby__probes.d 22 -C -I$CORPUS/include
tcl__tclDTrace.d 15
"

compilers=()
for c in "gcc -std=c11" "g++ -std=c++17 -x c++" "clang -std=c11" "clang++ -std=c++17 -x c++"; do
	have "${c%% *}" && compilers+=("$c")
done

# "#define NAME(a, b) \" lines, minus _ENABLED: "NAME arity", sorted and unique
macros_of() {
	grep -E '^#define [A-Za-z0-9_]+\(' "$1" | grep -v '_ENABLED()' | grep -v '^#define UDT_' |
		sed -E 's/^#define ([A-Za-z0-9_]+)\(([^)]*)\).*/\1 \2/' |
		awk '{ n = 0; if (NF > 1) { $1 = $1; s = $0; sub(/^[^ ]+ /, "", s); n = split(s, a, ","); }
		       print $1, n }' | sort -u
}

while read -r file nprobes flags; do
	[ -n "$file" ] || continue
	dir=$WORK/${file%.d}
	mkdir -p "$dir"
	src=$CORPUS/$file
	# shellcheck disable=SC2086
	if ! (cd "$dir" && "$DTRACE" -h $flags -s "$src" -o ours.h) >"$dir/h.log" 2>&1; then
		fail "$file: dtrace -h" "$(cat "$dir/h.log")"
		continue
	fi
	macros_of "$dir/ours.h" >"$dir/ours.macros"
	expect_eq "$file: $nprobes probe macros" "$(wc -l <"$dir/ours.macros")" "$nprobes"

	if [ -x /usr/bin/dtrace ] && head -1 /usr/bin/dtrace | grep -q python; then
		# SystemTap's script (with -C it writes temporaries into the current
		# directory; it takes -x only with a separate argument: node's
		# -xnolibs makes it fail, so it is left out there)
		ref_flags=${flags//-xnolibs/}
		# shellcheck disable=SC2086
		if (cd "$dir" && /usr/bin/dtrace -h $ref_flags -s "$src" -o ref.h) >"$dir/ref.log" 2>&1; then
			macros_of "$dir/ref.h" >"$dir/ref.macros"
			if diff -u "$dir/ref.macros" "$dir/ours.macros" >"$dir/macros.diff"; then
				ok "$file: same macro names and arities as SystemTap's dtrace"
			else
				fail "$file: macro names differ from SystemTap's dtrace" "$(head -20 "$dir/macros.diff")"
			fi
		else
			skip "$file: SystemTap comparison" "SystemTap's dtrace failed on it"
		fi
	fi

	# A program that fires every probe once (0 converts to every argument type).
	{
		echo '#include "ours.h"'
		echo 'int main(void) {'
		while read -r name arity; do
			args=""
			for ((i = 0; i < arity; i++)); do args+="${args:+, }0"; done
			echo "	if ($name""_ENABLED()) $name($args);"
			echo "	$name($args);"
		done <"$dir/ours.macros"
		echo '	return 0;'
		echo '}'
	} >"$dir/fire.c"
	# Each probe is fired twice (guarded and not): two sites per probe.
	built=0
	for c in "${compilers[@]}"; do
		# shellcheck disable=SC2086
		if $c -Wall -Wextra -Werror -pedantic -O2 -c "$dir/fire.c" -o "$dir/fire.o" \
			>"$dir/cc.log" 2>&1; then
			built=$((built + 1))
		else
			fail "$file: fire.c compiles with $c" "$(head -20 "$dir/cc.log")"
		fi
	done
	expect_eq "$file: compiles under ${#compilers[@]} compilers" "$built" "${#compilers[@]}"
	# link the last object built (clang++ when present) with gcc
	gcc -O2 -c -Wall -Wextra -Werror -pedantic -std=c11 "$dir/fire.c" -o "$dir/fire.o" 2>/dev/null
	# shellcheck disable=SC2086
	if ! (cd "$dir" && "$DTRACE" -G $flags -s "$src" -o prov.o fire.o) >"$dir/g.log" 2>&1; then
		fail "$file: dtrace -G" "$(cat "$dir/g.log")"
		continue
	fi
	if ! gcc "$dir/fire.o" "$dir/prov.o" -o "$dir/fire" >"$dir/ld.log" 2>&1; then
		fail "$file: links with the -G object" "$(cat "$dir/ld.log")"
		continue
	fi
	check "$file: the program runs" "$dir/fire"

	# Notes: provider, name and argument count per site.
	readelf -n "$dir/fire" | awk '
		/Provider:/ { prov = $2 }
		/Name:/ { name = $2 }
		/Arguments:/ { n = NF - 1; print prov, name, n }' | sort >"$dir/notes"
	# expected: every probe twice, with its arity
	while read -r macro arity; do
		echo "$arity $macro"
	done <"$dir/ours.macros" | sort >"$dir/want.arity"
	awk '{ m = toupper($1) "_" toupper($2); gsub(/__/, "_", m); print $3, m }' "$dir/notes" |
		sort -u >"$dir/got.arity"
	expect_eq "$file: one note per site ($((2 * nprobes)))" "$(wc -l <"$dir/notes")" "$((2 * nprobes))"
	if diff -u "$dir/want.arity" "$dir/got.arity" >"$dir/arity.diff"; then
		ok "$file: notes carry the provider, names and argument counts"
	else
		fail "$file: notes differ from the definition" "$(head -20 "$dir/arity.diff")"
	fi

	# The probe table: every probe, semaphores where the symbols are.
	"$TABLEDUMP" "$dir/fire" >"$dir/table"
	expect_eq "$file: probe table lists $nprobes probes" "$(grep -c '^probe ' "$dir/table")" "$nprobes"
	nm "$dir/fire" | while read -r addr _ sym; do
		case $sym in *_semaphore) printf '0x%x %s\n' "$((16#$addr))" "$sym" ;; esac
	done | sort >"$dir/nm.sem"
	grep '^probe ' "$dir/table" | while read -r _ pn _ sem _; do
		printf '0x%x %s_%s_semaphore\n' "$((${sem#semaphore=}))" "${pn%%:*}" "${pn#*:}"
	done | sort >"$dir/table.sem"
	if diff -u "$dir/nm.sem" "$dir/table.sem" >"$dir/sem.diff"; then
		ok "$file: table semaphores resolve to the semaphore symbols"
	else
		fail "$file: table semaphores differ from the symbols" "$(head -10 "$dir/sem.diff")"
	fi
	if [ "$nprobes" -gt 0 ]; then
		expect_eq "$file: table records the enclosing function" \
			"$(grep '^probe ' "$dir/table" | grep -vc 'functions=main$')" "0"
	fi
done <<<"$CASES"

finish
