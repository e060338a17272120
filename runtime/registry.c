/* SPDX-License-Identifier: MIT */
/*
 * The registry: the probe tables of the objects loaded in this process.
 *
 * Every object dtrace -G instrumented calls udt__register() from its
 * constructor (docs/format.md §3) and udt__unregister() from its destructor,
 * at exit or dlclose. The registry is a fixed array with a count that only
 * grows, exported as udt__registry so that a consumer can read it from
 * outside with process_vm_readv (to notice libraries loaded after it
 * attached). An unregistered table's slot is zeroed, and registration takes
 * the first zeroed slot (a compare-and-swap), else a new one (one atomic
 * add): dynamic providers come and go all the time (docs/dynamic-
 * providers.md), and the array must not fill up with their dead slots. A
 * reader sees each slot either empty or holding a table. No lock, no
 * allocation: constructors may run in any order and in any thread (dlopen).
 *
 * Objects loaded before the runtime (dtrace -p loads it into a running
 * process: docs/injection.md) registered nothing: their constructors found
 * no runtime. The runtime's constructor walks the allocated notes of every
 * object loaded (udt__register_loaded(), dl_iterate_phdr; the "udtrace"
 * notes of docs/format.md §3 and §5) and registers the -G tables and the
 * SDT(9) providers they point to. A table is registered once: a -G
 * constructor that runs after the walk (the runtime linked or preloaded)
 * finds its table there already.
 *
 * Unregistering matters to a live session: the object's semaphores and
 * udt__dispatch pointer are about to be unmapped, so their addresses are
 * struck from the undo lists of every generation of the session's
 * enablings (the runtime and the consumer must not write there any more);
 * a consumer that sees an entry it wrote struck knows the object went
 * away, even if it is back at the same address by the time it looks.
 */
#include "runtime/area.h"
#include "runtime/internal.h"

#include <errno.h>
#include <link.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "udtrace/sdt.h"

/* In .bss, so that an untraced process keeps its pages zero: size is set at load (session.c). */
UDT_EXPORT struct udt_registry udt__registry;

/* Put table in a slot; false: it was there, or there is no room. *gen: the registry's gen then. */
static bool publish(const struct udt_table_hdr *table, uint32_t *gen)
{
	uint32_t i;

	udt__registry.size = sizeof(udt__registry); /* a constructor may come before ours */
	uint32_t n = LOAD_ACQUIRE(&udt__registry.cnt);
	for (i = 0; i < n && i < UDT_REG_MAX; i++)
		if (LOAD_RELAXED(&udt__registry.slots[i].table) == (uint64_t)(uintptr_t)table)
			return false; /* registered by udt__register_loaded() */
	for (i = 0; i < n && i < UDT_REG_MAX; i++) {
		uint64_t empty = 0;

		/* pairs with the consumer's read of the slot after it reads cnt */
		if (LOAD_RELAXED(&udt__registry.slots[i].table) == 0 &&
		    __atomic_compare_exchange_n(&udt__registry.slots[i].table, &empty,
						(uint64_t)(uintptr_t)table, false, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED)) {
			*gen = __atomic_add_fetch(&udt__registry.gen, 1, __ATOMIC_RELEASE);
			return true;
		}
	}
	i = __atomic_fetch_add(&udt__registry.cnt, 1, __ATOMIC_RELAXED);
	if (i >= UDT_REG_MAX)
		return false; /* a consumer still finds the table in the object's file */
	/* pairs with the consumer's read of the slot after it reads cnt */
	STORE_RELEASE(&udt__registry.slots[i].table, (uint64_t)(uintptr_t)table);
	*gen = __atomic_add_fetch(&udt__registry.gen, 1, __ATOMIC_RELEASE);
	return true;
}

/*
 * A table registered while sessions trace the process (an object dlopen()ed,
 * a provider made at run time) has its probes enabled before the constructor
 * or call that registered it returns, as DTrace registers a library's DOF
 * inside dlopen(): each session's consumer says which registry gen it has
 * acted on (reg_acked, UDT_CTL_LOADWAIT), and this waits for gen, in 1 ms
 * slices (the consumer is woken: udt__wake_consumer()), 1 s at most in all (a
 * consumer stopped), and not for a consumer gone (one killed never says) or
 * a session over. errno is the caller's again after.
 */
static void await_enabled(uint32_t gen)
{
	struct timespec slice = { 0, 1000000 };
	int saved = errno, budget = 1000;

	/* (untraced: one word read, and no page of the slots touched) */
	if (!LOAD_RELAXED(&udt__ctl.hdr.lives))
		return;
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		struct udt_control *c = &udt__ctl.slots[s];
		if (!udt__active(c))
			continue;
		uint32_t session = LOAD_RELAXED(&c->session);

		while (budget > 0 && udt__active(c) && LOAD_RELAXED(&c->session) == session &&
		       (LOAD_RELAXED(&c->flags) & UDT_CTL_LOADWAIT) &&
		       (int32_t)(LOAD_ACQUIRE(&c->reg_acked) - gen) < 0 &&
		       !(kill(LOAD_RELAXED(&c->consumer_pid), 0) && errno == ESRCH)) {
			/* (dtrace's idle pace is slow: asked for a round, and again every 10 ms in
			   case it was between two waits) */
			if (budget % 10 == 0)
				udt__wake_consumer(s);
			(void)nanosleep(&slice, NULL);
			budget--;
		}
	}
	errno = saved;
}

UDT_EXPORT void udt__register(const struct udt_table_hdr *table)
{
	uint32_t gen;

	if (!table || table->magic != UDT_TABLE_MAGIC || !publish(table, &gen))
		return;
	await_enabled(gen);
}

/* Zero the entries of list (n addresses) that lie in [lo, hi). */
static void strike(uint64_t *list, uint32_t n, uint64_t lo, uint64_t hi)
{
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = LOAD_RELAXED(&list[i]);
		if (a >= lo && a < hi)
			STORE_RELAXED(&list[i], 0);
	}
}

/* Strike the semaphores and the dispatch pointer of table from one undo list. */
static void strike_table(uint64_t *list, uint32_t n, bool is_disp, void *arg)
{
	const struct udt_table_hdr *table = arg;
	const char *base = (const char *)table;

	if (is_disp) {
		uint64_t d = (uint64_t)(uintptr_t)((const char *)&table->dispatch_rel +
						   table->dispatch_rel);
		strike(list, n, d, d + 8);
		return;
	}
	for (uint32_t p = 0; p < table->probe_cnt; p++) {
		const struct udt_table_probe *pr =
			(const void *)(base + table->probe_off + (size_t)p * table->probe_sz);
		uint64_t sem = (uint64_t)(uintptr_t)((const char *)&pr->sem_rel + pr->sem_rel);
		strike(list, n, sem, sem + 2);
	}
}

UDT_EXPORT void udt__unregister(const struct udt_table_hdr *table)
{
	uint32_t n = LOAD_ACQUIRE(&udt__registry.cnt);

	if (n > UDT_REG_MAX)
		n = UDT_REG_MAX;
	for (uint32_t i = 0; i < n; i++)
		if (LOAD_RELAXED(&udt__registry.slots[i].table) == (uint64_t)(uintptr_t)table)
			STORE_RELAXED(&udt__registry.slots[i].table, 0);
	__atomic_fetch_add(&udt__registry.gen, 1, __ATOMIC_RELEASE);

	/*
	 * The semaphores and the dispatch pointer of this object are within
	 * its data; the table is in its read-only data. The object's extent
	 * is not known here, but its semaphores are: strike each of them, and
	 * its dispatch pointer, from every generation of both areas' undo
	 * lists of every slot (area.c).
	 */
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++)
		for (int a = 0; a < 2; a++)
			udt__area_undo_lists(udt__ctl.areas[s][a], strike_table,
					     (void *)(uintptr_t)table);
	/*
	 * The object may be loaded again at the same address, its probes then
	 * enabled by a later generation with the same semaphores: this
	 * thread's caches of the last probe it fired must not keep the old
	 * ECBs (other threads' caches are theirs: docs/runtime.md, "Libraries
	 * loaded after the attach", says what remains).
	 */
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		struct udt_tslot *ts = udt__tslot_of(&udt__tls, s,
						     LOAD_RELAXED(&udt__ctl.slots[s].session));
		if (ts)
			ts->hit_sem = UDT_NO_KEY;
	}
}

/* The "udtrace" notes of one loaded object: register what they point to. */
static int scan_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while ((size_t)(end - p) >= 12) {
			uint32_t namesz, descsz, type;
			size_t len;

			memcpy(&namesz, p, 4);
			memcpy(&descsz, p + 4, 4);
			memcpy(&type, p + 8, 4);
			len = 12 + ((namesz + 3u) & ~3u) + ((descsz + 3u) & ~3u);
			if (len > (size_t)(end - p) || len < 12)
				break;
			if (namesz == 8 && descsz == 4 && !memcmp(p + 12, "udtrace", 8)) {
				const char *desc = p + 20;
				int32_t rel;

				memcpy(&rel, desc, 4);
				if (type == UDT_NOTE_SDT_PROVIDER)
					udt__sdt_register((struct udt_sdt_provider *)(uintptr_t)(desc +
												   rel));
				else if (type == UDT_NOTE_TABLE)
					udt__register((const struct udt_table_hdr *)(const void *)(desc +
												     rel));
			}
			p += len;
		}
	}
	return 0;
}

void udt__register_loaded(void)
{
	dl_iterate_phdr(scan_object, NULL);
}
