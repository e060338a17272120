#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark 19, an idle session (docs/runtime.md, "Pacing"): what a dtrace -p
# whose probes do not fire costs the host, against bpftrace on the same probe
# in the same run, and what the saving costs the records:
#  (a) wake-ups per second (the consumer's context switches, from
#      /proc/PID/task/*/status) and CPU per hour (its threads' time on a CPU,
#      /proc/PID/task/*/schedstat) over SECS seconds of nothing firing, for
#      one session before its first fire (no buffers yet), one after it, and
#      eight at once (each on its own server);
#  (b) the latency from a fire after SECS seconds of nothing to its line read
#      from the tracer's output (the record's timestamp against
#      CLOCK_MONOTONIC when the line arrives), for dtrace as it is (DTrace's
#      switchrate: a second), dtrace -x switchrate=100hz, and bpftrace.
# The target is the sample HTTP server (samples/http), fired by one request.
# Prints medians; never fails on a number.
#
# Environment: BUILD (default build), BENCH_IDLE_SECS (default 10),
# BENCH_IDLE_ROUNDS (fires timed in (b), default 7).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
SECS=${BENCH_IDLE_SECS:-10}
ROUNDS=${BENCH_IDLE_ROUNDS:-7}
HTTPD=$BUILD/samples/http/httpd
OUT=$BUILD/bench/idle

[ -x "$DTRACE" ] && [ -x "$HTTPD" ] || die "$DTRACE or $HTTPD not found: run make first"
have python3 || die "python3 not installed"
rm -rf "$OUT"
mkdir -p "$OUT/www"
echo hello >"$OUT/www/index.html"
echo "benchmark 19: an idle session ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- |
	sed 's/^ *//'), $(nproc) CPUs, ${SECS} s windows)"
why=$(uprobe_unavailable)
[ -z "$why" ] || echo "   (bpftrace left out: $why)"

BPFTRACE_OK=$([ -z "$why" ] && echo 1 || echo 0) python3 -u - "$DTRACE" "$HTTPD" "$OUT" "$SECS" \
	"$ROUNDS" <<'PY'
import glob, os, random, re, select, statistics, subprocess, sys, time, urllib.request

dtrace, httpd, out, secs, rounds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
bpf = os.environ.get("BPFTRACE_OK") == "1"
procs = []

def server():
    p = subprocess.Popen([httpd, "--root", out + "/www"], stdout=subprocess.PIPE, text=True)
    procs.append(p)
    port = int(re.search(r":(\d+)$", p.stdout.readline().strip()).group(1))
    return p, port

def request(port):
    urllib.request.urlopen("http://127.0.0.1:%d/index.html" % port).read()

bufs = {}

def line_of(p, what):
    """p's next line, within 30 s (its pipe read unbuffered: select() sees what is left)"""
    b = bufs.setdefault(p.pid, b"")
    while b"\n" not in b:
        if not select.select([p.stdout], [], [], 30)[0]:
            sys.exit("bench: no line from %s (%s) in 30 s" % (p.args[0], what))
        chunk = os.read(p.stdout.fileno(), 4096)
        if not chunk:
            sys.exit("bench: %s ended (%s): %s" % (p.args[0], what, p.wait()))
        b += chunk
    line, b = b.split(b"\n", 1)
    bufs[p.pid] = b
    return line.decode()

def tracer(argv):
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    procs.append(p)
    line_of(p, "attaching")  # dtrace's BEGIN, bpftrace's "Attaching..."
    return p

def dt(pid, *opts):
    return tracer([dtrace, "-q", *opts, "-n", 'BEGIN { printf("ready\\n"); }',
                   "-n", 'http*:::request-start { printf("%d\\n", timestamp); }', "-p", str(pid)])

def bt(pid):
    p = tracer(["bpftrace", "-B", "line", "-p", str(pid), "-e",
                'usdt:%s:http:request__start { printf("%%llu\\n", nsecs); }' % httpd])
    time.sleep(2)  # ("Attaching..." comes before the probe is)
    return p

def counters(pids):
    """(context switches, ns on a CPU) of every thread of pids"""
    sw = ns = 0
    for pid in pids:
        for task in glob.glob("/proc/%d/task/*" % pid):
            try:
                st = open(task + "/status").read()
                sw += sum(int(v) for v in re.findall(r"ctxt_switches:\s+(\d+)", st))
                ns += int(open(task + "/schedstat").read().split()[0])
            except OSError:
                pass
    return sw, ns

def idle(name, pids):
    time.sleep(3)  # (past a young session's quick looks)
    s0, n0 = counters(pids)
    time.sleep(secs)
    s1, n1 = counters(pids)
    per = len(pids)
    print("   %-44s %8.1f wake-ups/s %9.1f ms CPU/hour" %
          (name, (s1 - s0) / secs / per, (n1 - n0) / 1e6 / secs * 3600 / per))
    return (s1 - s0) / secs / per

def fired(p, port):
    request(port)
    return line_of(p, "a fire")

def cleanup():
    for p in procs:
        if p.poll() is None:
            p.terminate()
            p.wait()
import atexit
atexit.register(cleanup)

res = {}
srv = [server() for _ in range(8)]
print(" (a) idle, per session")
p = dt(srv[0][0].pid)
res["before"] = idle("dtrace -p, before any fire", [p.pid])
fired(p, srv[0][1])
res["after"] = idle("dtrace -p, after a fire (its buffers made)", [p.pid])
eight = [p] + [dt(s.pid) for s, _ in srv[1:]]
for q, (_, port) in zip(eight[1:], srv[1:]):
    fired(q, port)
res["eight"] = idle("8 x dtrace -p, each after a fire", [q.pid for q in eight])
for q in eight:
    q.terminate()
    q.wait()
if bpf:
    q = bt(srv[0][0].pid)
    fired(q, srv[0][1])
    res["bpf"] = idle("bpftrace -p, after a fire", [q.pid])
    q.terminate()
    q.wait()

print(" (b) a fire after %g s or more of nothing: ms to its line, median of %d (max)" % (secs, rounds))
def latency(name, make):
    q = make()
    lat = []
    for _ in range(rounds):
        time.sleep(secs + random.random())  # (not in step with the rounds)
        line = fired(q, srv[0][1])
        lat.append((time.monotonic_ns() - int(line)) / 1e6)
    q.terminate()
    q.wait()
    print("   %-44s %8.1f ms (%.1f)" % (name, statistics.median(lat), max(lat)))
latency("dtrace -p (switchrate 1s, as DTrace's)", lambda: dt(srv[0][0].pid))
latency("dtrace -p -x switchrate=100hz", lambda: dt(srv[0][0].pid, "-x", "switchrate=100hz"))
if bpf:
    latency("bpftrace -p", lambda: bt(srv[0][0].pid))
if "bpf" in res and res["bpf"] > 0:
    print(" dtrace's idle wake-ups / bpftrace's: %.2fx" % (res["after"] / res["bpf"]))
PY
