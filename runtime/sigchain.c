/* SPDX-License-Identifier: MIT */
/*
 * Handing a signal that is not the runtime's to the action it replaced, as
 * the kernel would have delivered it without us: the profile provider's
 * SIGPROF (profile.c) and the SystemTap sites' SIGTRAP (sites.c). (The
 * fault-safe loads' SIGSEGV and SIGBUS have their own, in safe.c: a fault's
 * default action is taken by faulting again.) Async-signal-safe.
 */
#include "runtime/internal.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void udt__sig_chain(struct sigaction *o, bool forced, int sig, siginfo_t *si, void *uc)
{
	sigset_t prev;
	bool mask = false;

	/* an ignored signal, unless the kernel forced it (a trap: it kills, ignored or not) */
	if (!(o->sa_flags & SA_SIGINFO) && o->sa_handler == SIG_IGN && !forced)
		return;
	if (!(o->sa_flags & SA_SIGINFO) &&
	    (o->sa_handler == SIG_DFL || o->sa_handler == SIG_IGN)) {
		/* the default action (the process ends): let the kernel take it */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
		syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
		return;
	}
	/* its mask while it runs (sig too but with SA_NODEFER: ours may not block it), and
	   SA_NODEFER's unblocked signal */
	mask = true;
	{
		sigset_t set = o->sa_mask;
		if (!(o->sa_flags & SA_NODEFER))
			sigaddset(&set, sig);
		pthread_sigmask(SIG_BLOCK, &set, &prev);
		if (o->sa_flags & SA_NODEFER) {
			sigemptyset(&set);
			sigaddset(&set, sig);
			pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		}
	}
	if (o->sa_flags & SA_SIGINFO)
		o->sa_sigaction(sig, si, uc);
	else
		o->sa_handler(sig);
	if (mask)
		pthread_sigmask(SIG_SETMASK, &prev, NULL);
	if (o->sa_flags & SA_RESETHAND) {
		o->sa_flags &= ~SA_SIGINFO;
		o->sa_handler = SIG_DFL;
	}
}
