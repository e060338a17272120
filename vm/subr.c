/* SPDX-License-Identifier: MIT */
/*
 * D's subroutines that the VM calls through UDT_OP_SUBR (bytecode.h, enum
 * udt_subr): speculation(), rand(), progenyof(), the byte order ones
 * (htons()...), and the stack and registers of the probe site (ucaller,
 * ustackdepth, uregs[]: runtime/ustack.c's udt__site_subr()). They
 * run on the probe path, in the traced process (and in dtrace for BEGIN and
 * END), so they keep its rules: no lock, no allocation, errno left as it
 * was; the only system calls are progenyof()'s (below).
 */
#include "abi/bytecode.h"
#include "vm/spec.h"
#include "vm/subr.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* DTrace's dtrace_chill_max and dtrace_chill_interval: 500 ms of chill() in each second */
#define CHILL_MAX_NS 500000000ull
#define CHILL_INTERVAL_NS 1000000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool udt__chill(uint64_t ns, uint64_t *mark, uint64_t *chilled)
{
	uint64_t start = mono_ns();

	if (start - *mark > CHILL_INTERVAL_NS) {
		*mark = start;
		*chilled = 0;
	}
	if (ns > CHILL_MAX_NS - *chilled)
		return false;
	while (mono_ns() - start < ns)
		; /* (a spin, as DTrace's: the thread holds its CPU) */
	*chilled += ns;
	return true;
}

/*
 * ustack.c's walk of the probe site's stack (or of the profile signal's
 * context): the runtime's; dtrace, which runs BEGIN and END with this file,
 * has none (they read 0). Weak, so that the runtime's fire does not set a
 * function in every context it makes.
 */
extern uint32_t udt__site_subr(uint64_t site, uint32_t which, uint64_t arg, uint64_t *ret)
	__attribute__((weak));

/*
 * rand(): xorshift128+ on two words of the thread's own (a weak generator,
 * as DTrace's is: not for anything that must not be guessed), seeded from
 * the thread, the time and the state's address at its first use.
 */
static uint64_t next_rand(struct udt_vm_ctx *ctx)
{
	uint64_t local[2] = { 0, 0 }, *s = ctx->rand ? ctx->rand : local;

	if (!s[0] && !s[1]) {
		uint64_t seed = ctx->timestamp ^ ((uint64_t)(uint32_t)ctx->tid << 32) ^
				(uint64_t)(uintptr_t)s;
		/* splitmix64 of the seed, so that close seeds give unrelated streams */
		for (int i = 0; i < 2; i++) {
			uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
			s[i] = z ^ (z >> 31);
		}
	}
	uint64_t x = s[0], y = s[1];
	s[0] = y;
	x ^= x << 23;
	s[1] = x ^ y ^ (x >> 17) ^ (y >> 26);
	return s[1] + y;
}

/*
 * The parent of process pid: getppid() for ourselves, else field 4 of
 * /proc/PID/stat (psinfo.c reads it). -1 if it cannot be read.
 */
static int64_t parent_of(int64_t pid, int64_t self)
{
	char path[48], buf[512];
	uint64_t f[1];

	if (pid == self)
		return (int64_t)syscall(SYS_getppid);
	udt__vm_proc_path(path, sizeof(path), "/proc/", (uint64_t)pid, "/stat");
	size_t got = udt__vm_slurp(path, buf, sizeof(buf));
	return got && udt__vm_stat_fields(buf, got, f, 1) == 1 ? (int64_t)f[0] : -1;
}

/*
 * progenyof(pid): the process is pid, or pid is one of its ancestors (as
 * DTrace walks p_parent). Up the chain one /proc read a generation; at most
 * 64 generations.
 */
static bool progeny(int64_t self, int64_t pid)
{
	int64_t cur = self;

	if (pid == self)
		return true;
	for (int depth = 0; depth < 64; depth++) {
		int64_t ppid = parent_of(cur, self);
		if (ppid == pid)
			return true;
		if (ppid <= 0 || ppid == cur)
			return false;
		cur = ppid;
	}
	return false;
}

int udt__subr(struct udt_vm_ctx *ctx, uint32_t which, uint64_t a, uint64_t b, uint64_t *ret)
{
	int saved_errno = errno;

	(void)b;
	switch (which) {
	case UDT_SUBR_SPECULATION:
		*ret = udt__spec_alloc(ctx->spec);
		break;
	case UDT_SUBR_RAND:
		*ret = next_rand(ctx);
		break;
	case UDT_SUBR_PROGENYOF:
		*ret = progeny(ctx->pid, (int64_t)(int32_t)a);
		break;
	case UDT_SUBR_HTONS:
		*ret = htons((uint16_t)a);
		break;
	case UDT_SUBR_HTONL:
		*ret = htonl((uint32_t)a);
		break;
	case UDT_SUBR_HTONLL:
		*ret = htobe64(a);
		break;
	case UDT_SUBR_UCALLER:
	case UDT_SUBR_USTACKDEPTH:
	case UDT_SUBR_UREGS:
		*ret = 0;
		if (udt__site_subr) {
			uint32_t f = udt__site_subr(ctx->site, which, a, ret);
			if (f) {
				errno = saved_errno;
				return (int)f;
			}
		}
		break;
	default:
		return UDT_FAULT_ILLOP; /* not reached: the verifier checked which */
	}
	errno = saved_errno;
	return 0;
}
