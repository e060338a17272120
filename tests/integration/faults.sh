#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Loads from the traced process's memory (vm/safe.c): direct where a
# fault can be recovered, through the kernel where it cannot, never a crash,
# and the application's own fault handling untouched (docs/runtime.md,
# "Reading the process's memory"). The programs are data/faultprog.c and
# data/sigprog.c.
. "$(dirname "$0")/../lib.sh"

build_rtprog faultprog
cd "$WORK" || exit 1

# A run's records and errors, one per line, sorted: values as printed, errors
# as "error FUNCTION ADDRESS" with the program's addresses by name.
run() {
	"$DTRACE" -q -n 'rt*:::bad { printf("%d\n", *args[0]); }' -c "./faultprog $*" >out 2>err
	rc=$?
	local guard bus good
	guard=$(sed -n 's/^guard=//p' out)
	bus=$(sed -n 's/^bus=//p' out)
	good=$(sed -n 's/^good43=//p' out)
	got=$( (sed -n 's/^dtrace: error on enabled probe ID [0-9]* (ID [0-9]*: rt[0-9]*:faultprog:\([a-z_]*\):bad): invalid address (\(0x[0-9a-f]*\)) in action #1 at DIF offset [0-9]*$/error \1 \2/p' err |
		sed "s/ $guard\$/ guard/; s/ $bus\$/ bus/; s/ $good\$/ good43/"
		grep -E '^[0-9]+$' out) | sort)
}

run
if [ "$rc:$(grep -c '^app faults=1$' out):$(grep -c '^done$' out)" = "0:1:1" ]; then
	ok "the program's own fault reaches its handler once, and it runs to the end"
else
	fail "the program's own fault reaches its handler once, and it runs to the end" \
		"exit $rc" "$(cat out err)"
fi
expect_eq "NULL, a guard page, a blocked thread and a bus error: DTrace's errors, values for the rest" \
	"$got" "$(printf '%s\n' 42 43 44 'error blocked_thread 0x0' 'error main 0x0' 'error main bus' \
		'error main guard' | sort)"

run deny
if grep -q '^seccomp:' out; then
	skip "direct loads make no system call per load" "no seccomp here: $(grep seccomp: out)"
else
	expect_eq "process_vm_readv forbidden: the program still runs to the end" \
		"$rc:$(grep -c '^done$' out)" "0:1"
	expect_eq "process_vm_readv forbidden: direct loads read, the blocked thread's go through the kernel" \
		"$got" "$(printf '%s\n' 42 44 'error blocked_thread 0x0' 'error blocked_thread good43' \
			'error main 0x0' 'error main bus' 'error main guard' | sort)"
fi

# The program changes its signal set-up mid-session (data/sigprog.c): each
# run's values and errors counted ("N value", "N error null|guard").
build_rtprog sigprog
sigrun() {
	"$DTRACE" -q -n 'rt*:::bad { printf("%d\n", *args[0]); }' -c "./sigprog $1" >out 2>err
	rc=$?
	got=$( (sed -n 's/^dtrace: error on enabled probe ID .*: invalid address (\(0x[0-9a-f]*\)) in action #1 at DIF offset [0-9]*$/error \1/p' err |
		sed 's/ 0x0$/ null/; s/ 0x[0-9a-f]*$/ guard/'
		grep -E '^[0-9]+$' out) | sort | uniq -c | sed 's/^ *//' | sort)
	status="exit $rc, $(grep -c '^done$' out) done, $(sed -n 's/^app faults=//p' out) faults seen by the program's handler"
}
sigrun blocked
expect_eq "a thread that blocks SIGSEGV and SIGBUS, and one started so: never killed" \
	"$status" "exit 0, 1 done, 0 faults seen by the program's handler"
expect_eq "a thread that blocks SIGSEGV and SIGBUS: DTrace's errors, values for the rest" \
	"$got" "$(printf '%s\n' '2 error guard' '2 error null' '3 42' '1 7' | sort)"
for how in replace raw; do
	sigrun $how
	expect_eq "the program's own handler put in mid-session ($how): it sees its own fault only" \
		"$status" "exit 0, 1 done, 1 faults seen by the program's handler"
	expect_eq "the program's own handler put in mid-session ($how): DTrace's errors, values for the rest" \
		"$got" "$(printf '%s\n' '1 error guard' '1 error null' '1 42' '2 7' | sort)"
done
sigrun dfl
expect_eq "signal(SIGSEGV, SIG_DFL) from another thread mid-session: never killed" \
	"$status" "exit 0, 1 done, 0 faults seen by the program's handler"
expect_eq "signal(SIGSEGV, SIG_DFL) from another thread mid-session: every error reported" \
	"$got" "$(printf '%s\n' '2001 error guard' '2001 error null' '2001 42' '1 7' | sort)"
finish
