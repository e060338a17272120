/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of proc/proc.c on live processes: this test process itself
 * (symbols checked against dlsym and dl_iterate_phdr), and children built at
 * run time with the build tree's dtrace -h / -G from tests/unit/data/proc/
 * (probe tables in a PIE and a non-PIE executable and in libraries, dlopen
 * and refresh, deleted files, a corrupt table), plus the error cases.
 */
#define HARNESS_MAIN
#include "tests/harness.h"

#include "proc/proc.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <grp.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef DTRACE_BIN
#error "build with -DDTRACE_BIN=<path of the build tree's dtrace>"
#endif
#ifndef TOP_DIR
#error "build with -DTOP_DIR=<source directory>"
#endif

#define DATA_DIR TOP_DIR "/tests/unit/data/proc"

#define AUTO_PROC __attribute__((cleanup(pr_proc_close)))
#define AUTO_CHILD __attribute__((cleanup(child_stop)))

/* Known objects of this process, found by name. */
volatile uint64_t proc_test_global = 0x1122334455667788ull;
const char proc_test_string[] = "hello world";
__attribute__((noinline)) int proc_test_fn(int x);
__attribute__((noinline)) int proc_test_fn(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *self_name(void)
{
	static char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	return exe;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* libc's own definition of a symbol (dlsym(RTLD_DEFAULT) may find an interposer, e.g. ASan's). */
static uint64_t libc_sym(const char *name)
{
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *a = h ? dlsym(h, name) : NULL;

	if (h)
		dlclose(h);
	return (uintptr_t)a;
}

/* ---- this process ---- */

struct phdr_check {
	struct pr_proc *p;
	int checked;
	int bad;
};

/* Every object the dynamic linker knows (but the vDSO) is a module with its load bias. */
static int check_phdr(struct dl_phdr_info *info, size_t sz, void *data)
{
	struct phdr_check *pc = data;
	(void)sz;

	if (strstr(info->dlpi_name, "linux-vdso") || strstr(info->dlpi_name, "linux-gate"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const struct pr_module *mod;

		if (info->dlpi_phdr[i].p_type != PT_LOAD)
			continue;
		mod = pr_proc_module_at(pc->p, info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
		if (!mod || mod->base != info->dlpi_addr) {
			fprintf(stderr, "object \"%s\" at %#llx: %s (base %#llx)\n",
				info->dlpi_name, (unsigned long long)info->dlpi_addr,
				mod ? mod->path : "no module",
				mod ? (unsigned long long)mod->base : 0ull);
			pc->bad++;
		}
		pc->checked++;
		break;
	}
	return 0;
}

TEST(open_self)
{
	struct pr_proc p AUTO_PROC = { 0 };
	struct phdr_check pc = { &p, 0, 0 };
	const struct pr_module *exe, *libc;
	double t0, dt = 0;
	const int rounds = 10;

	for (int i = 0; i < rounds; i++) {
		pr_proc_close(&p);
		t0 = now_ms();
		REQUIRE_OK(pr_proc_open(&p, getpid()));
		dt += now_ms() - t0;
	}
	printf("# pr_proc_open(self): %.3f ms, %zu modules\n", dt / rounds, p.mod_cnt);
	CHECK_STR(p.errmsg, "");
	CHECK_EQ(p.pid, getpid());
	exe = pr_proc_module_at(&p, (uintptr_t)proc_test_fn);
	REQUIRE(exe);
	CHECK_STR(exe->path, self_name());
	CHECK_STR(exe->name, base_name(self_name()));
	CHECK(pr_proc_module(&p, exe->name) == exe);
	CHECK(pr_proc_module(&p, exe->path) == exe);
	CHECK(pr_proc_module(&p, "no-such-module.so") == NULL);
	CHECK(exe->lo <= (uintptr_t)&proc_test_global && (uintptr_t)&proc_test_global < exe->hi);
	CHECK_EQ(exe->table_cnt, 0);
	libc = pr_proc_module_at(&p, libc_sym("gnu_get_libc_version"));
	REQUIRE(libc);
	CHECK_STR(libc->name, "libc.so.6");
	/* load biases as the dynamic linker has them */
	dl_iterate_phdr(check_phdr, &pc);
	CHECK(pc.checked >= 3);
	CHECK_EQ(pc.bad, 0);
	/* nothing loaded eagerly; no vDSO, heap or stack */
	for (size_t i = 0; i < p.mod_cnt; i++) {
		CHECK(!p.mods[i]->syms_loaded);
		CHECK(p.mods[i]->path[0] == '/');
		CHECK(p.mods[i]->file != NULL);
	}
	CHECK(pr_proc_module_at(&p, (uintptr_t)&pc) == NULL);
}

TEST(files_mapped_as_data_are_not_modules)
{
	struct pr_proc p AUTO_PROC = { 0 };
	int fd = open(self_name(), O_RDONLY | O_CLOEXEC);
	int fd2 = open(DATA_DIR "/pchild.c", O_RDONLY | O_CLOEXEC);
	struct stat st, st2;
	void *m = MAP_FAILED, *m2 = MAP_FAILED;
	size_t exe_cnt = 0;

	REQUIRE(fd >= 0 && fd2 >= 0);
	REQUIRE(!fstat(fd, &st) && !fstat(fd2, &st2));
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	m2 = mmap(NULL, (size_t)st2.st_size, PROT_READ, MAP_PRIVATE, fd2, 0);
	close(fd);
	close(fd2);
	REQUIRE(m != MAP_FAILED && m2 != MAP_FAILED);
	CHECK_OK(pr_proc_open(&p, getpid()));
	for (size_t i = 0; i < p.mod_cnt; i++)
		exe_cnt += !strcmp(p.mods[i]->path, self_name());
	CHECK_EQ(exe_cnt, 1);
	CHECK(pr_proc_module_at(&p, (uintptr_t)m) == NULL);
	CHECK(pr_proc_module_at(&p, (uintptr_t)m2) == NULL);
	CHECK(pr_proc_module(&p, "pchild.c") == NULL);
	CHECK(pr_proc_module_at(&p, (uintptr_t)proc_test_fn) != NULL);
	munmap(m, (size_t)st.st_size);
	munmap(m2, (size_t)st2.st_size);
}

/*
 * Map an ELF file as the dynamic linker would, each segment from its own
 * offset, but without PROT_EXEC, as a tool reading the file could.
 */
static void *map_like_loader(const char *path, size_t *ret_len)
{
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE), end = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *base = MAP_FAILED;
	size_t phnum = 0;
	Elf *e;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_getphdrnum(e, &phnum))
		goto out;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_vaddr + ph.p_memsz > end)
			end = ph.p_vaddr + ph.p_memsz;
	}
	end = (end + ps - 1) & ~(ps - 1);
	base = mmap(NULL, end, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (size_t i = 0; base != MAP_FAILED && i < phnum; i++) {
		GElf_Phdr ph;
		uint64_t a, len;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		a = ph.p_vaddr & ~(ps - 1);
		len = ph.p_vaddr + ph.p_filesz - a;
		if (mmap(base + a, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd,
			 (off_t)(ph.p_offset & ~(ps - 1))) == MAP_FAILED) {
			munmap(base, end);
			base = MAP_FAILED;
		}
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	*ret_len = end;
	return base == MAP_FAILED ? NULL : base;
}

TEST(files_mapped_without_exec_are_not_modules)
{
	struct pr_proc p AUTO_PROC = { 0 };
	size_t len = 0, exe_cnt = 0;
	char *m = map_like_loader(self_name(), &len);

	REQUIRE(m);
	CHECK_OK(pr_proc_open(&p, getpid()));
	for (size_t i = 0; i < p.mod_cnt; i++)
		exe_cnt += !strcmp(p.mods[i]->path, self_name());
	CHECK_EQ(exe_cnt, 1);
	CHECK(pr_proc_module_at(&p, (uintptr_t)m) == NULL);
	CHECK(pr_proc_module_at(&p, (uintptr_t)proc_test_fn) != NULL);
	munmap(m, len);
}

TEST(lookup_self)
{
	struct pr_proc p AUTO_PROC = { 0 };
	struct pr_module *mod = NULL, *libc;
	uint64_t addr = 0, lo = 0, hi = 0, lo2 = 0, hi2 = 0;

	REQUIRE_OK(pr_proc_open(&p, getpid()));
	CHECK_OK(pr_proc_lookup(&p, "proc_test_fn", &addr, &mod));
	CHECK_EQ(addr, (uintptr_t)proc_test_fn);
	REQUIRE(mod);
	CHECK_STR(mod->name, base_name(self_name()));
	CHECK(mod->syms_loaded && mod->sym_cnt > 0);
	for (size_t i = 1; i < mod->sym_cnt; i++)
		if (!CHECK(mod->syms[i - 1].addr <= mod->syms[i].addr))
			break;
	CHECK_OK(pr_proc_lookup(&p, "proc_test_global", &addr, NULL));
	CHECK_EQ(addr, (uintptr_t)&proc_test_global);
	CHECK_OK(pr_module_func_range(mod, "proc_test_fn", &lo, &hi));
	CHECK_EQ(lo, (uintptr_t)proc_test_fn);
	CHECK(hi > lo && hi - lo < 4096);
	CHECK_EQ(pr_module_func_range(mod, "proc_test_global", &lo, &hi), -ENOENT);

	/* a libc function: the address the dynamic linker gives */
	mod = NULL;
	CHECK_OK(pr_proc_lookup(&p, "gnu_get_libc_version", &addr, &mod));
	CHECK_EQ(addr, (uintptr_t)dlsym(RTLD_DEFAULT, "gnu_get_libc_version"));
	REQUIRE(mod);
	CHECK_STR(mod->name, "libc.so.6");
	libc = mod;
	CHECK_OK(pr_module_func_range(libc, "malloc", &lo, &hi));
	CHECK_EQ(lo, libc_sym("malloc"));
	CHECK(hi > lo);
	/*
	 * Versioned symbols: the plain name is the default version, as for dlsym.
	 * glibc on x86-64 has two pthread_cond_wait, @GLIBC_2.2.5 and @@GLIBC_2.3.2.
	 */
#if defined(__x86_64__) && defined(__GLIBC__)
	CHECK_OK(pr_module_func_range(libc, "pthread_cond_wait@GLIBC_2.2.5", &lo2, &hi2));
	CHECK_OK(pr_module_func_range(libc, "pthread_cond_wait", &lo, &hi));
	CHECK_EQ(lo, libc_sym("pthread_cond_wait"));
	CHECK_NE(lo, lo2);
	CHECK_EQ(pr_module_func_range(libc, "pthread_cond_wait@@GLIBC_2.3.2", &lo, &hi), -ENOENT);
#endif
	CHECK_EQ(pr_proc_lookup(&p, "no_such_symbol_anywhere", &addr, NULL), -ENOENT);
	CHECK_EQ(pr_proc_lookup(&p, "", &addr, NULL), -ENOENT);
}

TEST(symbolize_self)
{
	struct pr_proc p AUTO_PROC = { 0 };
	struct pr_module *mod = NULL;
	const struct pr_sym *sym = NULL;
	int on_stack = 0;

	REQUIRE_OK(pr_proc_open(&p, getpid()));
	CHECK_OK(pr_proc_symbolize(&p, (uintptr_t)proc_test_fn + 1, &mod, &sym));
	REQUIRE(mod && sym);
	CHECK_STR(sym->name, "proc_test_fn");
	CHECK_EQ(sym->addr, (uintptr_t)proc_test_fn);
	CHECK(sym->func);
	CHECK_STR(mod->name, base_name(self_name()));
	CHECK_OK(pr_proc_symbolize(&p, (uintptr_t)proc_test_fn, NULL, &sym));
	CHECK_STR(sym->name, "proc_test_fn");
	/* malloc and __libc_malloc share an address: the plainer name */
	CHECK_OK(pr_proc_symbolize(&p, libc_sym("malloc") + 4, &mod, &sym));
	CHECK_STR(sym->name, "malloc");
	CHECK_STR(mod->name, "libc.so.6");
	/* data is not a function; the stack is no module */
	CHECK_EQ(pr_proc_symbolize(&p, (uintptr_t)&on_stack, &mod, &sym), -ENOENT);
	CHECK_EQ(pr_proc_symbolize(&p, 16, &mod, &sym), -ENOENT);
}

TEST(memory_self)
{
	struct pr_proc p AUTO_PROC = { 0 };
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t v = 0, w = 0x0102030405060708ull;
	char buf[64], *pages;

	REQUIRE_OK(pr_proc_open(&p, getpid()));
	CHECK_OK(pr_proc_read(&p, (uintptr_t)&proc_test_global, &v, sizeof(v)));
	CHECK_EQ(v, 0x1122334455667788ull);
	CHECK_OK(pr_proc_write(&p, (uintptr_t)&proc_test_global, &w, sizeof(w)));
	CHECK_EQ(proc_test_global, 0x0102030405060708ull);
	CHECK_OK(pr_proc_read(&p, 0, NULL, 0));
	CHECK_OK(pr_proc_read_str(&p, (uintptr_t)proc_test_string, buf, sizeof(buf)));
	CHECK_STR(buf, "hello world");
	CHECK_OK(pr_proc_read_str(&p, (uintptr_t)proc_test_string, buf, 6));
	CHECK_STR(buf, "hello"); /* truncated at max - 1 */
	CHECK_OK(pr_proc_read_str(&p, (uintptr_t)proc_test_string, buf, 1));
	CHECK_STR(buf, "");
	CHECK_EQ(pr_proc_read_str(&p, (uintptr_t)proc_test_string, buf, 0), -EINVAL);

	/* [read-write][read-write][no access] */
	pages = mmap(NULL, 3 * (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		     0);
	REQUIRE(pages != MAP_FAILED);
	REQUIRE(!mprotect(pages + 2 * ps, (size_t)ps, PROT_NONE));
	memcpy(pages + 2 * ps - 5, "edge", 5); /* its NUL is the last mapped byte */
	CHECK_OK(pr_proc_read_str(&p, (uintptr_t)pages + 2 * ps - 5, buf, sizeof(buf)));
	CHECK_STR(buf, "edge");
	memcpy(pages + ps - 3, "across", 7); /* crosses a page boundary */
	CHECK_OK(pr_proc_read_str(&p, (uintptr_t)pages + ps - 3, buf, sizeof(buf)));
	CHECK_STR(buf, "across");
	memset(pages + 2 * ps - 4, 'x', 4); /* runs into the unmapped page */
	CHECK_EQ(pr_proc_read_str(&p, (uintptr_t)pages + 2 * ps - 4, buf, sizeof(buf)), -EFAULT);
	CHECK_STR(buf, "xxxx");
	CHECK_EQ(pr_proc_read(&p, (uintptr_t)pages + 2 * ps - 4, &v, sizeof(v)), -EFAULT);
	CHECK_EQ(pr_proc_write(&p, (uintptr_t)pages + 2 * ps, &w, sizeof(w)), -EFAULT);
	CHECK_EQ(pr_proc_read(&p, 0, &v, sizeof(v)), -EFAULT);
	CHECK_EQ(pr_proc_read(&p, UINT64_MAX - 2, &v, sizeof(v)), -EFAULT);
	/* a long transfer */
	memset(pages, 'a', 2 * (size_t)ps);
	{
		char *big = malloc(2 * (size_t)ps);

		REQUIRE(big);
		CHECK_OK(pr_proc_read(&p, (uintptr_t)pages, big, 2 * (size_t)ps));
		CHECK(!memcmp(big, pages, 2 * (size_t)ps));
		free(big);
	}
	munmap(pages, 3 * (size_t)ps);
}

TEST(execname_self)
{
	struct pr_proc p AUTO_PROC = { 0 };
	char buf[64], comm[16];

	REQUIRE_OK(pr_proc_open(&p, getpid()));
	strncpy(comm, base_name(self_name()), sizeof(comm) - 1); /* comm: 15 characters */
	comm[sizeof(comm) - 1] = '\0';
	CHECK_OK(pr_proc_execname(&p, buf, sizeof(buf)));
	CHECK_STR(buf, comm);
	CHECK_OK(pr_proc_execname(&p, buf, 5));
	CHECK_EQ(strlen(buf), 4);
	CHECK(!strncmp(buf, comm, 4));
	CHECK_EQ(pr_proc_execname(&p, buf, 0), -EINVAL);
}

/* ---- errors ---- */

TEST(no_such_process)
{
	struct pr_proc p AUTO_PROC = { 0 };
	char want[128];
	uint64_t v;
	pid_t pid = fork();

	REQUIRE(pid >= 0);
	if (pid == 0)
		_exit(0);
	REQUIRE_EQ(waitpid(pid, NULL, 0), pid);
	CHECK_EQ(pr_proc_open(&p, pid), -ESRCH);
	snprintf(want, sizeof(want), "failed to grab pid %d: No such process", (int)pid);
	CHECK_STR(p.errmsg, want);
	CHECK_EQ(p.mod_cnt, 0);
	CHECK_EQ(pr_proc_read(&p, 4096, &v, sizeof(v)), -ESRCH);
	CHECK_ERR(pr_proc_execname(&p, want, sizeof(want)));
	CHECK_EQ(pr_proc_refresh(&p), -ESRCH);
	CHECK_EQ(pr_proc_open(&p, -1), -ESRCH);
	CHECK_STR(p.errmsg, "failed to grab pid -1: No such process");
	CHECK_EQ(pr_proc_open(&p, 0), -ESRCH);
	CHECK_EQ(pr_proc_open(NULL, getpid()), -EINVAL);
}

TEST(zombie)
{
	struct pr_proc p AUTO_PROC = { 0 };
	pid_t pid = fork();

	REQUIRE(pid >= 0);
	if (pid == 0)
		_exit(0);
	/* a zombie until reaped: it has no memory left */
	for (int i = 0; i < 1000; i++) {
		char path[64], st[256] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(st, sizeof(st), f))
				st[0] = '\0';
			fclose(f);
		}
		if (strstr(st, ") Z "))
			break;
		usleep(1000);
	}
	CHECK_EQ(pr_proc_open(&p, pid), -ESRCH);
	CHECK_CONTAINS(p.errmsg, "No such process");
	waitpid(pid, NULL, 0);
}

TEST(permission_denied)
{
	int fds[2], r = 0;
	char msg[600] = "", want[128];
	ssize_t n;
	pid_t pid;

	if (geteuid() != 0)
		SKIP("needs root, to drop to another uid");
	REQUIRE(!pipe(fds));
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		/* the child drops to nobody and tries to inspect its root parent */
		struct pr_proc p = { 0 };
		char out[600];

		close(fds[0]);
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534)) {
			snprintf(out, sizeof(out), "1|cannot drop privileges: %s", strerror(errno));
		} else {
			int err = pr_proc_open(&p, getppid());

			snprintf(out, sizeof(out), "%d|%s", err, p.errmsg);
			pr_proc_close(&p);
		}
		if (write(fds[1], out, strlen(out)) < 0)
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], msg, sizeof(msg) - 1);
	close(fds[0]);
	waitpid(pid, NULL, 0);
	REQUIRE(n > 0);
	msg[n] = '\0';
	REQUIRE(sscanf(msg, "%d|", &r) == 1);
	CHECK(r == -EPERM || r == -EACCES);
	snprintf(want, sizeof(want), "failed to grab pid %d: permission denied", (int)getpid());
	CHECK_STR(strchr(msg, '|') + 1, want);
}

TEST(close_twice)
{
	struct pr_proc p = { 0 };

	pr_proc_close(&p);
	pr_proc_close(NULL);
	REQUIRE_OK(pr_proc_open(&p, getpid()));
	pr_proc_close(&p);
	CHECK_EQ(p.mod_cnt, 0);
	CHECK(p.mods == NULL);
	pr_proc_close(&p);
}

/* ---- child processes built with dtrace -h / -G ---- */

static char work_dir[] = "/tmp/udt-test-proc-XXXXXX";
static int built; /* 0 not yet, 1 built, -1 failed */

static void remove_work_dir(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", work_dir);
}

/*
 * Build the children once: pchild-pie and pchild-no-pie, libplib.so and its
 * copy libpdl.so, and libhand.so (tables written by hand).
 */
static bool build_children(void)
{
	static const char script[] =
		"set -e\n"
		"cd \"$W\"\n"
		"CC=${CC:-cc}\n"
		"for p in pexe pextra plib; do \"$DT\" -h -s \"$D/$p.d\" -o $p.h; done\n"
		"$CC -O2 -g -fPIC -I. -c \"$D/plib.c\" -o plib.o\n"
		"\"$DT\" -G -fPIC -s \"$D/plib.d\" -o plib.prov.o plib.o\n"
		"$CC -shared -o libplib.so plib.o plib.prov.o\n"
		"cp libplib.so libpdl.so\n"
		"$CC -shared -o libhand.so \"$D/hand.S\"\n"
		"for v in pie no-pie; do\n"
		"	$CC -O2 -g -f$v -I. -c \"$D/pchild.c\" -o pchild-$v.o\n"
		"	$CC -O2 -g -f$v -I. -c \"$D/pextra.c\" -o pextra-$v.o\n"
		"	\"$DT\" -G -s \"$D/pexe.d\" -o pexe-$v.prov.o pchild-$v.o\n"
		"	\"$DT\" -G -s \"$D/pextra.d\" -o pextra-$v.prov.o pextra-$v.o\n"
		"	$CC -$v -o pchild-$v pchild-$v.o pextra-$v.o pexe-$v.prov.o pextra-$v.prov.o \\\n"
		"		-L. -lplib -Wl,-rpath,\"$W\" -ldl\n"
		"done\n";
	char cmd[4096];

	if (built)
		return built > 0;
	built = -1;
	if (!mkdtemp(work_dir))
		return false;
	atexit(remove_work_dir);
	snprintf(cmd, sizeof(cmd), "W='%s' D='%s' DT='%s' sh -c '%s' >'%s/build.log' 2>&1",
		 work_dir, DATA_DIR, DTRACE_BIN, script, work_dir);
	if (system(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "cat '%s/build.log' >&2", work_dir);
		if (system(cmd) != 0)
			fprintf(stderr, "building the children failed\n");
		return false;
	}
	built = 1;
	return true;
}

struct child {
	pid_t pid;
	int in; /* its stdin */
	FILE *out; /* its stdout */
};

static void child_stop(struct child *c)
{
	if (c->in >= 0)
		close(c->in);
	if (c->out)
		fclose(c->out);
	if (c->pid > 0) {
		kill(c->pid, SIGTERM);
		waitpid(c->pid, NULL, 0);
	}
	c->pid = -1;
	c->in = -1;
	c->out = NULL;
}

/* A line of the child's output, without the newline. */
static bool child_line(struct child *c, char *buf, size_t sz)
{
	if (!fgets(buf, (int)sz, c->out))
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

/* Start a child and wait for its "ready" line: then its libraries are loaded. */
static bool child_start(struct child *c, const char *exe)
{
	int in[2], out[2];
	char line[256];

	signal(SIGPIPE, SIG_IGN);
	if (pipe2(in, O_CLOEXEC))
		return false;
	if (pipe2(out, O_CLOEXEC)) {
		close(in[0]);
		close(in[1]);
		return false;
	}
	c->pid = fork();
	if (c->pid == 0) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(127);
		execl(exe, exe, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = fdopen(out[0], "r");
	if (c->pid < 0 || !c->out) {
		if (!c->out)
			close(out[0]);
		return false;
	}
	return child_line(c, line, sizeof(line)) && !strcmp(line, "ready 2");
}

/* Send a command, read its one-line reply. */
static const char *child_cmd(struct child *c, const char *cmd)
{
	static char reply[4200];
	size_t len = strlen(cmd);

	if (write(c->in, cmd, len) != (ssize_t)len || write(c->in, "\n", 1) != 1 ||
	    !child_line(c, reply, sizeof(reply)))
		return "(no reply)";
	return reply;
}

static const char *work_path(const char *name)
{
	static char path[2][PATH_MAX];
	static int which;

	which ^= 1;
	snprintf(path[which], sizeof(path[which]), "%s/%s", work_dir, name);
	return path[which];
}

/*
 * Check every table of a module: the target's memory holds the same bytes
 * at its address, and each probe's semaphore is the <prov>_<probe>_semaphore
 * symbol. Appends "prov:probe " to list.
 */
static void check_tables(struct pr_proc *p, struct pr_module *mod, char *list, size_t list_sz)
{
	for (size_t k = 0; k < mod->table_cnt; k++) {
		const struct pr_ptable *pt = mod->tables[k];
		const struct pr_table *t = &pt->t;
		void *mem = malloc(t->hdr.total_sz);

		if (!CHECK(mem))
			return;
		CHECK(pt->t.base == pt->copy);
		CHECK(pt->addr >= mod->lo && pt->addr + t->hdr.total_sz <= mod->hi);
		CHECK_OK(pr_proc_read(p, pt->addr, mem, t->hdr.total_sz));
		CHECK(!memcmp(mem, pt->copy, t->hdr.total_sz));
		free(mem);
		for (uint32_t i = 0; i < t->hdr.probe_cnt; i++) {
			const struct udt_table_probe *pr = pr_table_probe(t, i);
			const char *prov =
				pr_table_str(t, pr_table_provider(t, pr->provider)->name);
			uint64_t sem = pt->addr + pr_table_probe_off(t, i) + (uint64_t)pr->sem_rel;
			uint64_t addr = 0;
			struct pr_module *smod = NULL;
			char name[256];
			uint16_t v = 0xffff;

			snprintf(name, sizeof(name), "%s_%s_semaphore", prov,
				 pr_table_str(t, pr->name));
			if (CHECK_OK(pr_proc_lookup(p, name, &addr, &smod))) {
				CHECK_EQ(sem, addr);
				CHECK(smod == mod);
			}
			CHECK_OK(pr_proc_read(p, sem, &v, sizeof(v)));
			CHECK_EQ(v, 0);
			snprintf(list + strlen(list), list_sz - strlen(list), "%s:%s ", prov,
				 pr_table_str(t, pr->name));
		}
	}
}

static void set_sem(struct pr_proc *p, const char *name, uint16_t v)
{
	uint64_t addr;

	if (CHECK_OK(pr_proc_lookup(p, name, &addr, NULL)))
		CHECK_OK(pr_proc_write(p, addr, &v, sizeof(v)));
}

static void check_child(const char *variant)
{
	struct child c AUTO_CHILD = { -1, -1, NULL };
	struct pr_proc p AUTO_PROC = { 0 };
	struct pr_module *exe, *lib, *mod = NULL;
	const struct pr_sym *sym = NULL;
	char name[64], list[512] = "", buf[64];
	uint64_t addr = 0, lo = 0, hi = 0;
	double t0;

	snprintf(name, sizeof(name), "pchild-%s", variant);
	REQUIRE(child_start(&c, work_path(name)));
	t0 = now_ms();
	REQUIRE_OK(pr_proc_open(&p, c.pid));
	printf("# pr_proc_open(%s): %.3f ms, %zu modules\n", name, now_ms() - t0, p.mod_cnt);
	CHECK_STR(p.errmsg, "");
	exe = pr_proc_module(&p, name);
	REQUIRE(exe);
	CHECK_STR(exe->path, work_path(name));
	if (!strcmp(variant, "pie"))
		CHECK_NE(exe->base, 0);
	else
		CHECK_EQ(exe->base, 0);
	/* two -G objects: two tables, concatenated in one section */
	CHECK_EQ(exe->table_cnt, 2);
	check_tables(&p, exe, list, sizeof(list));
	CHECK_STR(list, "pexe:start pexe:two__words pextra:tick ");
	lib = pr_proc_module(&p, "libplib.so");
	REQUIRE(lib);
	CHECK_EQ(lib->table_cnt, 1);
	list[0] = '\0';
	check_tables(&p, lib, list, sizeof(list));
	CHECK_STR(list, "plib:fire ");
	CHECK(pr_proc_module(&p, "libc.so.6") != NULL);
	for (size_t i = 0; i < p.mod_cnt; i++)
		if (p.mods[i] != exe && p.mods[i] != lib)
			CHECK_EQ(p.mods[i]->table_cnt, 0);

	/* the semaphores are the ones the child's sites test */
	CHECK_STR(child_cmd(&c, "enabled"), "0 0");
	set_sem(&p, "pexe_start_semaphore", 1);
	set_sem(&p, "plib_fire_semaphore", 1);
	CHECK_STR(child_cmd(&c, "enabled"), "1 1");
	set_sem(&p, "pexe_start_semaphore", 0);
	CHECK_STR(child_cmd(&c, "enabled"), "0 1");
	set_sem(&p, "plib_fire_semaphore", 0);

	/* symbols of the child */
	CHECK_OK(pr_proc_lookup(&p, "pchild_work", &addr, &mod));
	CHECK(mod == exe);
	CHECK_OK(pr_proc_symbolize(&p, addr + 1, &mod, &sym));
	if (CHECK(sym))
		CHECK_STR(sym->name, "pchild_work");
	CHECK(mod == exe);
	CHECK_OK(pr_module_func_range(exe, "pchild_work", &lo, &hi));
	CHECK_EQ(lo, addr);
	CHECK(hi > lo);
	CHECK_OK(pr_proc_lookup(&p, "plib_work", &addr, &mod));
	CHECK(mod == lib);
	/* in .dynsym and .symtab, listed once */
	for (size_t i = 0, n = 0; i < lib->sym_cnt; i++)
		if (!strcmp(lib->syms[i].name, "plib_work"))
			CHECK_EQ(++n, 1);
	CHECK_OK(pr_proc_symbolize(&p, addr + 2, &mod, &sym));
	if (CHECK(sym))
		CHECK_STR(sym->name, "plib_work");
	CHECK_OK(pr_proc_execname(&p, buf, sizeof(buf)));
	CHECK_STR(buf, name);
}

TEST(child_pie)
{
	REQUIRE(build_children()); /* dtrace -h / -G of the build tree; log above */
	check_child("pie");
}

TEST(child_nopie)
{
	REQUIRE(build_children()); /* dtrace -h / -G of the build tree; log above */
	check_child("no-pie");
}

TEST(child_refresh_after_dlopen)
{
	struct child c AUTO_CHILD = { -1, -1, NULL };
	struct pr_proc p AUTO_PROC = { 0 };
	struct pr_module *dl, *lib;
	char cmd[PATH_MAX + 16], list[256] = "";
	uint64_t sem_dl, sem_lib;
	uint16_t one = 1;

	REQUIRE(build_children()); /* dtrace -h / -G of the build tree; log above */
	REQUIRE(child_start(&c, work_path("pchild-pie")));
	REQUIRE_OK(pr_proc_open(&p, c.pid));
	CHECK(pr_proc_module(&p, "libpdl.so") == NULL);
	snprintf(cmd, sizeof(cmd), "dlopen %s", work_path("libpdl.so"));
	REQUIRE_STR(child_cmd(&c, cmd), "ok");
	REQUIRE_OK(pr_proc_refresh(&p));
	CHECK_EQ(p.pid, c.pid);
	dl = pr_proc_module(&p, "libpdl.so");
	lib = pr_proc_module(&p, "libplib.so");
	REQUIRE(dl && lib);
	REQUIRE_EQ(dl->table_cnt, 1);
	REQUIRE_EQ(lib->table_cnt, 1);
	/* the same provider in two objects: two semaphores, each in its own object */
	sem_dl = dl->tables[0]->addr + pr_table_probe_off(&dl->tables[0]->t, 0) +
		 (uint64_t)pr_table_probe(&dl->tables[0]->t, 0)->sem_rel;
	sem_lib = lib->tables[0]->addr + pr_table_probe_off(&lib->tables[0]->t, 0) +
		  (uint64_t)pr_table_probe(&lib->tables[0]->t, 0)->sem_rel;
	CHECK(sem_dl >= dl->lo && sem_dl < dl->hi);
	CHECK(sem_lib >= lib->lo && sem_lib < lib->hi);
	/* lookup finds the first in mapping order; check_tables wants it in the module */
	if (lib->lo < dl->lo)
		check_tables(&p, lib, list, sizeof(list));
	else
		check_tables(&p, dl, list, sizeof(list));
	CHECK_STR(list, "plib:fire ");
	CHECK_OK(pr_proc_write(&p, sem_dl, &one, sizeof(one)));
	CHECK_STR(child_cmd(&c, "enabled"), "0 0"); /* the linked copy is not enabled */
	CHECK_OK(pr_proc_write(&p, sem_lib, &one, sizeof(one)));
	CHECK_STR(child_cmd(&c, "enabled"), "0 1");
}

static bool copy_file(const char *from, const char *to)
{
	char cmd[2 * PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	return system(cmd) == 0;
}

TEST(child_deleted_files)
{
	struct child c AUTO_CHILD = { -1, -1, NULL };
	struct pr_proc p AUTO_PROC = { 0 };
	struct pr_module *exe, *dl, *mod = NULL;
	char cmd[PATH_MAX + 16], list[256] = "", want[128];
	uint64_t addr = 0;
	const struct pr_sym *sym = NULL;

	REQUIRE(build_children()); /* dtrace -h / -G of the build tree; log above */
	REQUIRE(copy_file(work_path("pchild-pie"), work_path("pchild-del")));
	REQUIRE(copy_file(work_path("libpdl.so"), work_path("libpdl-del.so")));
	REQUIRE(child_start(&c, work_path("pchild-del")));
	snprintf(cmd, sizeof(cmd), "dlopen %s", work_path("libpdl-del.so"));
	REQUIRE_STR(child_cmd(&c, cmd), "ok");
	REQUIRE(!unlink(work_path("pchild-del")));
	REQUIRE(!unlink(work_path("libpdl-del.so")));

	REQUIRE_OK(pr_proc_open(&p, c.pid));
	exe = pr_proc_module(&p, "pchild-del");
	REQUIRE(exe);
	CHECK_STR(exe->path, work_path("pchild-del"));
	snprintf(want, sizeof(want), "/proc/%d/exe", (int)c.pid);
	CHECK_STR(exe->file, want);
	CHECK_EQ(exe->table_cnt, 2);
	check_tables(&p, exe, list, sizeof(list)); /* symbols of the deleted file */
	CHECK_STR(list, "pexe:start pexe:two__words pextra:tick ");
	CHECK_OK(pr_proc_lookup(&p, "pchild_work", &addr, &mod));
	CHECK_OK(pr_proc_symbolize(&p, addr, &mod, &sym));
	if (CHECK(sym))
		CHECK_STR(sym->name, "pchild_work");

	/* a deleted library: through /proc/PID/map_files, which needs privileges */
	dl = pr_proc_module(&p, "libpdl-del.so");
	if (geteuid() == 0) {
		REQUIRE(dl);
		snprintf(want, sizeof(want), "/proc/%d/map_files/", (int)c.pid);
		CHECK(!strncmp(dl->file, want, strlen(want)));
		CHECK_EQ(dl->table_cnt, 1);
		CHECK_OK(pr_module_func_range(dl, "plib_work", &addr, &addr));
	}
}

/* Overwrite the magic of the first table in a file's .udtrace.table. */
static bool corrupt_table(const char *path)
{
	int fd = open(path, O_RDWR);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool done = false;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && !elf_getshdrstrndx(e, &shstrndx)) {
		while (!done && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *n;
			uint32_t bad = 0xdeadbeef;
			off_t at;

			if (!gelf_getshdr(scn, &sh))
				continue;
			n = elf_strptr(e, shstrndx, sh.sh_name);
			if (!n || strcmp(n, UDT_TABLE_SECTION))
				continue;
			at = (off_t)(sh.sh_offset + offsetof(struct udt_table_hdr, magic));
			done = pwrite(fd, &bad, sizeof(bad), at) == sizeof(bad);
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return done;
}

TEST(child_bad_table_is_skipped)
{
	struct child c AUTO_CHILD = { -1, -1, NULL };
	struct pr_proc p AUTO_PROC = { 0 };
	struct pr_module *bad;
	char cmd[PATH_MAX + 16];

	REQUIRE(build_children()); /* dtrace -h / -G of the build tree; log above */
	REQUIRE(copy_file(work_path("libpdl.so"), work_path("libbad.so")));
	REQUIRE(corrupt_table(work_path("libbad.so")));
	REQUIRE(child_start(&c, work_path("pchild-pie")));
	snprintf(cmd, sizeof(cmd), "dlopen %s", work_path("libbad.so"));
	REQUIRE_STR(child_cmd(&c, cmd), "ok");
	REQUIRE_OK(pr_proc_open(&p, c.pid));
	bad = pr_proc_module(&p, "libbad.so");
	REQUIRE(bad);
	CHECK_EQ(bad->table_cnt, 0);
	CHECK_CONTAINS(p.errmsg, "libbad.so: bad probe table at offset 0");
	/* the rest is there */
	CHECK(pr_proc_module(&p, "libplib.so") && pr_proc_module(&p, "libplib.so")->table_cnt == 1);
	CHECK(pr_proc_module(&p, "pchild-pie") && pr_proc_module(&p, "pchild-pie")->table_cnt == 2);
}

TEST(child_unpadded_tables)
{
	struct child c AUTO_CHILD = { -1, -1, NULL };
	struct pr_proc p AUTO_PROC = { 0 };
	struct pr_module *hand;
	char cmd[PATH_MAX + 16], list[256] = "";

	REQUIRE(build_children()); /* dtrace -h / -G of the build tree; log above */
	REQUIRE(child_start(&c, work_path("pchild-pie")));
	snprintf(cmd, sizeof(cmd), "dlopen %s", work_path("libhand.so"));
	REQUIRE_STR(child_cmd(&c, cmd), "ok");
	REQUIRE_OK(pr_proc_open(&p, c.pid));
	CHECK_STR(p.errmsg, "");
	hand = pr_proc_module(&p, "libhand.so");
	REQUIRE(hand);
	REQUIRE_EQ(hand->table_cnt, 2);
	CHECK_EQ(hand->tables[0]->t.hdr.total_sz, 163);
	CHECK_EQ(hand->tables[1]->addr - hand->tables[0]->addr, 168); /* rounded up to 8 */
	check_tables(&p, hand, list, sizeof(list));
	CHECK_STR(list, "hand:made hand2:other ");
}
