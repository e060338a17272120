/* SPDX-License-Identifier: MIT */
/*
 * The proc provider in the process (docs/proc.md): a process's life as the
 * C library's functions see it, from the sites with a part the consumer
 * places in them (probes/libc.c), fired as illumos's proc provider fires:
 *
 *	_Fork's ways out      create (the parent: %rax the child), start (the
 *	                      child: %rax 0); vfork's and posix_spawn's: create
 *	execve's entry        exec (the path); its ways out: exec-failure
 *	_exit's entry         exit (CLD_EXITED), the process not yet gone
 *	pthread_create        lwp-create at a way out that made the thread
 *	start_thread          lwp-start just before its call of the start
 *	                      routine (the new thread), lwp-exit at its call of
 *	                      the thread's TLS destructors
 *	kill, tgkill, pthread_kill (raise()), sigqueue   signal-send
 *	sigtimedwait's ways out (sigwait(), sigwaitinfo())  signal-clear
 *
 * The psinfo_t and lwpsinfo_t a probe's arguments point to are on this
 * fire's stack, filled from what the process knows (vm/psinfo.c): of
 * another process, only its pid.
 */
#include "runtime/internal.h"
#include "vm/safe.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Where struct pthread keeps its thread's tid (glibc's libthread_db descriptor), or -1. */
static int64_t tid_off = -1;

__attribute__((constructor)) static void proc_init(void)
{
	/* { bits, count, offset }: what libthread_db reads (nptl_db/structs.def) */
	const uint32_t *d = dlsym(RTLD_DEFAULT, "_thread_db_pthread_tid");

	if (d && d[0] == 32)
		tid_off = d[2];
}

/* The tid of thread th (a pthread_t), or 0. */
static int32_t tid_of(uint64_t th)
{
	int32_t tid = 0;

	if (tid_off < 0 || !th || udt__fire_read(&tid, th + (uint64_t)tid_off, sizeof(tid)))
		return 0;
	return tid;
}

static void fire(uint32_t probe, uint64_t fn, unsigned n, uint64_t a0, uint64_t a1, uint64_t a2,
		 uint64_t pc)
{
	uint64_t a[3] = { a0, a1, a2 };

	udt__fire_at(UDT_PROC_KEY(probe, fn), n, a, pc);
}

/* signal-send of sig to thread tid (0: a process) of process pid, from this one. */
static void send(uint64_t fn, int64_t pid, int32_t tid, int sig, uint64_t pc)
{
	struct udt_psinfo ps;
	struct udt_lwpsinfo lwp;
	int32_t self = (int32_t)syscall(SYS_getpid);
	uint32_t cpu = udt__getcpu();

	if (!sig)
		return; /* (a test of the process's existence: nothing is sent) */
	if (pid == self) {
		udt_vm_psinfo_of(&ps, self, tid ? tid : udt__gettid(), cpu);
	} else {
		memset(&ps, 0, sizeof(ps));
		ps.pr_pid = (int32_t)pid;
	}
	memset(&lwp, 0, sizeof(lwp));
	if (tid && pid == self)
		udt_vm_lwpsinfo_of(&lwp, tid, cpu);
	lwp.pr_lwpid = tid;
	fire(UDT_PC_SIGNAL_SEND, fn, 3, (uint64_t)(uintptr_t)&lwp, (uint64_t)(uintptr_t)&ps,
	     (uint64_t)sig, pc);
}

/* Does this process run in its parent's memory (a vfork or posix_spawn child)? Unknown: no. */
static bool in_parents_memory(void)
{
	return udt__shares_mm((int)syscall(SYS_getppid)) == 1;
}

/* create: of child, by this process (its psinfo_t as a fork child's: the parent's facts). */
static void created(uint64_t fn, int32_t child, uint64_t pc)
{
	struct udt_psinfo ps;
	int32_t self = (int32_t)syscall(SYS_getpid);

	udt_vm_psinfo_of(&ps, self, udt__gettid(), udt__getcpu());
	ps.pr_ppid = self;
	ps.pr_pid = child;
	ps.pr_nlwp = 1;
	ps.pr_lwp.pr_lwpid = child;
	fire(UDT_PC_CREATE, fn, 1, (uint64_t)(uintptr_t)&ps, 0, 0, pc);
}

void udt__proc_fire(uint64_t part, const uint64_t *gpr, uint64_t pc)
{
	int err = errno; /* (the application's, before anything here) */
	uint64_t fn = UDT_PART_FN(part), rax = gpr[UDT_NREG_RAX];
	uint64_t rdi = gpr[UDT_NREG_RDI], rsi = gpr[UDT_NREG_RSI], rdx = gpr[UDT_NREG_RDX];
	uint32_t role = UDT_PART_ROLE(part);

	/* a vfork or posix_spawn child, which shares its parent's memory until it execs, would
	   fire as its parent (udt__shares_mm()): its exec and exit are not its parent's */
	if ((role == UDT_PR_EXEC || role == UDT_PR_EXECAT || role == UDT_PR_EXEC_FAIL ||
	     role == UDT_PR_EXIT) && in_parents_memory()) {
		errno = err;
		return;
	}
	switch (role) {
	case UDT_PR_FORK:
	case UDT_PR_VFORK:
		/* (a pid_t: %eax) */
		if ((int32_t)rax > 0)
			created(fn, (int32_t)rax, pc);
		else if (!(int32_t)rax && role == UDT_PR_FORK)
			fire(UDT_PC_START, fn, 0, 0, 0, 0, pc); /* (a vfork child shares our memory) */
		break;
	case UDT_PR_SPAWN:
		udt__tls.out_arg = rdi;
		break;
	case UDT_PR_SPAWN_DONE: {
		uint64_t out = udt__tls.out_arg;
		int32_t child = 0;
		udt__tls.out_arg = 0;
		if ((uint32_t)rax || !out)
			break;
		if (!udt__fire_read(&child, out, sizeof(child)) && child > 0)
			created(fn, child, pc);
		break;
	}
	case UDT_PR_EXEC:
	case UDT_PR_EXECAT:
		fire(UDT_PC_EXEC, fn, 1, role == UDT_PR_EXEC ? rdi : rsi, 0, 0, pc);
		break;
	case UDT_PR_EXEC_FAIL:
		fire(UDT_PC_EXEC_FAILURE, fn, 1, (uint64_t)err, 0, 0, pc);
		break;
	case UDT_PR_EXIT:
		fire(UDT_PC_EXIT, fn, 1, 1 /* CLD_EXITED */, 0, 0, pc);
		break;
	case UDT_PR_THREAD:
		udt__tls.out_arg = rdi;
		udt__tls.new_tid = 0;
		break;
	case UDT_PR_CLONED:
		/* (in the parent, inside pthread_create: the new thread, which may be gone before
		   pthread_create returns, its tid in its struct pthread cleared then) */
		if ((int32_t)rax > 0 && udt__tls.out_arg)
			udt__tls.new_tid = (int32_t)rax;
		break;
	case UDT_PR_THREAD_DONE: {
		uint64_t out = udt__tls.out_arg, th = 0;
		udt__tls.out_arg = 0;
		if ((uint32_t)rax || !out)
			break; /* (it failed, or began before the sites were there) */
		if (udt__fire_read(&th, out, sizeof(th)))
			th = 0;
		struct udt_lwpsinfo lwp;
		memset(&lwp, 0, sizeof(lwp));
		lwp.pr_lwpid = udt__tls.new_tid ? udt__tls.new_tid : tid_of(th);
		udt__tls.new_tid = 0;
		lwp.pr_bindpro = lwp.pr_bindpset = -1;
		fire(UDT_PC_LWP_CREATE, fn, 2, (uint64_t)(uintptr_t)&lwp,
		     udt_vm_curpsinfo((int32_t)syscall(SYS_getpid), udt__gettid(), udt__getcpu(),
				      udt__now_ns()),
		     0, pc);
		break;
	}
	case UDT_PR_LWP_START:
		fire(UDT_PC_LWP_START, fn, 0, 0, 0, 0, pc);
		break;
	case UDT_PR_LWP_EXIT:
		fire(UDT_PC_LWP_EXIT, fn, 0, 0, 0, 0, pc);
		break;
	case UDT_PR_KILL:
	case UDT_PR_SIGQUEUE:
		send(fn, (int64_t)(int32_t)rdi, 0, (int)rsi, pc);
		break;
	case UDT_PR_TGKILL:
		send(fn, (int64_t)(int32_t)rdi, (int32_t)rsi, (int)rdx, pc);
		break;
	case UDT_PR_PTHREAD_KILL:
		send(fn, syscall(SYS_getpid), tid_of(rdi), (int)rsi, pc);
		break;
	case UDT_PR_SIGWAITED:
		if ((int32_t)rax > 0)
			fire(UDT_PC_SIGNAL_CLEAR, fn, 1, rax & 0xffffffffu, 0, 0, pc);
		break;
	}
	errno = err;
}
