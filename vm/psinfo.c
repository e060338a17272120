/* SPDX-License-Identifier: MIT */
/*
 * curpsinfo and curlwpsinfo (docs/proc.md): the process's and the thread's
 * facts in illumos's psinfo_t and lwpsinfo_t (abi/psinfo.h), filled where
 * the clause runs from the system calls that say them and /proc/self.
 *
 * The process's is one structure for all its threads, filled again when the
 * process is another (a fork child) or after UDT_PSINFO_NS (by the fire's
 * clock): a thread that refreshes it fills the other of two and then
 * publishes it, so that a clause reading the one published reads whole
 * values (a clause that held the other since two refreshes, 100 ms, would
 * see it change). Its pr_lwp is the thread's that filled it. The thread's is the
 * fire's own (udt_vm_ctx.lwp), filled at its first use in the fire.
 * System calls are made raw (the application's errno and any interposed
 * libc function untouched); what cannot be read is 0. Async-signal-safe.
 */
#include "vm/subr.h"

#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define UDT_PSINFO_NS 50000000ull  /* a process's facts are at most 50 ms old */

static struct udt_psinfo ps[2];
static uint32_t ps_cur;            /* the one published */
static int32_t ps_busy;            /* the pid of a thread that fills the other (0: none) */
static int32_t ps_pid;             /* whose it is (0: none yet) */
static uint64_t ps_at;             /* when it was filled (CLOCK_MONOTONIC ns) */

/* When the system booted, in CLOCK_REALTIME seconds (0: unknown). */
static int64_t boot_sec(void)
{
	struct timespec r, b;

	if (syscall(SYS_clock_gettime, CLOCK_REALTIME, &r) ||
	    syscall(SYS_clock_gettime, CLOCK_BOOTTIME, &b))
		return 0;
	return (int64_t)r.tv_sec - (int64_t)b.tv_sec - (r.tv_nsec < b.tv_nsec);
}

size_t udt__vm_slurp(const char *path, char *buf, size_t sz)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return 0;
	got = (ssize_t)syscall(SYS_read, fd, buf, sz - 1);
	(void)syscall(SYS_close, fd);
	if (got < 0)
		got = 0;
	buf[got] = '\0';
	return (size_t)got;
}

size_t udt__vm_stat_fields(char *line, size_t len, uint64_t *f, size_t max)
{
	char *p = NULL;
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (line[i] == ')')
			p = line + i;
	if (!p || p[1] != ' ' || !p[2])
		return 0;
	for (p += 3; *p && n < max; n++) {
		uint64_t v = 0;
		bool neg = false;
		while (*p == ' ')
			p++;
		if (*p == '-') {
			neg = true;
			p++;
		}
		while (*p >= '0' && *p <= '9')
			v = v * 10 + (uint64_t)(*p++ - '0');
		f[n] = neg ? (uint64_t)-(int64_t)v : v;
		while (*p && *p != ' ')
			p++;
	}
	return n;
}

void udt__vm_proc_path(char *path, size_t sz, const char *pre, uint64_t n, const char *post)
{
	char num[24];
	size_t k = 0, o = 0;

	do
		num[k++] = (char)('0' + n % 10);
	while (n /= 10);
	for (; *pre && o + 1 < sz; pre++)
		path[o++] = *pre;
	while (k && o + 1 < sz)
		path[o++] = num[--k];
	for (; *post && o + 1 < sz; post++)
		path[o++] = *post;
	path[o] = '\0';
}

static void lwp_fill(struct udt_lwpsinfo *l, int32_t tid, uint32_t cpu)
{
	char path[64];

	memset(l, 0, sizeof(*l));
	l->pr_lwpid = tid;
	l->pr_state = 6; /* SONPROC: it runs the probe */
	l->pr_sname = 'O';
	l->pr_onpro = (int32_t)cpu;
	l->pr_bindpro = l->pr_bindpset = -1;
	memcpy(l->pr_clname, "TS", 3);
	udt__vm_proc_path(path, sizeof(path), "/proc/self/task/", (uint32_t)tid, "/comm");
	size_t len = udt__vm_slurp(path, l->pr_name, sizeof(l->pr_name));
	if (len && l->pr_name[len - 1] == '\n')
		l->pr_name[len - 1] = '\0';
}

static void ps_fill(struct udt_psinfo *p, int32_t pid, int32_t tid, uint32_t cpu)
{
	char buf[1024];
	uint64_t f[48] = { 0 };
	uint32_t r[3], g[3];

	memset(p, 0, sizeof(*p));
	p->pr_pid = pid;
	p->pr_ppid = (int32_t)syscall(SYS_getppid);
	p->pr_pgid = (int32_t)syscall(SYS_getpgid, 0);
	p->pr_sid = (int32_t)syscall(SYS_getsid, 0);
	if (!syscall(SYS_getresuid, &r[0], &r[1], &r[2])) {
		p->pr_uid = r[0];
		p->pr_euid = r[1];
	}
	if (!syscall(SYS_getresgid, &g[0], &g[1], &g[2])) {
		p->pr_gid = g[0];
		p->pr_egid = g[1];
	}
	size_t len = udt__vm_slurp("/proc/self/stat", buf, sizeof(buf));
	/* (f[k]: field k + 4 of man 5 proc's: 7 tty_nr, 14 utime, 15 stime, 20 num_threads,
	   22 starttime, 23 vsize, 24 rss, 28 startstack) */
	if (udt__vm_stat_fields(buf, len, f, 48) >= 25) {
		p->pr_ttydev = f[3];
		p->pr_nlwp = (int32_t)f[16];
		p->pr_size = f[19] / 1024;
		p->pr_rssize = f[20] * (uint64_t)sysconf(_SC_PAGESIZE) / 1024;
		long hz = sysconf(_SC_CLK_TCK);
		if (hz > 0) {
			p->pr_start.tv_sec = boot_sec() + (int64_t)(f[18] / (uint64_t)hz);
			p->pr_start.tv_nsec = (int64_t)(f[18] % (uint64_t)hz * (1000000000ull / (uint64_t)hz));
			p->pr_time.tv_sec = (int64_t)((f[10] + f[11]) / (uint64_t)hz);
		}
		/* startstack: where argc is, argv after it (the exec's initial stack) */
		p->pr_argv = f[24] ? f[24] + 8 : 0;
	}
	size_t n = udt__vm_slurp("/proc/self/comm", p->pr_fname, sizeof(p->pr_fname));
	if (n && p->pr_fname[n - 1] == '\n')
		p->pr_fname[n - 1] = '\0';
	n = udt__vm_slurp("/proc/self/cmdline", buf, sizeof(buf));
	for (size_t i = 0; i < n; i++)
		p->pr_argc += !buf[i];
	if (p->pr_argv)
		p->pr_envp = p->pr_argv + 8 * ((uint64_t)p->pr_argc + 1);
	while (n && !buf[n - 1])
		n--;
	for (size_t i = 0; i < n && i < sizeof(p->pr_psargs) - 1; i++)
		p->pr_psargs[i] = buf[i] ? buf[i] : ' ';
	p->pr_dmodel = 2; /* PR_MODEL_LP64 */
	p->pr_wstat = 0;
	lwp_fill(&p->pr_lwp, tid, cpu);
}

uint64_t udt_vm_curpsinfo(int32_t pid, int32_t tid, uint32_t cpu, uint64_t now)
{
	/* (the pid first: the buffer it publishes is then the one ps_cur says) */
	int32_t have = __atomic_load_n(&ps_pid, __ATOMIC_ACQUIRE);
	uint32_t cur = __atomic_load_n(&ps_cur, __ATOMIC_ACQUIRE) & 1;
	uint64_t at = __atomic_load_n(&ps_at, __ATOMIC_RELAXED);

	if (have == pid && now >= at && now - at < UDT_PSINFO_NS)
		return (uint64_t)(uintptr_t)&ps[cur];
	/* the filler's pid, so that a fork child (another pid) is not held by a copy of it */
	int32_t busy = __atomic_load_n(&ps_busy, __ATOMIC_RELAXED);
	if ((busy && busy == pid) ||
	    !__atomic_compare_exchange_n(&ps_busy, &busy, pid, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return have == pid ? (uint64_t)(uintptr_t)&ps[cur] : 0; /* (another thread fills) */
	/* ours to fill, unless a thread did while we looked */
	have = __atomic_load_n(&ps_pid, __ATOMIC_ACQUIRE);
	cur = __atomic_load_n(&ps_cur, __ATOMIC_ACQUIRE) & 1;
	at = __atomic_load_n(&ps_at, __ATOMIC_RELAXED);
	if (!(have == pid && now >= at && now - at < UDT_PSINFO_NS)) {
		ps_fill(&ps[cur ^ 1], pid, tid, cpu);
		cur ^= 1;
		__atomic_store_n(&ps_at, now > at || have != pid ? now : at, __ATOMIC_RELAXED);
		__atomic_store_n(&ps_cur, cur, __ATOMIC_RELEASE);
		__atomic_store_n(&ps_pid, pid, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&ps_busy, 0, __ATOMIC_RELEASE);
	return (uint64_t)(uintptr_t)&ps[cur];
}

uint64_t udt_vm_curlwpsinfo(struct udt_vm_lwp *l, int32_t tid, uint32_t cpu)
{
	if (!l)
		return 0;
	if (!l->filled) {
		lwp_fill(&l->l, tid, cpu);
		l->filled = true;
	}
	return (uint64_t)(uintptr_t)&l->l;
}

void udt_vm_psinfo_of(struct udt_psinfo *p, int32_t pid, int32_t tid, uint32_t cpu)
{
	ps_fill(p, pid, tid, cpu);
}

void udt_vm_lwpsinfo_of(struct udt_lwpsinfo *l, int32_t tid, uint32_t cpu)
{
	lwp_fill(l, tid, cpu);
}
