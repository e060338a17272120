#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What dtrace says where it used to say nothing and a user's data or
# probes silently went missing: aggregations -x oformat does not print at
# exit, a description of one of DTrace's kernel providers, a -Z clause's
# errors, and a profile-n session that took no sample.
. "$(dirname "$0")/../lib.sh"

cd "$WORK" || exit 1

# -- oformat without -O: the aggregations are not printed at exit (FreeBSD's rule), said once
for f in json jsonl xml; do
	"$DTRACE" -x oformat=$f -n 'BEGIN { @a = count(); @b = sum(2); exit(0); }' >out.$f 2>err.$f
	expect_eq "-x oformat=$f, aggregations and no -O: said once on stderr" \
		"$?:$(grep -c "the aggregations are not printed at exit with -x oformat=$f .*-O prints them" err.$f)" \
		"0:1"
done
"$DTRACE" -O -x oformat=json -n 'BEGIN { @a = count(); exit(0); }' >out.O 2>err.O
expect_eq "-O: printed, nothing said" \
	"$(jq -r '.dtrace.probes[] | select(.name == "AGGREGATIONS") | .output[0]["aggregation-name"]' out.O 2>&1):$(grep -c 'not printed' err.O)" \
	"a:0"
"$DTRACE" -x oformat=json -n 'BEGIN { exit(0); }' >/dev/null 2>err.none
expect_eq "no aggregation: nothing said" "$(grep -c 'not printed' err.none)" 0

# -- DTrace's kernel providers: said to be the kernel's, with -Z too
"$DTRACE" -n 'syscall::openat:entry { @ = count(); }' -c true >out.k 2>err.k
expect_eq "syscall::openat:entry: an error that says syscall is the kernel's provider" \
	"$?:$(grep -c "does not match any probes: the syscall provider is the kernel's, and udtrace traces user space" err.k)" \
	"1:1"
"$DTRACE" -Z -q -n 'sched:::on-cpu { @ = count(); }' -n 'BEGIN { exit(0); }' >out.kz 2>err.kz
expect_eq "-Z sched:::on-cpu: the session runs, and says sched is the kernel's" \
	"$?:$(grep -c "the sched provider is the kernel's" err.kz)" "0:1"
"$DTRACE" -n 'nosuch:::x { }' -c true 2>err.u
expect_eq "a provider that is no kernel's: DTrace's words alone" "$(cat err.u)" \
	"dtrace: invalid probe specifier nosuch:::x: probe description nosuch:::x does not match any probes"

# -- -Z: a clause that matches nothing yet is compiled, its errors are errors (but args[])
"$DTRACE" -Z -n 'nosuch*:::x { trace(undefined_var); }' -c true >/dev/null 2>err.z1
expect_eq "-Z: an unknown variable in a clause matching nothing is an error" \
	"$?:$(grep -c 'failed to resolve undefined_var: Unknown variable name' err.z1)" "1:1"
"$DTRACE" -Z -q -n 'nosuch*:::x { trace(args[1]->hri_uri); }' -c true >/dev/null 2>err.z2
expect_eq "-Z: args[] of the probe it will match is no error yet" "$?:$(cat err.z2)" "0:"

# -- profile-n that took no sample: said, with why (a sample per 10 ms of CPU time: sleep's
# start-up uses less)
"$DTRACE" -q -n 'profile-97 { @ = count(); }' -c 'sleep 0.3' >out.p 2>err.p
expect_eq "profile-97 of an idle command: said it took no sample, and why" \
	"$?:$(grep -c 'profile-97 took no sample of pid [0-9]*: the profile provider samples the CPU time a process uses' err.p)" \
	"0:1"
cat >busy.c <<'C'
#include <time.h>
int main(void)
{
	struct timespec a, b;
	volatile unsigned long x = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 1000000; i++)
			x++;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 300000000L);
	return 0;
}
C
$CC -O2 -o busy busy.c
"$DTRACE" -q -n 'profile-997 { @ = count(); } END { printa("%@d\n", @); }' -c ./busy >out.b 2>err.b
expect_eq "profile-997 of a busy command: samples, and nothing said" \
	"$(grep -c '^[1-9][0-9]*$' out.b):$(grep -c 'took no sample' err.b)" "1:0"
# -- a language runtime's probe that fires only when asked: the JVM's method-entry
JAVA=$(ls /usr/lib/jvm/*/bin/java 2>/dev/null | head -1)
LIBJVM=$(ls "$(dirname "$(dirname "${JAVA:-/nonexistent}")")"/lib/server/libjvm.so 2>/dev/null)
if [ -n "$JAVA" ] && [ -n "$LIBJVM" ] && readelf -n "$LIBJVM" | grep -q 'Provider: hotspot'; then
	cat >Sl.java <<'J'
public class Sl {
	static int f(int x) { return x + 1; }
	public static void main(String[] a) throws Exception {
		System.out.println("ready");
		int s = 0;
		for (int i = 0; i < 60000; i++) { s += f(i); Thread.sleep(1); }
		System.out.println(s);
	}
}
J
	for flag in -XX:-ExtendedDTraceProbes -XX:+ExtendedDTraceProbes; do
		"$JAVA" $flag Sl.java >java.out 2>&1 &
		jpid=$!
		wait_for java.out ready
		"$DTRACE" -q -n 'hotspot$target:::method-entry { @ = count(); } tick-1s { exit(0); }' \
			-p "$jpid" >j.out 2>j.err
		kill "$jpid" 2>/dev/null
		wait "$jpid" 2>/dev/null
		if [ $flag = -XX:-ExtendedDTraceProbes ]; then
			expect_eq "the JVM without -XX:+ExtendedDTraceProbes: dtrace says it needs it" \
				"$(grep -c 'method-entry never fired in pid [0-9]*: the JVM fires method-entry and method-return only with -XX:+ExtendedDTraceProbes' j.err)" 1
		else
			expect_eq "and with it: method-entry counted, nothing said" \
				"$(grep -c '^ *[1-9][0-9]*$' j.out):$(grep -c 'never fired' j.err)" "1:0"
		fi
	done
else
	skip "a JVM's method-entry that fires only when asked" "no JVM with hotspot probes installed"
fi
finish
