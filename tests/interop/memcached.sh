#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real-build interop: Debian's memcached source package, built with our
# dtrace and with SystemTap's dtrace script (the reference).
#
# memcached's build calls dtrace itself, the way many autotools projects do:
#   configure:    $DTRACE -h -o conftest.h -s memcached_dtrace.d   (probe test)
#   Makefile.am:  ${DTRACE} -h -s memcached_dtrace.d               (default -o),
#                 then sed turns "void *" and "char *" into const pointers
#                 $(DTRACE) $(DTRACEFLAGS) -G -o memcached_dtrace.o \
#                     -s memcached_dtrace.d $(memcached_OBJECTS)
# Both paths are relative to the build directory, so it builds in-tree: the
# source is unpacked once per build. Built with gcc (ours and SystemTap's) and,
# when clang is there, with clang too. Checked:
#  - the builds succeed (configure's -Wall -Werror -pedantic included), with
#    the -G object linked; when ours fails, the errors are shown, and it is a
#    failure unless SystemTap's build fails with that compiler as well (then a
#    skip that shows both);
#  - readelf -n on memcached and memcached-debug of both builds shows the same
#    set of (provider, probe, argument count) and the same number of sites;
#  - every note names a semaphore; our binaries carry .udtrace.table, and it
#    lists every probe of the definition;
#  - each memcached serves a set/get on 127.0.0.1 (an ephemeral port).
# Downloads are verified (InRelease signature -> Sources.xz -> files) and cached
# in $BUILD/interop/cache; build trees and logs stay in $BUILD/interop/memcached
# for inspection. Missing tools are installed with apt-get when running as
# root; without network or packages the checks are skipped, not failed.
#
# Knobs: INTEROP_MIRROR (http://deb.debian.org/debian), INTEROP_SUITE
# (bookworm), INTEROP_JOBS (nproc), INTEROP_CLANG=0 (no clang builds).
PKG=memcached
STAP_DTRACE=/usr/bin/dtrace

# What is missing, as Debian package names: the tools, then libevent's headers.
missing_packages() {
	interop_missing
	have pkg-config || echo pkg-config
	if ! have pkg-config || ! pkg-config --exists libevent 2>/dev/null; then
		echo libevent-dev
	fi
	[ -x "$STAP_DTRACE" ] || echo systemtap-sdt-dev
}

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# ---- building -------------------------------------------------------------

# build NAME DTRACE CC: unpack into $TREES/NAME, configure with that dtrace and
# compiler, make (-k, so that a failure shows every file it breaks). Logs in
# $TREES/NAME.{unpack,configure,make}.log, times in $TREES/NAME.time. On
# failure prints the step that failed.
build() {
	local name=$1 dtrace=$2 cc=$3 dir=$TREES/$1 t0 t1 t2
	rm -rf "$TREES/$name".*
	if ! unpack "$dir"; then
		echo unpack
		return 1
	fi
	t0=$(now)
	# CFLAGS stay configure's default (-g -O2); configure appends
	# -Wall -Werror -pedantic -Wmissing-prototypes ... for gcc and clang alike.
	if ! (cd "$dir" && timeout 900 ./configure --enable-dtrace DTRACE="$dtrace" CC="$cc") \
		>"$TREES/$name.configure.log" 2>&1; then
		echo configure
		return 1
	fi
	t1=$(now)
	if ! (cd "$dir" && timeout 1800 make -k -j"$JOBS") >"$TREES/$name.make.log" 2>&1; then
		echo make
		return 1
	fi
	t2=$(now)
	echo "configure $(elapsed "$t0" "$t1")s, make $(elapsed "$t1" "$t2")s (-j$JOBS)" \
		>"$TREES/$name.time"
}

# errors_of LOG: what a failed step printed: the distinct error messages with
# their counts (the compiler's and dtrace's, else make's), then the first one
# in full (after the dtrace command it came from, with the compiler's macro
# expansion notes), or else the log's tail.
errors_of() {
	local log=$1 pat='error: |dtrace: |\*\*\* ' n
	n=$(grep -m 1 -nE "$pat" "$log" | cut -d: -f1)
	if [ -z "$n" ]; then
		tail -n 15 "$log"
		return
	fi
	{ grep -oE '(error: |dtrace: ).*' "$log" || grep -oE '\*\*\* .*' "$log"; } |
		sort | uniq -c | sort -rn | head -n 8
	echo "first error:"
	# the line before a dtrace error is the make recipe that ran it
	if [ "$n" -gt 1 ] && sed -n "${n}p" "$log" |
		grep -qE '^dtrace: |^[^ ]*\.d:[0-9]+:[0-9]+: error: '; then
		n=$((n - 1))
	fi
	sed -n "${n},$((n + 8))p" "$log"
}

# no_semaphore NOTES: how many notes name no semaphore
no_semaphore() { awk '$4 ~ /^0x0*$/ || $4 == "0"' "$1" | wc -l; }

# dtrace_times NAME DTRACE: how long that dtrace takes for memcached's -h and
# -G (over memcached's objects), run again in the finished tree
dtrace_times() {
	local dir=$TREES/$1 t0 t1 t2 objs
	objs=("$dir"/memcached-*.o)
	t0=$(now)
	(cd "$dir" && "$2" -h -s memcached_dtrace.d -o "$WORK/$1.h") >/dev/null 2>&1 ||
		{ echo "dtrace -h failed when run again" && return; }
	t1=$(now)
	(cd "$dir" && "$2" -G -s memcached_dtrace.d -o "$WORK/$1.o" "${objs[@]}") >/dev/null 2>&1 ||
		{ echo "dtrace -G failed when run again" && return; }
	t2=$(now)
	echo "dtrace -h $(elapsed "$t0" "$t1" 3)s, dtrace -G $(elapsed "$t1" "$t2" 3)s (${#objs[@]} objects)"
}

# sections NAME: the probe-related sections of that build's memcached
sections() {
	readelf -S -W "$TREES/$1/memcached" |
		grep -oE '\.(note\.stapsdt|stapsdt\.base|probes|udtrace\.[a-z]+)' | sort -u | tr '\n' ' '
}

# serve NAME: start that build's memcached on an ephemeral port of 127.0.0.1
# (memcached writes the port it bound to $MEMCACHED_PORT_FILENAME, "-p -1"
# asks for any port), set and get a key over bash's /dev/tcp, print the reply.
# The server is stopped here, and by its timeout if this shell dies first.
serve() {
	local name=$1 portfile=$WORK/$1.port port="" pid reply i
	rm -f "$portfile"
	MEMCACHED_PORT_FILENAME=$portfile timeout 60 "$TREES/$name/memcached" \
		-l 127.0.0.1 -p -1 -U 0 -m 16 -t 2 -u "$(id -un)" >"$TREES/$name.serve.log" 2>&1 &
	pid=$!
	for ((i = 0; i < 50; i++)); do
		[ -s "$portfile" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	port=$(awk '/^TCP INET:/ { print $3; exit }' "$portfile" 2>/dev/null)
	if [ -z "$port" ]; then
		kill "$pid" 2>/dev/null
		echo "did not start: $(head -n 5 "$TREES/$name.serve.log")"
		return 1
	fi
	# shellcheck disable=SC2016 # $1 is the inner shell's
	reply=$(timeout 10 bash -c '
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf "set k 0 0 1\r\nx\r\nget k\r\nquit\r\n" >&3
		cat <&3' _ "$port" | tr -d '\r' | tr '\n' ' ')
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "$reply"
}

# ---- the test -------------------------------------------------------------

install_missing
require_tools "memcached interop"
if ! pkg-config --exists libevent 2>/dev/null; then
	skip_all "memcached interop" "libevent-dev (memcached's build dependency) is not installed"
fi
get_source "memcached interop"
version=$VERSION
info "memcached $version, $JOBS jobs; trees and logs in $TREES"

have_stap=
if [ -x "$STAP_DTRACE" ] && head -n 1 "$STAP_DTRACE" | grep -q python; then
	have_stap=1
else
	skip "SystemTap reference builds" "$STAP_DTRACE is not SystemTap's script (systemtap-sdt-dev)"
fi

# The builds: NAME DTRACE CC. Ours first, so it is tried even if the reference
# fails; the clang pair when clang is there (INTEROP_CLANG=0 leaves it out).
legs=("ours $DTRACE gcc")
[ -n "$have_stap" ] && legs+=("stap $STAP_DTRACE gcc")
if [ "${INTEROP_CLANG:-1}" != 0 ] && have clang; then
	legs+=("ours-clang $DTRACE clang")
	[ -n "$have_stap" ] && legs+=("stap-clang $STAP_DTRACE clang")
fi

declare -A built=() failed=()
for leg in "${legs[@]}"; do
	read -r b d cc <<<"$leg"
	dir=$TREES/$b
	cmd="./configure --enable-dtrace DTRACE=$d CC=$cc && make"
	if ! step=$(build "$b" "$d" "$cc"); then
		failed[$b]=$step
		info "$b: $step failed: (cd $dir && $cmd), log $TREES/$b.$step.log"
		continue
	fi
	built[$b]=1
	ok "$b: memcached $version builds: $cmd"
	info "$b: $(cat "$TREES/$b.time"); $(grep -c 'warning:' "$TREES/$b.make.log") compiler warnings"
	info "$b: $(dtrace_times "$b" "$d")"
	# configure's "$DTRACE -h" test passed, so the -G object is linked in
	if grep -q "^DTRACE_INSTRUMENT_OBJ_TRUE=''" "$dir/config.log"; then
		ok "$b: configure's dtrace -h test passed (the -G object is linked)"
	else
		fail "$b: configure's dtrace -h test failed (memcached links no -G object)" \
			"(cd $dir && $d -h -o conftest.h -s memcached_dtrace.d)"
	fi
	expect_eq "$b: make ran dtrace -G for memcached and memcached-debug" \
		"$(grep -cE -- '-G -o memcached(_debug)?_dtrace\.o' "$TREES/$b.make.log")" 2
	for exe in memcached memcached-debug; do
		notes "$dir/$exe" >"$TREES/$b.$exe.notes"
		info "$b: $exe has $(wc -l <"$TREES/$b.$exe.notes") probe sites" \
			"of $(awk '{ print $1, $2 }' "$TREES/$b.$exe.notes" | sort -u | wc -l) probes"
		expect_eq "$b: every note of $exe names a semaphore" \
			"$(no_semaphore "$TREES/$b.$exe.notes")" 0
	done
done

# A build that failed: a failure of ours when the reference builds (or is not
# there); when the reference fails the same way (it does with clang, whose
# -pedantic -Werror rejects SystemTap's sdt.h) the leg is skipped, with both
# errors, since SystemTap's script is the bar a drop-in replacement meets.
for leg in "${legs[@]}"; do
	read -r b d cc <<<"$leg"
	[ -n "${failed[$b]:-}" ] || continue
	step=${failed[$b]}
	what="$b: memcached $version builds: (cd $TREES/$b && ./configure --enable-dtrace DTRACE=$d CC=$cc && make)"
	ref=${b/ours/stap}
	if [ "$b" != "$ref" ] && [ -n "${failed[$ref]:-}" ]; then
		skip "$what" "SystemTap's script fails with $cc too ($ref: ${failed[$ref]})"
		echo "    ours ($step failed):"
		errors_of "$TREES/$b.$step.log" | sed 's/^/      /'
		echo "    SystemTap's (${failed[$ref]} failed):"
		errors_of "$TREES/$ref.${failed[$ref]}.log" | sed 's/^/      /'
	elif [ "$b" = "$ref" ] && [[ $b == stap* ]]; then
		# the reference alone: reported with the ours leg when that fails too
		[ -n "${failed[${b/stap/ours}]:-}" ] ||
			skip "$what" "the reference build fails ($step): $(errors_of "$TREES/$b.$step.log" | head -n 1)"
	else
		fail "$what: $step failed" "$(errors_of "$TREES/$b.$step.log" | sed 's/^/  /')"
	fi
done

# Ours: the probe table is there and lists every probe of the definition.
for b in ours ours-clang; do
	[ -n "${built[$b]:-}" ] || continue
	ndef=$(grep -cE '^/\* memcached:::' "$TREES/$b/memcached_dtrace.h")
	info "$b: memcached_dtrace.d defines $ndef probes"
	for exe in memcached memcached-debug; do
		if readelf -S -W "$TREES/$b/$exe" | grep -q '\.udtrace\.table'; then
			ok "$b: $exe has a .udtrace.table section"
		else
			fail "$b: $exe has a .udtrace.table section" \
				"$(readelf -S -W "$TREES/$b/$exe" | grep -iE 'udt|probes|stapsdt')"
		fi
		if [ -x "$TABLEDUMP" ]; then
			expect_eq "$b: the probe table of $exe lists the $ndef probes" \
				"$("$TABLEDUMP" "$TREES/$b/$exe" 2>&1 | grep -c '^probe ')" "$ndef"
		fi
	done
done
[ -x "$TABLEDUMP" ] || skip "probe table contents" "$TABLEDUMP is not built (make test builds it)"

# Ours against SystemTap's, for each compiler both built with.
for pair in "ours stap" "ours-clang stap-clang"; do
	read -r o s <<<"$pair"
	if [ -z "${built[$o]:-}" ] || [ -z "${built[$s]:-}" ]; then
		continue
	fi
	for exe in memcached memcached-debug; do
		on=$TREES/$o.$exe.notes sn=$TREES/$s.$exe.notes
		awk '{ print $1, $2, $3 }' "$on" | sort -u >"$TREES/$o.$exe.set"
		awk '{ print $1, $2, $3 }' "$sn" | sort -u >"$TREES/$s.$exe.set"
		if diff -u "$TREES/$s.$exe.set" "$TREES/$o.$exe.set" >"$TREES/$o.$exe.set.diff"; then
			ok "$o: $exe has the (provider, probe, argument count) set of SystemTap's build ($(wc -l <"$TREES/$o.$exe.set") probes)"
		else
			fail "$o: $exe has the (provider, probe, argument count) set of SystemTap's build" \
				"$(head -n 20 "$TREES/$o.$exe.set.diff")"
		fi
		expect_eq "$o: $exe has as many probe sites as SystemTap's build" \
			"$(wc -l <"$on")" "$(wc -l <"$sn")"
		# Informational: argument sizes. SystemTap's sdt.h takes size and
		# signedness from the C expression at each site, ours from the type in
		# the definition, so they differ where the code passes another type
		# (size_t for int, uint8_t for int, ...).
		awk '{ print $1 ":" $2, $5 }' "$on" | sort -u >"$TREES/$o.$exe.sizes"
		awk '{ print $1 ":" $2, $5 }' "$sn" | sort -u >"$TREES/$s.$exe.sizes"
		info "$o: $exe: $(comm -3 "$TREES/$s.$exe.sizes" "$TREES/$o.$exe.sizes" |
			awk '{ print $1 }' | sort -u | wc -l) probes with other argument sizes" \
			"than SystemTap's (diff $TREES/{$s,$o}.$exe.sizes)"
	done
	info "$o: sections $(sections "$o"); $(stat -c %s "$TREES/$o/memcached") bytes"
	info "$s: sections $(sections "$s"); $(stat -c %s "$TREES/$s/memcached") bytes"
done

# Each memcached that built serves a set and a get.
for leg in "${legs[@]}"; do
	read -r b _ <<<"$leg"
	[ -n "${built[$b]:-}" ] || continue
	expect_eq "$b: memcached answers set/get on 127.0.0.1" "$(serve "$b")" \
		"STORED VALUE k 0 1 x END "
done

finish
