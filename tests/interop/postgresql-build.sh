#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The real-server check (docs/interop.md, docs/processes.md): Debian's
# postgresql-15 source package, built the way its INSTALL and distributions
# build it, with our dtrace:
#   ./configure --enable-dtrace DTRACE=build/bin/dtrace --prefix=... \
#       --without-readline --without-icu && make && make install
# PostgreSQL's build calls dtrace twice (src/backend/utils/Makefile and
# src/backend/Makefile):
#   $(DTRACE) -C -h -s probes.d -o probes.h.tmp      (then sed renames the
#                                   macros POSTGRESQL_ -> TRACE_POSTGRESQL_)
#   $(DTRACE) $(DTRACEFLAGS) -C -G -s utils/probes.d <every backend object> -o utils/probes.o
# Then the server is started as a deployment starts it (initdb, pg_ctl; as an
# unprivileged user when running as root: postgres refuses root) and queried
# by 4 psql connections, 4 backends forked by the postmaster. Checked:
#  - the build, with both dtrace steps; readelf -n shows a stapsdt note for
#    every probe of probes.d, and postgres has a .udtrace.table listing them;
#  - dtrace -l lists the probes of probes.d in the running postmaster (-p);
#  - dtrace -Z -n 'postgresql*:::query-start { @[copyinstr(arg0)] = count(); }'
#    started before the server: every query of every backend counted exactly;
#  - the same with -p on the postmaster;
#  - bpftrace's USDT count of the same workload (the kernel's uprobes on our
#    notes), when bpftrace is there.
# The source package is verified and cached as memcached.sh's is
# (tests/interop/lib.sh); the installed tree is kept in
# $BUILD/interop/postgresql-15/ with a stamp of what it was built from (the
# source package, our dtrace binary, the configure line): a rerun with the
# same ones does not rebuild. Skips with the reason without network, packages
# or permission to trace.
#
# Knobs: those of lib.sh; INTEROP_REBUILD=1 rebuilds even when the stamp matches.
PKG=postgresql-15

# the tools, perl (PostgreSQL's build runs its scripts) and zlib's headers
missing_packages() {
	interop_missing
	have perl || echo perl
	[ -r /usr/include/zlib.h ] || echo zlib1g-dev
}

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

SRC=$TREES/src
PREFIX=$TREES/inst
PGBIN=$PREFIX/bin
OUT=$TREES/out # what the tools printed, kept for inspection
CONFIGURE=(./configure --enable-dtrace "DTRACE=$DTRACE" "--prefix=$PREFIX"
	--without-readline --without-icu)
CMD="(cd $SRC && ${CONFIGURE[*]} && make -j$JOBS && make install)"

# ---- building ----------------------------------------------------------------

# build_key: what the installed tree is built from
build_key() {
	{
		cat "$CACHE/SHA256SUMS"
		sha256sum <"$DTRACE"
		echo "${CONFIGURE[*]}"
	} | sha256sum | cut -d' ' -f1
}

# build: unpack, configure, make, make install (all niced: this is a long
# build on machines others share); logs $TREES/{configure,make,install}.log,
# times in $TREES/time. On failure prints the step that failed.
build() {
	local t0 t1 t2 t3
	rm -f "$TREES/stamp" "$TREES"/*.log "$TREES/time"
	rm -rf "$PREFIX"
	unpack "$SRC" || { echo unpack && return 1; }
	t0=$(now)
	(cd "$SRC" && nice -n 19 timeout 900 "${CONFIGURE[@]}") >"$TREES/configure.log" 2>&1 ||
		{ echo configure && return 1; }
	t1=$(now)
	(cd "$SRC" && nice -n 19 timeout 3600 make -j"$JOBS") >"$TREES/make.log" 2>&1 ||
		{ echo make && return 1; }
	t2=$(now)
	(cd "$SRC" && nice -n 19 timeout 900 make install) >"$TREES/install.log" 2>&1 ||
		{ echo install && return 1; }
	t3=$(now)
	echo "configure $(elapsed "$t0" "$t1")s, make $(elapsed "$t1" "$t2")s (-j$JOBS)," \
		"make install $(elapsed "$t2" "$t3")s" >"$TREES/time"
}

# errors_of LOG: the distinct error lines of a failed step, else its tail
errors_of() {
	{ grep -E 'error: |dtrace: |\*\*\* ' "$1" || tail -n 15 "$1"; } | sort | uniq -c |
		sort -rn | head -n 12
}

# ---- running -----------------------------------------------------------------

# as_user CMD...: CMD as the server's user ($RUNAS: nobody when root, else us)
as_user() {
	if [ -n "$RUNAS" ]; then
		runuser -u "$RUNAS" -- env HOME="$WORK/run" "$@"
	else
		"$@"
	fi
}

# The workload: 4 connections (4 backends), each running Q1 5 times, Q2 3
# times and its own query once; EXPECTED holds the counts, "COUNT QUERY".
Q1="SELECT 1 AS udtrace_one;"
Q2="SELECT count(*) AS udtrace_two FROM pg_class;" # (bpftrace's str() keeps 64 bytes)
CONNS=4
workload() {
	local c pids=()
	for c in $(seq "$CONNS"); do
		{
			printf '%s\n' "$Q1" "$Q1" "$Q1" "$Q1" "$Q1"
			printf '%s\n' "$Q2" "$Q2" "$Q2"
			echo "SELECT $c AS udtrace_conn;"
		} | as_user "$PGBIN/psql" -X -q -h "$WORK/run" -U postgres postgres \
			>>"$OUT/psql.out" 2>>"$OUT/psql.err" &
		pids+=($!)
	done
	wait "${pids[@]}"
}
expected() {
	echo "$((CONNS * 5)) $Q1"
	echo "$((CONNS * 3)) $Q2"
	for c in $(seq "$CONNS"); do echo "1 SELECT $c AS udtrace_conn;"; done
}

# What a leg traces: the issue's description, and the backends that ran our
# queries (another PostgreSQL may run on this machine: its queries are other
# strings, its backends other pids).
D='postgresql*:::query-start { @[copyinstr(arg0)] = count(); }'
DB='postgresql*:::query-start /strstr(copyinstr(arg0), "udtrace_") != NULL/ { @b[pid] = count(); }'
END='END { printa("backend %d %@d\n", @b); }'

# counted OUT: the counts of our queries in dtrace's output, "COUNT QUERY"
# (printa's default: the key, then the count, at the end of the line)
counted() {
	awk '/udtrace_/ { n = $NF; $NF = ""; sub(/^ +/, ""); sub(/ +$/, ""); print n, $0 }' "$1" |
		sort -k2
}

# check_leg NAME OUT ERR: every query counted exactly, from $CONNS backends
check_leg() {
	local name=$1 out=$2 err=$3
	expect_eq "$name: every query of the $CONNS backends counted exactly" \
		"$(counted "$out")" "$(expected | sort -k2)"
	expect_eq "$name: from $CONNS backends, $((5 + 3 + 1)) queries each" \
		"$(grep -c "^backend [0-9]* 9$" "$out")" "$CONNS"
	expect_eq "$name: nothing said on stderr" "$(cat "$err")" ""
	info "$name: $(awk '/udtrace_/ { n += $NF } END { print n + 0 }' "$out") queries counted," \
		"$(grep -c '^backend ' "$out") backends"
}

# stop_dtrace PID: ^C, as a user ends it, then its exit
stop_dtrace() {
	sleep 0.5
	kill -INT "$1"
	wait "$1"
}

pg_ctl() { as_user "$PGBIN/pg_ctl" -D "$WORK/data" "$@"; }
start_server() {
	pg_ctl -o "-k '$WORK/run' -c listen_addresses=''" -l "$WORK/run/pg.log" -w start \
		>"$WORK/pgctl.log" 2>&1
}

# ---- the test ----------------------------------------------------------------

install_missing
require_tools "PostgreSQL build"
have perl || skip_all "PostgreSQL build" "perl is not installed"
[ -r /usr/include/zlib.h ] ||
	skip_all "PostgreSQL build" "zlib1g-dev (PostgreSQL's build dependency) is not installed"
get_source "PostgreSQL build"
info "postgresql-15 $VERSION, $JOBS jobs; tree and logs in $TREES"

key=$(build_key)
if [ "${INTEROP_REBUILD:-0}" != 1 ] && [ "$(cat "$TREES/stamp" 2>/dev/null)" = "$key" ] &&
	[ -x "$PGBIN/postgres" ]; then
	info "built tree from the cache (same source and dtrace): $PREFIX;" \
		"it took $(cat "$TREES/time")"
	ok "PostgreSQL $VERSION builds with our dtrace: $CMD (built before)"
elif step=$(build); then
	echo "$key" >"$TREES/stamp"
	ok "PostgreSQL $VERSION builds with our dtrace: $CMD"
	info "$(cat "$TREES/time"); $(grep -c 'warning:' "$TREES/make.log") compiler warnings"
else
	fail "PostgreSQL $VERSION builds with our dtrace: $CMD: $step failed" \
		"log $TREES/$step.log:" "$(errors_of "$TREES/$step.log")"
	finish
	exit
fi

# make ran both dtrace steps
expect_eq "make ran dtrace -C -h on probes.d" \
	"$(grep -cE -- "^$DTRACE -C -h -s probes.d" "$TREES/make.log")" 1
gline=$(grep -E -- "^$DTRACE +-C -G -s utils/probes.d" "$TREES/make.log")
expect_eq "make ran dtrace -C -G over the backend's objects" "$(grep -c . <<<"$gline")" 1
info "dtrace -G was given $(tr ' ' '\n' <<<"$gline" | grep -c '\.o$') objects"

# The probes of probes.d, as "provider name" (the notes' spelling, name__x)
awk '$1 == "probe" { sub(/\(.*/, "", $2); print "postgresql", $2 }' \
	"$SRC/src/backend/utils/probes.d" | sort -u >"$WORK/defined"
ndef=$(wc -l <"$WORK/defined")
notes "$PGBIN/postgres" >"$TREES/postgres.notes"
awk '{ print $1, $2 }' "$TREES/postgres.notes" | sort -u >"$WORK/noted"
info "probes.d defines $ndef probes; postgres has $(wc -l <"$TREES/postgres.notes") probe sites"
if diff -u "$WORK/defined" "$WORK/noted" >"$WORK/notes.diff"; then
	ok "readelf -n: a stapsdt note for each of the $ndef probes of probes.d"
else
	fail "readelf -n: a stapsdt note for each of the $ndef probes of probes.d" \
		"$(head -n 20 "$WORK/notes.diff")"
fi
if readelf -S -W "$PGBIN/postgres" | grep -q '\.udtrace\.table'; then
	ok "postgres has a .udtrace.table section"
else
	fail "postgres has a .udtrace.table section" "$(readelf -S -W "$PGBIN/postgres" | grep -iE 'udt|stapsdt')"
fi
if [ -x "$TABLEDUMP" ]; then
	expect_eq "its probe table lists the $ndef probes" \
		"$("$TABLEDUMP" "$PGBIN/postgres" 2>&1 | grep -c '^probe ')" "$ndef"
else
	skip "probe table contents" "$TABLEDUMP is not built (make test builds it)"
fi

# ---- the server ----------------------------------------------------------------

# postgres refuses to run as root: the server and its clients run as nobody,
# which needs to reach the installed tree
RUNAS=
if [ "$(id -u)" = 0 ]; then
	id nobody >/dev/null 2>&1 || skip_all "PostgreSQL server" "no user nobody to run it as"
	have runuser || skip_all "PostgreSQL server" "runuser (util-linux) is not installed"
	RUNAS=nobody
	chmod 755 "$WORK"
	as_user "$PGBIN/postgres" --version >/dev/null 2>&1 ||
		skip_all "PostgreSQL server" "user nobody cannot run $PGBIN/postgres (a directory above it is closed)"
fi
# Permission to trace: root may (with CAP_SYS_PTRACE), another user only its
# own processes, and under Yama's ptrace_scope 1 not even those (dtrace is
# not their parent).
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
if [ "$scope" -ge 3 ] || { [ "$(id -u)" != 0 ] && [ "$scope" -ge 1 ]; }; then
	skip_all "PostgreSQL traced" "no permission to trace it (Yama ptrace_scope $scope)"
fi

rm -rf "$OUT" && mkdir -p "$OUT"
mkdir -m 700 "$WORK/data" && mkdir "$WORK/run"
[ -n "$RUNAS" ] && chown "$RUNAS" "$WORK/data" "$WORK/run"
as_user "$PGBIN/initdb" -D "$WORK/data" -U postgres -A trust >"$WORK/initdb.log" 2>&1 ||
	{ fail "initdb" "$(tail -n 5 "$WORK/initdb.log")" && finish && exit; }
trap 'pg_ctl -m immediate stop >/dev/null 2>&1; rm -rf "$WORK"' EXIT

# -- dtrace -Z, started before the server ----------------------------------------
"$DTRACE" -q -Z -n "$D" -n "$DB" -n "$END" >"$OUT/bare.out" 2>"$OUT/bare.err" &
dpid=$!
sleep 1
start_server || { fail "pg_ctl start" "$(cat "$WORK/pgctl.log" "$WORK/run/pg.log" 2>&1 | tail -n 5)" &&
	finish && exit; }
POSTMASTER=$(head -n 1 "$WORK/data/postmaster.pid")
info "postmaster $POSTMASTER, as ${RUNAS:-$(id -un)}"
sleep 1 # (the postmaster found after its exec, the runtime loaded)
workload
stop_dtrace "$dpid"
check_leg "dtrace -Z, no -p or -c, started before the server" "$OUT/bare.out" "$OUT/bare.err"
expect_eq "psql said nothing on stderr" "$(cat "$OUT/psql.err")" ""

# -- the probes listed ------------------------------------------------------------
# listed OUT: the probes dtrace -l printed of the postmaster, as "provider name"
listed() {
	awk -v p="postgresql$POSTMASTER" '$2 == p { gsub(/-/, "__", $NF); print "postgresql", $NF }' \
		"$1" | sort -u
}
for how in "-p $POSTMASTER" ""; do
	name="dtrace -l -P 'postgresql*'${how:+ -p POSTMASTER}"
	# shellcheck disable=SC2086 # (how is words)
	"$DTRACE" -l -P 'postgresql*' $how >"$OUT/list.out" 2>"$OUT/list.err"
	if diff -u "$WORK/defined" <(listed "$OUT/list.out") >"$WORK/list.diff"; then
		ok "$name lists the $ndef probes of probes.d in the postmaster"
	else
		fail "$name lists the $ndef probes of probes.d in the postmaster" \
			"$(head -n 20 "$WORK/list.diff" "$OUT/list.err")"
	fi
done
info "dtrace -l -P 'postgresql*' (no -p) lists $(awk 'NR > 1 { print $2 }' "$OUT/list.out" |
	sort -u | wc -l) processes with the provider, $(($(wc -l <"$OUT/list.out") - 1)) probes"

# -- dtrace -p on the postmaster ------------------------------------------------------
"$DTRACE" -q -n "$D" -n "$DB" -n "$END" -p "$POSTMASTER" >"$OUT/p.out" 2>"$OUT/p.err" &
dpid=$!
sleep 2
workload
stop_dtrace "$dpid"
check_leg "dtrace -p POSTMASTER" "$OUT/p.out" "$OUT/p.err"

# -- bpftrace, the kernel's uprobes on our notes ------------------------------------------
if [ "$(id -u)" != 0 ]; then
	skip "bpftrace's count" "bpftrace needs root"
elif ! have bpftrace; then
	skip "bpftrace's count" "bpftrace is not installed"
else
	timeout 120 bpftrace -e "usdt:$PGBIN/postgres:postgresql:query__start
		/strncmp(str(arg0), \"SELECT\", 6) == 0/ { @[str(arg0)] = count(); }" \
		>"$OUT/bt.out" 2>"$OUT/bt.err" &
	bpid=$!
	for _ in $(seq 200); do grep -q Attaching "$OUT/bt.out" 2>/dev/null && break; sleep 0.1; done
	if grep -q Attaching "$OUT/bt.out"; then
		sleep 0.5
		workload
		stop_dtrace "$bpid"
		# bpftrace prints @[QUERY]: COUNT
		sed -n 's/^@\[\(.*\)\]: \([0-9]*\)$/\2 \1/p' "$OUT/bt.out" | grep udtrace_ |
			sort -k2 >"$OUT/bt.counted"
		expect_eq "bpftrace's USDT probe counts the same queries" \
			"$(cat "$OUT/bt.counted")" "$(expected | sort -k2)"
		info "bpftrace: $(awk '{ n += $1 } END { print n + 0 }' "$OUT/bt.counted") queries counted"
	else
		kill "$bpid" 2>/dev/null
		wait "$bpid" 2>/dev/null
		skip "bpftrace's count" "bpftrace could not attach: $(tail -n 1 "$OUT/bt.err")"
	fi
fi

finish
