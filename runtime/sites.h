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

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * A system call without the C library, for the sites' sync: the patches it
 * writes may be in the C library's functions (the pid provider's), whose
 * first bytes are our int3s between a batch's phases, and a call of
 * syscall() or close() there would trap (under an injected call, a ptrace
 * stop each). The kernel's result: -errno on failure.
 */
static inline long udt__sys(long nr, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#else
	long ret = syscall(nr, a, b, c, d, e, f);
	return ret < 0 ? -errno : ret;
#endif
}


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
/* A jump being written (made, moved, taken back) for udt__tjobs_run(). */
struct udt_tjob {
	struct patch *p;
	uint8_t kind;             /* tramp.c's TJ_* */
	uint8_t jmp[UDT_SITE_JMP_LEN]; /* what a jump writes */
	uint8_t unprobe_byte;     /* the instruction's byte at unprobe, our int3's there */
	uint32_t state;           /* p's before */
	uint64_t unprobe;         /* an int3 of ours past the jump's bytes, to take out (0: none) */
	int err;                  /* 0, or what failed: the jump is then taken back */
};
/*
 * tramp.c: make p's site (s, which the session wants in UDT_SITE_JUMP mode)
 * jump to a trampoline, from the nop or from our int3 (P_TRAP), or move its
 * jump to a trampoline firing more (P_JUMP): the first phase (the int3 over
 * the first byte) into *j. 0, or -errno (nothing written: the site as it
 * was, the caller may trap instead). Under the lock.
 */
int udt__tramp_patch_begin(int fd, struct patch *p, const struct udt_site *s, struct udt_tjob *j);
/* tramp.c: the first phase of udt__tramp_restore() into *j: false when it is done already. */
bool udt__tramp_restore_begin(int fd, struct patch *p, struct udt_tjob *j);
/*
 * tramp.c: the other phases of v[0..n) begun, all the jobs' writes of a
 * phase, then one serialization of every thread's core: a jump that failed
 * (v[i].err) is taken back as far as it went. Under the lock.
 */
void udt__tjobs_run(int fd, struct udt_tjob *v, size_t n);
/*
 * tramp.c: the trampoline a trapped instruction site runs its instruction
 * from (s's insn[0], relocated): p->tramp and p->resume set. 0, or -errno.
 * Under the lock.
 */
int udt__tramp_ool(int fd, struct patch *p, const struct udt_site *s);
/* tramp.c: put back the object's bytes of a jumped site p, now (its own batch). Under the lock. */
void udt__tramp_restore(int fd, struct patch *p);

#endif /* UDT_RUNTIME_SITES_H */
