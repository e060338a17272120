/* SPDX-License-Identifier: MIT */
/*
 * What runtime/sites.c (the patching, the trap, the sync) and
 * runtime/tramp.c (the trampolines) share: the table of the sites this
 * process has had patched, and the writing of its text. docs/notes.md has
 * the design, and docs/pid.md what the pid provider's sites add.
 */
#ifndef UDT_RUNTIME_SITES_H
#define UDT_RUNTIME_SITES_H

#include "runtime/internal.h"

#define UDT_INT3 0xcc
#define UDT_PATCH_MAX 32768

/* struct patch.state */
enum {
	P_RESTORED = 0,           /* the object's bytes are there */
	P_TRAP = 1,               /* our int3 over the nop (or the instruction) */
	P_JUMP = 2,               /* a jump to the trampoline, or on the way to or from one */
};

/*
 * A site this process has had patched: never forgotten, since a trap can be
 * delivered after its site was restored, and a thread can still be in its
 * trampoline. Entries are only added (under the sync's lock) and published
 * with a release store; the handler and the trampolines read them without
 * a lock. Everything but state, site and site_session is set before the
 * entry is published, or (the trampoline's fields) before the state says
 * P_JUMP.
 */
struct patch {
	uint64_t addr;            /* the nop; INSN: the first byte its jump or trap takes */
	uint32_t state;           /* P_* (release when set, acquire when read) */
	uint8_t kind;             /* enum udt_site_kind, of its first site (set once) */
	uint8_t fire_off;         /* INSN: the probed instruction's offset in the bytes */
	uint8_t len;              /* with a trampoline: the bytes it displaces (NOTE: 5...) */
	uint8_t bound;            /* bit k: offset k starts an instruction (an int3 there while
				     jumped); bit 0 always */
	uint32_t points;          /* INSN: bit k, a probed instruction k bytes after its bytes'
				     start fires from its trampoline (fire_off's, and the joined) */
	uint8_t bytes[UDT_SITE_BYTES_MAX]; /* the object's bytes (bytes[0] is the nop) */
	uint64_t tramp;           /* its trampoline entry, 0 none yet */
	uint64_t resume;          /* in it: where a trap's fire goes on (NOTE: the relocated
				     instructions, at[1]; INSN: the probed instruction's copy) */
	uint64_t at[UDT_SITE_JMP_LEN]; /* at[k]: where a thread at offset k goes on: the copy of
				     the instruction there (INSN: at[fire_off] the fire) */
	/* a live session's site there (the sync's), for the trap and the trampoline: the
	   site, then its session << 8 | its slot (release) */
	const struct udt_site *site;
	uint64_t site_tag;
};

/* The patch of the site at addr, or NULL. Async-signal-safe. */
struct patch *udt__patch_find(uint64_t addr);
/* The i-th patch, or NULL (an index a trampoline pushed). Async-signal-safe. */
struct patch *udt__patch_at(uint32_t i);
/* The index of p, for its trampoline. */
uint32_t udt__patch_index(const struct patch *p);

/*
 * Fire the probe of p's site, in every live session, for the thread
 * interrupted there: its general registers gpr (the x86 encoding's order,
 * gpr[4] its stack pointer) and its FXSAVE-shaped FP state fx (NULL: none);
 * uc its signal context for ustack() (NULL: gpr is). Async-signal-safe.
 */
void udt__site_fire(struct patch *p, const uint64_t *gpr, const uint8_t *fx, const void *uc);
/* Fire the probes of the instruction sites at addr (joined in p's jump) from its trampoline. */
void udt__point_fire(struct patch *p, uint64_t addr, const uint64_t *gpr);

/*
 * Write n bytes at addr of the text (or of a trampoline page): through
 * /proc/self/mem (fd, or -1), else by making the page writable for the
 * moment. 0 or -errno.
 */
int udt__text_write(int fd, uint64_t addr, const void *b, size_t n);

/*
 * tramp.c: can this process have jumps (membarrier's core serialization is
 * there)? Registers the process for it the first time. Under the sync's lock.
 */
bool udt__tramp_ready(void);
/*
 * tramp.c: make p's site (s, which the session wants in UDT_SITE_JUMP mode)
 * jump to a trampoline, from the nop or from our int3 (P_TRAP). 0, or -errno
 * (the site is left as it was: the caller may trap instead). Under the lock.
 */
int udt__tramp_patch(int fd, struct patch *p, const struct udt_site *s);
/*
 * tramp.c: the trampoline a trapped instruction site runs its instruction
 * from (s's insn[0], relocated): p->tramp and p->resume set. 0, or -errno.
 * Under the lock.
 */
int udt__tramp_ool(int fd, struct patch *p, const struct udt_site *s);
/* tramp.c: put back the object's bytes of a jumped site p. Under the lock. */
void udt__tramp_restore(int fd, struct patch *p);

#endif /* UDT_RUNTIME_SITES_H */
