/* SPDX-License-Identifier: MIT */
/*
 * ustack(): the user stack of the thread a probe fires in, recorded as
 * return addresses (docs/profile.md, "Stacks"), with libunwind's local
 * unwinder: DWARF call frame information (.eh_frame), so code built without
 * frame pointers unwinds too.
 *
 * Where the walk starts: a profile probe fires from the runtime's SIGPROF
 * handler, which leaves the interrupted context in udt__prof_uc; the walk
 * starts there (unw_init_local2 with UNW_INIT_SIGNAL_FRAME: the first PC is
 * where the thread was, not a return address), so the first frame is
 * arg1's. Any other probe fires from its site's call to udt__fire(): the
 * walk starts here and skips the runtime's own frames up to the site's
 * return address, so the first frame is the function that holds the probe,
 * as DTrace's ustack() shows it.
 *
 * Safety: async-signal-safe (libunwind's local unwinder takes no lock a
 * signal could interrupt: it blocks signals while it holds one; it
 * allocates from its own mmap'ed pool; its one-time setup, at the first
 * ustack(), opens the pipe its memory checks write to). Bounded: at most n frames, and the
 * search for the site at most MAX_SKIP. A corrupt stack (a saved frame
 * pointer or return address overwritten) ends the walk: libunwind validates
 * every address it reads while it steps (mincore() and a write of the byte
 * to a pipe, built with its conservative checks, as Debian's is) and a
 * frame that does not move the stack ends it; tests/integration/stack.sh
 * profiles a program that corrupts its frame chain on purpose.
 */
#include "runtime/internal.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <string.h>

#define MAX_SKIP 32

void udt__ustack(uint64_t *pcs, uint32_t n, uint64_t site_pc)
{
	const void *uc = udt__prof_uc;
	unw_context_t ctx;
	unw_cursor_t cur;
	unw_word_t ip = 0;
	uint32_t i = 0;

	memset(pcs, 0, (size_t)n * 8);
	if (uc) {
		if (unw_init_local2(&cur, (unw_context_t *)(uintptr_t)uc, UNW_INIT_SIGNAL_FRAME) < 0)
			return;
	} else {
		if (unw_getcontext(&ctx) || unw_init_local(&cur, &ctx) < 0)
			return;
		/* up to the probe site's function: our frames are not the application's */
		for (int skip = 0;; skip++) {
			if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || skip == MAX_SKIP)
				return;
			if (ip == site_pc)
				break;
			if (unw_step(&cur) <= 0)
				return;
		}
	}
	while (i < n) {
		if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		pcs[i++] = ip;
		if (unw_step(&cur) <= 0)
			break;
	}
}
