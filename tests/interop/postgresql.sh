#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real PostgreSQL, many processes (docs/processes.md, docs/interop.md): Debian's
# postgresql-15, built by Debian with --enable-dtrace (SystemTap's script: its
# probes are SystemTap notes, which udtrace enables: docs/notes.md), started as
# a deployment starts it (initdb, pg_ctl start, as user postgres), then
# queried by psql over 3 connections (3 backends forked by the postmaster).
# Checks:
#   - a description without -p or -c, dtrace started before the connections:
#     every query of every backend counted (30), from 3 backends;
#   - dtrace -p on the postmaster: the backends forked after it are followed;
#   - bpftrace's count of the same workload through a kernel uprobe (root),
#     the reference the issue compares against.
# Installs postgresql-15 when it is missing (root, apt-get); skips with the
# reason when it cannot. Prints ok/FAIL/SKIP lines and "#counts".
. "$(dirname "$0")/../lib.sh"

PGBIN=/usr/lib/postgresql/15/bin
cd "$WORK" || exit 1

if [ ! -x "$PGBIN/postgres" ] && [ "$(id -u)" = 0 ] && have apt-get; then
	DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq --no-install-recommends \
		postgresql-15 postgresql-client-15 >apt.log 2>&1 ||
		{ timeout 300 apt-get update -qq >>apt.log 2>&1 &&
			DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq \
				--no-install-recommends postgresql-15 postgresql-client-15 >>apt.log 2>&1; }
fi
if [ ! -x "$PGBIN/postgres" ] || ! have psql; then
	skip "PostgreSQL" "postgresql-15 is not installed (and could not be: not root, or no apt-get)"
	finish
	exit
fi
if [ "$(id -u)" != 0 ] || ! id postgres >/dev/null 2>&1; then
	skip "PostgreSQL" "needs root to start the server as user postgres"
	finish
	exit
fi
if ! readelf -n "$PGBIN/postgres" 2>/dev/null | grep -q query__start; then
	skip "PostgreSQL" "this postgres has no probes (built without --enable-dtrace)"
	finish
	exit
fi

chmod 755 "$WORK"
mkdir -m 700 data && mkdir run && chown postgres data run # (run: the socket and the log)
as_pg() { su postgres -s /bin/sh -c "$*"; }
as_pg "$PGBIN/initdb -D '$WORK/data' -A trust" >initdb.log 2>&1 ||
	{ fail "initdb" "$(tail -5 initdb.log)"; finish; exit; }
as_pg "$PGBIN/pg_ctl -D '$WORK/data' -o \"-k '$WORK/run' -c listen_addresses=''\" -l '$WORK/run/pg.log' -w start" \
	>pgctl.log 2>&1 || { fail "pg_ctl start" "$(cat pgctl.log run/pg.log 2>&1 | tail -n 5)"; finish; exit; }
trap 'as_pg "$PGBIN/pg_ctl -D \"$WORK/data\" -m immediate stop" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
POSTMASTER=$(head -n 1 data/postmaster.pid)

# workload: 3 connections, each 10 queries "SELECT <conn>*100+<i>;"
workload() {
	local c i pids=()
	for c in 1 2 3; do
		for i in $(seq 0 9); do echo "SELECT $((c * 100 + i));"; done |
			psql -X -q -h "$WORK/run" -U postgres postgres >/dev/null 2>>psql.err &
		pids+=($!)
	done
	wait "${pids[@]}"
}
# (the backends of this script's postmaster: another server may run on the machine)
D='postgresql*:::query-start /ppid == '$POSTMASTER'/ { @q = count(); @b[pid] = count(); @s[copyinstr(arg0)] = count(); }'
END='END { printa("queries %@d\n", @q); printa("backend %@d\n", @b); printa("%s %@d\n", @s); }'

# -- a description without -p or -c ----------------------------------------------------------------
"$DTRACE" -q -n "$D" -n "$END" >bare.out 2>bare.err &
dpid=$!
sleep 2 # (the postmaster and its helpers found, the runtime loaded into each)
workload
sleep 0.5
kill -INT "$dpid"
wait "$dpid"
expect_eq "no -p or -c: every query of 3 backends forked after dtrace started" \
	"$(grep '^queries' bare.out):$(grep -c '^backend 10$' bare.out)" "queries 30:3"
expect_eq "no -p or -c: nothing said on stderr" "$(cat bare.err)" ""

# -- -p on the postmaster ----------------------------------------------------------------------------
"$DTRACE" -q -n "$D" -n "$END" -p "$POSTMASTER" >p.out 2>p.err &
dpid=$!
sleep 2
workload
sleep 0.5
kill -INT "$dpid"
wait "$dpid"
expect_eq "-p on the postmaster: its backends followed, every query counted" \
	"$(grep '^queries' p.out):$(grep -c '^backend 10$' p.out)" "queries 30:3"

# -- bpftrace, the kernel's uprobes, on the same workload ------------------------------------------
if have bpftrace; then
	timeout 60 bpftrace -e "usdt:$PGBIN/postgres:postgresql:query__start { @ = count(); }" \
		>bt.out 2>bt.err &
	bpid=$!
	for _ in $(seq 100); do grep -q Attaching bt.out 2>/dev/null && break; sleep 0.1; done
	sleep 0.5
	workload
	sleep 0.5
	kill -INT "$bpid"
	wait "$bpid"
	bt=$(sed -n 's/^@: //p' bt.out)
	if [ -n "$bt" ]; then
		expect_eq "bpftrace's uprobes count the same queries" "$bt" 30
	else
		skip "bpftrace's count" "bpftrace could not attach: $(tail -n 1 bt.err)"
	fi
else
	skip "bpftrace's count" "bpftrace is not installed"
fi

finish
