/* SPDX-License-Identifier: MIT */
/*
 * Running code in a traced process by ptrace (docs/injection.md): loading
 * dtrace's own libudtrace into a process that has no runtime (dlopen()), and
 * running the runtime's udt__profile_sync() in a process that runs nothing of
 * ours by itself (docs/profile.md, "Arming"). ptrace's permission is exactly
 * the one everything else here already needs.
 *
 * Mechanism (x86-64), one call:
 *
 *  1. A thread. PTRACE_SEIZE one (the main one first) and PTRACE_INTERRUPT
 *     it. A signal it was being sent meanwhile is delivered as usual. For
 *     dlopen() the thread must be at a safe point: calling the dynamic
 *     linker from a thread stopped inside the C library or the dynamic
 *     linker could take a lock it holds, or re-enter malloc() halfway
 *     through. A thread qualifies when it runs code outside them, or is
 *     blocked in a system call applications wait in (read, accept, poll,
 *     epoll_wait, nanosleep, a futex outside the C library's data...); one
 *     that does not is let go untouched and the next one tried, for a few
 *     rounds. A thread inside a restartable sequence's critical section
 *     (rseq) is let go too: running other code there would skip the abort
 *     the kernel owes it.
 *  2. Save its general registers, its whole extended state (NT_X86_XSTATE:
 *     x87, SSE, AVX...) and its signal mask. Block every signal but the
 *     synchronous faults: a fault whose signal is blocked makes the kernel
 *     reset the process's handler to SIG_DFL, whereas an unblocked one is
 *     reported to us before any handler runs (and the call fails, the thread
 *     put back).
 *  3. Memory of our own. The thread makes system calls for us: its registers
 *     set for the call, its instruction pointer at a `syscall` instruction
 *     (the one it was stopped after, or the C library's syscall()'s), and
 *     PTRACE_SYSCALL to the call's entry and exit (no signal, no trap: a
 *     single step would raise SIGTRAP). mmap() gives one private mapping: a
 *     page of code (the stub of inject_x86_64.S, made read-only and
 *     executable once written), a page of control block and data (the
 *     library's path), and a stack; MADV_DONTFORK keeps it out of a fork
 *     child made meanwhile. The thread's own stack is never touched.
 *  4. The call. rip at the stub, rbx at the control block, rsp at the top of
 *     the stack, orig_rax = -1 (so that the kernel restarts no system call
 *     into our code); PTRACE_CONT. The stub saves errno, calls the function
 *     (and dlerror() when it returned NULL), puts errno back, sets DONE and
 *     parks in pause(). We poll DONE with process_vm_readv, interrupt the
 *     thread and check it is in the parking loop.
 *  5. Put back: munmap() the mapping the same way as step 3, take the thread
 *     to an interrupt stop, restore its registers, extended state and mask,
 *     and detach.
 *
 * A thread stopped inside a system call: its saved registers say so (rax is
 * -ERESTARTSYS or a sibling, orig_rax the call). The final restore is always
 * made at an interrupt stop, which the kernel takes in its signal code before
 * it decides on restarts: restoring the registers there makes it restart the
 * call on the way out, exactly as after any ptrace stop (a restore at a
 * system-call stop would hand -ERESTART* to the application). A sleep keeps
 * its end time (the restart block), since nothing we run sleeps. Signals
 * arriving meanwhile stay pending (the mask) and are delivered once the thread
 * runs again.
 *
 * What can go wrong: the process exits or execs (-ESRCH), ptrace is refused
 * (-EPERM: a debugger, Yama), the call faults (-EFAULT: put back, the fault's
 * signal discarded), no thread reaches a safe point (-EAGAIN), the call does
 * not return (-ETIMEDOUT: put back anyway). dtrace blocks its own SIGINT,
 * SIGTERM, SIGHUP and SIGQUIT meanwhile: a ^C then waits for the thread to be
 * put back. The call is made by a child of dtrace (call_in()), so that a
 * SIGKILL of dtrace mid-call leaves the thread to be put back by the child;
 * only a SIGKILL of that child, a process group of its own, leaves it parked.
 */
#include "proc/inject_stub.h"
#include "abi/abi.h"
#include "proc/proc.h"
#include "udtrace_paths.h"
#include "util/util.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Read the numbers after "Key:" in /proc/PID/status (up to 4). Return how many. */
static int status_ids(const char *status, const char *key, long ids[4])
{
	const char *l = strstr(status, key);

	if (!l)
		return 0;
	return sscanf(l + strlen(key), "%ld %ld %ld %ld", &ids[0], &ids[1], &ids[2], &ids[3]);
}

/* An entry of pid's auxiliary vector: 0 with *ret, or -ENOENT. */
static int auxv_get(pid_t pid, uint64_t type, uint64_t *ret)
{
	char path[64], *auxv = NULL;
	size_t len;
	int err = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	if (udt__read_file(path, &auxv, &len) || !auxv)
		return -ENOENT;
	for (size_t i = 0; i + 16 <= len && err; i += 16) {
		uint64_t kv[2];
		memcpy(kv, auxv + i, 16);
		if (kv[0] == type) {
			*ret = kv[1];
			err = 0;
		}
	}
	free(auxv);
	return err;
}

char *pr_runtime_unloadable(pid_t pid)
{
	char path[64], *status = NULL;
	size_t len;
	long uid[4] = { 0 }, gid[4] = { 0 };
	uint64_t ld = 0;
	struct stat st;
	char *why = NULL;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!udt__read_file(path, &status, &len) && status && status_ids(status, "\nUid:", uid) == 4 &&
	    status_ids(status, "\nGid:", gid) == 4) {
		if (uid[0] != uid[1] || uid[0] != uid[2] || gid[0] != gid[1] || gid[0] != gid[2]) {
			why = udt__xasprintf("it runs set-id (uids %ld/%ld/%ld, gids %ld/%ld/%ld), "
					     "and dtrace loads no code into a set-id process",
					     uid[0], uid[1], uid[2], gid[0], gid[1], gid[2]);
			goto out;
		}
		/* the kernel gives a non-dumpable process's private /proc files to root (not
		   its directory, which stays its effective uid's) */
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
		if (uid[1] != 0 && !stat(path, &st) && st.st_uid != (uid_t)uid[1]) {
			why = udt__xstrdup("it is not dumpable (it changed its credentials, or "
					   "called prctl(PR_SET_DUMPABLE, 0)), and dtrace loads no code "
					   "into such a process");
			goto out;
		}
	}
	/* AT_BASE: where the dynamic linker is; 0 in a static program */
	if (!auxv_get(pid, AT_BASE, &ld) && !ld)
		why = udt__xstrdup("it is statically linked: it has no dynamic linker to load the "
				   "udtrace runtime with");
out:
	free(status);
	return why;
}

#if defined(__x86_64__)

/* Is path the same file in pid's file system (its root may be a container's or a chroot)? */
static bool same_file_there(pid_t pid, const char *path)
{
	char *there = udt__xasprintf("/proc/%d/root%s", (int)pid, path);
	struct stat a, b;
	bool same = !stat(path, &a) && !stat(there, &b) && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino;

	free(there);
	return same;
}

#define XSTATE_MAX 16384
#define SEIZE_ROUNDS 200          /* of every thread, 1 ms apart, for a safe point */
#define SYNC_WAIT_NS 5000000000ull    /* udt__profile_sync() */
#define DLOPEN_WAIT_NS 30000000000ull /* dlopen(): a library's constructors may take a while */

/* The mapping of step 3: code, control block and data, stack. */
#define SCR_CODE 0
#define SCR_CTL 4096
#define SCR_DATA (SCR_CTL + PR_INJ_SLOTS * 8)
#define SCR_STACK 8192
#define SCR_STACK_SZ (512 * 1024)
#define SCR_SZ (SCR_STACK + SCR_STACK_SZ)

/* The signals left unblocked during a call: the synchronous faults (see above). */
#define FAULT_SIGS                                                                          \
	((1ull << (SIGSEGV - 1)) | (1ull << (SIGBUS - 1)) | (1ull << (SIGILL - 1)) |        \
	 (1ull << (SIGFPE - 1)) | (1ull << (SIGTRAP - 1)) | (1ull << (SIGSYS - 1)))

struct inj {
	struct pr_proc *p;
	pid_t tid;                /* the seized thread, 0 none */
	struct user_regs_struct regs;  /* as we found it */
	uint8_t xstate[XSTATE_MAX];
	struct iovec xiov;
	int xtype;                /* NT_X86_XSTATE, or NT_PRFPREG */
	uint64_t sigmask;
	bool delivered;           /* a signal was delivered while we stopped it */
	bool changed;             /* its registers or mask are ours: restore them */
	uint64_t sysinsn;         /* a syscall instruction in the target */
	uint64_t scratch;         /* our mapping, 0 none */
	int64_t rseq_off;         /* glibc's __rseq_offset, 0 unknown */
};

static void sleep_us(long us)
{
	struct timespec ts = { 0, us * 1000 };

	nanosleep(&ts, NULL);
}

/* Wait for tid's next stop. 0, or -ESRCH if it is gone. */
static int wait_stop(pid_t tid, int *ret_status)
{
	for (;;) {
		pid_t r = waitpid(tid, ret_status, __WALL);
		if (r == tid)
			return WIFSTOPPED(*ret_status) ? 0 : -ESRCH;
		if (r < 0 && errno != EINTR)
			return -ESRCH;
	}
}

static bool is_event_stop(int st)
{
	return (st >> 16) == PTRACE_EVENT_STOP;
}

static bool is_syscall_stop(int st)
{
	return WSTOPSIG(st) == (SIGTRAP | 0x80);
}

/*
 * Interrupt the seized thread and wait until it stops. A signal that
 * reaches it first is delivered (the thread would have had it now).
 */
static int interrupt(struct inj *in)
{
	int st, err;

	if (ptrace(PTRACE_INTERRUPT, in->tid, 0, 0))
		return -errno;
	for (;;) {
		err = wait_stop(in->tid, &st);
		if (err)
			return err;
		if (is_event_stop(st))
			return 0;
		if (!is_syscall_stop(st))
			in->delivered = true;
		if (ptrace(PTRACE_CONT, in->tid, 0,
			   (void *)(uintptr_t)(is_syscall_stop(st) ? 0 : WSTOPSIG(st))))
			return -errno;
	}
}

/*
 * Is the thread inside a restartable sequence's critical section? Its rseq
 * area is at fs_base + __rseq_offset (glibc 2.35 on registers every thread);
 * its rseq_cs, when set, names the section.
 */
static bool in_rseq_cs(const struct inj *in, const struct user_regs_struct *r)
{
	uint64_t cs = 0;
	struct {
		uint32_t version, flags;
		uint64_t start_ip, post_commit_offset, abort_ip;
	} d;

	if (!in->rseq_off || (int64_t)r->orig_rax >= 0) /* in a system call: not in a section */
		return false;
	if (pr_proc_read(in->p, r->fs_base + (uint64_t)in->rseq_off + 8, &cs, sizeof(cs)) || !cs ||
	    pr_proc_read(in->p, cs, &d, sizeof(d)))
		return false;
	return r->rip >= d.start_ip && r->rip - d.start_ip < d.post_commit_offset;
}

/* The C library, its threads and dl libraries, the dynamic linker, the unwinders. */
static bool runtime_of_c(const struct pr_module *m)
{
	static const char *const prefixes[] = { "libc.", "libc-", "ld-linux", "ld-musl", "ld.so",
						"libpthread.", "libdl.", "libgcc_s.", "libunwind" };

	for (size_t i = 0; i < UDT__ARRAY_SIZE(prefixes); i++)
		if (!strncmp(m->name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* The system calls applications wait in: a thread blocked in one holds none of libc's locks. */
static bool waiting_call(struct pr_proc *p, const struct user_regs_struct *r)
{
	switch ((long)r->orig_rax) {
	case SYS_read: case SYS_readv: case SYS_pread64: case SYS_preadv: case SYS_preadv2:
	case SYS_write: case SYS_writev: case SYS_pwrite64:
	case SYS_recvfrom: case SYS_recvmsg: case SYS_recvmmsg: case SYS_sendto: case SYS_sendmsg:
	case SYS_accept: case SYS_accept4: case SYS_connect:
	case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6:
	case SYS_epoll_wait: case SYS_epoll_pwait: case SYS_epoll_pwait2:
	case SYS_nanosleep: case SYS_clock_nanosleep: case SYS_pause: case SYS_rt_sigsuspend:
	case SYS_rt_sigtimedwait: case SYS_wait4: case SYS_waitid: case SYS_msgrcv:
	case SYS_semtimedop: case SYS_io_getevents: case SYS_io_uring_enter: case SYS_sched_yield:
		return true;
	case SYS_futex: {
		/* a lock or condition of the application's, not of the C library's own data */
		struct pr_module *m = pr_proc_module_at(p, r->rdi);
		return !m || !runtime_of_c(m);
	}
	default:
		return false;
	}
}

/* May this stopped thread call the dynamic linker (see above)? */
static bool safe_point(struct inj *in, const struct user_regs_struct *r)
{
	struct pr_module *m = pr_proc_module_at(in->p, r->rip);

	if (in->delivered)
		return false; /* it may be in a handler that interrupted anything */
	if ((int64_t)r->orig_rax >= 0)
		return (!m || strncmp(m->name, "ld-", 3)) && waiting_call(in->p, r);
	return !m || !runtime_of_c(m);
}

/*
 * The calls Linux fails with EINTR when the thread stops, whatever the
 * signal handlers (signal(7): epoll_wait, semop, sigtimedwait, and a socket
 * call under SO_RCVTIMEO or SO_SNDTIMEO): having failed, each did nothing, so
 * making it again is what the application would have seen without the stop.
 */
static bool eintr_on_stop(long nr)
{
	switch (nr) {
	case SYS_epoll_wait: case SYS_epoll_pwait: case SYS_epoll_pwait2:
	case SYS_semop: case SYS_semtimedop: case SYS_rt_sigtimedwait: case SYS_io_getevents:
	case SYS_read: case SYS_readv: case SYS_recvfrom: case SYS_recvmsg:
	case SYS_accept: case SYS_accept4:
	case SYS_write: case SYS_writev: case SYS_sendto: case SYS_sendmsg:
		return true;
	default:
		return false;
	}
}

/*
 * The registers to give a thread back: as we found it, except that a call of
 * those that the stop failed with EINTR is made again (its arguments are
 * still in their registers; the instruction is 2 bytes before). A wait with a
 * timeout starts it again (docs/injection.md).
 */
static struct user_regs_struct given_back(const struct user_regs_struct *saved)
{
	struct user_regs_struct r = *saved;

	if ((int64_t)r.orig_rax >= 0 && (int64_t)r.rax == -EINTR && eintr_on_stop((long)r.orig_rax)) {
		r.rax = r.orig_rax;
		r.rip -= 2;
	}
	return r;
}

/* Let a thread we only stopped go, as it was (but for a call the stop failed). */
static void let_go(struct inj *in)
{
	struct user_regs_struct r = given_back(&in->regs);

	if (r.rip != in->regs.rip)
		(void)ptrace(PTRACE_SETREGS, in->tid, 0, &r);
	(void)ptrace(PTRACE_DETACH, in->tid, 0, 0);
	in->tid = 0;
}

static int save(struct inj *in)
{
	if (ptrace(PTRACE_GETREGS, in->tid, 0, &in->regs))
		return -errno;
	in->xiov = (struct iovec){ in->xstate, sizeof(in->xstate) };
	in->xtype = NT_X86_XSTATE;
	if (ptrace(PTRACE_GETREGSET, in->tid, (void *)(uintptr_t)NT_X86_XSTATE, &in->xiov)) {
		in->xiov = (struct iovec){ in->xstate, sizeof(struct user_fpregs_struct) };
		in->xtype = NT_PRFPREG;
		if (ptrace(PTRACE_GETREGSET, in->tid, (void *)(uintptr_t)NT_PRFPREG, &in->xiov))
			return -errno;
	}
	if (ptrace(PTRACE_GETSIGMASK, in->tid, (void *)sizeof(in->sigmask), &in->sigmask))
		return -errno;
	return 0;
}

/* The threads of the process, the main one first. */
static pid_t *list_threads(pid_t pid, size_t *ret_cnt)
{
	char path[64];
	pid_t *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return NULL;
	UDT__PUSH(v, n, cap, pid);
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		if (tid > 0 && tid != pid)
			UDT__PUSH(v, n, cap, tid);
	}
	closedir(d);
	*ret_cnt = n;
	return v;
}

/*
 * Seize one thread and stop it where it may run our call (safe: at a safe
 * point for the dynamic linker), its state saved. Others are let go as
 * they were. Return: 0, -EPERM (ptrace refused), -ESRCH (the process is
 * gone), -EAGAIN (no thread stopped at such a point).
 */
static int seize(struct inj *in, bool safe)
{
	int err;

	for (int round = 0; round < SEIZE_ROUNDS; round++) {
		size_t n = 0;
		pid_t *tids = list_threads(in->p->pid, &n);
		if (!tids)
			return -ESRCH;
		for (size_t i = 0; i < n; i++) {
			if (ptrace(PTRACE_SEIZE, tids[i], 0, (void *)PTRACE_O_TRACESYSGOOD)) {
				if (errno == EPERM) {
					free(tids);
					return -EPERM; /* not allowed (or traced already): none will do */
				}
				continue; /* it ended meanwhile */
			}
			in->tid = tids[i];
			in->delivered = false;
			err = interrupt(in) ?: save(in);
			if (!err && !in_rseq_cs(in, &in->regs) && (!safe || safe_point(in, &in->regs))) {
				free(tids);
				return 0;
			}
			if (err) { /* (nothing saved to give back: it is gone, or was never ours) */
				(void)ptrace(PTRACE_DETACH, in->tid, 0, 0);
				in->tid = 0;
				continue;
			}
			let_go(in);
		}
		free(tids);
		if (kill(in->p->pid, 0) && errno == ESRCH)
			return -ESRCH;
		sleep_us(1000);
	}
	return -EAGAIN;
}

/*
 * A syscall instruction to make the thread's system calls with: the one it
 * was stopped after when it was in a system call, else the C library's
 * syscall()'s. Return: 0, or -ENOENT.
 */
static int find_syscall_insn(struct inj *in)
{
	uint8_t b[128];
	uint64_t fn;

	if ((int64_t)in->regs.orig_rax >= 0 &&
	    !pr_proc_read(in->p, in->regs.rip - 2, b, 2) && b[0] == 0x0f && b[1] == 0x05) {
		in->sysinsn = in->regs.rip - 2;
		return 0;
	}
	if (pr_proc_lookup(in->p, "syscall", &fn, NULL) || pr_proc_read(in->p, fn, b, sizeof(b)))
		return -ENOENT;
	for (size_t i = 0; i + 1 < sizeof(b); i++) {
		if (b[i] == 0x0f && b[i + 1] == 0x05) {
			in->sysinsn = fn + i;
			return 0;
		}
	}
	return -ENOENT;
}

static int set_mask(struct inj *in, uint64_t mask)
{
	in->changed = true;
	return ptrace(PTRACE_SETSIGMASK, in->tid, (void *)sizeof(mask), &mask) ? -errno : 0;
}

/* Wait for a system-call stop of the thread. 0, -EFAULT (another stop: a fault), -ESRCH. */
static int wait_syscall_stop(struct inj *in)
{
	int st, err = wait_stop(in->tid, &st);

	return err ? err : is_syscall_stop(st) ? 0 : -EFAULT;
}

/* Have the thread make system call nr. Return: 0 with *ret (the kernel's result), or -errno. */
static int inj_syscall(struct inj *in, long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		       uint64_t *ret)
{
	struct user_regs_struct r = in->regs;
	int err;

	r.rip = in->sysinsn;
	r.rax = (uint64_t)nr;
	r.orig_rax = (uint64_t)-1;
	r.rdi = a0;
	r.rsi = a1;
	r.rdx = a2;
	r.r10 = a3;
	r.r8 = (uint64_t)-1;
	r.r9 = 0;
	in->changed = true;
	if (ptrace(PTRACE_SETREGS, in->tid, 0, &r) || ptrace(PTRACE_SYSCALL, in->tid, 0, 0))
		return -errno;
	err = wait_syscall_stop(in); /* the entry */
	if (err)
		return err;
	if (ptrace(PTRACE_SYSCALL, in->tid, 0, 0))
		return -errno;
	err = wait_syscall_stop(in); /* the exit */
	if (err)
		return err;
	if (ptrace(PTRACE_GETREGS, in->tid, 0, &r))
		return -errno;
	*ret = r.rax;
	return 0;
}

/* Step 3: our mapping, its code page written and made executable. */
static int map_scratch(struct inj *in)
{
	uint64_t addr, r;
	size_t code_sz = (size_t)(pr__inject_stub_end - pr__inject_stub);
	int err = inj_syscall(in, SYS_mmap, 0, SCR_SZ, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, &addr);

	if (err)
		return err;
	if (addr >= (uint64_t)-4095)
		return (int)addr;
	in->scratch = addr;
	err = inj_syscall(in, SYS_madvise, addr, SCR_SZ, MADV_DONTFORK, 0, &r) ?:
	      pr_proc_write(in->p, addr + SCR_CODE, pr__inject_stub, code_sz) ?:
	      inj_syscall(in, SYS_mprotect, addr + SCR_CODE, 4096, PROT_READ | PROT_EXEC, 0, &r);
	if (!err && r)
		err = (int)r; /* mprotect refused (an LSM forbidding executable memory) */
	return err;
}

/*
 * Step 5 from wherever the thread is stopped: unmap our memory, bring it to
 * an interrupt stop, restore everything, detach. The first error is
 * returned; the restore is tried whatever happened before.
 */
static int put_back(struct inj *in)
{
	struct user_regs_struct back = given_back(&in->regs), park = in->regs;
	int err = 0, e = 0, st;
	uint64_t r;

	if (!in->tid)
		return 0;
	if (in->scratch)
		err = inj_syscall(in, SYS_munmap, in->scratch, SCR_SZ, 0, 0, &r);
	in->scratch = 0;
	if (!in->changed) {
		let_go(in);
		return err;
	}
	/* to an interrupt stop (see above): queued before it runs, taken before it returns
	   to user code, where the pause() it would make is never made */
	park.rip = in->sysinsn ? in->sysinsn : in->regs.rip;
	park.rax = SYS_pause;
	park.orig_rax = (uint64_t)-1;
	if (ptrace(PTRACE_SETREGS, in->tid, 0, &park) || ptrace(PTRACE_INTERRUPT, in->tid, 0, 0) ||
	    ptrace(PTRACE_CONT, in->tid, 0, 0))
		e = -errno;
	while (!e && !(e = wait_stop(in->tid, &st)) && !is_event_stop(st))
		e = ptrace(PTRACE_CONT, in->tid, 0, 0) ? -errno : 0; /* a fault: dropped */
	if (!e && (ptrace(PTRACE_SETREGS, in->tid, 0, &back) ||
		   ptrace(PTRACE_SETREGSET, in->tid, (void *)(uintptr_t)in->xtype, &in->xiov) ||
		   ptrace(PTRACE_SETSIGMASK, in->tid, (void *)sizeof(in->sigmask), &in->sigmask)))
		e = -errno;
	if (ptrace(PTRACE_DETACH, in->tid, 0, 0) && !e)
		e = -errno;
	in->tid = 0;
	return err ? err : e;
}

/* Is tid's signal-delivery stop an int3's SIGTRAP (the kernel's, SI_KERNEL)? */
static bool is_int3(pid_t tid)
{
	siginfo_t si;

	return !ptrace(PTRACE_GETSIGINFO, tid, 0, &si) && si.si_signo == SIGTRAP &&
	       si.si_code == SI_KERNEL;
}

/* Step 4: the call, the thread parked after it. ctl[] are the control block's slots. */
static int inj_call(struct inj *in, uint64_t *ctl, uint64_t wait_ns)
{
	uint64_t ctl_addr = in->scratch + SCR_CTL;
	struct user_regs_struct r = in->regs;
	int err;

	ctl[PR_INJ_DONE] = 0;
	err = pr_proc_write(in->p, ctl_addr, ctl, PR_INJ_SLOTS * 8);
	if (err)
		return err;
	r.rip = in->scratch + SCR_CODE;
	r.rbx = ctl_addr;
	r.rsp = in->scratch + SCR_SZ; /* 16-aligned */
	r.orig_rax = (uint64_t)-1;    /* no system call to restart into our code */
	r.eflags &= ~0x400ull;        /* the direction flag clear, as the C ABI wants */
	if (ptrace(PTRACE_SETREGS, in->tid, 0, &r) || ptrace(PTRACE_CONT, in->tid, 0, 0))
		return -errno;

	uint64_t t0 = udt__now_ns(), done = 0;
	for (long us = 20;; us = us < 500 ? us * 2 : 500) {
		int st;
		sleep_us(us);
		pid_t w = waitpid(in->tid, &st, __WALL | WNOHANG);
		if (w == in->tid && WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP && is_int3(in->tid)) {
			/* an int3 the call met: the runtime's (a probe site it patched, in a
			   function the call runs: docs/pid.md), which its handler takes */
			if (ptrace(PTRACE_CONT, in->tid, 0, (void *)(uintptr_t)SIGTRAP))
				return -errno;
			us = 10;
			continue;
		}
		if (w == in->tid)
			/* it stopped by itself: a fault in the call (or it died) */
			return WIFSTOPPED(st) ? -EFAULT : -ESRCH;
		err = pr_proc_read(in->p, ctl_addr + PR_INJ_DONE * 8, &done, sizeof(done));
		if (err)
			return err;
		if (done || udt__now_ns() - t0 > wait_ns)
			break;
	}
	err = interrupt(in);
	if (err)
		return err;
	if (!done)
		return -ETIMEDOUT;
	if (ptrace(PTRACE_GETREGS, in->tid, 0, &r))
		return -errno;
	if (r.rip < in->scratch + (uint64_t)(pr__inject_park - pr__inject_stub) ||
	    r.rip > in->scratch + (uint64_t)(pr__inject_stub_end - pr__inject_stub))
		return -EFAULT;
	return pr_proc_read(in->p, ctl_addr, ctl, PR_INJ_SLOTS * 8);
}

/*
 * Has the process exec'd since p read its mappings (a program started a
 * moment ago)? Its dynamic linker, or without one its program headers, must
 * be where p saw them: every address we use comes from p.
 */
static bool image_changed(struct inj *in)
{
	uint64_t ld = 0, phdr = 0;

	if (auxv_get(in->p->pid, AT_BASE, &ld) || auxv_get(in->p->pid, AT_PHDR, &phdr))
		return true;
	if (!ld)
		return !pr_proc_module_at(in->p, phdr);
	for (size_t i = 0; i < in->p->mod_cnt; i++)
		if (!in->p->mods[i]->gone && in->p->mods[i]->base == ld)
			return false;
	return true;
}

/* dtrace's own signals wait while a thread of the target is ours. */
static void hold_signals(sigset_t *old)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGHUP);
	sigaddset(&s, SIGQUIT);
	sigprocmask(SIG_BLOCK, &s, old);
}

static char *ptrace_refused(pid_t pid)
{
	char path[64], *status = NULL, *yama = NULL;
	size_t len;
	int tracer = 0, scope = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!udt__read_file(path, &status, &len) && status) {
		const char *t = strstr(status, "\nTracerPid:");
		tracer = t ? atoi(t + 11) : 0;
	}
	if (!udt__read_file("/proc/sys/kernel/yama/ptrace_scope", &yama, &len) && yama)
		scope = atoi(yama);
	free(status);
	free(yama);
	if (tracer)
		return udt__xasprintf("it is being traced by pid %d (a debugger?), and a process "
				      "has one tracer at a time", tracer);
	if (scope >= 2)
		return udt__xasprintf("ptrace is restricted here (kernel.yama.ptrace_scope = %d)",
				      scope);
	return udt__xstrdup("ptrace: Operation not permitted");
}

/*
 * Call the function of ctl[] in one thread of p (safe: at a point where the
 * dynamic linker may be called), with its arguments, or with data (data_sz
 * bytes, copied into our mapping) as its first when data_sz is not 0. Fills
 * ctl[] with the control block as the call left it.
 */
static int call_here(struct pr_proc *p, bool safe, uint64_t *ctl, const void *data, size_t data_sz,
		     uint64_t wait_ns, char **ret_err)
{
	struct inj *in = udt__xcalloc(1, sizeof(*in));
	uint64_t rseq_addr;
	sigset_t old;
	int err;

	in->p = p;
	if (!pr_proc_lookup(p, "__rseq_offset", &rseq_addr, NULL))
		(void)pr_proc_read(p, rseq_addr, &in->rseq_off, sizeof(in->rseq_off));
	hold_signals(&old);
	err = seize(in, safe);
	if (!err && image_changed(in))
		err = -ESRCH;
	if (err) {
		*ret_err = err == -EPERM  ? ptrace_refused(p->pid)
			   : err == -ESRCH ? udt__xstrdup("the process exited, or executed another "
							  "program")
					   : udt__xstrdup("no thread stopped at a point where the "
							  "dynamic linker may be called (each was in "
							  "the C library or the dynamic linker)");
		goto out;
	}
	err = find_syscall_insn(in);
	if (err) {
		*ret_err = udt__xstrdup("no system call instruction found in its C library");
		goto out;
	}
	err = set_mask(in, ~FAULT_SIGS) ?: map_scratch(in);
	if (!err && data_sz) {
		ctl[PR_INJ_A0] = in->scratch + SCR_DATA;
		err = data_sz > SCR_STACK - SCR_DATA ? -E2BIG
						      : pr_proc_write(p, ctl[PR_INJ_A0], data, data_sz);
	}
	if (err) {
		*ret_err = udt__xasprintf("could not make memory for the call in it: %s",
					  strerror(-err));
		goto out;
	}
	err = inj_call(in, ctl, wait_ns);
	if (err)
		*ret_err = err == -ESRCH ? udt__xstrdup("the process exited")
			   : err == -ETIMEDOUT
				   ? udt__xasprintf("the call in thread %d has not returned after %llu s; "
						    "the thread was put back",
						    (int)in->tid,
						    (unsigned long long)(wait_ns / 1000000000u))
				   : udt__xasprintf("the call in thread %d failed: %s", (int)in->tid,
						    strerror(-err));
out:
	{
		int rerr = put_back(in);
		if (!err && rerr) {
			err = rerr;
			*ret_err = udt__xasprintf("ptrace: could not put thread %d back: %s",
						  (int)in->tid, strerror(-rerr));
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(in);
	return err;
}

#if defined(__SANITIZE_ADDRESS__)
/* (AddressSanitizer's allocator is not fork-safe with threads: a child of a dtrace built so
   can deadlock in malloc, holding the attach lock; that build makes the call itself, as
   before, and its tests skip the kill mid-call) */
static int call_in(struct pr_proc *p, bool safe, uint64_t *ctl, const void *data, size_t data_sz,
		   uint64_t wait_ns, char **ret_err)
{
	return call_here(p, safe, ctl, data, data_sz, wait_ns, ret_err);
}
#else
/* Read sz bytes of fd, or what there is before its end: how many, or -1. */
static ssize_t read_all(int fd, void *buf, size_t sz)
{
	size_t got = 0;

	while (got < sz) {
		ssize_t n = read(fd, (char *)buf + got, sz - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : (ssize_t)got;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* What the injector child tells dtrace (call_in()). */
struct reply {
	int err;
	uint64_t ctl[PR_INJ_SLOTS];
	char why[512];
};

/*
 * call_here(), made by a child of dtrace (fork()) that says what the call
 * left through a pipe: dtrace killed meanwhile (SIGKILL, the OOM killer)
 * leaves the child to finish the call and put the thread back, where the
 * thread would stay parked in the stub for good, or in a system call of
 * ours with our registers. The child is a process group of its own (the
 * terminal's ^C, or a kill of dtrace's group, reach dtrace only) and holds
 * what dtrace holds, the attach lock's descriptor among them, until it has
 * put the thread back. Where the child may not ptrace the process and dtrace
 * may (Yama's ptrace_scope 1 and a descendant of dtrace), or cannot be made,
 * dtrace makes the call itself.
 */
static int call_in(struct pr_proc *p, bool safe, uint64_t *ctl, const void *data, size_t data_sz,
		   uint64_t wait_ns, char **ret_err)
{
	struct reply r = { 0 };
	sigset_t old;
	int fds[2];
	pid_t kid;

	hold_signals(&old);
	if (pipe2(fds, O_CLOEXEC)) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return call_here(p, safe, ctl, data, data_sz, wait_ns, ret_err);
	}
	kid = fork();
	if (kid == 0) {
		char *why = NULL;
		close(fds[0]);
		(void)setpgid(0, 0);
		signal(SIGPIPE, SIG_IGN);
		r.err = call_here(p, safe, ctl, data, data_sz, wait_ns, &why);
		memcpy(r.ctl, ctl, sizeof(r.ctl));
		snprintf(r.why, sizeof(r.why), "%s", why ? why : "");
		(void)!write(fds[1], &r, sizeof(r));
		_exit(0);
	}
	close(fds[1]);
	ssize_t n = kid < 0 ? -1 : read_all(fds[0], &r, sizeof(r));
	close(fds[0]);
	while (kid > 0 && waitpid(kid, NULL, 0) < 0 && errno == EINTR)
		;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (kid < 0 || (n == (ssize_t)sizeof(r) && r.err == -EPERM))
		return call_here(p, safe, ctl, data, data_sz, wait_ns, ret_err);
	if (n != (ssize_t)sizeof(r)) {
		*ret_err = udt__xstrdup("dtrace's child making the call died (killed?)");
		return -ECHILD;
	}
	memcpy(ctl, r.ctl, sizeof(r.ctl));
	if (r.err)
		*ret_err = udt__xstrdup(r.why);
	return r.err;
}
#endif

int pr_inject_sync(struct pr_proc *p, char **ret_err)
{
	uint64_t ctl[PR_INJ_SLOTS] = { 0 };

	if (pr_proc_lookup(p, "udt__profile_sync", &ctl[PR_INJ_FN], NULL)) {
		*ret_err = udt__xstrdup("its udtrace runtime has no profile provider");
		return -ENOENT;
	}
	ctl[PR_INJ_A0] = 1; /* wait for a sync another thread is making */
	return call_in(p, false, ctl, NULL, 0, SYNC_WAIT_NS, ret_err);
}

/*
 * Is p's dynamic linker still at work: mapped, with no C library yet? (A
 * process looked at right after its exec: ld.so maps the libraries before
 * main(), and dlopen() comes with libc.)
 */
static bool loader_at_work(const struct pr_proc *p)
{
	bool ld = false;

	for (size_t i = 0; i < p->mod_cnt; i++) {
		const char *n = p->mods[i]->name;
		if (p->mods[i]->gone)
			continue;
		if (!strncmp(n, "libc.so", 7) || !strncmp(n, "libc-", 5))
			return false;
		ld |= !strncmp(n, "ld-linux", 8) || !strncmp(n, "ld-", 3);
	}
	return ld;
}

int pr_runtime_load(struct pr_proc *p, const char *path, char **ret_err)
{
	uint64_t ctl[PR_INJ_SLOTS] = { 0 }, addr;
	char *why;
	int err;

	if (!pr_proc_lookup(p, "udt__runtime_id", &addr, NULL))
		return pr_runtime_check(p, ret_err); /* it has one (loaded before, linked or
							 preloaded): reused, if we speak its protocol */
	if (!path) {
		*ret_err = udt__xstrdup("dtrace has no runtime to load into it (UDTRACE_RUNTIME is "
					"empty)");
		return -ENOENT;
	}
	why = pr_runtime_unloadable(p->pid);
	if (why) {
		*ret_err = why;
		return -EPERM;
	}
	if (!same_file_there(p->pid, path)) {
		*ret_err = udt__xasprintf("%s is not the same file in its file system (a container "
					  "or a chroot?): set UDTRACE_RUNTIME to a copy of it that the "
					  "process can open", path);
		return -ENOENT;
	}
	if (pr_proc_lookup(p, "dlopen", &ctl[PR_INJ_FN], NULL) &&
	    pr_proc_lookup(p, "__libc_dlopen_mode", &ctl[PR_INJ_FN], NULL)) {
		if (loader_at_work(p)) {
			*ret_err = udt__xstrdup("its dynamic linker has not mapped its C library yet");
			return -EAGAIN;
		}
		*ret_err = udt__xstrdup("it has no dlopen() to load the udtrace runtime with");
		return -ENOENT;
	}
	(void)pr_proc_lookup(p, "__errno_location", &ctl[PR_INJ_ERRNO_FN], NULL);
	(void)pr_proc_lookup(p, "dlerror", &ctl[PR_INJ_ERR_FN], NULL);
	/* global, so that the libraries it loads later find the runtime (their -G objects'
	   references); never unloaded (docs/injection.md) */
	ctl[PR_INJ_A1] = RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE;
	err = call_in(p, true, ctl, path, strlen(path) + 1, DLOPEN_WAIT_NS, &why);
	if (err) {
		/* (without ptrace, a runtime started with the process still works) */
		*ret_err = udt__xasprintf("could not load the udtrace runtime into it: %s%s%s", why,
					  err == -EPERM ? "; to trace it without ptrace, start it "
							  "with LD_PRELOAD=" : "",
					  err == -EPERM ? path : "");
		free(why);
		return err;
	}
	if (!ctl[PR_INJ_RET]) {
		char msg[512] = "";
		if (ctl[PR_INJ_ERR_RET])
			(void)pr_proc_read_str(p, ctl[PR_INJ_ERR_RET], msg, sizeof(msg));
		*ret_err = udt__xasprintf("could not load the udtrace runtime into it: dlopen: %s",
					  msg[0] ? msg : "failed");
		return -ENOENT;
	}
	err = pr_proc_refresh(p);
	if (err) {
		*ret_err = udt__xstrdup(p->errmsg[0] ? p->errmsg : strerror(-err));
		return err;
	}
	if (pr_proc_lookup(p, "udt__runtime_id", &addr, NULL)) {
		*ret_err = udt__xasprintf("dlopen(%s) succeeded, and it has no udtrace runtime "
					  "(is that file one?)", path);
		return -ENOENT;
	}
	err = pr_runtime_check(p, ret_err);
	return err ? err : 1;
}

#else

int pr_inject_sync(struct pr_proc *p, char **ret_err)
{
	(void)p;
	*ret_err = udt__xstrdup("running code in a process is only done on x86-64");
	return -ENOTSUP;
}

int pr_runtime_load(struct pr_proc *p, const char *path, char **ret_err)
{
	uint64_t addr;

	(void)path;
	if (!pr_proc_lookup(p, "udt__runtime_id", &addr, NULL))
		return pr_runtime_check(p, ret_err);
	*ret_err = udt__xstrdup("loading the udtrace runtime into a process is only done on "
				"x86-64");
	return -ENOTSUP;
}

#endif

int pr_runtime_check(struct pr_proc *p, char **ret_err)
{
	struct udt_runtime_id id = { 0 };
	struct pr_module *mod = NULL;
	uint64_t addr;

	if (pr_proc_lookup(p, "udt__runtime_id", &addr, &mod)) {
		*ret_err = udt__xstrdup("the process has no udtrace runtime");
		return -ENOENT;
	}
	/* (its loader maps the file whole, then its segments: between the two, the identity's
	   address may hold other bytes of the file, or none) */
	if (pr_proc_read(p, addr, &id, sizeof(id)) || id.magic != UDT_CONTROL_MAGIC) {
		*ret_err = udt__xasprintf("its runtime (%s) is not loaded yet",
					  mod->path ? mod->path : mod->name);
		return -EAGAIN;
	}
	if (id.version != UDT_ABI_VERSION || id.control_size < sizeof(struct udt_ctlblock) ||
	    id.slot_cnt != UDT_SLOT_MAX || id.slot_size != sizeof(struct udt_control)) {
		*ret_err = udt__xasprintf("its runtime (%s) speaks another protocol version (%u, we "
					  "speak %u)", mod->path ? mod->path : mod->name, id.version,
					  UDT_ABI_VERSION);
		return -EPROTO;
	}
	return 0;
}

char *pr_runtime_path(void)
{
	const char *env = getenv("UDTRACE_RUNTIME");
	char exe[PATH_MAX];
	ssize_t n;

	if (env)
		return *env ? realpath(env, NULL) : NULL;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	/* the installation's layout, then the build tree's (build/bin, build/lib) */
	static const char *const rel[] = { UDT_BIN_TO_LIB, "../lib" };
	for (size_t i = 0; i < UDT__ARRAY_SIZE(rel); i++) {
		char *p = udt__xasprintf("%s/%s/libudtrace.so.1", exe, rel[i]);
		char *real = realpath(p, NULL);
		free(p);
		if (real)
			return real;
	}
	return NULL;
}
