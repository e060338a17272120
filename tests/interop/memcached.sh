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
# source is unpacked twice, once per dtrace. Checked:
#  - both builds succeed (configure enabled the -G object, -Werror included);
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
# (bookworm), INTEROP_JOBS (nproc).
. "$(dirname "$0")/../lib.sh"

MIRROR=${INTEROP_MIRROR:-http://deb.debian.org/debian}
SUITE=${INTEROP_SUITE:-bookworm}
JOBS=${INTEROP_JOBS:-$(nproc 2>/dev/null || echo 2)}
PKG=memcached
CACHE=$BUILD/interop/cache/$PKG-$SUITE
TREES=$BUILD/interop/$PKG
STAP_DTRACE=/usr/bin/dtrace
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
CURL=(curl -fsS --connect-timeout 20 --max-time 300 --retry 2)

info() { echo "# $*"; }

# The servers the run check starts, stopped on any exit.
server_pids=()
cleanup() {
	local p
	for p in "${server_pids[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT

# ---- tools and packages ---------------------------------------------------

# What is missing, as Debian package names: commands, then libevent's headers.
missing_packages() {
	local pair
	for pair in curl:curl xz:xz-utils gpgv:gpgv sha256sum:coreutils \
		dpkg-source:dpkg-dev make:make cc:gcc readelf:binutils \
		pkg-config:pkg-config; do
		have "${pair%%:*}" || echo "${pair#*:}"
	done
	if ! have pkg-config || ! pkg-config --exists libevent 2>/dev/null; then
		echo libevent-dev
	fi
	[ -x "$STAP_DTRACE" ] || echo systemtap-sdt-dev
	[ -r "$KEYRING" ] || echo debian-archive-keyring
}

# Installs what is missing when root with apt-get (running apt-get update only
# if the plain install fails, as on a fresh machine with no package lists).
install_missing() {
	local missing
	missing=$(missing_packages | sort -u | tr '\n' ' ')
	[ -z "${missing// /}" ] && return 0
	if [ "$(id -u)" -ne 0 ] || ! have apt-get; then
		info "missing packages (not root or no apt-get, not installed): $missing"
		return 0
	fi
	info "installing: $missing"
	mkdir -p "$TREES"
	# shellcheck disable=SC2086
	if ! DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y \
		--no-install-recommends $missing >"$TREES/apt.log" 2>&1; then
		timeout 300 apt-get update >>"$TREES/apt.log" 2>&1
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y \
			--no-install-recommends $missing >>"$TREES/apt.log" 2>&1 ||
			info "apt-get install failed (see $TREES/apt.log)"
	fi
}

# ---- the source package ---------------------------------------------------

# fetch URL DEST: download to DEST, whole or not at all
fetch() {
	"${CURL[@]}" -o "$2.part" "$1" && mv "$2.part" "$2"
}

# The cache is complete when SHA256SUMS (written only after verification) and
# the .dsc name are there and every file still matches.
cache_ok() {
	[ -s "$CACHE/SHA256SUMS" ] && [ -s "$CACHE/dsc" ] &&
		(cd "$CACHE" && sha256sum --quiet --strict -c SHA256SUMS) >/dev/null 2>&1
}

# Downloads the source package of $PKG into $CACHE. The chain of trust:
# InRelease (signed, checked with gpgv against Debian's archive keyring) gives
# the SHA-256 of Sources.xz, which gives those of the .dsc and its files.
# Prints the reason and returns 1 on any failure.
download_source() {
	local dl=$WORK/dl rel=$WORK/Release stanza=$WORK/stanza
	mkdir -p "$dl" "$CACHE"
	if ! fetch "$MIRROR/dists/$SUITE/InRelease" "$dl/InRelease"; then
		echo "cannot fetch $MIRROR/dists/$SUITE/InRelease"
		return 1
	fi
	if ! gpgv --keyring "$KEYRING" --output "$rel" "$dl/InRelease" >"$dl/gpgv.log" 2>&1; then
		echo "InRelease signature does not verify: $(tail -n 1 "$dl/gpgv.log")"
		return 1
	fi
	local want
	want=$(awk '/^SHA256:/ { s = 1; next } /^[^ ]/ { s = 0 }
		s && $3 == "main/source/Sources.xz" { print $1 }' "$rel")
	if [ -z "$want" ]; then
		echo "Release lists no main/source/Sources.xz"
		return 1
	fi
	if ! fetch "$MIRROR/dists/$SUITE/main/source/Sources.xz" "$dl/Sources.xz"; then
		echo "cannot fetch Sources.xz"
		return 1
	fi
	if [ "$(sha256sum <"$dl/Sources.xz" | cut -d' ' -f1)" != "$want" ]; then
		echo "Sources.xz does not match its Release checksum"
		return 1
	fi
	# the first stanza of the package
	xz -dc "$dl/Sources.xz" | awk -v pkg="$PKG" '
		/^Package: / { cur = ($2 == pkg); if (cur) found++ }
		/^$/ { if (found && cur) exit; cur = 0 }
		cur && found == 1' >"$stanza"
	local dir version
	dir=$(awk '/^Directory: / { print $2 }' "$stanza")
	version=$(awk '/^Version: / { print $2 }' "$stanza")
	if [ -z "$dir" ] || [ -z "$version" ]; then
		echo "$PKG is not in $SUITE's Sources"
		return 1
	fi
	# "sha256 size name" lines -> sha256sum's "sha256  name"
	awk '/^Checksums-Sha256:/ { s = 1; next } /^[^ ]/ { s = 0 }
		s && NF == 3 { print $1 "  " $3 }' "$stanza" >"$dl/SHA256SUMS"
	local sum name
	while read -r sum name; do
		if ! fetch "$MIRROR/$dir/$name" "$dl/$name"; then
			echo "cannot fetch $MIRROR/$dir/$name"
			return 1
		fi
	done <"$dl/SHA256SUMS"
	if ! (cd "$dl" && sha256sum --quiet --strict -c SHA256SUMS) >"$dl/sums.log" 2>&1; then
		echo "checksum mismatch: $(head -n 3 "$dl/sums.log")"
		return 1
	fi
	rm -f "$CACHE"/*
	while read -r sum name; do mv "$dl/$name" "$CACHE/"; done <"$dl/SHA256SUMS"
	grep '\.dsc$' "$dl/SHA256SUMS" | awk '{ print $2 }' >"$CACHE/dsc"
	mv "$dl/SHA256SUMS" "$CACHE/SHA256SUMS" # last: marks the cache complete
	info "downloaded $PKG $version from $MIRROR/$dir"
}

# ---- building -------------------------------------------------------------

# now: seconds since the epoch, with a fraction
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# build NAME DTRACE: unpack into $TREES/NAME, configure with the dtrace, make.
# Logs in $TREES/NAME.{unpack,configure,make}.log; times in $TREES/NAME.time.
build() {
	local name=$1 dtrace=$2 dir=$TREES/$1 t0 t1 t2
	rm -rf "$dir"
	if ! (cd "$TREES" && dpkg-source -x "$CACHE/$(cat "$CACHE/dsc")" "$name") \
		>"$TREES/$name.unpack.log" 2>&1; then
		echo "unpack"
		return 1
	fi
	t0=$(now)
	# CFLAGS as configure's default (-g -O2); configure adds -Wall -Werror -pedantic
	if ! (cd "$dir" && timeout 900 ./configure --enable-dtrace DTRACE="$dtrace") \
		>"$TREES/$name.configure.log" 2>&1; then
		echo "configure"
		return 1
	fi
	t1=$(now)
	if ! (cd "$dir" && timeout 1800 make -j"$JOBS") >"$TREES/$name.make.log" 2>&1; then
		echo "make"
		return 1
	fi
	t2=$(now)
	echo "configure $(elapsed "$t0" "$t1")s make $(elapsed "$t1" "$t2")s (-j$JOBS)" \
		>"$TREES/$name.time"
}

# notes FILE: one line per .note.stapsdt note, "provider name argc semaphore sizes"
# (sizes: the "N@" prefixes of the argument string, comma-joined, or "-")
notes() {
	readelf -n "$1" | awk '
		function flush() {
			if (prov != "") print prov, name, argc, sem, (sizes == "" ? "-" : sizes)
			prov = ""
		}
		/^ *stapsdt / { flush() }
		/^ *Provider:/ { prov = $2; name = ""; argc = 0; sem = "0"; sizes = "" }
		/^ *Name:/ { name = $2 }
		/Semaphore:/ { sem = $NF }
		/^ *Arguments:/ {
			argc = NF - 1
			for (i = 2; i <= NF; i++) {
				split($i, a, "@"); sizes = sizes (i > 2 ? "," : "") a[1]
			}
		}
		/^Displaying notes/ { flush() }
		END { flush() }'
}

# ---- the test -------------------------------------------------------------

install_missing

for t in curl xz gpgv sha256sum dpkg-source make cc readelf; do
	if ! have "$t"; then
		skip "memcached interop" "$t is not installed"
		finish
		exit
	fi
done
if ! pkg-config --exists libevent 2>/dev/null; then
	skip "memcached interop" "libevent-dev (memcached's build dependency) is not installed"
	finish
	exit
fi
if [ ! -x "$DTRACE" ]; then
	fail "our dtrace is built" "$DTRACE is missing (run make)"
	finish
	exit
fi

mkdir -p "$TREES"
if cache_ok; then
	info "source package from the cache: $CACHE/$(cat "$CACHE/dsc")"
else
	rm -f "$CACHE/SHA256SUMS"
	if [ ! -r "$KEYRING" ]; then
		skip "memcached interop" "$KEYRING is missing (debian-archive-keyring)"
		finish
		exit
	fi
	if ! why=$(download_source); then
		skip "memcached interop" "no source package: $why"
		finish
		exit
	fi
	[ -n "$why" ] && echo "$why"
fi
dsc=$(cat "$CACHE/dsc")
version=$(awk '/^Version: / { print $2; exit }' "$CACHE/$dsc")
info "memcached $version, $JOBS jobs, logs and trees in $TREES"

# Both builds; "ours" first, so its result is there even if the reference fails.
builds=(ours)
dtrace_of_ours=$DTRACE
if [ -x "$STAP_DTRACE" ] && head -n 1 "$STAP_DTRACE" | grep -q python; then
	builds+=(stap)
else
	skip "SystemTap reference build" "$STAP_DTRACE is not SystemTap's script (systemtap-sdt-dev)"
fi
declare -A built=()
for b in "${builds[@]}"; do
	if [ "$b" = ours ]; then d=$dtrace_of_ours; else d=$STAP_DTRACE; fi
	dir=$TREES/$b
	if step=$(build "$b" "$d"); then
		ok "$b: memcached $version builds with DTRACE=$d"
		info "$b: $(cat "$TREES/$b.time")"
		built[$b]=1
	else
		log=$TREES/$b.$step.log
		fail "$b: memcached $version builds with DTRACE=$d ($step failed, see $log)" \
			"$(grep -E 'error|dtrace' "$log" | tail -n 15)"
		continue
	fi
	# configure found dtrace usable (its -h test) and so links the -G object
	if grep -q "^DTRACE_INSTRUMENT_OBJ_TRUE=''" "$dir/config.log"; then
		ok "$b: configure's dtrace -h test passed (the -G object is linked)"
	else
		fail "$b: configure's dtrace -h test failed" \
			"(cd $dir && $d -h -o conftest.h -s memcached_dtrace.d)"
	fi
	expect_eq "$b: make ran dtrace -G for memcached and memcached-debug" \
		"$(grep -cE -- '-G -o memcached(_debug)?_dtrace\.o' "$TREES/$b.make.log")" 2
	info "$b: $(grep -c 'warning:' "$TREES/$b.make.log") compiler warnings in the make log"
	for exe in memcached memcached-debug; do
		notes "$dir/$exe" >"$TREES/$b.$exe.notes"
	done
done

# The probes the definition declares: "provider name argc", from our header
# (one comment line per probe: "/* memcached:::conn-allocate(int connid) */").
if [ -n "${built[ours]:-}" ]; then
	grep -cE '^/\* memcached:::' "$TREES/ours/memcached_dtrace.h" >"$TREES/defined.count"
	ndef=$(cat "$TREES/defined.count")
	info "memcached_dtrace.d defines $ndef probes"
	for exe in memcached memcached-debug; do
		n=$(wc -l <"$TREES/ours.$exe.notes")
		probes=$(awk '{ print $1, $2 }' "$TREES/ours.$exe.notes" | sort -u | wc -l)
		info "ours: $exe has $n probe sites of $probes probes"
		if [ "$n" -gt 0 ]; then
			ok "ours: $exe carries .note.stapsdt notes"
		else
			fail "ours: $exe carries .note.stapsdt notes" "readelf -n shows none"
		fi
		expect_eq "ours: every note of $exe names a semaphore" \
			"$(awk '$4 == "0x0000000000000000" || $4 == "0"' "$TREES/ours.$exe.notes" | wc -l)" 0
		if readelf -S -W "$TREES/ours/$exe" | grep -q '\.udtrace\.table'; then
			ok "ours: $exe has a .udtrace.table section"
		else
			fail "ours: $exe has a .udtrace.table section" "$(readelf -S -W "$TREES/ours/$exe" | grep -i udt)"
		fi
		if [ -x "$TABLEDUMP" ]; then
			expect_eq "ours: the probe table of $exe lists the $ndef probes" \
				"$("$TABLEDUMP" "$TREES/ours/$exe" 2>&1 | grep -c '^probe ')" "$ndef"
		fi
	done
fi

if [ -n "${built[ours]:-}" ] && [ -n "${built[stap]:-}" ]; then
	for exe in memcached memcached-debug; do
		o=$TREES/ours.$exe.notes s=$TREES/stap.$exe.notes
		awk '{ print $1, $2, $3 }' "$o" | sort -u >"$TREES/ours.$exe.set"
		awk '{ print $1, $2, $3 }' "$s" | sort -u >"$TREES/stap.$exe.set"
		if diff -u "$TREES/stap.$exe.set" "$TREES/ours.$exe.set" >"$TREES/$exe.set.diff"; then
			ok "$exe: same (provider, probe, argument count) set as SystemTap's build ($(wc -l <"$TREES/ours.$exe.set") probes)"
		else
			fail "$exe: (provider, probe, argument count) differ from SystemTap's build" \
				"$(head -n 20 "$TREES/$exe.set.diff")"
		fi
		expect_eq "$exe: same number of probe sites as SystemTap's build" \
			"$(wc -l <"$o")" "$(wc -l <"$s")"
		expect_eq "stap: every note of $exe names a semaphore" \
			"$(awk '$4 == "0x0000000000000000" || $4 == "0"' "$s" | wc -l)" 0
		# Informational: argument sizes. SystemTap's sdt.h takes size and
		# signedness from the C expression at the site, ours from the type in
		# the definition, so they can differ where the code passes another type.
		awk '{ print $1 ":" $2, $5 }' "$o" | sort -u >"$TREES/ours.$exe.sizes"
		awk '{ print $1 ":" $2, $5 }' "$s" | sort -u >"$TREES/stap.$exe.sizes"
		ndiff=$(comm -3 "$TREES/stap.$exe.sizes" "$TREES/ours.$exe.sizes" | awk '{ print $1 }' | sort -u | wc -l)
		info "$exe: $ndiff probes whose argument sizes differ from SystemTap's (see $TREES/*.$exe.sizes)"
	done
	info "sections: ours $(readelf -S -W "$TREES/ours/memcached" | grep -oE '\.(note\.stapsdt|stapsdt\.base|probes|udtrace\.[a-z]+)' | sort -u | tr '\n' ' ')"
	info "sections: stap $(readelf -S -W "$TREES/stap/memcached" | grep -oE '\.(note\.stapsdt|stapsdt\.base|probes|udtrace\.[a-z]+)' | sort -u | tr '\n' ' ')"
	info "size of memcached: ours $(stat -c %s "$TREES/ours/memcached") bytes, stap $(stat -c %s "$TREES/stap/memcached") bytes"
fi

# serve NAME: start that build's memcached on an ephemeral port of 127.0.0.1
# (memcached writes the port it bound to $MEMCACHED_PORT_FILENAME), then
# set and get a key over /dev/tcp.
serve() {
	local name=$1 portfile=$WORK/$1.port port="" pid reply i
	rm -f "$portfile"
	MEMCACHED_PORT_FILENAME=$portfile timeout 60 "$TREES/$name/memcached" \
		-l 127.0.0.1 -p -1 -U 0 -m 16 -t 2 -u "$(id -un)" >"$TREES/$name.serve.log" 2>&1 &
	pid=$!
	server_pids+=("$pid")
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
	reply=$(timeout 10 bash -c '
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf "set k 0 0 1\r\nx\r\nget k\r\nquit\r\n" >&3
		cat <&3' _ "$port" | tr -d '\r' | tr '\n' ' ')
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "$reply"
}

for b in "${builds[@]}"; do
	[ -n "${built[$b]:-}" ] || continue
	expect_eq "$b: memcached answers set/get on 127.0.0.1" "$(serve "$b")" \
		"STORED VALUE k 0 1 x END "
done

finish
