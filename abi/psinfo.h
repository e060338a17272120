/* SPDX-License-Identifier: MIT */
/*
 * What D's curpsinfo, curlwpsinfo and the proc provider's arguments point to
 * (docs/proc.md): a process's and a thread's facts as illumos's psinfo_t and
 * lwpsinfo_t give them, filled by the runtime in the traced process (from
 * the system calls that say them and /proc/self) and read by D scripts
 * through provider-support/procfs.d, which declares these layouts for D:
 * tests/integration/proc.sh checks that the two agree, member by member.
 * Names are illumos's; the fields Linux has no value for are 0.
 */
#ifndef UDT_ABI_PSINFO_H
#define UDT_ABI_PSINFO_H

#include <stdint.h>

#define UDT_PRFNSZ 16             /* pr_fname: the command's name, as /proc/PID/comm */
#define UDT_PRARGSZ 80            /* pr_psargs: its arguments, the first 80 bytes */
#define UDT_PRCLSZ 8

struct udt_timestruc {
	int64_t tv_sec;
	int64_t tv_nsec;
};

struct udt_lwpsinfo {
	int32_t pr_flag;
	int32_t pr_lwpid;         /* the thread's id (tid) */
	uint64_t pr_addr;
	uint64_t pr_wchan;
	char pr_stype;
	char pr_state;            /* illumos's numbers: SSLEEP 1, SRUN 2, SZOMB 3, SSTOP 4, SONPROC 6 */
	char pr_sname;            /* its letter: 'S', 'R', 'Z', 'T', 'O' */
	char pr_nice;
	int16_t pr_syscall;
	char pr_oldpri;
	char pr_cpu;
	int32_t pr_pri;
	uint16_t pr_pctcpu;
	uint16_t pr_pad;
	int32_t pr_pad2;
	struct udt_timestruc pr_start;
	struct udt_timestruc pr_time;
	char pr_clname[UDT_PRCLSZ];
	char pr_name[UDT_PRFNSZ]; /* the thread's name (pthread_setname_np) */
	int32_t pr_onpro;         /* the CPU it last ran on */
	int32_t pr_bindpro;
	int32_t pr_bindpset;
	int32_t pr_lgrp;
};

struct udt_psinfo {
	int32_t pr_flag;
	int32_t pr_nlwp;          /* its threads */
	int32_t pr_pid;
	int32_t pr_ppid;
	int32_t pr_pgid;
	int32_t pr_sid;
	uint32_t pr_uid;
	uint32_t pr_euid;
	uint32_t pr_gid;
	uint32_t pr_egid;
	uint64_t pr_addr;
	uint64_t pr_size;         /* its address space, KB */
	uint64_t pr_rssize;       /* resident, KB */
	uint64_t pr_ttydev;
	uint16_t pr_pctcpu;
	uint16_t pr_pctmem;
	int32_t pr_pad;
	struct udt_timestruc pr_start;
	struct udt_timestruc pr_time;
	struct udt_timestruc pr_ctime;
	char pr_fname[UDT_PRFNSZ];
	char pr_psargs[UDT_PRARGSZ];
	int32_t pr_wstat;
	int32_t pr_argc;
	uint64_t pr_argv;
	uint64_t pr_envp;
	char pr_dmodel;           /* PR_MODEL_LP64 (2) */
	char pr_pad1[3];
	int32_t pr_taskid;
	int32_t pr_projid;
	int32_t pr_nzomb;
	int32_t pr_poolid;
	int32_t pr_zoneid;
	int32_t pr_contract;
	int32_t pr_pad3;
	struct udt_lwpsinfo pr_lwp; /* a thread of it (curpsinfo's: the one that filled it) */
};

#endif /* UDT_ABI_PSINFO_H */
