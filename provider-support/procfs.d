/*
 * SPDX-License-Identifier: MIT
 *
 * illumos's psinfo_t and lwpsinfo_t, as D's curpsinfo and curlwpsinfo and
 * the proc provider's arguments point to them (docs/proc.md), in the layout
 * udtrace's runtime fills (abi/psinfo.h: tests/integration/proc.sh checks
 * that the two agree). The fields Linux has no value for are 0.
 */
#pragma D depends_on library types.d

typedef struct timestruc {
	int64_t tv_sec;
	int64_t tv_nsec;
} timestruc_t;

typedef struct lwpsinfo {
	int pr_flag;
	id_t pr_lwpid;
	uintptr_t pr_addr;
	uintptr_t pr_wchan;
	char pr_stype;
	char pr_state;
	char pr_sname;
	char pr_nice;
	short pr_syscall;
	char pr_oldpri;
	char pr_cpu;
	int pr_pri;
	ushort_t pr_pctcpu;
	ushort_t pr_pad;
	int pr_pad2;
	timestruc_t pr_start;
	timestruc_t pr_time;
	char pr_clname[8];
	char pr_name[16];
	processorid_t pr_onpro;
	processorid_t pr_bindpro;
	psetid_t pr_bindpset;
	int pr_lgrp;
} lwpsinfo_t;

typedef struct psinfo {
	int pr_flag;
	int pr_nlwp;
	pid_t pr_pid;
	pid_t pr_ppid;
	pid_t pr_pgid;
	pid_t pr_sid;
	uid_t pr_uid;
	uid_t pr_euid;
	gid_t pr_gid;
	gid_t pr_egid;
	uintptr_t pr_addr;
	size_t pr_size;
	size_t pr_rssize;
	uint64_t pr_ttydev;
	ushort_t pr_pctcpu;
	ushort_t pr_pctmem;
	int pr_pad;
	timestruc_t pr_start;
	timestruc_t pr_time;
	timestruc_t pr_ctime;
	char pr_fname[16];
	char pr_psargs[80];
	int pr_wstat;
	int pr_argc;
	uintptr_t pr_argv;
	uintptr_t pr_envp;
	char pr_dmodel;
	char pr_pad1[3];
	taskid_t pr_taskid;
	projid_t pr_projid;
	int pr_nzomb;
	poolid_t pr_poolid;
	zoneid_t pr_zoneid;
	ctid_t pr_contract;
	int pr_pad3;
	lwpsinfo_t pr_lwp;
} psinfo_t;

/* DTrace's values of pr_state and pr_dmodel, and of proc:::exit's args[0] */
inline char SSLEEP = 1;
inline char SRUN = 2;
inline char SZOMB = 3;
inline char SSTOP = 4;
inline char SIDL = 5;
inline char SONPROC = 6;
inline char SWAIT = 7;
inline char PR_MODEL_ILP32 = 1;
inline char PR_MODEL_LP64 = 2;
inline int CLD_EXITED = 1;
inline int CLD_KILLED = 2;
inline int CLD_DUMPED = 3;
