/* SPDX-License-Identifier: MIT */
/*
 * The runtime's ABI with the consumer: the control block, the shared buffers,
 * the enablings and the records. Specified in docs/runtime.md; this header is
 * its only definition in code, included by runtime/ and consumer/.
 *
 * Overview (docs/runtime.md has the whole protocol):
 *
 *  - libudtrace has a static control block, udt__control (exported), in .bss:
 *    zero pages, no memory until a consumer writes it. The consumer finds it
 *    through the target's ELF symbols and writes it with process_vm_writev(),
 *    which the kernel allows exactly when the consumer may ptrace the target.
 *    It has UDT_SLOT_MAX slots, one per session (consumer) at a time: each
 *    holds its session's parameters and, in one of its two areas, its
 *    enablings: ECBs with their bytecode (abi/bytecode.h). Whether each
 *    slot's session is live is a byte of one word, which the probe path
 *    reads first.
 *  - The consumer sets the probes' semaphores and the objects' udt__dispatch
 *    pointers; the runtime does nothing until a probe fires.
 *  - At the first fire of a session the firing thread creates the shared
 *    buffer memory (a memfd, mapped MAP_SHARED) and publishes its descriptor
 *    number in the control block; the consumer maps it through
 *    /proc/PID/fd/N. Each thread takes a buffer there at its first fire.
 *  - Records go into the thread's buffer, lock-free and with no atomic
 *    read-modify-write. The consumer switches buffers (switch policy) with
 *    a membarrier standing in for the producer's fence.
 *  - The consumer writes a heartbeat; a probe that fires after the deadman
 *    interval without one ends the session in the target: the runtime
 *    restores the semaphores and clears udt__dispatch.
 *
 * Everything is append-only: new fields at the end, readers check sizes.
 * Integers are native-endian; addresses are the target's.
 *
 * abi/ owns what the runtime and dtrace share, one header each: this one,
 * the bytecode (bytecode.h), the probe tables (probe_table.h), the notes'
 * operands (note_arg.h). Both sides include it, so it never includes either,
 * nor any other room: only the C library's headers (docs/layout.md).
 */
#ifndef UDT_ABI_H
#define UDT_ABI_H

#include <stdint.h>

#include "abi/bytecode.h"
#include "abi/note_arg.h"

#define UDT_ABI_VERSION 23
#define UDT_CONTROL_MAGIC 0x4c544455u /* "UDTL" */
#define UDT_SHM_MAGIC 0x4d544455u     /* "UDTM" */

/*
 * A session's thread buffers (docs/runtime.md, "Threads"): the main memory
 * holds the first UDT_SEG0_TBUFS (fewer if maxthreads is lower), and up to
 * UDT_SEG_MAX - 1 segments, each twice the one before, the rest: 2^27 in all.
 */
#define UDT_SEG0_TBUFS 16u
#define UDT_SEG_MAX 24
#define UDT_TBUF_LIMIT (UDT_SEG0_TBUFS << (UDT_SEG_MAX - 1))

/* Size of each of the two enabling areas of a slot (.bss: no memory until written). */
#define UDT_AREA_SZ (2048u * 1024u)

/*
 * The most sessions a process holds at once (docs/runtime.md, "Several
 * sessions"): the slots of its control block. Their live bytes are one
 * 64-bit word, so at most 8.
 */
#define UDT_SLOT_MAX 8

/* udt_control.state: a slot's session */
enum udt_state {
	UDT_STATE_IDLE = 0,      /* never used */
	UDT_STATE_ACTIVE = 1,    /* a consumer's enablings are live */
	UDT_STATE_DETACHED = 2,  /* the consumer ended the session */
	UDT_STATE_DEADMAN = 3,   /* the runtime (or a consumer taking the slot) ended it: no heartbeat */
	UDT_STATE_FORKED = 4,    /* (in a fork child) the parent's session, not ours */
};

/* udt_control.shm_state */
enum udt_shm_state {
	UDT_SHM_NONE = 0,
	UDT_SHM_CREATING = 1,    /* a thread is making it */
	UDT_SHM_READY = 2,       /* shm_fd and shm_size are valid */
	UDT_SHM_FAILED = 3,      /* could not be made; shm_errno says why */
};

/* Buffer policies (DTrace's bufpolicy). */
enum udt_policy {
	UDT_POLICY_SWITCH = 0,
	UDT_POLICY_FILL = 1,
	UDT_POLICY_RING = 2,
};

/* udt_ctlhdr.flags (process-wide) */
#define UDT_CTL_FENCE 0x1u       /* membarrier unavailable: producers fence */
/* udt_control.flags (a session's) */
#define UDT_CTL_BUFRESIZE 0x2u   /* bufresize=auto: halve bufsize until the buffers fit */
#define UDT_CTL_FOLLOW 0x4u      /* a fork child keeps the session (docs/runtime.md, "fork") */
#define UDT_CTL_FORKWAIT 0x8u    /* and its first fire waits (100 ms at most) for the consumer
				    to map its memory: the consumer is told of forks at once */
#define UDT_CTL_LOADWAIT 0x10u   /* a table registered waits (1 s at most) until reg_acked says
				    the consumer has enabled its probes (version 21) */

/*
 * The runtime's identity: symbol udt__runtime_id, read-only. The consumer
 * checks it before it writes anything into the control block.
 */
struct udt_runtime_id {
	uint32_t size;            /* sizeof(struct udt_runtime_id) */
	uint32_t magic;           /* UDT_CONTROL_MAGIC */
	uint32_t version;         /* UDT_ABI_VERSION */
	uint32_t control_size;    /* sizeof(struct udt_ctlblock) */
	/* (version 15) */
	uint32_t slot_cnt;        /* UDT_SLOT_MAX */
	uint32_t slot_size;       /* sizeof(struct udt_control) */
};

/*
 * A slot of the control block: one session's. "C" fields are written by its
 * consumer, "R" fields by the runtime. Whether the probe path runs it is its
 * live byte in the header; state says what became of it. Its two enabling
 * areas are udt_ctlblock.areas[slot].
 */
struct udt_control {
	int32_t pid;              /* C: the process it attached to (a fork child differs);
				     R: a fork child that keeps the session (UDT_CTL_FOLLOW) writes
				     its own, once its parent's view is gone (-pid while it works) */
	uint32_t state;           /* C (->ACTIVE->DETACHED), R (ACTIVE->DEADMAN, ->FORKED) */
	uint32_t session;         /* C: unique in the process (one more than every slot's), never 0 */
	int32_t consumer_pid;     /* C */
	uint32_t area;            /* C: which area (0 or 1) holds this session's enablings */
	uint64_t heartbeat_ns;    /* C: CLOCK_MONOTONIC of the consumer's last heartbeat */
	uint64_t deadman_ns;      /* C: a fire later than heartbeat + this ends the session */
	uint64_t deadline;        /* C: the same in the clock's units (udt_rec.timestamp's), that
				     the runtime compares its reading with (version 18) */
	uint64_t bufsize;         /* C: bytes per buffer half; R: lowered by bufresize=auto */
	uint32_t policy;          /* C: enum udt_policy */
	uint32_t flags;           /* C: UDT_CTL_BUFRESIZE, UDT_CTL_FOLLOW, UDT_CTL_FORKWAIT,
				     UDT_CTL_LOADWAIT */
	uint32_t tbuf_max;        /* C: threads with a buffer, at most */
	uint32_t shm_state;       /* R: enum udt_shm_state */
	int32_t shm_fd;           /* R */
	int32_t shm_errno;        /* R: when UDT_SHM_FAILED */
	uint64_t shm_size;        /* R: bytes of the memfd */
	uint64_t shm_addr;        /* R: where the target mapped it */
	uint32_t shm_session;     /* R: the session the current shm belongs to */
	uint32_t shm_acked;       /* C: the consumer has mapped the shm of this session */
	uint64_t lost;            /* R: fires dropped before the shm existed, or without a buffer */
	uint32_t deadman_session; /* R: the session the deadman ended */
	uint32_t bad_session;     /* R: the session whose enablings failed verification */
	uint32_t bad_ecb;         /* R: index of the ECB that failed */
	uint32_t bad_insn;        /* R: and the instruction */
	/* C: the clock. With tsc_mult 0, the runtime reads CLOCK_MONOTONIC from
	   clock_gettime(); otherwise the x86 time-stamp counter, whose reading is
	   tsc_ns + ((TSC - tsc_base) * tsc_mult >> 32) ns: the consumer's
	   calibration against CLOCK_MONOTONIC (docs/runtime.md, "Timestamps") */
	uint64_t tsc_base;
	uint64_t tsc_ns;
	uint64_t tsc_mult;        /* ns per TSC tick, 32.32 fixed point */
	uint64_t aggsize;         /* C: bytes of aggregation table per thread, 0 when none */
	uint64_t tvarsize;        /* C: bytes of thread-local variables (self->) per thread */
	/* The profile provider's timers (docs/profile.md): udt__profile_sync() arms them for the
	   session's profile probes, or removes them once the session is over. */
	uint32_t prof_seq;        /* R: bumped at the end of every udt__profile_sync(), in every slot */
	uint32_t prof_armed;      /* R: the slot's session when its timers are armed, else 0 */
	int32_t prof_errno;       /* R: why the last arming failed, 0 if it did not */
	uint32_t prof_mode;       /* R: UDT_PROF_MODE_*: how the profile probes' samples are timed */
	/* The session's SystemTap sites (docs/notes.md): udt__profile_sync() patches every
	   live session's, and restores those no session has (runtime/sites.c). */
	uint32_t site_armed;      /* R: the slot's session when its sites are patched, else 0 */
	uint32_t site_cnt;        /* R: sites patched for it */
	int32_t site_errno;       /* R: why the last sync patched nothing, 0 none (each site's
				     own outcome is its udt_site.status) */
	int32_t site_tid;         /* R: with site_errno EDEADLK, the thread that blocks SIGTRAP */
	uint32_t reg_acked;       /* C: the udt__registry.gen whose tables' probes it has enabled
				     (UDT_CTL_LOADWAIT; version 21) */
} __attribute__((aligned(256)));

_Static_assert(sizeof(struct udt_control) == 256, "a slot is 256 bytes: its index is a shift");

/*
 * The control block's header: what every slot shares. The probe path reads
 * live as one word (lives) at every fire: nothing here is written but when
 * a session starts or ends. A consumer (or the runtime) writes only its own
 * slot's byte: a 1-byte process_vm_writev(), a 1-byte compare-and-swap.
 */
struct udt_ctlhdr {
	union {
		uint8_t live[UDT_SLOT_MAX]; /* C (0->1->0), R (1->0): 1 while the slot's state is ACTIVE */
		uint64_t lives;
	};
	uint32_t flags;           /* C: UDT_CTL_FENCE (set by any session's consumer, never cleared) */
	uint32_t reserved[13];    /* (64 bytes: a cache line of its own) */
};

/*
 * The control block: symbol udt__control in libudtrace, in .bss: all zero
 * (not even resident) until a consumer writes it.
 */
struct udt_ctlblock {
	struct udt_ctlhdr hdr;
	struct udt_control slots[UDT_SLOT_MAX];
	/* The enablings of slot i's current session live in areas[i][its area]; the
	   other area may still be read by a thread that entered before a session ended. */
	uint8_t areas[UDT_SLOT_MAX][2][UDT_AREA_SZ];
};

/*
 * The enabling area (areas[area]): a header, then ECBs, actions, DIFOs and
 * the lists the runtime needs to undo the session. Offsets are from the
 * start of the area; all 8-aligned.
 */
struct udt_area_hdr {
	uint32_t size;            /* sizeof(struct udt_area_hdr) */
	uint32_t used;            /* bytes of the area in use */
	uint32_t ecb_cnt;
	uint32_t ecb_off;         /* struct udt_ecb[ecb_cnt] */
	uint32_t hash_bits;       /* the ECB hash has 1 << hash_bits slots */
	uint32_t hash_off;        /* uint32_t[1 << hash_bits]: ECB index + 1 by semaphore, 0 empty */
	uint32_t sem_cnt;         /* semaphores the consumer incremented (once each) */
	uint32_t sem_off;         /* uint64_t[sem_cnt]: their addresses */
	uint32_t disp_cnt;        /* udt__dispatch pointers the consumer set */
	uint32_t disp_off;        /* uint64_t[disp_cnt]: their addresses */
	uint32_t nlocals;         /* clause-local variables (this->), at most UDT_MAX_LOCALS */
	uint32_t ngvars;          /* global variables, at most UDT_MAX_GVARS: */
	uint32_t gvar_off;        /* uint64_t[ngvars]: their values when the session starts */
	uint32_t nspec;           /* speculative buffers (nspec option), at most UDT_MAX_NSPEC; 0: none */
	uint32_t spec_off;        /* struct udt_area_spec: their size and states at the start */
	/* (version 6) */
	uint32_t prof_cnt;        /* profile probes, at most UDT_PROF_MAX: */
	uint32_t prof_off;        /* struct udt_prof[prof_cnt] */
	uint32_t prof_flags;      /* UDT_PROF_F_* */
	/* (version 8) */
	uint32_t gen_off;         /* the newest later generation (struct udt_area_gen), 0: none */
	uint32_t gen_reserved;
	/* (version 9) */
	uint32_t vars_off;        /* struct udt_vars: strings, scratch, dynamic variables; 0: none */
	uint32_t vars_reserved;
	/* (version 12) */
	uint32_t sites_off;       /* struct udt_sites: the SystemTap sites to patch; 0: none */
	uint32_t sites_reserved;
};

/*
 * The probe sites a session patches in the text: the SystemTap probe sites
 * of probes that only a .note.stapsdt describes, a nop each and no call
 * into a runtime (docs/notes.md), and the pid provider's, an instruction of
 * a function each (docs/pid.md). At sites_off in the area: this header,
 * then cnt struct udt_site at site_off, sorted by address, and the notes'
 * operands. The runtime (runtime/sites.c) replaces a site's first byte with
 * an int3 or, where the consumer found it sound (mode UDT_SITE_JUMP), its
 * bytes with a jump to a trampoline that fires the probe and runs the
 * instructions the jump displaces, relocated as insn[] says. Either way it
 * reads the arguments from the interrupted thread and fires the probe whose
 * ECBs are keyed by the site's keys (udt_ecb.sem). A site's semaphore, if
 * it has one, is in the undo list like any other.
 *
 * UDT_SITE_NOTE: addr is the nop, the arguments are the note's operands
 * (args[arg_idx, arg_idx + arg_cnt) of the table), key the probe's, and the
 * thread resumes after the nop. A jump displaces the nop and the
 * instructions after it (insn[].off from 1).
 *
 * UDT_SITE_INSN: the instruction at addr is the probed one, and runs,
 * relocated, after the fire. key, key_off and key_ret are its entry,
 * offset and return probes' keys (0: none; an instruction can be all
 * three); their arguments are the x86-64 ABI's (entry, offset: %rdi %rsi
 * %rdx %rcx %r8 %r9, then the stack above the return address; return:
 * ret_off, %rax, %rdx), fired in that order. A jump displaces the bytes
 * [addr - fire_off, addr - fire_off + len), instructions before the probed
 * one included (they run first); a trap is an int3 over the probed
 * instruction (fire_off 0, insn[0] it alone), which runs from a trampoline
 * after the fire. A jump's bytes may hold the probed instructions of later
 * sites too (join_mask): its trampoline fires them before their copies, and
 * those sites (join_back) need nothing of their own while it is there; where
 * it is not, each is trapped by its own plan (a trap's, as above).
 */
#define UDT_SITES_MAX 16384
#define UDT_SITE_NOP 0x90         /* what sys/sdt.h puts at a site on x86 */
#define UDT_SITE_JMP_LEN 5        /* a jump: e9 and a 32-bit displacement */
#define UDT_SITE_INSN_MAX 6       /* instructions a jump displaces (after the nop) */
#define UDT_SITE_BYTES_MAX 24     /* the bytes a jump displaces (the nop's included) */

struct udt_sites {
	uint32_t size;            /* sizeof(struct udt_sites) */
	uint32_t cnt;             /* at most UDT_SITES_MAX */
	uint32_t site_off;        /* struct udt_site[cnt], by increasing addr */
	uint32_t arg_cnt;         /* the notes' operands: struct udt_note_arg[arg_cnt] */
	uint32_t arg_off;
	uint32_t reserved;
};

/* What a site is. */
enum udt_site_kind {
	UDT_SITE_NOTE = 0,        /* a SystemTap note's nop */
	UDT_SITE_INSN = 1,        /* an instruction of a function (the pid provider) */
};

/* How an instruction the jump displaces runs in the trampoline. */
enum udt_reloc_kind {
	UDT_RELOC_COPY = 1,       /* as it is */
	UDT_RELOC_RIPREL = 2,     /* its 32-bit displacement (at fix) made to name target again */
	UDT_RELOC_JMP = 3,        /* a jump to target */
	UDT_RELOC_JCC = 4,        /* a conditional jump (condition fix, 0-15) to target */
	UDT_RELOC_CALL = 5,       /* a call of target that returns to the instruction after it, in
				     the object (its return address pushed, then a jump) */
};

struct udt_site_insn {
	uint8_t off;              /* where it starts, from addr (NOTE: 1...; INSN: 0...) */
	uint8_t len;              /* its bytes */
	uint8_t kind;             /* enum udt_reloc_kind */
	uint8_t fix;              /* RIPREL: where its displacement is in it; JCC: the condition */
	uint32_t pad;
	uint64_t target;          /* RIPREL: the address it names; JMP, JCC, CALL: the destination */
};

enum udt_site_mode {
	UDT_SITE_TRAP = 0,        /* an int3 */
	UDT_SITE_JUMP = 1,        /* a jump, insn[] and bytes[] filled in (the int3 if it cannot be) */
};

struct udt_site {
	uint64_t addr;            /* NOTE: its nop; INSN: the first byte it displaces */
	uint64_t key;             /* NOTE: the ECBs' key of its probe; INSN: of its entry probe */
	uint64_t key_off;         /* INSN: the ECBs' key of its offset probe, 0 none */
	uint64_t key_ret;         /* INSN: of its return probe, 0 none */
	uint64_t ret_off;         /* INSN: its return probe's arg0 (the offset in the function) */
	uint64_t part;            /* INSN: its part in what the runtime follows (UDT_PART()), 0 none */
	uint32_t arg_idx;         /* NOTE: its first operand in the table's */
	uint8_t arg_cnt;          /* NOTE: its operands, at most UDT_NOTE_MAX_ARGS */
	uint8_t status;           /* R: enum udt_site_status, what the last sync did */
	uint8_t mode;             /* enum udt_site_mode */
	uint8_t kind;             /* enum udt_site_kind */
	uint8_t insn_cnt;         /* the instructions displaced, at most UDT_SITE_INSN_MAX
				     (NOTE: JUMP only; INSN: the trap's one too) */
	uint8_t len;              /* the bytes displaced: NOTE, the nop's included: 5 or more */
	uint8_t fire_off;         /* INSN: bytes its jump starts before addr (the probed one) */
	uint8_t join_back;        /* INSN: another site's jump has it fire from its trampoline:
				     that site is join_back bytes before it; 0: none */
	uint8_t flags;            /* INSN: UDT_SITE_F_* */
	uint32_t join_mask;       /* INSN, JUMP: the other sites in its bytes that fire from its
				     trampoline, bit k for the one k bytes after the jump's start */
	uint8_t bytes[UDT_SITE_BYTES_MAX]; /* those bytes, as the consumer read them */
	struct udt_site_insn insn[UDT_SITE_INSN_MAX];
};

/* udt_site.flags */
#define UDT_SITE_F_NO_TRAP 0x1    /* a jump or nothing: a trap there would kill the thread (it
				     runs with SIGTRAP blocked or at its default: docs/proc.md) */

enum udt_site_status {
	UDT_SITE_PENDING = 0,     /* not synced yet */
	UDT_SITE_PATCHED = 1,     /* an int3 */
	UDT_SITE_BUSY = 2,        /* an int3 that is not ours is there (another tracer's) */
	UDT_SITE_NOT_NOP = 3,     /* neither the nop (INSN: the instruction) nor ours */
	UDT_SITE_FAILED = 4,      /* could not be written, or too many sites patched in the process */
	UDT_SITE_JUMPED = 5,      /* a jump to its trampoline */
	UDT_SITE_OVERLAP = 6,     /* INSN: its bytes overlap another site patched there */
};

/*
 * The ECBs' key of a pid provider's probe: its kind (UDT_PID_ENTRY...) above
 * every address, and its function's address (an offset probe: its
 * instruction's). The same in every session, so that one fire serves them all.
 */
enum { UDT_PID_ENTRY = 1, UDT_PID_RETURN = 2, UDT_PID_OFFSET = 3 };
#define UDT_PID_KEY(kind, addr) ((uint64_t)(kind) << 60 | (uint64_t)(addr))

/*
 * Sites with a part in what the runtime follows (runtime/plockstat.c,
 * runtime/proc.c): providers made of the C library's own functions, placed
 * by the pid provider's machinery (probes/libc.c). An instruction site's part
 * is UDT_PART(role, fn): the runtime follows each thread through its sites
 * (a lock operation from its function's entry through its waits and spins
 * to its way out; a fork, an exec, a thread's start) and fires the probes
 * what it saw means, each keyed by its probe and fn, the function whose
 * probe it is (0: the one the thread's operation began in).
 *
 * The plockstat provider (docs/plockstat.md): glibc's mutex and rwlock
 * functions; keys UDT_LOCK_KEY(probe, fn).
 */
enum udt_lock_probe {
	UDT_LK_MUTEX_ACQUIRE = 1, /* (mutex, recursive, spins) */
	UDT_LK_MUTEX_RELEASE,     /* (mutex, recursive) */
	UDT_LK_MUTEX_BLOCK,       /* (mutex) */
	UDT_LK_MUTEX_BLOCKED,     /* (mutex, successful) */
	UDT_LK_MUTEX_SPIN,        /* (mutex) */
	UDT_LK_MUTEX_SPUN,        /* (mutex, successful, spins) */
	UDT_LK_MUTEX_ERROR,       /* (mutex, errno) */
	UDT_LK_RW_ACQUIRE,        /* (rwlock, writer) */
	UDT_LK_RW_RELEASE,        /* (rwlock, writer) */
	UDT_LK_RW_BLOCK,          /* (rwlock, writer) */
	UDT_LK_RW_BLOCKED,        /* (rwlock, writer, successful) */
	UDT_LK_RW_ERROR,          /* (rwlock, writer, errno) */
	UDT_LK_PROBES
};
#define UDT_LOCK_KEY(probe, fn) ((uint64_t)4 << 60 | (uint64_t)(probe) << 52 | (uint64_t)(fn))

/* The proc provider (docs/proc.md): a process's life; keys UDT_PROC_KEY(probe, fn). */
enum udt_proc_probe {
	UDT_PC_CREATE = 1,        /* (psinfo_t *child), in the parent */
	UDT_PC_START,             /* in the new process */
	UDT_PC_EXEC,              /* (string path) */
	UDT_PC_EXEC_FAILURE,      /* (int errno) */
	UDT_PC_EXIT,              /* (int CLD_EXITED), in the exiting process */
	UDT_PC_LWP_CREATE,        /* (lwpsinfo_t *new, psinfo_t *), in the creating thread */
	UDT_PC_LWP_START,         /* in the new thread */
	UDT_PC_LWP_EXIT,          /* in the exiting thread */
	UDT_PC_SIGNAL_SEND,       /* (lwpsinfo_t *to, psinfo_t *to, int sig), by the sender */
	UDT_PC_SIGNAL_CLEAR,      /* (int sig), a pending signal taken by sigwait */
	UDT_PC_PROBES
};
#define UDT_PROC_KEY(probe, fn) ((uint64_t)5 << 60 | (uint64_t)(probe) << 52 | (uint64_t)(fn))

enum udt_part_role {
	UDT_LR_MUTEX_LOCK = 1,    /* a mutex lock function's entry: an operation begins (fn) */
	UDT_LR_MUTEX_TRY,         /* a trylock's (EBUSY is no error) */
	UDT_LR_RD_LOCK,           /* a read lock's of a rwlock */
	UDT_LR_RD_TRY,
	UDT_LR_WR_LOCK,           /* a write lock's */
	UDT_LR_WR_TRY,
	UDT_LR_WAIT,              /* a call that waits for the lock (a futex wait) */
	UDT_LR_SPIN,              /* a pause of a spin loop */
	UDT_LR_DONE,              /* a way out of the operation: %eax its result (0 or an errno) */
	UDT_LR_MUTEX_UNLOCK,      /* pthread_mutex_unlock's entry (fn) */
	UDT_LR_RW_UNLOCK,         /* pthread_rwlock_unlock's entry (fn) */
	UDT_PR_FIRST = 32,        /* the proc provider's, each with its function (fn): */
	UDT_PR_FORK = UDT_PR_FIRST, /* a way out of _Fork: %eax the child (create) or 0 (start) */
	UDT_PR_EXEC,              /* execve's entry: %rdi the path (exec) */
	UDT_PR_EXECAT,            /* execveat's: %rsi */
	UDT_PR_EXEC_FAIL,         /* a way out of either: it failed (exec-failure, errno) */
	UDT_PR_EXIT,              /* _exit's entry (exit) */
	UDT_PR_THREAD,            /* pthread_create's entry: %rdi where the new thread's id goes */
	UDT_PR_THREAD_DONE,       /* a way out of it: %eax 0, a thread made (lwp-create) */
	UDT_PR_LWP_START,         /* start_thread's instruction before its call of the start
				     routine, in the new thread, its mask restored (lwp-start) */
	UDT_PR_LWP_EXIT,          /* its call of the thread's TLS destructors (lwp-exit) */
	UDT_PR_KILL,              /* kill(pid, sig)'s entry (signal-send) */
	UDT_PR_TGKILL,            /* tgkill(pid, tid, sig)'s */
	UDT_PR_PTHREAD_KILL,      /* pthread_kill(thread, sig)'s (raise()'s too) */
	UDT_PR_SIGQUEUE,          /* sigqueue(pid, sig, value)'s */
	UDT_PR_SIGWAITED,         /* a way out of sigtimedwait: %eax the signal (signal-clear) */
	UDT_PR_SPAWN,             /* posix_spawn's entry: %rdi where the child's pid goes */
	UDT_PR_SPAWN_DONE,        /* a way out of it: %eax 0, a child made (create) */
	UDT_PR_VFORK,             /* a way out of vfork: %eax the child (create; the child: none) */
	UDT_PR_CLONED,            /* clone3's instruction after its system call: %eax the new
				     thread's tid in the parent (lwp-create's, pthread_create's) */
	UDT_PR_LAST = UDT_PR_CLONED,
};
#define UDT_PART(role, fn) ((uint64_t)(role) << 56 | (uint64_t)(fn))
#define UDT_PART_FN(s) ((s) & ((1ull << 52) - 1))
#define UDT_PART_ROLE(s) ((uint32_t)((s) >> 56))
#define UDT_PART_OK(s) ((UDT_PART_ROLE(s) >= UDT_LR_MUTEX_LOCK &&                              \
			 UDT_PART_ROLE(s) <= UDT_LR_RW_UNLOCK) ||                                 \
			(UDT_PART_ROLE(s) >= UDT_PR_FIRST && UDT_PART_ROLE(s) <= UDT_PR_LAST))

/*
 * A later generation of the enablings: the ECBs of probes that appeared
 * after the session started (a library dlopen'ed meanwhile; docs/runtime.md,
 * "Libraries loaded after the attach"). The consumer appends it to the area,
 * after everything the session has published, with its own ECB array (the
 * new probes' ECBs only: an ECB's next is an index into this array), its own
 * hash by semaphore and its own undo lists, then publishes it by storing its
 * offset in udt_area_hdr.gen_off (release). Nothing published before ever
 * changes. The area header's own fields are generation 0; prev links each
 * generation to the one before it (0: generation 0), at a lower offset.
 * Actions, DIFOs and aggregation descriptors are appended too; their offsets
 * are from the start of the area, as generation 0's are.
 */
struct udt_area_gen {
	uint32_t size;            /* sizeof(struct udt_area_gen) */
	uint32_t prev;            /* offset of the previous generation; 0: generation 0 */
	uint32_t gen;             /* 1, 2...: one more than the previous one's */
	uint32_t ecb_cnt;
	uint32_t ecb_off;         /* struct udt_ecb[ecb_cnt] */
	uint32_t hash_bits;       /* as udt_area_hdr's */
	uint32_t hash_off;        /* uint32_t[1 << hash_bits]: index + 1 into this ecb array */
	uint32_t sem_cnt;         /* semaphores the consumer incremented for this generation */
	uint32_t sem_off;         /* uint64_t[sem_cnt] */
	uint32_t disp_cnt;        /* udt__dispatch pointers it set */
	uint32_t disp_off;        /* uint64_t[disp_cnt] */
	/* (version 20) the session's sites as they are from this generation on: a whole
	   struct udt_sites, every earlier site and the pid provider's sites of the
	   libraries loaded since (docs/pid.md); 0: the previous generation's table */
	uint32_t sites_off;
};

/*
 * The profile provider (docs/profile.md): the session's profile-n probes,
 * each an interval (tick-n probes run in the consumer, never here). They
 * have no semaphore: their ECBs are keyed by UDT_PROF_KEY(i), i their index
 * in the area's table, an odd number that no semaphore address can be
 * (semaphores are 2-byte aligned).
 */
#define UDT_PROF_MAX 16
#define UDT_PROF_MIN_NS 200000ull /* intervals under 200 us are refused (DTrace's limit) */
#define UDT_PROF_KEY(i) ((uint64_t)(i) * 2 + 1)

/*
 * udt_area_hdr.prof_flags: how samples are timed (docs/profile.md). Neither:
 * a perf event clock for intervals under UDT_PROF_PERF_NS (faster than any
 * kernel tick), a CPU-time timer (the kernel's tick) for the others.
 */
#define UDT_PROF_F_TIMER 0x1u     /* CPU-time timers for every probe */
#define UDT_PROF_F_PERF 0x2u      /* perf event clocks for every probe (where allowed) */
#define UDT_PROF_PERF_NS 1000000ull

enum udt_prof_kind {
	UDT_PROF_PROFILE = 1,     /* profile-n: in every thread that runs, every n of its CPU time */
	UDT_PROF_TICK = 2,        /* tick-n: in dtrace itself, every n of wall time (never in a table) */
};

/* udt_control.prof_mode: how the profile probes' samples are timed (bits) */
#define UDT_PROF_MODE_PERF 0x1u   /* perf_event task clocks: high resolution */
#define UDT_PROF_MODE_TIMER 0x2u  /* CLOCK_THREAD_CPUTIME_ID timers: the kernel's tick */
#define UDT_PROF_MODE_REFUSED 0x4u /* a perf event was wanted and refused (a timer instead) */

struct udt_prof {
	uint64_t interval_ns;     /* at least UDT_PROF_MIN_NS */
	uint32_t kind;            /* enum udt_prof_kind */
	uint32_t reserved;
	char name[48];            /* as the script wrote it ("profile-997"), for dtrace -l -p */
};

/*
 * The session's string variables, scratch space and dynamic variables
 * (associative arrays), at vars_off in the area (docs/runtime.md,
 * "Variables"). A string variable is a slot of udt_str_slot(strsize) bytes:
 * an 8-byte word (0: unset, NULL) and the string, NUL-terminated within
 * strsize bytes. Each thread has tlocal bytes in the shared memory: its
 * self-> strings, its this-> strings, then its scratch space.
 */
struct udt_vars {
	uint32_t size;            /* sizeof(struct udt_vars) */
	uint32_t strsize;         /* bytes of a string, its NUL included (the strsize option) */
	uint32_t ntstrs;          /* thread-local string variables (self->) */
	uint32_t nlstrs;          /* clause-local ones (this->) */
	uint32_t ngstrs;          /* global ones */
	uint32_t gstr_off;        /* their slots when the session starts (BEGIN's values) */
	uint64_t scratchsize;     /* bytes of each thread's scratch space */
	uint64_t dynvarsize;      /* bytes of the dynamic variable space; 0: none */
	uint32_t chunk_sz;        /* bytes of each of its elements */
	uint32_t init_cnt;        /* elements BEGIN left, chunk_sz bytes each, */
	uint32_t init_off;        /* here */
	uint32_t reserved;
};

#define UDT_STRSIZE_MAX 65536
#define UDT_SCRATCH_MAX (64ull << 20)

/* The bytes of a string variable's slot: its set word and strsize bytes, 8-aligned. */
static inline uint64_t udt_str_slot(uint64_t strsize)
{
	return 8 + ((strsize + 7) & ~7ull);
}

/* The most clause-local variables (this->) a session may have. */
#define UDT_MAX_LOCALS 64
/* The most thread-local variables (self->). */
#define UDT_MAX_TVARS 4096
/* The most global variables. */
#define UDT_MAX_GVARS 4096

/*
 * udt_ecb.flags. UDT_ECB_DIRECT: no predicate, and every action traces an
 * argument (UDT_ACT_TRACE_ARG) or the timestamp, cpu, pid or tid
 * (UDT_ACT_TRACE_VAR), 8 bytes each at offsets 0, 8, 16...: the runtime
 * records it without the VM. The verifier refuses the flag on any other ECB.
 */
#define UDT_ECB_DIRECT 0x1u
/* UDT_ECB_NOREC: every action aggregates or only runs (UDT_ACT_DIFO); the ECB writes no record. */
#define UDT_ECB_NOREC 0x2u
/*
 * UDT_ECB_SPEC: one action is UDT_ACT_SPECULATE and no action before it
 * records: the record goes to the speculative buffer that action names, not
 * to the thread's principal buffer (docs/runtime.md, "Speculations").
 */
#define UDT_ECB_SPEC 0x4u
/*
 * UDT_ECB_LIGHTPRED: a predicate that reads only arguments, builtins,
 * constants and self-> or global scalars (udt_difo_is_light()): the runtime
 * evaluates it before it builds the rest of the VM's context, and a false
 * one costs no more (fire.c). The verifier refuses the flag on any other ECB.
 */
#define UDT_ECB_LIGHTPRED 0x8u
/*
 * UDT_ECB_DIRECT_STR: no predicate, and every action traces an argument or
 * one of those builtins (8 bytes) or copies the string an argument points at
 * (UDT_ACT_TRACE_ARGSTR), at least one: the runtime records it without the
 * VM, its strings by the fault-safe copy (fire.c). The verifier refuses the
 * flag on any other ECB.
 */
#define UDT_ECB_DIRECT_STR 0x10u
/*
 * UDT_ECB_ARGS (with UDT_ECB_DIRECT): every action traces an argument, and
 * they are consecutive (argN, argN+1, ...): the runtime copies them as a
 * block, without a look at each action (version 18). The verifier refuses
 * the flag on any other ECB.
 */
#define UDT_ECB_ARGS 0x20u
/*
 * UDT_ECB_DIRECT_AGG: no predicate, and every action aggregates
 * (UDT_ACT_AGG) by keys that are arguments, cpu, pid or tid or the strings
 * arguments point at (UDT_ACT_TRACE_ARGSTR), values and increments that are
 * arguments or those builtins: the runtime updates its tables without the
 * VM's context (version 18). The verifier refuses the flag on any other ECB.
 */
#define UDT_ECB_DIRECT_AGG 0x40u

/* An enabled probe control block: one clause on one probe. */
struct udt_ecb {
	uint32_t size;            /* sizeof(struct udt_ecb) */
	uint32_t epid;            /* enabled probe ID, in records (1...) */
	uint64_t sem;             /* the probe's semaphore: its identity at a fire */
	uint32_t next;            /* index + 1 of the next ECB of the same semaphore, 0 last */
	uint32_t pred;            /* offset of the predicate DIFO, 0 if none */
	uint32_t act_off;         /* offset of struct udt_action[act_cnt] */
	uint32_t act_cnt;
	uint32_t rec_size;        /* bytes of data after the record header */
	uint32_t flags;           /* UDT_ECB_* */
	uint64_t pc_lo, pc_hi;    /* only sites with pc_lo <= PC < pc_hi (probefunc); 0, 0: all */
};

/* The slot of semaphore address sem in a hash of 1 << bits slots (linear probing). */
static inline uint32_t udt_sem_hash(uint64_t sem, uint32_t bits)
{
	return bits ? (uint32_t)(((sem >> 1) * 0x9e3779b97f4a7c15ull) >> (64 - bits)) : 0;
}

/* What an action records. */
enum udt_act_kind {
	UDT_ACT_TRACE = 1,        /* the 64-bit value of DIFO src (size 8) */
	UDT_ACT_EXIT = 2,         /* the same; the consumer exits with it, tracing stops */
	UDT_ACT_DIFO = 3,         /* run DIFO src only (nothing recorded; size 0) */
	UDT_ACT_TRACE_STR = 4,    /* DIFO src gives a string address in the target: size bytes */
	UDT_ACT_TRACE_ARG = 5,    /* native argument src (size 8): no DIFO to run */
	UDT_ACT_TRACE_VAR = 6,    /* builtin variable src (enum udt_var, size 8): no DIFO */
	UDT_ACT_AGG = 7,          /* aggregate: src is the offset of a struct udt_aggdesc (size 0) */
	UDT_ACT_SPECULATE = 8,    /* DIFO src gives a speculation ID: the record goes to its buffer */
	UDT_ACT_COMMIT = 9,       /* DIFO src gives a speculation ID to commit (size 0) */
	UDT_ACT_DISCARD = 10,     /* ... to discard (size 0) */
	UDT_ACT_TRACEMEM = 11,    /* DIFO src gives an address: size bytes copied from there */
	UDT_ACT_RAISE = 12,       /* DIFO src gives a signal, sent to the thread as the fire ends */
	UDT_ACT_USTACK = 13,      /* the thread's user stack: src return addresses (size 8 * src) */
	UDT_ACT_CHILL = 14,       /* DIFO src gives nanoseconds the thread spins (size 0) */
	UDT_ACT_TRACE_ARGSTR = 15, /* native argument src is a string's address: as UDT_ACT_TRACE_STR */
};

/* ustack(n): at most this many frames */
#define UDT_USTACK_MAX 1024

struct udt_action {
	uint32_t kind;            /* enum udt_act_kind */
	uint32_t src;             /* offset of the DIFO, 0 for none; or an argument or variable */
	uint32_t size;            /* bytes it records */
	uint32_t off;             /* where, from the start of the record's data */
};

/* Is action a the 8-byte trace of an argument or of the timestamp, cpu, pid or tid? */
static inline int udt_act_is_direct(const struct udt_action *a)
{
	uint32_t v = a->src;

	if (a->size != 8)
		return 0;
	return a->kind == UDT_ACT_TRACE_ARG ||
	       (a->kind == UDT_ACT_TRACE_VAR && (v == UDT_VAR_TIMESTAMP || v == UDT_VAR_CPU ||
						 v == UDT_VAR_PID || v == UDT_VAR_TID));
}

/* Does ECB e, with actions act, meet UDT_ECB_DIRECT? (The consumer sets the flag, the runtime checks it.) */
static inline int udt_ecb_is_direct(const struct udt_ecb *e, const struct udt_action *act)
{
	if (e->pred || e->rec_size != e->act_cnt * 8)
		return 0;
	for (uint32_t k = 0; k < e->act_cnt; k++)
		if (act[k].off != k * 8 || !udt_act_is_direct(&act[k]))
			return 0;
	return 1;
}

/* Does ECB e meet UDT_ECB_ARGS? */
static inline int udt_ecb_is_args(const struct udt_ecb *e, const struct udt_action *act)
{
	if (!e->act_cnt || !udt_ecb_is_direct(e, act))
		return 0;
	for (uint32_t k = 0; k < e->act_cnt; k++)
		if (act[k].kind != UDT_ACT_TRACE_ARG || act[k].src != act[0].src + k)
			return 0;
	return 1;
}

/*
 * Does ECB e meet UDT_ECB_DIRECT_STR? (Each action's extent within the
 * record is the verifier's check of every action.)
 */
static inline int udt_ecb_is_direct_str(const struct udt_ecb *e, const struct udt_action *act)
{
	uint32_t strs = 0;

	if (e->pred)
		return 0;
	for (uint32_t k = 0; k < e->act_cnt; k++) {
		if (act[k].kind == UDT_ACT_TRACE_ARGSTR && act[k].size)
			strs++;
		else if (!udt_act_is_direct(&act[k]))
			return 0;
	}
	return strs > 0;
}

/* -- The shared buffer memory (memfd) -------------------------------------- */

/*
 * The consumer trusts none of it (docs/runtime.md, "Trust"): it copies this
 * header when it maps the memory, checks every region and size there, and
 * each round compares the fields the runtime writes only at creation with
 * its copy (consumer/shm.c, LAYOUT_FIELDS). A new field of that kind goes
 * into that list and into the check; a counter the runtime updates does not.
 */
struct udt_shm_hdr {
	uint32_t size;            /* sizeof(struct udt_shm_hdr) */
	uint32_t magic;           /* UDT_SHM_MAGIC */
	uint32_t version;
	uint32_t session;         /* the session it was made for */
	uint64_t total_sz;
	uint64_t bufsize;         /* bytes per half, after any bufresize */
	uint32_t policy;
	uint32_t tbuf_max;
	uint32_t tbuf_cnt;        /* buffers handed out (producers take one with fetch_add) */
	uint32_t stopped;         /* fill policy: set by the first producer that fills up, or by exit() */
	uint64_t tbuf_off;        /* struct udt_tbuf[tbuf_max] */
	uint64_t data_off;        /* tbuf i's halves: data_off + i * 2 * bufsize (+ bufsize for half 1) */
	uint64_t lost;            /* fires not recorded: nested in a signal handler, or no buffer left */
	uint64_t agg_off;         /* tbuf i's aggregation table t (0, 1): agg_off + (2 * i + t) * aggsize */
	uint64_t aggsize;         /* 0: the session has no aggregations */
	uint64_t tvar_off;        /* tbuf i's thread-local variables: tvar_off + i * tvarsize */
	uint64_t tvarsize;        /* bytes: 8 per variable */
	uint64_t gvar_off;        /* the global variables: uint64_t[ngvars], from the area's */
	uint64_t ngvars;
	uint32_t flags;           /* UDT_SHM_* (0 from runtimes before it) */
	uint32_t mapped;          /* C: 1 once the consumer has mapped this memory (a futex: a
				     fork child's first fire waits on it, UDT_CTL_FORKWAIT) */
	/* speculations (version 4): struct udt_spec[nspec] at spec_off, their buffers of
	   specsize bytes at spec_data_off + i * specsize, and what failed, process-wide */
	uint64_t spec_off;
	uint64_t spec_data_off;
	uint64_t nspec;
	uint64_t specsize;
	uint64_t spec_drops;      /* records that did not fit in a speculative buffer */
	uint64_t spec_busy;       /* speculation() failures while a buffer was being committed */
	uint64_t spec_unavail;    /* speculation() failures with every buffer in use */
	uint64_t ring_chunk;      /* ring: the tail moves a chunk of this many bytes at a time */
	/* strings, scratch and dynamic variables (version 9; docs/runtime.md, "Variables") */
	uint64_t tlocal_off;      /* tbuf i's strings and scratch: tlocal_off + i * tlocal_sz */
	uint64_t tlocal_sz;       /* (struct udt_vars) */
	uint64_t gstr_off;        /* the global string variables' slots */
	uint64_t dyn_off;         /* the dynamic variable space (struct udt_dynhdr), */
	uint64_t dyn_sz;          /* of dynvarsize bytes; 0: none */
	/* thread buffers used again (version 16; docs/runtime.md, "Threads"): the free ones
	   the consumer gave back, a stack of tbuf indexes + 1 with a tag against ABA (tag << 32
	   | index + 1, 0 empty): the consumer pushes, threads pop */
	uint64_t free_head;
	uint64_t lost_nobuf;      /* fires lost because no buffer was free (maxthreads in use) */
	uint32_t owners;          /* owners the buffers have had (a buffer's owner: the count then) */
	/* more buffers as more threads fire (version 16): this memory holds the first
	   seg0_tbufs, segment k >= 1 (a memfd of its own, udt_seg_layout()) the next
	   seg0_tbufs << (k - 1); segment k is made only once all before it are */
	uint32_t seg0_tbufs;
	uint64_t lost_nomem;      /* fires lost because a segment could not be made */
	uint32_t seg_state[UDT_SEG_MAX]; /* R: each segment's enum udt_shm_state (0: this memory) */
	int32_t seg_fd[UDT_SEG_MAX];     /* R: its descriptor until the consumer has mapped it */
	uint32_t seg_acked[UDT_SEG_MAX]; /* C: 1 once the consumer has mapped it */
	uint64_t prof_samples;    /* R: the profile provider's samples taken (version 21): dtrace
				     says when a profile-n session took none */
	uint32_t wake;            /* a futex the runtime wakes (never writes) when it wants a
				     round soon (version 23): a table registered waits for its
				     enabling, and dtrace may be pacing slowly (docs/runtime.md) */
	uint32_t pad;
};

/*
 * The segment of buffer i (0: the main memory), and its index there, in a
 * session whose main memory holds n0 buffers: segment k >= 1 holds buffers
 * [n0 << (k - 1), n0 << k).
 */
static inline uint32_t udt_seg_of(uint32_t n0, uint32_t i, uint32_t *ret_j)
{
	if (i < n0) {
		*ret_j = i;
		return 0;
	}
	uint32_t k = 32 - (uint32_t)__builtin_clz(i / n0);

	*ret_j = i - (n0 << (k - 1));
	return k;
}

/* The buffers of segment k, and the buffers of segments 0 to k - 1 (its first index). */
static inline uint32_t udt_seg_tbufs(uint32_t n0, uint32_t k)
{
	return k ? n0 << (k - 1) : n0;
}

/*
 * A segment's layout (k >= 1): its n buffers' struct udt_tbuf (whole pages),
 * then their halves, aggregation tables, self-> variables and strings, each
 * an array as in the main memory.
 */
struct udt_seg_layout {
	uint64_t tbuf_off, data_off, agg_off, tvar_off, tlocal_off, total;
};

static inline void udt_seg_layout(uint64_t n, uint64_t bufsize, uint64_t aggsize,
				  uint64_t tvarsize, uint64_t tlocal_sz, struct udt_seg_layout *l)
{
	l->tbuf_off = 0;
	l->data_off = (n * 128 + 4095) & ~4095ull;
	l->agg_off = l->data_off + n * 2 * bufsize;
	l->tvar_off = l->agg_off + n * 2 * aggsize;
	l->tlocal_off = l->tvar_off + n * tvarsize;
	l->total = (l->tlocal_off + n * tlocal_sz + 4095) & ~4095ull;
}

/*
 * udt_shm_hdr.flags. UDT_SHM_MB_EXPEDITED: the process registered for
 * membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED), which the consumer then uses
 * instead of MEMBARRIER_CMD_GLOBAL (docs/runtime.md, "Buffers").
 */
#define UDT_SHM_MB_EXPEDITED 0x1u

/*
 * A thread's buffer pair. The producer (the thread) owns off[], drops[],
 * busy and the ring fields; the consumer owns active, and resets the off
 * and drops of the half the producer no longer writes. One cache line
 * each (the array starts 64-aligned), so threads never share one.
 */
struct udt_tbuf {
	int32_t tid;              /* P: at first fire */
	uint32_t active;          /* C: the half the producer writes (switch) */
	uint32_t busy;            /* P: 1 + the half being written, 0 outside */
	uint32_t state;           /* P: FREE->OWNED->EXITED, C: EXITED->FREE (enum udt_tbuf_state) */
	uint64_t off[2];          /* P: bytes committed in each half (ring: head, monotonic) */
	uint64_t drops[2];        /* P: records dropped into each half */
	uint64_t ring_tail;       /* P (ring): offset of the oldest record, monotonic */
	uint64_t errors;          /* P: error records written */
	uint32_t agg_active;      /* C: the aggregation table the producer updates */
	uint32_t agg_busy;        /* P: 1 + the table being updated, 0 outside */
	uint32_t dyn_gen;         /* P: odd while the thread may hold dynamic variables (dynvar.c) */
	uint32_t next_free;       /* C: the next free buffer's index + 1 (udt_shm_hdr.free_head) */
	uint32_t owner;           /* P: the owner's number (udt_shm_hdr.owners), keys its self-> arrays */
	uint32_t pad;
	uint64_t ring_recs;       /* P (ring): records written since the buffer was taken */
	uint64_t lost;            /* P: fires of the thread nested in one of its own (a handler's) */
} __attribute__((aligned(128)));

/*
 * udt_tbuf.state. A thread takes a FREE buffer at its first fire (OWNED); at
 * its exit the runtime marks it EXITED; the consumer reads out what it holds
 * (records, drops, aggregations), resets it and gives it back (FREE, pushed
 * on free_head). A buffer is never written by two threads.
 */
enum udt_tbuf_state {
	UDT_TBUF_FREE = 0,
	UDT_TBUF_OWNED = 1,
	UDT_TBUF_EXITED = 2,
};

_Static_assert(sizeof(struct udt_tbuf) == 128, "two cache lines per thread buffer");

/* -- Aggregations ----------------------------------------------------------------- */

/*
 * An aggregating action (UDT_ACT_AGG) points to a struct udt_aggdesc in the
 * area: the aggregation variable, its function, the key's components (struct
 * udt_action[key_cnt] at key_off: UDT_ACT_TRACE, _TRACE_ARG, _TRACE_VAR or
 * _TRACE_STR, each writing its value at off in the key) and the value's
 * action (val; kind 0 for count()). Each thread aggregates into its own table
 * in the shared memory (struct udt_agghdr); the consumer merges the tables.
 */
enum udt_agg_func {
	UDT_AGG_COUNT = 1,        /* value: int64 count */
	UDT_AGG_SUM = 2,          /* int64 sum */
	UDT_AGG_AVG = 3,          /* int64 count, int64 sum */
	UDT_AGG_MIN = 4,          /* int64 minimum (INT64_MAX until the first) */
	UDT_AGG_MAX = 5,          /* int64 maximum (INT64_MIN until the first) */
	UDT_AGG_QUANTIZE = 6,     /* int64 counts of UDT_QUANTIZE_NBUCKETS power-of-two buckets */
	UDT_AGG_LQUANTIZE = 7,    /* int64 counts of lq_levels + 2 linear buckets */
	UDT_AGG_STDDEV = 8,       /* int64 count, int64 sum, uint64 low and high of the sum of squares */
	UDT_AGG_LLQUANTIZE = 9,   /* int64 counts of lq_levels log-linear buckets */
};

#define UDT_QUANTIZE_NBUCKETS 127  /* -2^62 ... -1, 0, 1 ... 2^62 */
#define UDT_QUANTIZE_ZEROBUCKET 63
#define UDT_AGG_KEY_MAX 4096       /* bytes of a key */
#define UDT_LQUANTIZE_MAX_LEVELS 65535

struct udt_aggdesc {
	uint32_t size;            /* sizeof(struct udt_aggdesc) */
	uint32_t aggid;           /* the aggregation variable (1...) */
	uint32_t func;            /* enum udt_agg_func */
	uint32_t key_cnt;
	uint32_t key_off;         /* struct udt_action[key_cnt] */
	uint32_t key_size;        /* bytes, 8-aligned, at most UDT_AGG_KEY_MAX */
	int64_t lq_base;          /* lquantize(value, base, limit, step) */
	uint32_t lq_step;
	uint32_t lq_levels;       /* (limit - base) / step; llquantize: its buckets */
	uint16_t llq_factor;      /* llquantize(value, factor, low, high, nsteps) */
	uint16_t llq_low, llq_high, llq_nsteps;
	struct udt_action val;    /* the value to aggregate (kind 0: none) */
	struct udt_action incr;   /* what a value adds to its bucket (kind 0: 1) */
};

/* An argument, cpu, pid or tid: a key or value of UDT_ECB_DIRECT_AGG (no clock read). */
static inline int udt_agg_part_direct(const struct udt_action *a)
{
	return udt_act_is_direct(a) && (a->kind != UDT_ACT_TRACE_VAR || a->src != UDT_VAR_TIMESTAMP);
}

/*
 * Does ECB e, with actions act in the area at area (UDT_AREA_SZ bytes), meet
 * UDT_ECB_DIRECT_AGG? (Its aggregations' descriptors are read there, within
 * the area; the verifier has checked them whole.)
 */
static inline int udt_ecb_is_direct_agg(const struct udt_ecb *e, const struct udt_action *act,
					const uint8_t *area)
{
	if (e->pred || !e->act_cnt)
		return 0;
	for (uint32_t k = 0; k < e->act_cnt; k++) {
		if (act[k].kind != UDT_ACT_AGG || act[k].src % 8 ||
		    act[k].src > UDT_AREA_SZ - sizeof(struct udt_aggdesc))
			return 0;
		const struct udt_aggdesc *ad = (const void *)(area + act[k].src);
		if (ad->key_off % 8 || ad->key_off > UDT_AREA_SZ ||
		    ad->key_cnt > (UDT_AREA_SZ - ad->key_off) / sizeof(struct udt_action) ||
		    (ad->val.kind && !udt_agg_part_direct(&ad->val)) ||
		    (ad->incr.kind && !udt_agg_part_direct(&ad->incr)))
			return 0;
		const struct udt_action *key = (const void *)(area + ad->key_off);
		for (uint32_t i = 0; i < ad->key_cnt; i++)
			if (!udt_agg_part_direct(&key[i]) &&
			    (key[i].kind != UDT_ACT_TRACE_ARGSTR || !key[i].size))
				return 0;
	}
	return 1;
}

/* The bytes of value an aggregating function keeps; 0 for an unknown one. */
static inline uint32_t udt_agg_valsize(uint32_t func, uint32_t lq_levels)
{
	switch (func) {
	case UDT_AGG_COUNT:
	case UDT_AGG_SUM:
	case UDT_AGG_MIN:
	case UDT_AGG_MAX:
		return 8;
	case UDT_AGG_AVG:
		return 16;
	case UDT_AGG_QUANTIZE:
		return UDT_QUANTIZE_NBUCKETS * 8;
	case UDT_AGG_LQUANTIZE:
		return (lq_levels + 2) * 8;
	case UDT_AGG_STDDEV:
		return 32;
	case UDT_AGG_LLQUANTIZE:
		return lq_levels * 8;
	default:
		return 0;
	}
}

/* Are these llquantize() parameters usable: DTrace's rules, and factor^(high+1) in 64 bits? */
static inline int udt_llquantize_ok(uint64_t factor, uint64_t low, uint64_t high, uint64_t nsteps)
{
	int64_t p = 1;

	if (factor < 2 || factor > UINT16_MAX || high > UINT16_MAX || nsteps > UINT16_MAX ||
	    low > high || nsteps < factor || nsteps % factor)
		return 0;
	for (uint64_t i = 0; i <= high; i++)
		if (__builtin_mul_overflow(p, (int64_t)factor, &p))
			return 0;
	return 1;
}

/*
 * The llquantize() bucket of v, as DTrace's: 0 below factor^low; then, for
 * each order of magnitude from low to high, nsteps buckets (fewer where the
 * order has fewer integers) of equal width over [factor^order,
 * factor^(order+1)), less those the lower orders cover; then one for
 * factor^(high+1) and above. A value of INT64_MAX gives the last bucket, so
 * the count of buckets is that plus one. The parameters must pass
 * udt_llquantize_ok().
 */
static inline uint32_t udt_llquantize_bucket(uint16_t factor, uint16_t low, uint16_t high,
					     uint16_t nsteps, int64_t v)
{
	int64_t cur = 1, last, next;
	uint32_t base = 1;

	for (uint32_t order = 0; order < low; order++)
		cur *= factor;
	if (v < (last = cur))
		return 0;
	cur *= factor;
	for (uint32_t order = low; order <= high; order++) {
		int64_t nbuckets = cur > nsteps ? nsteps : cur;

		if (__builtin_mul_overflow(cur, (int64_t)factor, &next))
			v = v < cur ? v : cur - 1; /* the last order: clamp */
		if (v < cur)
			return base + (uint32_t)((v - last) / (cur / nbuckets));
		base += (uint32_t)(nbuckets - nbuckets / factor);
		last = cur;
		cur = next;
	}
	return base;
}

/*
 * A thread has two aggregation tables, and updates the one agg_active of its
 * struct udt_tbuf names, announcing it in agg_busy as it announces a record's
 * half in busy (record.c). At each snapshot the consumer flips agg_active,
 * waits until the thread is out of the other table, adds that table's
 * entries to its own totals and empties it (zeroes the hash and used). A
 * table is this header, the hash (uint32_t[1 << hash_bits]: offset + 1 of
 * the first entry of each chain), UDT_AGG_KEY_MAX bytes where the thread
 * builds a key, then the entries, appended.
 */
struct udt_agghdr {
	uint32_t used;            /* bytes of entries */
	uint32_t drops;           /* new keys that did not fit */
	uint32_t hash_bits;       /* 0 until the thread's first aggregation */
	uint32_t entries_off;     /* where the entries start, from the header */
};

struct udt_aggent {
	uint32_t size;            /* the entry's bytes: this header, the key, the value */
	uint32_t aggid;
	uint32_t next;            /* offset + 1 of the next entry of its hash chain, 0 last */
	uint32_t reserved;
	/* the key (the aggregation's key_size bytes), then the value */
};

/* -- Speculations ------------------------------------------------------------------- */

/*
 * A speculative buffer (speculation(), speculate(), commit(), discard()).
 * Process-wide, shared by the threads: speculate() reserves room with a
 * compare-and-swap on off and announces itself in writers while it writes;
 * commit() copies the records into the committing thread's principal buffer
 * once no thread is writing. docs/runtime.md, "Speculations", has the
 * protocol and its memory-ordering argument; vm/spec.c implements it.
 */
enum udt_spec_state {
	UDT_SPEC_INACTIVE = 0,    /* free for speculation() */
	UDT_SPEC_ACTIVE = 1,      /* handed out: speculate() records into it */
	UDT_SPEC_COMMITTING = 2,  /* commit() called; the copy waits for writers (busy) */
	UDT_SPEC_DISCARDING = 3,  /* discard() called; the reset waits for writers (busy) */
};

#define UDT_MAX_NSPEC 4096

struct udt_spec {
	uint32_t state;           /* enum udt_spec_state */
	uint32_t writers;         /* threads writing a record into it now */
	uint64_t off;             /* bytes of its buffer reserved */
	uint64_t pad[6];
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct udt_spec) == 64, "a cache line per speculation");

/* The area's speculations (udt_area_hdr.spec_off): what the runtime makes them from. */
struct udt_area_spec {
	uint64_t specsize;        /* bytes of each buffer */
	uint32_t state[];         /* [nspec]: UDT_SPEC_ACTIVE for those BEGIN handed out */
};

/* -- Dynamic variables ----------------------------------------------------------------- */

/*
 * The dynamic variable space (vm/dynvar.c has the design and the
 * memory-ordering argument; docs/runtime.md, "Dynamic variables"): this
 * header, a hash of 1 << hash_bits chains (uint32_t: index + 1 of the first
 * element, 0 for none), then chunk_cnt elements of chunk_sz bytes. Threads
 * insert with compare-and-swap and delete by marking; the consumer unlinks
 * the dead elements and, once every thread that could hold one has left
 * its fire, gives them back to the free list.
 */
struct udt_dynhdr {
	uint32_t size;            /* sizeof(struct udt_dynhdr) */
	uint32_t chunk_sz;        /* bytes of an element, a multiple of 8 */
	uint32_t hash_bits;
	uint32_t chunk_cnt;
	uint64_t chunks_off;      /* from this header */
	uint64_t free_head;       /* P, C: the free list, (tag << 32) | (index + 1) */
	uint32_t fresh;           /* P: elements taken from the never-used ones */
	uint32_t dirty;           /* P (add), C (sub): elements deleted and still linked */
	uint32_t rinsing;         /* C: elements unlinked, waiting for the threads to leave */
	uint32_t pad;
	uint64_t drops;           /* P: no element free for a new one */
	uint64_t dirty_drops;     /* ... while some were deleted and not yet cleaned */
	uint64_t rinse_drops;     /* ... while some were cleaned, not yet free */
};

enum udt_dyn_state {
	UDT_DYN_FREE = 0,
	UDT_DYN_LIVE = 1,
	UDT_DYN_DEAD = 2,         /* deleted: for the consumer to unlink */
};

/* An element: this header, the key (key_sz bytes), the value. */
struct udt_dynvar {
	uint32_t next;            /* index + 1 of the next element of its chain (or free list) */
	uint32_t hash;            /* the key's hash */
	uint32_t state;           /* enum udt_dyn_state */
	uint32_t key_sz;          /* bytes of key: 8 (variable, thread), then 8 per integer and
				     strsize rounded up to 8 per string */
};

/* -- Records ---------------------------------------------------------------------- */

/* Every record starts with this header; size includes it and is 8-aligned. */
struct udt_rec {
	uint32_t size;
	uint32_t epid;            /* UDT_EPID_* below for runtime records */
	uint64_t timestamp;       /* the clock's reading (udt_control.tsc_*: TSC ticks, or ns of
				     CLOCK_MONOTONIC), which the consumer turns into ns (version 18) */
	uint32_t cpu;
	uint32_t pad;
};

#define UDT_EPID_PAD 0xffffffffu   /* ring: filler up to the end of the buffer */
#define UDT_EPID_ERROR 0xfffffffeu /* struct udt_rec + struct udt_err */
#define UDT_EPID_COMMIT 0xfffffffdu /* struct udt_rec + struct udt_commit */

/*
 * A commit() the consumer finishes: another thread was writing into the
 * speculation when it was committed, so its records are printed where this
 * record is read, once the writers are done (docs/runtime.md).
 */
struct udt_commit {
	uint32_t spec;            /* the speculation's index (ID - 1) */
	uint32_t pad;
};

/* An error while running an ECB (fault-safe loads, division by zero...). */
struct udt_err {
	uint32_t epid;            /* the ECB */
	uint32_t action;          /* 0: predicate, n: action n (1-based) */
	uint32_t fault;           /* enum udt_fault (bytecode.h) */
	uint32_t insn;            /* instruction index of the fault */
	uint64_t addr;            /* the bad address, for UDT_FAULT_BADADDR */
};

#endif /* UDT_ABI_H */
