/* @target: opens */
/*
 * The builtins of the process and of the probe site: ppid, uid, gid (the
 * traced process's: dtrace started it), id (BEGIN is probe 1, END 2, as
 * DTrace numbers the dtrace provider's), ipl (0: a process has no
 * interrupt priority), ucaller (the return address of the probe's
 * function: try_open() is called from main()), ustackdepth, and uregs[] at
 * a probe site: the PC in the probe's function, the stack pointer.
 */
#pragma D option quiet

int done;

BEGIN
{
	printf("BEGIN: id %d, ipl %d, ppid %d, uid %d, gid %d\n", id, ipl, ppid == $ppid,
	    uid == $uid, gid == $gid);
}

rt$target:::open-entry
/!done/
{
	done = 1;
	printf("ppid %d, uid %d, gid %d, ipl %d, depth %d\n", ppid == $pid, uid == $uid,
	    gid == $gid, ipl, ustackdepth >= 3);
	ufunc(ucaller);
	ufunc(uregs[R_PC]);
	/* (the stack pointer of a call's site, on x86-64 and aarch64, is 16-aligned) */
	printf("\nsp %d\n", uregs[R_SP] != 0 && uregs[R_SP] % 16 == 0);
}

END
{
	printf("END: id %d\n", id);
}
