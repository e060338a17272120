/* SPDX-License-Identifier: MIT */
/*
 * A dynamic provider's ELF shared object, written in memory (elfmem.c) for
 * dynprov.c to load: one probe site per probe, with its SystemTap note and
 * its semaphore, and the provider's dispatch pointer.
 */
#ifndef UDT_RUNTIME_ELFMEM_H
#define UDT_RUNTIME_ELFMEM_H

#include <stddef.h>
#include <stdint.h>

/* A probe of the object. */
struct rt_elf_probe {
	const char *name;         /* as the note has it ("request__done") */
	uint32_t narg;
	const int8_t *argsz;      /* each argument's size, negative when signed (the note's "-2@") */
};

/* The object, and where things are in it (addresses relative to its load address). */
struct rt_elf {
	uint8_t *buf;
	size_t sz;
	uint64_t dispatch;        /* the dispatch pointer (8 bytes) */
	uint64_t *site;           /* each probe's site: "nop; ret" */
	uint64_t *sem;            /* each probe's semaphore (unsigned short) */
};

/* Whether this architecture has a writer (x86-64). */
int rt_elf_supported(void);

/*
 * rt_elf_build() - the object for provider's n probes, named soname.
 * Return: 0 with *ret filled (rt_elf_free() it), -ENOMEM, -EINVAL (too many
 * arguments), -ENOEXEC (no writer for this architecture).
 */
int rt_elf_build(const char *provider, const char *soname, const struct rt_elf_probe *probes,
		 size_t n, struct rt_elf *ret);
void rt_elf_free(struct rt_elf *e);

#endif /* UDT_RUNTIME_ELFMEM_H */
