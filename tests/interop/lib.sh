# shellcheck shell=bash disable=SC2034 # (what it sets is for the scripts)
# SPDX-License-Identifier: MIT
# What the real-build interop checks share (docs/interop.md): Debian's source
# package of $PKG, downloaded and verified (InRelease signature -> Sources.xz
# -> the .dsc and its files) into a cache, and the tools to build it,
# installed with apt-get when running as root. A script sets PKG (the source
# package) and defines missing_packages (what it lacks, as Debian package
# names; interop_missing prints the ones this file needs), then sources this.
#
# Knobs: INTEROP_MIRROR (http://deb.debian.org/debian), INTEROP_SUITE
# (bookworm), INTEROP_JOBS (nproc).
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

MIRROR=${INTEROP_MIRROR:-http://deb.debian.org/debian}
SUITE=${INTEROP_SUITE:-bookworm}
JOBS=${INTEROP_JOBS:-$(nproc 2>/dev/null || echo 2)}
CACHE=$BUILD/interop/cache/$PKG-$SUITE
TREES=${TREES:-$BUILD/interop/$PKG}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
CURL=(curl -fsS --connect-timeout 20 --max-time 300 --retry 2)
# the commands getting and building a source package takes, and their packages
INTEROP_TOOLS="curl:curl xz:xz-utils gpgv:gpgv sha256sum:coreutils dpkg-source:dpkg-dev
	make:make gcc:gcc readelf:binutils"

info() { echo "# $*"; }

# now: seconds since the epoch, with a fraction
now() { date +%s.%N; }
# elapsed T0 T1 [DECIMALS]: T1 - T0 in seconds
elapsed() { awk -v a="$1" -v b="$2" -v d="${3:-1}" 'BEGIN { printf "%.*f", d, b - a }'; }

# ---- tools and packages ---------------------------------------------------

# interop_missing: the packages of $INTEROP_TOOLS and the keyring not there
interop_missing() {
	local pair
	for pair in $INTEROP_TOOLS; do
		have "${pair%%:*}" || echo "${pair#*:}"
	done
	[ -r "$KEYRING" ] || echo debian-archive-keyring
}

# Installs what missing_packages prints when root with apt-get (running
# apt-get update only if the plain install fails, as on a fresh machine with
# no package lists). The log is $TREES/apt.log.
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

# skip_all WHAT REASON: the script's checks are skipped; it ends here
skip_all() {
	skip "$1" "$2"
	finish
	exit
}

# require_tools WHAT: skips everything (and ends) if a command of
# $INTEROP_TOOLS is missing, or fails if our dtrace is not built
require_tools() {
	local pair
	for pair in $INTEROP_TOOLS; do
		have "${pair%%:*}" || skip_all "$1" "${pair%%:*} is not installed"
	done
	if [ ! -x "$DTRACE" ]; then
		fail "our dtrace is built" "$DTRACE is missing (run make)"
		finish
		exit
	fi
}

# ---- the source package ---------------------------------------------------

# fetch URL DEST: download to DEST, whole or not at all; says why on failure
fetch() {
	if ! "${CURL[@]}" -o "$2.part" "$1" 2>"$WORK/fetch.err"; then
		echo "cannot fetch $1 ($(tail -n 1 "$WORK/fetch.err"))"
		return 1
	fi
	mv "$2.part" "$2"
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
	fetch "$MIRROR/dists/$SUITE/InRelease" "$dl/InRelease" || return 1
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
	fetch "$MIRROR/dists/$SUITE/main/source/Sources.xz" "$dl/Sources.xz" || return 1
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
	local name
	while read -r _ name; do
		fetch "$MIRROR/$dir/$name" "$dl/$name" || return 1
	done <"$dl/SHA256SUMS"
	if ! (cd "$dl" && sha256sum --quiet --strict -c SHA256SUMS) >"$dl/sums.log" 2>&1; then
		echo "checksum mismatch: $(head -n 3 "$dl/sums.log")"
		return 1
	fi
	rm -f "$CACHE"/*
	while read -r _ name; do mv "$dl/$name" "$CACHE/"; done <"$dl/SHA256SUMS"
	grep '\.dsc$' "$dl/SHA256SUMS" | awk '{ print $2 }' >"$CACHE/dsc"
	mv "$dl/SHA256SUMS" "$CACHE/SHA256SUMS" # last: marks the cache complete
	info "downloaded $PKG $version from $MIRROR/$dir"
}

# get_source WHAT: the verified source package in $CACHE, from the cache or
# downloaded; skips everything (and ends) when it cannot be had. Sets DSC (the
# .dsc's path) and VERSION (the package's).
get_source() {
	local why
	mkdir -p "$TREES"
	if cache_ok; then
		info "source package from the cache: $CACHE/$(cat "$CACHE/dsc")"
	else
		rm -f "$CACHE/SHA256SUMS"
		[ -r "$KEYRING" ] || skip_all "$1" "$KEYRING is missing (debian-archive-keyring)"
		if ! why=$(download_source); then
			rmdir "$CACHE" 2>/dev/null # only if empty: a stale cache stays
			skip_all "$1" "no source package: $why"
		fi
		[ -n "$why" ] && echo "$why"
	fi
	DSC=$CACHE/$(cat "$CACHE/dsc")
	VERSION=$(awk '/^Version: / { print $2; exit }' "$DSC")
}

# unpack DIR: the source package, with Debian's patches, into DIR (replaced);
# the log is DIR.unpack.log
unpack() {
	rm -rf "$1"
	(cd "$(dirname "$1")" && dpkg-source -x "$DSC" "$(basename "$1")") >"$1.unpack.log" 2>&1
}

# ---- the built programs ----------------------------------------------------

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
