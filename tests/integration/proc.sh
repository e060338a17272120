#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The proc provider (docs/proc.md) on a program whose life is known
# (data/life.c: N fork children, an exec that fails and one that works, a
# posix_spawn and a vfork child, T threads, signals sent five ways, one
# taken by sigwait): each probe's count
# against what the program did, their arguments against what it printed;
# curpsinfo and curlwpsinfo against /proc and D's own variables; procfs.d's
# layout against the runtime's (abi/psinfo.h); its messages.
. "$(dirname "$0")/../lib.sh"

cd "$WORK" || exit 1
D=$TOP/tests/integration/data
$CC -O2 -g -pthread -Wall -Wextra -o life "$D/life.c" >build.log 2>&1 || {
	fail "build life" "$(tail -5 build.log)"
	finish
	exit
}
N=3
T=4
counts() { awk 'NF == 3 && $3 ~ /^[0-9]+$/ { print $1 "/" $2 "=" $3 }' "$1" | sort | tr '\n' ' '; }

WANT="create/_Fork=$((N + 1)) create/posix_spawn=1 create/vfork=1 exec-failure/execve=1 exec/execve=2 exit/_Exit=$((N + 1)) \
lwp-create/pthread_create=$T lwp-exit/start_thread=$T lwp-start/start_thread=$T \
signal-clear/sigtimedwait=1 signal-send/kill=2 signal-send/pthread_kill=2 \
signal-send/sigqueue=1 signal-send/tgkill=1 start/_Fork=$((N + 1)) "
for mode in auto trap; do
	"$DTRACE" -q -x pidsites=$mode -n 'proc::: { @[probename, probefunc] = count(); }' \
		-o c.$mode -c "./life $N $T" >c.$mode.prog 2>c.$mode.err
	# (the exec'd /bin/true is another image: its exit is its own)
	if [ $mode = auto ]; then
		expect_eq "-c, $mode: each proc probe as often as the program did it" \
			"$(counts c.$mode)" "$WANT"
		expect_eq "-c, $mode: nothing said" "$(cat c.$mode.err)" ""
	else
		# (a posix_spawn child's execve and _exit run with SIGTRAP at its default, a
		# sigwait thread may block it: a trap there would kill, so they are jumps or none)
		expect_eq "-c, $mode: each as often, but exec, exec-failure, exit and signal-clear" \
			"$(counts c.$mode)" "$(echo "$WANT" | sed -E 's/exec-failure[^ ]* //; s/exec\/[^ ]* //;
				s/exit\/[^ ]* //; s/signal-clear[^ ]* //')"
		expect_eq "-c, $mode: and said why, for each of theirs" \
			"$(grep -o 'proc:libc.so.6:[a-z_A-Z0-9]*:[a-z-]*: site 0x[0-9a-f]* left out: a trap there would kill the thread' \
				c.$mode.err | cut -d: -f3,4 | sort -u | tr '\n' ' ')" \
			"_Exit:exit clone3:lwp-create execve:exec execveat:exec sigtimedwait:signal-clear "
	fi
done

# the arguments, against what the program printed
"$DTRACE" -q -n '
proc:::create { printf("create %d %d %s\n", args[0]->pr_pid, args[0]->pr_ppid, args[0]->pr_fname); }
proc:::start { printf("start %d %d\n", pid, ppid); }
proc:::exec { printf("exec %s\n", args[0]); }
proc:::exec-failure { printf("exec-failure %d\n", args[0]); }
proc:::exit { printf("exit %d %d\n", pid, args[0]); }
proc:::lwp-create { printf("lwp-create %d %d\n", args[0]->pr_lwpid, args[1]->pr_pid); }
proc:::lwp-start { printf("lwp-start %d\n", tid); }
proc:::lwp-exit { printf("lwp-exit %d\n", tid); }
proc:::signal-send { printf("signal-send %d %d %d\n", args[1]->pr_pid, args[0]->pr_lwpid, args[2]); }
proc:::signal-clear { printf("signal-clear %d\n", args[0]); }' -o a.out -c "./life $N $T" >a.prog 2>a.err
main=$(awk '$1 == "kill" { print $2 }' a.prog)
children=$(awk '$1 == "child" { print $2 }' a.prog | sort -n | tr '\n' ' ')
threads=$(awk '$1 == "thread" { print $2 }' a.prog | sort -n | tr '\n' ' ')
spawned=$(awk '$1 == "child" || $1 == "spawned" { print $2 }' a.prog | sort -n | tr '\n' ' ')
expect_eq "create: args[0] the child (pr_pid as fork(), posix_spawn(), vfork() gave it), its parent, its name" \
	"$(awk '$1 == "create" { print $2 }' a.out | sort -n | tr '\n' ' '):$(awk '$1 == "create" { print $3, $4 }' a.out | sort -u)" \
	"$spawned:$main life"
expect_eq "start: in each child, its parent the program" \
	"$(awk '$1 == "start" { print $2 }' a.out | sort -n | tr '\n' ' '):$(awk '$1 == "start" { print $3 }' a.out | sort -u)" \
	"$children:$main"
expect_eq "exec and exec-failure: the paths, ENOENT" \
	"$(awk '$1 ~ /^exec/ { print $1, $2 }' a.out | tr '\n' ' ')" \
	"exec /nonexistent exec-failure 2 exec /bin/true "
exited=$( (awk '$1 == "child" { print $2 }' a.prog | head -n $N; echo "$main") | sort -n | tr '\n' ' ')
expect_eq "exit: CLD_EXITED, in the program and each child that did not exec, before it is gone" \
	"$(awk '$1 == "exit" { print $3 }' a.out | sort -u):$(awk '$1 == "exit" { print $2 }' a.out | sort -n | tr '\n' ' ')" \
	"1:$exited"
expect_eq "lwp-create: args[0] the new thread (its pr_lwpid), args[1] the process" \
	"$(awk '$1 == "lwp-create" { print $2 }' a.out | sort -n | tr '\n' ' '):$(awk '$1 == "lwp-create" { print $3 }' a.out | sort -u)" \
	"$threads:$main"
expect_eq "lwp-start and lwp-exit: in each new thread" \
	"$(awk '$1 == "lwp-start" { print $2 }' a.out | sort -n | tr '\n' ' '):$(awk '$1 == "lwp-exit" { print $2 }' a.out | sort -n | tr '\n' ' ')" \
	"$threads:$threads"
first=$(echo "$threads" | awk '{ print $1 }')
expect_eq "signal-send: the receiving process, thread (pthread_kill, raise, tgkill) and signal" \
	"$(awk '$1 == "signal-send" { print $2, $3, $4 }' a.out | tr '\n' ',')" \
	"$main $first 10,$main 0 10,$main $main 10,$main $main 10,$main 0 10,$main 0 12,"
expect_eq "signal-clear: SIGUSR2, taken by sigwait" "$(awk '$1 == "signal-clear" { print $2 }' a.out)" 12
expect_eq "arguments: nothing said" "$(cat a.err)" ""

# curpsinfo and curlwpsinfo, against /proc and D's variables, in a probe of the program
"$DTRACE" -q -n 'pid$target::pthread_barrier_init:entry {
	printf("%d %d %d %d %d %s|%s|%d %d %d\n", curpsinfo->pr_pid == pid, curpsinfo->pr_ppid == ppid,
	    curpsinfo->pr_uid == uid, curpsinfo->pr_gid == gid, curlwpsinfo->pr_lwpid == tid,
	    curpsinfo->pr_fname, curpsinfo->pr_psargs, curpsinfo->pr_argc, curpsinfo->pr_dmodel,
	    curpsinfo->pr_nlwp); }' -c "./life 0 1" >cur.out 2>cur.err
expect_eq "curpsinfo, curlwpsinfo: pid, ppid, uid, gid, tid as D's; name, arguments, model, threads" \
	"$(grep '^1 ' cur.out):$(cat cur.err)" "1 1 1 1 1 life|./life 0 1|3 2 1:"
"$DTRACE" -q -n 'BEGIN { printf("%d %s\n", curpsinfo->pr_pid == pid, curpsinfo->pr_fname); exit(0); }' \
	>curb.out 2>&1
expect_eq "curpsinfo in BEGIN: dtrace's own" "$(cat curb.out | grep .)" "1 dtrace"

# procfs.d's types are the runtime's: every member at the same offset, the same size
FIELDS_PS="pr_flag pr_nlwp pr_pid pr_ppid pr_pgid pr_sid pr_uid pr_euid pr_gid pr_egid pr_addr pr_size
pr_rssize pr_ttydev pr_pctcpu pr_pctmem pr_start pr_time pr_ctime pr_fname pr_psargs pr_wstat pr_argc
pr_argv pr_envp pr_dmodel pr_taskid pr_projid pr_nzomb pr_poolid pr_zoneid pr_contract pr_lwp"
FIELDS_LWP="pr_flag pr_lwpid pr_addr pr_wchan pr_stype pr_state pr_sname pr_nice pr_syscall pr_oldpri
pr_cpu pr_pri pr_pctcpu pr_start pr_time pr_clname pr_name pr_onpro pr_bindpro pr_bindpset pr_lgrp"
{
	echo '#include <stdio.h>'
	echo '#include <stddef.h>'
	echo '#include "abi/psinfo.h"'
	echo 'int main(void) {'
	echo 'printf("%zu %zu\n", sizeof(struct udt_psinfo), sizeof(struct udt_lwpsinfo));'
	for f in $FIELDS_PS; do echo "printf(\"%zu\\n\", offsetof(struct udt_psinfo, $f));"; done
	for f in $FIELDS_LWP; do echo "printf(\"%zu\\n\", offsetof(struct udt_lwpsinfo, $f));"; done
	echo '}'
} >layout.c
prog='BEGIN { printf("%d %d\n", sizeof(psinfo_t), sizeof(lwpsinfo_t));'
for f in $FIELDS_PS; do prog="$prog printf(\"%d\\n\", offsetof(psinfo_t, $f));"; done
for f in $FIELDS_LWP; do prog="$prog printf(\"%d\\n\", offsetof(lwpsinfo_t, $f));"; done
prog="$prog exit(0); }"
if $CC -I"$TOP" -o layout layout.c 2>layout.err; then
	./layout >layout.c.out
	"$DTRACE" -q -n "$prog" 2>&1 | grep . >layout.d.out
	check "procfs.d's psinfo_t and lwpsinfo_t: abi/psinfo.h's sizes and offsets, member by member" \
		diff layout.c.out layout.d.out
else
	fail "build the layout check" "$(cat layout.err)"
fi

# -l, and what a user-space proc provider has not
"$DTRACE" -l -n 'proc:::' -c "./life 0 1" >list.out 2>list.err
expect_eq "-l: the proc probes, on the C library's functions" \
	"$(awk 'NR > 1 { print $NF }' list.out | sort -u | tr '\n' ' ')" \
	"create exec exec-failure exit lwp-create lwp-exit lwp-start signal-clear signal-send start "
"$DTRACE" -l -v -n 'proc:::exit' -c "./life 0 1" >listv.out 2>&1
check "-l -v: exit's argument, an int" grep -q 'args\[0\]: int' listv.out
"$DTRACE" -n 'proc:::exec-success { exit(0); }' -c "./life 0 1" >es.out 2>es.err
expect_eq "exec-success: refused, with the reason" \
	"$?:$(grep -c 'exec-success.*new image' es.err)" "1:1"
"$DTRACE" -n 'proc:::exit' >np.out 2>np.err
expect_eq "proc without -p or -c: refused, with the reason" \
	"$?:$(grep -c 'process of -p or -c' np.err)" "1:1"

finish
