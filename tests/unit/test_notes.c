/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of proc/notes.c: the operand decoder on the forms GCC and
 * hand-written assembly give, and the reading of this test's own
 * .note.stapsdt, which holds good notes (by sys/sdt.h) and hostile ones
 * written by hand below (a site outside the code, a semaphore outside the
 * data, strings that run past their note, a note too short).
 */
#define HARNESS_MAIN
#include "tests/harness.h"

#include "proc/proc.h"

#include <errno.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

/* -- The decoder ----------------------------------------------------------------------------- */

struct opcase {
	const char *s;
	struct udt_note_arg want;
	const char *sym;          /* the symbol a %rip operand names */
};

#define NONE UDT_NREG_NONE

static const struct opcase good[] = {
	{ "-4@%eax", { UDT_NARG_REG, -4, UDT_NREG_RAX, 0, 0, 0, 4, 0, 0 }, NULL },
	{ "8@%rbx", { UDT_NARG_REG, 8, UDT_NREG_RBX, 0, 0, 0, 8, 0, 0 }, NULL },
	{ "%rbx", { UDT_NARG_REG, 8, UDT_NREG_RBX, 0, 0, 0, 8, 0, 0 }, NULL },
	{ "1@%ah", { UDT_NARG_REG, 1, UDT_NREG_RAX, 0, 0, 8, 1, 0, 0 }, NULL },
	{ "-1@%sil", { UDT_NARG_REG, -1, UDT_NREG_RSI, 0, 0, 0, 1, 0, 0 }, NULL },
	{ "2@%r9w", { UDT_NARG_REG, 2, UDT_NREG_R9, 0, 0, 0, 2, 0, 0 }, NULL },
	{ "-4@%r15d", { UDT_NARG_REG, -4, UDT_NREG_R15, 0, 0, 0, 4, 0, 0 }, NULL },
	{ "1@%r8b", { UDT_NARG_REG, 1, UDT_NREG_R8, 0, 0, 0, 1, 0, 0 }, NULL },
	{ "8@%xmm3", { UDT_NARG_XMM, 8, 3, 0, 0, 0, 16, 0, 0 }, NULL },
	{ "-4@$5", { UDT_NARG_CONST, -4, 0, 0, 0, 0, 0, 0, 5 }, NULL },
	{ "-8@$-1", { UDT_NARG_CONST, -8, 0, 0, 0, 0, 0, 0, -1 }, NULL },
	{ "8@$0x10", { UDT_NARG_CONST, 8, 0, 0, 0, 0, 0, 0, 16 }, NULL },
	{ "8@-16(%rbp)", { UDT_NARG_MEM, 8, UDT_NREG_RBP, NONE, 1, 0, 0, 0, -16 }, NULL },
	{ "-4@112(%rsp)", { UDT_NARG_MEM, -4, UDT_NREG_RSP, NONE, 1, 0, 0, 0, 112 }, NULL },
	{ "8@(%rdx)", { UDT_NARG_MEM, 8, UDT_NREG_RDX, NONE, 1, 0, 0, 0, 0 }, NULL },
	{ "8@8(%rax,%rcx,8)", { UDT_NARG_MEM, 8, UDT_NREG_RAX, UDT_NREG_RCX, 8, 0, 0, 0, 8 }, NULL },
	{ "4@(,%r12,4)", { UDT_NARG_MEM, 4, NONE, UDT_NREG_R12, 4, 0, 0, 0, 0 }, NULL },
	{ "8@sym+8(%rip)", { UDT_NARG_MEM, 8, NONE, NONE, 1, 0, 0, 0, 8 }, "sym" },
	{ "-8@8+hist(%rip)", { UDT_NARG_MEM, -8, NONE, NONE, 1, 0, 0, 0, 8 }, "hist" },
	{ "4@counter.0(%rip)", { UDT_NARG_MEM, 4, NONE, NONE, 1, 0, 0, 0, 0 }, "counter.0" },
	{ "8@_ZN3foo3barE-4(%rip)", { UDT_NARG_MEM, 8, NONE, NONE, 1, 0, 0, 0, -4 }, "_ZN3foo3barE" },
};

static const char *const bad[] = {
	"", "3@%eax", "16@%rax", "8@", "8@%", "8@%fs:8", "8@%st", "8@%xmm16", "8@$", "8@$x",
	"8@(%eax)", "8@8(%rbp", "8@8(%rip,%rax,1)", "8@(%rax,%rbx,3)", "8@sym(%rax)", "8@-sym(%rip)",
	"8@a+b(%rip)", "8@99999999999999999999(%rbp)", "8@%rax%rbx",
};

TEST(operands)
{
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct udt_note_arg a;
		char sym[64] = "";
		bool has_sym = false;

		if (pr_note_arg_parse(good[i].s, strlen(good[i].s), &a, sym, sizeof(sym), &has_sym)) {
			CHECK_STR(good[i].s, "parsed");
			continue;
		}
		CHECK_EQ(a.kind, good[i].want.kind);
		CHECK_EQ(a.size, good[i].want.size);
		CHECK_EQ(a.disp, good[i].want.disp);
		if (a.kind == UDT_NARG_REG || a.kind == UDT_NARG_XMM) {
			CHECK_EQ(a.reg, good[i].want.reg);
			CHECK_EQ(a.width, good[i].want.width);
			CHECK_EQ(a.shift, good[i].want.shift);
		}
		if (a.kind == UDT_NARG_MEM) {
			CHECK_EQ(a.reg, good[i].want.reg);
			CHECK_EQ(a.index, good[i].want.index);
			CHECK_EQ(a.scale, good[i].want.scale);
		}
		CHECK_EQ(has_sym, good[i].sym != NULL);
		if (good[i].sym)
			CHECK_STR(sym, good[i].sym);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct udt_note_arg a;
		char sym[64];
		bool has_sym;

		if (!pr_note_arg_parse(bad[i], strlen(bad[i]), &a, sym, sizeof(sym), &has_sym))
			CHECK_STR(bad[i], "refused");
	}
}

TEST(value)
{
	CHECK_EQ(udt_note_arg_value(-4, 0xffffffffull), (uint64_t)-1);
	CHECK_EQ(udt_note_arg_value(4, 0x1ffffffffull), 0xffffffffull);
	CHECK_EQ(udt_note_arg_value(-1, 0x80), (uint64_t)-128);
	CHECK_EQ(udt_note_arg_value(2, 0x12345), 0x2345);
	CHECK_EQ(udt_note_arg_value(-8, 0x8000000000000000ull), 0x8000000000000000ull);
}

/* -- This process's notes --------------------------------------------------------------------- */

unsigned short notes_test_semaphore __attribute__((section(".probes"), used));
volatile long notes_test_var = 42;

__attribute__((noinline)) void notes_test_fn(long x);
__attribute__((noinline)) void notes_test_fn(long x)
{
	/* good notes, as sys/sdt.h makes them */
	STAP_PROBE2(utest, good, x, notes_test_var);
	STAP_PROBE(utest, noargs);
	__asm__ volatile("" ::: "memory");
}

/*
 * Hostile notes, by hand: (desc) site, base, semaphore, then the strings.
 * The site is a label of the code above or the address of data.
 */
#define HOSTILE_DESC(desc, descsz)                                                            \
	__asm__(".pushsection .note.stapsdt,\"\",\"note\"\n"                                 \
		".balign 4\n"                                                                \
		".4byte 8, " #descsz ", 3\n"                                                 \
		".asciz \"stapsdt\"\n"                                                       \
		".balign 4\n" desc "\n"                                                      \
		".balign 4\n"                                                                \
		".popsection\n")
#define HOSTILE(tag, site, sem, strs, descsz)                                                 \
	HOSTILE_DESC(".8byte " site ", 0, " sem "\n" strs, descsz)

HOSTILE(data_site, "notes_test_var", "0", ".asciz \"utest\"\n.asciz \"datasite\"\n.asciz \"\"",
	24 + 6 + 9 + 1);
HOSTILE(text_sem, "notes_test_fn", "notes_test_fn", ".asciz \"utest\"\n.asciz \"textsem\"\n.asciz \"\"",
	24 + 6 + 8 + 1);
HOSTILE(unterminated, "notes_test_fn", "0", ".ascii \"utest\"", 24 + 5);
HOSTILE_DESC(".8byte notes_test_fn, 0\n.4byte 0", 20);
HOSTILE(noname, "notes_test_fn", "0", ".asciz \"utest\"\n.asciz \"\"\n.asciz \"\"", 24 + 6 + 1 + 1);
HOSTILE(badop, "notes_test_fn", "notes_test_semaphore",
	".asciz \"utest\"\n.asciz \"badop\"\n.asciz \"8@%rax 8@%fs:16\"", 24 + 6 + 6 + 16);

static struct pr_module *self_module(struct pr_proc *p)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	return pr_proc_module(p, exe);
}

static const struct pr_note *find(const struct pr_module *m, const char *name)
{
	for (size_t i = 0; i < m->note_cnt; i++)
		if (!strcmp(m->notes[i].prov, "utest") && !strcmp(m->notes[i].name, name))
			return &m->notes[i];
	return NULL;
}

TEST(self_notes)
{
	struct pr_proc p;
	struct pr_module *m;
	const struct pr_note *n;

	notes_test_fn(7);
	REQUIRE_OK(pr_proc_open(&p, getpid()));
	m = self_module(&p);
	REQUIRE(m != NULL);
	n = find(m, "good");
	REQUIRE(n != NULL);
	CHECK_EQ(n->arg_cnt, 2);
	CHECK(!n->bad);
	CHECK_EQ(n->sem, 0);
	CHECK(n->pc >= (uint64_t)(uintptr_t)notes_test_fn && n->pc < (uint64_t)(uintptr_t)notes_test_fn + 64);
	CHECK_EQ(n->args[0].size, -8);
	n = find(m, "noargs");
	CHECK(n && n->arg_cnt == 0 && !n->bad);
	/* an operand not read here keeps its site, marked, with its semaphore */
	n = find(m, "badop");
	REQUIRE(n != NULL);
	CHECK(n->bad);
	CHECK_EQ(n->arg_cnt, 2);
	CHECK_EQ(n->args[0].kind, UDT_NARG_REG);
	CHECK_EQ(n->args[1].kind, UDT_NARG_NONE);
	CHECK_EQ(n->sem, (uint64_t)(uintptr_t)&notes_test_semaphore);
	/* the hostile ones are skipped, and one is said */
	CHECK(!find(m, "datasite"));
	CHECK(!find(m, "textsem"));
	CHECK(!find(m, ""));
	for (size_t i = 0; i < m->note_cnt; i++)
		CHECK(strlen(m->notes[i].name) > 0);
	CHECK(strstr(p.errmsg, "SystemTap note skipped") != NULL);
	pr_proc_close(&p);
}

TEST(no_notes_for_modules_with_tables)
{
	/* libc has no stapsdt notes on Debian; a module without notes has none */
	struct pr_proc p;

	REQUIRE_OK(pr_proc_open(&p, getpid()));
	for (size_t i = 0; i < p.mod_cnt; i++)
		CHECK(!p.mods[i]->table_cnt || !p.mods[i]->note_cnt);
	pr_proc_close(&p);
}
