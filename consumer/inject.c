/* SPDX-License-Identifier: MIT */
/*
 * Running the runtime's udt__profile_sync() in a process that runs nothing
 * of ours by itself: dtrace -p on a target whose probes never fire must
 * still start (and at the end remove) the profile provider's timers
 * (docs/profile.md, "Arming"). A brief ptrace injection does it; ptrace's
 * permission is exactly the one everything else here already needs.
 *
 * Mechanism (x86-64). PTRACE_SEIZE one thread (the main one if it lives)
 * and PTRACE_INTERRUPT it; save its general registers, its whole extended
 * state (NT_X86_XSTATE: x87, SSE, AVX...) and its signal mask; block every
 * signal; point it at udt__profile_entry with the stack pointer at the end of
 * udt__inject_stack (libudtrace's own .bss: the thread's stack is never
 * touched) and orig_rax = -1, so that the kernel restarts no system call
 * into our code; continue it. The entry calls the sync, then parks in
 * pause() at udt__profile_parked. Once the thread is there (the control
 * block's prof_seq moved, and an interrupt finds it in the parking loop),
 * restore the registers, the extended state and the mask, and detach,
 * handing back any signal that the first stop intercepted.
 *
 * A thread stopped inside a system call: its saved registers say so (rax
 * is -ERESTARTSYS or a sibling, orig_rax the call), and restoring them makes
 * the kernel restart the call on the way out, exactly as after any ptrace
 * stop; the injected code makes no call that changes the thread's restart
 * block. A thread stopped inside a restartable sequence (rseq) critical
 * section is let go and interrupted again: running other code there would
 * skip the abort the kernel owes it. Signals arriving meanwhile stay pending
 * (the mask) and are delivered once the thread runs again.
 */
#include "consumer/internal.h"
#include "util/util.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)

#define WAIT_NS 5000000000ull /* for the injected call to finish */
#define XSTATE_MAX 16384

struct stopped {
	pid_t tid;
	int pending_sig;          /* a signal the first stop intercepted: given back at detach */
	struct user_regs_struct regs;
	uint8_t xstate[XSTATE_MAX];
	struct iovec xiov;
	int xtype;                /* NT_X86_XSTATE, or NT_PRFPREG */
	uint64_t sigmask;
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

/* Interrupt a seized thread and wait until it stops; a signal it was getting is kept. */
static int interrupt(struct stopped *s)
{
	int st, err;

	if (ptrace(PTRACE_INTERRUPT, s->tid, 0, 0))
		return -errno;
	for (;;) {
		err = wait_stop(s->tid, &st);
		if (err)
			return err;
		if ((st >> 16) == PTRACE_EVENT_STOP)
			return 0;
		/* a signal-delivery stop: keep the signal for the thread, then take the interrupt */
		if (!s->pending_sig)
			s->pending_sig = WSTOPSIG(st);
		if (ptrace(PTRACE_CONT, s->tid, 0, 0))
			return -errno;
	}
}

/*
 * Is the thread inside a restartable sequence's critical section? Its rseq
 * area is at fs_base + __rseq_offset (glibc 2.35 on registers every thread);
 * its rseq_cs, when set, names the section.
 */
static bool in_rseq_cs(struct cs_proc *p, const struct user_regs_struct *r, int64_t rseq_off)
{
	uint64_t cs = 0;
	struct {
		uint32_t version, flags;
		uint64_t start_ip, post_commit_offset, abort_ip;
	} d;

	if (!rseq_off || (int64_t)r->orig_rax >= 0) /* in a system call: not in a section */
		return false;
	if (cs_proc_read(p, r->fs_base + (uint64_t)rseq_off + 8, &cs, sizeof(cs)) || !cs ||
	    cs_proc_read(p, cs, &d, sizeof(d)))
		return false;
	return r->rip >= d.start_ip && r->rip - d.start_ip < d.post_commit_offset;
}

/* Seize one thread of the target (the main one first) and stop it. */
static int seize(struct cs_proc *p, struct stopped *s)
{
	char path[64];
	int err = -ESRCH;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	DIR *d = opendir(path);
	if (!d)
		return -ESRCH;
	/* the main thread, then the others in the order the directory lists them */
	for (int pass = 0; pass < 2; pass++) {
		struct dirent *de;
		rewinddir(d);
		while ((de = readdir(d))) {
			pid_t tid = (pid_t)atoi(de->d_name);
			if (tid <= 0 || (pass == 0) != (tid == p->pid))
				continue;
			if (ptrace(PTRACE_SEIZE, tid, 0, 0)) {
				err = -errno;
				if (err == -EPERM)
					goto out; /* not allowed (or traced already): no other will do */
				continue;
			}
			s->tid = tid;
			err = interrupt(s);
			if (!err)
				goto out;
			(void)ptrace(PTRACE_DETACH, tid, 0, 0);
		}
	}
out:
	closedir(d);
	return err;
}

static int save(struct stopped *s)
{
	if (ptrace(PTRACE_GETREGS, s->tid, 0, &s->regs))
		return -errno;
	s->xiov = (struct iovec){ s->xstate, sizeof(s->xstate) };
	s->xtype = NT_X86_XSTATE;
	if (ptrace(PTRACE_GETREGSET, s->tid, (void *)(uintptr_t)NT_X86_XSTATE, &s->xiov)) {
		s->xiov = (struct iovec){ s->xstate, sizeof(struct user_fpregs_struct) };
		s->xtype = NT_PRFPREG;
		if (ptrace(PTRACE_GETREGSET, s->tid, (void *)(uintptr_t)NT_PRFPREG, &s->xiov))
			return -errno;
	}
	if (ptrace(PTRACE_GETSIGMASK, s->tid, (void *)sizeof(s->sigmask), &s->sigmask))
		return -errno;
	return 0;
}

/* Put everything back as save() found it and let the thread go. */
static int restore_detach(struct stopped *s)
{
	int err = 0;

	if (ptrace(PTRACE_SETREGS, s->tid, 0, &s->regs) ||
	    ptrace(PTRACE_SETREGSET, s->tid, (void *)(uintptr_t)s->xtype, &s->xiov) ||
	    ptrace(PTRACE_SETSIGMASK, s->tid, (void *)sizeof(s->sigmask), &s->sigmask))
		err = -errno;
	if (ptrace(PTRACE_DETACH, s->tid, 0, (void *)(uintptr_t)s->pending_sig) && !err)
		err = -errno;
	return err;
}

int cs__inject_sync(struct cs_proc *p, uint64_t ctl, char **ret_err)
{
	uint64_t entry, parked, stack, rseq_addr = 0;
	int64_t rseq_off = 0;
	uint32_t seq0 = 0, seq;
	struct stopped *s = udt__xcalloc(1, sizeof(*s));
	int err;

	if (cs_proc_lookup(p, "udt__profile_entry", &entry, NULL) ||
	    cs_proc_lookup(p, "udt__profile_parked", &parked, NULL) ||
	    cs_proc_lookup(p, "udt__inject_stack", &stack, NULL)) {
		*ret_err = udt__xstrdup("its udtrace runtime has no profile provider");
		free(s);
		return -ENOENT;
	}
	if (!cs_proc_lookup(p, "__rseq_offset", &rseq_addr, NULL))
		(void)cs_proc_read(p, rseq_addr, &rseq_off, sizeof(rseq_off));
	(void)cs_proc_read(p, ctl + offsetof(struct udt_control, prof_seq), &seq0, sizeof(seq0));

	err = seize(p, s);
	if (err) {
		*ret_err = udt__xasprintf("ptrace: %s%s", strerror(-err),
					  err == -EPERM ? " (is it being debugged?)" : "");
		free(s);
		return err;
	}
	err = save(s);
	/* out of a restartable sequence's critical section first */
	for (int tries = 0; !err && in_rseq_cs(p, &s->regs, rseq_off); tries++) {
		if (tries == 100 || ptrace(PTRACE_CONT, s->tid, 0, 0)) {
			err = -EAGAIN;
			break;
		}
		sleep_us(50);
		err = interrupt(s) ?: save(s);
	}
	if (err) {
		*ret_err = udt__xasprintf("ptrace: could not stop a thread at a safe point: %s",
					  strerror(-err));
		(void)ptrace(PTRACE_DETACH, s->tid, 0, (void *)(uintptr_t)s->pending_sig);
		free(s);
		return err;
	}

	struct user_regs_struct r = s->regs;
	uint64_t all = ~0ull;
	r.rip = entry;
	r.rsp = (stack + UDT_INJECT_STACK_SZ) & ~15ull;
	r.orig_rax = (uint64_t)-1; /* no system call to restart into our code */
	r.rax = 0;
	r.eflags &= ~0x400ull;     /* the direction flag clear, as the C ABI wants */
	if (ptrace(PTRACE_SETSIGMASK, s->tid, (void *)sizeof(all), &all) ||
	    ptrace(PTRACE_SETREGS, s->tid, 0, &r) || ptrace(PTRACE_CONT, s->tid, 0, 0)) {
		err = -errno;
		goto restore;
	}
	/* until prof_seq moves and the thread is found parked */
	uint64_t t0 = cs__now_ns();
	for (;;) {
		int st;
		sleep_us(200);
		pid_t w = waitpid(s->tid, &st, __WALL | WNOHANG);
		if (w == s->tid) {
			/* it stopped by itself: a fault in the injected call (or it died) */
			err = WIFSTOPPED(st) ? -EFAULT : -ESRCH;
			if (err == -ESRCH) {
				free(s);
				*ret_err = udt__xstrdup("the process exited");
				return err;
			}
			goto restore;
		}
		if (cs_proc_read(p, ctl + offsetof(struct udt_control, prof_seq), &seq,
				 sizeof(seq)) == 0 && seq != seq0) {
			struct user_regs_struct now;
			err = interrupt(s);
			if (err) {
				free(s);
				*ret_err = udt__xstrdup("the process exited");
				return err;
			}
			if (ptrace(PTRACE_GETREGS, s->tid, 0, &now)) {
				err = -errno;
				goto restore;
			}
			if (now.rip >= parked && now.rip < parked + 9)
				break; /* done: parked in pause() */
			if (ptrace(PTRACE_CONT, s->tid, 0, 0)) {
				err = -errno;
				goto restore;
			}
			seq0 = seq; /* another thread's sync: ours is still running */
		}
		if (cs__now_ns() - t0 > WAIT_NS) {
			err = -ETIMEDOUT;
			(void)interrupt(s);
			goto restore;
		}
	}
restore:
	{
		int rerr = restore_detach(s);
		if (!err)
			err = rerr;
	}
	if (err)
		*ret_err = udt__xasprintf("ptrace: the injected call failed: %s", strerror(-err));
	free(s);
	return err;
}

#else

int cs__inject_sync(struct cs_proc *p, uint64_t ctl, char **ret_err)
{
	(void)p;
	(void)ctl;
	*ret_err = udt__xstrdup("running code in a process is only done on x86-64");
	return -ENOTSUP;
}

#endif
