/* SPDX-License-Identifier: MIT */
/*
 * Dynamic providers: probes declared while the program runs (udtrace.h),
 * for language runtimes, plugins and bindings. docs/dynamic-providers.md.
 *
 * Mechanism. A provider collects its probes (names, argument types) until it
 * is loaded. Loading writes an ELF shared object (elfmem.c) with one site
 * per probe ("nop; ret"), its SystemTap note, its semaphore and the
 * provider's dispatch pointer, into an unnamed executable file: a memfd
 * (MFD_EXEC where the kernel knows it), or, where vm.memfd_noexec forbids
 * executable memfds, an O_TMPFILE file in $XDG_RUNTIME_DIR, /dev/shm or
 * /tmp (no name ever appears in the directory). The dynamic linker loads it
 * by the path /proc/PID/fd/N, with the real pid: that is the name gdb reads
 * from the link map and opens (/proc/self would be gdb itself), and the one
 * bpftrace is given. The descriptor stays open while the object is loaded.
 * Then the runtime registers a probe table (tables.c) whose references
 * point to the object's semaphores and dispatch pointer: the consumer lists
 * and enables these probes exactly as a -G object's (docs/format.md §5).
 * Where no executable object can be had, the semaphores and the dispatch
 * pointer are in the runtime's heap instead: udtrace sees the probes,
 * external tracers do not (or the load fails, if the provider asked).
 *
 * Firing. udt_probe_fire() reads the semaphore (set by udtrace's consumer,
 * gdb, or the kernel for uprobes) and the site's first byte, and returns if
 * the one is 0 and the other still the nop: a tracer that planted its
 * breakpoint without the semaphore (bpftrace -p cannot find the semaphore of
 * an object it knows by /proc/PID/fd/N, plain uprobes never do) is seen
 * too. Otherwise it widens
 * the arguments to 64 bits by their types (a double becomes int64_t, see
 * udtrace.h), and: when the site's nop has been replaced by a breakpoint
 * (an external tracer attached), calls the site through libffi with the
 * probe's own types, so that the arguments are where the note says; and
 * when the dispatch pointer is set, calls udtrace's runtime with the values
 * as a -G site does (docs/format.md §1). libffi thus places any number of
 * arguments up to 12, of any mix of types, without code per arity, and a
 * probe traced only by udtrace does not pay for the call (about 40 ns here).
 * A hardware breakpoint on a site does not change its bytes and is not
 * seen: tracers use int3 (uprobes, gdb's software breakpoints).
 *
 * Lifetime. Unloading first points every probe at a semaphore that is always
 * 0, then unregisters the table (which strikes the semaphores and the
 * dispatch pointer from a live session's undo lists, so neither side writes
 * them again), then unloads the object. A consumer still attached traces
 * nothing more from the provider and goes on; the caller must not fire the
 * provider's probes in another thread during the unload (udtrace.h).
 */
#include "runtime/internal.h"
#include "runtime/elfmem.h"
#include "runtime/tables.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ffi.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "udtrace/sdt.h"
#include "udtrace/udtrace.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010u
#endif

#define NAME_MAX_LEN 128

/*
 * libffi, bound when the first probe is added (dlopen of the soname the
 * build found, UDT_LIBFFI_SONAME): a process that makes no dynamic provider
 * never maps it, and libudtrace does not need it. Its types by name, in the
 * order of enum ffi_t.
 */
enum ffi_t { F_S8, F_U8, F_S16, F_U16, F_S32, F_U32, F_S64, F_U64, F_PTR, F_VOID, F_CNT };

static const char *const ffi_type_names[F_CNT] = {
	"ffi_type_sint8", "ffi_type_uint8", "ffi_type_sint16", "ffi_type_uint16",
	"ffi_type_sint32", "ffi_type_uint32", "ffi_type_sint64", "ffi_type_uint64",
	"ffi_type_pointer", "ffi_type_void",
};

static struct {
	pthread_once_t once;
	bool ok;
	ffi_status (*prep_cif)(ffi_cif *, ffi_abi, unsigned int, ffi_type *, ffi_type **);
	void (*call)(ffi_cif *, void (*)(void), void *, void **);
	ffi_type *type[F_CNT];
} ffi = { .once = PTHREAD_ONCE_INIT };

static void debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void ffi_bind(void)
{
	void *h = dlopen(UDT_LIBFFI_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		debug("dynamic providers: %s: external tracers' sites will not be called", dlerror());
		return;
	}
	*(void **)&ffi.prep_cif = dlsym(h, "ffi_prep_cif");
	*(void **)&ffi.call = dlsym(h, "ffi_call");
	ffi.ok = ffi.prep_cif && ffi.call;
	for (int i = 0; i < F_CNT; i++)
		ffi.ok &= (ffi.type[i] = dlsym(h, ffi_type_names[i])) != NULL;
}

/* How each type travels: its name in the table, the note's size, D's kind, libffi's type. */
static const struct {
	const char *name;
	int8_t size;              /* negative: signed */
	uint8_t kind;
	uint8_t ffi;              /* enum ffi_t */
} types[] = {
	[UDT_TYPE_INT8] = { "int8_t", -1, UDT_ARG_INT, F_S8 },
	[UDT_TYPE_UINT8] = { "uint8_t", 1, UDT_ARG_INT, F_U8 },
	[UDT_TYPE_INT16] = { "int16_t", -2, UDT_ARG_INT, F_S16 },
	[UDT_TYPE_UINT16] = { "uint16_t", 2, UDT_ARG_INT, F_U16 },
	[UDT_TYPE_INT32] = { "int32_t", -4, UDT_ARG_INT, F_S32 },
	[UDT_TYPE_UINT32] = { "uint32_t", 4, UDT_ARG_INT, F_U32 },
	[UDT_TYPE_INT64] = { "int64_t", -8, UDT_ARG_INT, F_S64 },
	[UDT_TYPE_UINT64] = { "uint64_t", 8, UDT_ARG_INT, F_U64 },
	[UDT_TYPE_STRING] = { "string", 8, UDT_ARG_STRING, F_PTR },
	[UDT_TYPE_POINTER] = { "void *", 8, UDT_ARG_PTR, F_PTR },
	/* D has no floating point: a double is its value as an int64_t (udtrace.h) */
	[UDT_TYPE_DOUBLE] = { "int64_t", -8, UDT_ARG_INT, F_S64 },
};

struct udt_probe {
	struct udt_provider *prov;
	char *name;               /* as the note and the table have it ('-' as "__") */
	char *func;               /* or NULL */
	uint32_t narg;
	enum udt_type type[UDT_PROBE_MAX_ARGS];
	ffi_type *ffi[UDT_PROBE_MAX_ARGS];
	ffi_cif cif;              /* when cif_ok: libffi was bound */
	bool cif_ok;
	/* Where the fire path looks; while not loaded, at never_enabled and no_dispatch. */
	const volatile unsigned short *sem;
	udt__dispatch_fn *dispatch;
	const volatile uint8_t *site; /* NULL: no external tracer can see it */
};

struct udt_provider {
	char *name;
	char *module;
	unsigned int flags;
	struct udt_probe **probes;
	size_t probe_cnt;
	bool loaded;
	/* while loaded */
	struct udt_table_hdr *table;
	void *handle;             /* the object, or NULL (loaded for udtrace only) */
	int fd;                   /* its file, open while it is loaded */
	char path[64];            /* /proc/PID/fd/N */
	void *inproc;             /* without an object: the dispatch pointer and semaphores */
};

static const unsigned short never_enabled;
static udt__dispatch_fn no_dispatch;

#define SITE_NOP 0x90

/* Is an external tracer's breakpoint on the site (its nop replaced)? */
static inline bool site_traced(const volatile uint8_t *site)
{
	return site && *site != SITE_NOP;
}

/* Is the probe enabled: its semaphore set, or a breakpoint on its site? */
static inline bool enabled(const struct udt_probe *pr, const volatile unsigned short **ret_sem)
{
	/* pairs with the store release in udt_provider_load() */
	const volatile unsigned short *sem = LOAD_ACQUIRE(&pr->sem);

	*ret_sem = sem;
	return __builtin_expect(*sem != 0, 0) || __builtin_expect(site_traced(pr->site), 0);
}


static void debug(const char *fmt, ...)
{
	const char *d = secure_getenv("UDT_DEBUG");
	va_list ap;

	if (!d || strcmp(d, "1"))
		return;
	va_start(ap, fmt);
	fputs("udtrace: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A provider's name: an identifier not ending in a digit (dtrace appends the pid). */
static bool provider_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > 64 || !is_alpha(s[0]) || is_digit(s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_alpha(s[i]) && !is_digit(s[i]))
			return false;
	return true;
}

/* A probe's or a function's name: letters, digits, '_', and '-' (extra, for probes). */
static bool name_ok(const char *s, const char *extra)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > NAME_MAX_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_alpha(s[i]) && !is_digit(s[i]) && !strchr(extra, s[i]))
			return false;
	return true;
}

UDT_EXPORT int udt_provider_create(const char *name, const struct udt_provider_opts *opts,
				   struct udt_provider **ret_prov)
{
	struct udt_provider *p;
	const char *module = NULL;
	unsigned int flags = 0;

	if (!provider_name_ok(name) || !ret_prov)
		return -EINVAL;
	if (opts) {
		/* fields past what the caller knows are defaults; fields we do not know must be 0 */
		if (opts->sz < offsetof(struct udt_provider_opts, module))
			return -EINVAL;
		for (size_t i = sizeof(*opts); i < opts->sz; i++)
			if (((const char *)opts)[i])
				return -EINVAL;
		if (opts->sz >= offsetof(struct udt_provider_opts, module) + sizeof(opts->module))
			module = opts->module;
		if (opts->sz >= offsetof(struct udt_provider_opts, flags) + sizeof(opts->flags))
			flags = opts->flags;
		if ((module && !name_ok(module, "-.")) || (flags & ~UDT_PROVIDER_REQUIRE_EXTERNAL))
			return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->fd = -1;
	p->flags = flags;
	p->name = strdup(name);
	p->module = strdup(module ? module : name);
	if (!p->name || !p->module) {
		udt_provider_free(p);
		return -ENOMEM;
	}
	*ret_prov = p;
	return 0;
}

/* The name as stored: '-' becomes "__", as a .d file writes it. */
static char *stored_name(const char *name)
{
	size_t n = strlen(name), extra = 0;
	char *s, *o;

	for (size_t i = 0; i < n; i++)
		extra += name[i] == '-';
	s = malloc(n + extra + 1);
	if (!s)
		return NULL;
	o = s;
	for (size_t i = 0; i < n; i++) {
		if (name[i] == '-') {
			*o++ = '_';
			*o++ = '_';
		} else {
			*o++ = name[i];
		}
	}
	*o = '\0';
	return s;
}

static void probe_free(struct udt_probe *pr)
{
	if (!pr)
		return;
	free(pr->name);
	free(pr->func);
	free(pr);
}

UDT_EXPORT int udt_provider_add_probe(struct udt_provider *prov, const char *func,
				      const char *name, const enum udt_type *type, size_t type_cnt,
				      struct udt_probe **ret_probe)
{
	struct udt_probe *pr, **np;

	if (!prov || !name_ok(name, "-") || (func && !name_ok(func, ".$")) ||
	    type_cnt > UDT_PROBE_MAX_ARGS || (type_cnt && !type))
		return -EINVAL;
	for (size_t i = 0; i < type_cnt; i++)
		if (type[i] < UDT_TYPE_INT8 || type[i] > UDT_TYPE_DOUBLE)
			return -EINVAL;
	if (prov->loaded)
		return -EBUSY;
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	pr->prov = prov;
	pr->name = stored_name(name);
	pr->func = func ? strdup(func) : NULL;
	if (!pr->name || (func && !pr->func)) {
		probe_free(pr);
		return -ENOMEM;
	}
	for (size_t i = 0; i < prov->probe_cnt; i++) {
		const struct udt_probe *o = prov->probes[i];

		if (!strcmp(o->name, pr->name) &&
		    !strcmp(o->func ? o->func : "", pr->func ? pr->func : "")) {
			probe_free(pr);
			return -EEXIST;
		}
	}
	pr->narg = (uint32_t)type_cnt;
	for (size_t i = 0; i < type_cnt; i++)
		pr->type[i] = type[i];
	pthread_once(&ffi.once, ffi_bind);
	if (ffi.ok) {
		for (size_t i = 0; i < type_cnt; i++)
			pr->ffi[i] = ffi.type[types[type[i]].ffi];
		if (ffi.prep_cif(&pr->cif, FFI_DEFAULT_ABI, pr->narg, ffi.type[F_VOID], pr->ffi) !=
		    FFI_OK) {
			probe_free(pr);
			return -EINVAL;
		}
		pr->cif_ok = true;
	}
	pr->sem = &never_enabled;
	pr->dispatch = &no_dispatch;
	np = reallocarray(prov->probes, prov->probe_cnt + 1, sizeof(*np));
	if (!np) {
		probe_free(pr);
		return -ENOMEM;
	}
	prov->probes = np;
	prov->probes[prov->probe_cnt++] = pr;
	if (ret_probe)
		*ret_probe = pr;
	return 0;
}

UDT_EXPORT int udt_probe_remove(struct udt_probe *probe)
{
	struct udt_provider *prov;

	if (!probe)
		return 0;
	prov = probe->prov;
	if (prov->loaded)
		return -EBUSY;
	for (size_t i = 0; i < prov->probe_cnt; i++) {
		if (prov->probes[i] != probe)
			continue;
		memmove(&prov->probes[i], &prov->probes[i + 1],
			(prov->probe_cnt - i - 1) * sizeof(*prov->probes));
		prov->probe_cnt--;
		break;
	}
	probe_free(probe);
	return 0;
}

/* Write all of buf to fd. 0 or -errno. */
static int write_all(int fd, const uint8_t *buf, size_t sz)
{
	while (sz) {
		ssize_t n = write(fd, buf, sz);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		sz -= (size_t)n;
	}
	return 0;
}

/*
 * An unnamed executable file for the object, attempt i (0: a memfd; then an
 * O_TMPFILE file in each candidate directory). Return: the descriptor, -1
 * when this attempt gives none (try the next), or -2 when there are no more.
 */
static int object_file(const char *memfd_name, int i)
{
	const char *dirs[3] = { secure_getenv("XDG_RUNTIME_DIR"), "/dev/shm", "/tmp" };
	int fd;

	if (i == 0) {
		fd = memfd_create(memfd_name, MFD_CLOEXEC | MFD_EXEC);
		if (fd < 0 && errno == EINVAL) /* before Linux 6.3: no MFD_EXEC, and no need */
			fd = memfd_create(memfd_name, MFD_CLOEXEC);
		if (fd < 0)
			debug("%s: no executable memfd (%s, see vm.memfd_noexec): trying an "
			      "unnamed file", memfd_name, strerror(errno));
		return fd < 0 ? -1 : fd;
	}
	if (i > 3)
		return -2;
	if (!dirs[i - 1] || dirs[i - 1][0] != '/')
		return -1;
	fd = open(dirs[i - 1], O_TMPFILE | O_RDWR | O_CLOEXEC, 0700);
	if (fd < 0)
		debug("%s: no unnamed file in %s (%s)", memfd_name, dirs[i - 1], strerror(errno));
	else
		debug("%s: an unnamed file in %s", memfd_name, dirs[i - 1]);
	return fd < 0 ? -1 : fd;
}

/* Write the object and load it: p->handle, p->fd, p->path, and its load address. 0 or -errno. */
static int load_object(struct udt_provider *p, const struct rt_elf *e, uintptr_t *ret_base)
{
	char memfd_name[96];
	int err = -ENOEXEC;

	snprintf(memfd_name, sizeof(memfd_name), "udtrace:%s", p->name);
	for (int i = 0;; i++) {
		struct link_map *lm = NULL;
		int fd = object_file(memfd_name, i);

		if (fd == -2)
			break;
		if (fd < 0)
			continue;
		err = write_all(fd, e->buf, e->sz);
		if (err) {
			close(fd);
			continue;
		}
		/* the real pid: a tracer opening /proc/self/... would open its own */
		snprintf(p->path, sizeof(p->path), "/proc/%d/fd/%d", (int)getpid(), fd);
		p->handle = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
		if (p->handle && !dlinfo(p->handle, RTLD_DI_LINKMAP, &lm) && lm) {
			p->fd = fd;
			*ret_base = (uintptr_t)lm->l_addr;
			return 0;
		}
		debug("provider %s: cannot load its object from %s (%s): %s", p->name,
		      i ? "an unnamed file" : "a memfd", p->path, dlerror());
		if (p->handle)
			dlclose(p->handle);
		p->handle = NULL;
		p->path[0] = '\0';
		close(fd);
		err = -ENOEXEC;
	}
	return err;
}

/* The table's description of probe pr's arguments. */
static void table_args(const struct udt_probe *pr, struct rt_targ *a)
{
	for (uint32_t i = 0; i < pr->narg; i++) {
		int8_t sz = types[pr->type[i]].size;

		a[i] = (struct rt_targ){ .type = types[pr->type[i]].name,
					 .kind = types[pr->type[i]].kind,
					 .size = (uint8_t)(sz < 0 ? -sz : sz),
					 .is_signed = sz < 0,
					 .mapping = (uint8_t)i };
	}
}

/* Release what loading p made: its object, its descriptor, its in-process words. */
static void unmap(struct udt_provider *p)
{
	if (p->handle)
		dlclose(p->handle);
	if (p->fd >= 0)
		close(p->fd);
	p->handle = NULL;
	p->fd = -1;
	p->path[0] = '\0';
	free(p->inproc);
	p->inproc = NULL;
}

UDT_EXPORT int udt_provider_load(struct udt_provider *p)
{
	size_t n = p ? p->probe_cnt : 0;
	struct rt_elf_probe *ep = NULL;
	struct rt_tprobe *tp = NULL;
	struct rt_targ *ta = NULL;
	struct rt_elf e = { 0 };
	int8_t *argsz = NULL;
	uintptr_t base = 0, disp;
	uintptr_t *sems = NULL;
	int err = -ENOMEM;

	if (!p)
		return -EINVAL;
	if (p->loaded)
		return 0;
	ep = calloc(n + 1, sizeof(*ep));
	tp = calloc(n + 1, sizeof(*tp));
	ta = calloc(n * UDT_PROBE_MAX_ARGS + 1, sizeof(*ta));
	argsz = calloc(n * UDT_PROBE_MAX_ARGS + 1, 1);
	sems = calloc(n + 1, sizeof(*sems));
	if (!ep || !tp || !ta || !argsz || !sems)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct udt_probe *pr = p->probes[i];

		ep[i].name = pr->name;
		ep[i].narg = pr->narg;
		ep[i].argsz = &argsz[i * UDT_PROBE_MAX_ARGS];
		for (uint32_t a = 0; a < pr->narg; a++)
			argsz[i * UDT_PROBE_MAX_ARGS + a] = types[pr->type[a]].size;
	}

	/* The object, or the heap for udtrace only. */
	char soname[96];
	snprintf(soname, sizeof(soname), "udtrace-%s.so", p->name);
	err = rt_elf_supported() ? rt_elf_build(p->name, soname, ep, n, &e) : -ENOEXEC;
	if (!err)
		err = load_object(p, &e, &base);
	if (err == -ENOMEM)
		goto out;
	if (err) {
		if (p->flags & UDT_PROVIDER_REQUIRE_EXTERNAL)
			goto out;
		debug("provider %s: no executable in-memory object could be made (%s): loaded for "
		      "udtrace only, external tracers will not see it", p->name, strerror(-err));
		p->inproc = calloc(1, 8 + 2 * (n + 1));
		if (!p->inproc) {
			err = -ENOMEM;
			goto out;
		}
		disp = (uintptr_t)p->inproc;
		for (size_t i = 0; i < n; i++)
			sems[i] = disp + 8 + 2 * i;
	} else {
		disp = base + e.dispatch;
		for (size_t i = 0; i < n; i++)
			sems[i] = base + e.sem[i];
	}

	/* The probe table, registered: from here on a consumer can see the probes. */
	for (size_t i = 0; i < n; i++) {
		const struct udt_probe *pr = p->probes[i];

		table_args(pr, &ta[i * UDT_PROBE_MAX_ARGS]);
		tp[i] = (struct rt_tprobe){ .name = pr->name, .mod = p->module, .func = pr->func,
					    .sem = (const volatile unsigned short *)sems[i],
					    .narg_cnt = pr->narg,
					    .nargs = &ta[i * UDT_PROBE_MAX_ARGS] };
	}
	p->table = rt_table_build(p->name, tp, n, (const void *)disp);
	if (!p->table) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct udt_probe *pr = p->probes[i];

		pr->dispatch = (udt__dispatch_fn *)disp;
		pr->site = p->handle ? (const volatile uint8_t *)(base + e.site[i]) : NULL;
		/* pairs with the fire path's acquire load: the rest is set when it sees the semaphore */
		STORE_RELEASE(&pr->sem, (const volatile unsigned short *)sems[i]);
	}
	udt__register(p->table);
	p->loaded = true;
	err = 0;
out:
	if (err && !p->loaded)
		unmap(p);
	rt_elf_free(&e);
	free(ep);
	free(tp);
	free(ta);
	free(argsz);
	free(sems);
	return err;
}

UDT_EXPORT int udt_provider_unload(struct udt_provider *p)
{
	if (!p)
		return -EINVAL;
	if (!p->loaded)
		return 0;
	for (size_t i = 0; i < p->probe_cnt; i++) {
		struct udt_probe *pr = p->probes[i];

		STORE_RELEASE(&pr->sem, &never_enabled);
		pr->site = NULL;
		pr->dispatch = &no_dispatch;
	}
	/* strikes the semaphores and the dispatch pointer from a live session's undo lists */
	udt__unregister(p->table);
	free(p->table);
	p->table = NULL;
	unmap(p);
	p->loaded = false;
	return 0;
}

UDT_EXPORT void udt_provider_free(struct udt_provider *p)
{
	if (!p)
		return;
	(void)udt_provider_unload(p);
	for (size_t i = 0; i < p->probe_cnt; i++)
		probe_free(p->probes[i]);
	free(p->probes);
	free(p->name);
	free(p->module);
	free(p);
}

UDT_EXPORT int udt_provider_path(const struct udt_provider *p, char *buf, size_t sz)
{
	size_t n;

	if (!p || !buf)
		return -EINVAL;
	if (!p->loaded || !p->handle)
		return -ENOENT;
	n = strlen(p->path);
	if (n + 1 > sz)
		return -ERANGE;
	memcpy(buf, p->path, n + 1);
	return (int)n;
}


UDT_EXPORT int udt_probe_enabled(const struct udt_probe *probe)
{
	const volatile unsigned short *sem;

	return probe && enabled(probe, &sem);
}

/* A double as D sees it: truncated toward zero, clamped, NaN as 0. */
static int64_t double_value(double d)
{
	if (d != d)
		return 0;
	if (d >= 9223372036854775807.0)
		return INT64_MAX;
	if (d <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)d;
}

/* Argument i's value widened to 64 bits by its type, as a -G site widens it. */
static uint64_t widen(enum udt_type t, uint64_t u, double d)
{
	switch (t) {
	case UDT_TYPE_INT8: return (uint64_t)(int64_t)(int8_t)u;
	case UDT_TYPE_UINT8: return (uint8_t)u;
	case UDT_TYPE_INT16: return (uint64_t)(int64_t)(int16_t)u;
	case UDT_TYPE_UINT16: return (uint16_t)u;
	case UDT_TYPE_INT32: return (uint64_t)(int64_t)(int32_t)u;
	case UDT_TYPE_UINT32: return (uint32_t)u;
	case UDT_TYPE_DOUBLE: return (uint64_t)double_value(d);
	default: return u;
	}
}

/* The enabled probe's fire: the site for external tracers, then udtrace's runtime. */
static void fire(const struct udt_probe *pr, const volatile unsigned short *sem, uint64_t *v)
{
	const volatile uint8_t *site = pr->site;
	udt__dispatch_fn fn;

	if (pr->cif_ok && site_traced(site)) {
		void *av[UDT_PROBE_MAX_ARGS];

		for (uint32_t i = 0; i < pr->narg; i++)
			av[i] = &v[i]; /* little-endian: each type's bytes start the slot */
		ffi.call((ffi_cif *)&pr->cif, (void (*)(void))(uintptr_t)site, NULL, av);
	}
	fn = LOAD_RELAXED(pr->dispatch);
	if (!fn)
		return;
	if (pr->narg <= 4)
		fn(sem, pr->narg, v[0], v[1], v[2], v[3]);
	else
		fn(sem, pr->narg, (uint64_t)(uintptr_t)v, 0, 0, 0);
}

/*
 * The enabled probe's arguments from the variadic list. Out of line, so that
 * the disabled path of udt_probe_fire() sets up no frame for the values.
 */
__attribute__((noinline)) static void fire_va(const struct udt_probe *pr,
					      const volatile unsigned short *sem, va_list *ap)
{
	uint64_t v[UDT_PROBE_MAX_ARGS];

	v[1] = v[2] = v[3] = 0; /* the registers of a short probe's dispatch */
	for (uint32_t i = 0; i < pr->narg; i++) {
		switch (pr->type[i]) {
		case UDT_TYPE_INT8:
		case UDT_TYPE_INT16:
		case UDT_TYPE_INT32:
			v[i] = widen(pr->type[i], (uint64_t)(int64_t)va_arg(*ap, int), 0);
			break;
		case UDT_TYPE_UINT8:
		case UDT_TYPE_UINT16:
		case UDT_TYPE_UINT32:
			v[i] = widen(pr->type[i], va_arg(*ap, unsigned int), 0);
			break;
		case UDT_TYPE_INT64:
			v[i] = (uint64_t)va_arg(*ap, int64_t);
			break;
		case UDT_TYPE_UINT64:
			v[i] = va_arg(*ap, uint64_t);
			break;
		case UDT_TYPE_STRING:
		case UDT_TYPE_POINTER:
			v[i] = (uint64_t)(uintptr_t)va_arg(*ap, const void *);
			break;
		case UDT_TYPE_DOUBLE:
			v[i] = widen(UDT_TYPE_DOUBLE, 0, va_arg(*ap, double));
			break;
		}
	}
	if (!pr->narg)
		v[0] = 0;
	fire(pr, sem, v);
}

UDT_EXPORT void udt_probe_fire(struct udt_probe *pr, ...)
{
	const volatile unsigned short *sem;
	va_list ap;

	if (!pr || !enabled(pr, &sem))
		return;
	va_start(ap, pr);
	fire_va(pr, sem, &ap);
	va_end(ap);
}

UDT_EXPORT void udt_probe_firev(struct udt_probe *pr, const union udt_value *values, size_t cnt)
{
	const volatile unsigned short *sem;

	if (!pr || !enabled(pr, &sem))
		return;
	uint64_t v[UDT_PROBE_MAX_ARGS] = { 0 };
	for (uint32_t i = 0; i < pr->narg && i < cnt && values; i++) {
		if (pr->type[i] == UDT_TYPE_DOUBLE)
			v[i] = widen(UDT_TYPE_DOUBLE, 0, values[i].d);
		else if (pr->type[i] == UDT_TYPE_STRING || pr->type[i] == UDT_TYPE_POINTER)
			v[i] = (uint64_t)(uintptr_t)values[i].p;
		else
			v[i] = widen(pr->type[i], values[i].u, 0);
	}
	fire(pr, sem, v);
}
