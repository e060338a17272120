/* SPDX-License-Identifier: MIT */
/*
 * The probe table: what `dtrace -G` writes into every instrumented executable
 * and shared library, and what the runtime and the consumer read.
 * Specified in docs/format.md ("The probe table"); this header is its only
 * definition in code.
 *
 * The table is one read-only blob in section .udtrace.table: a header, then
 * arrays of fixed-size records (providers, probes, arguments, function names)
 * and a string table. It holds no absolute addresses: references to the
 * semaphores and to udt__dispatch are self-relative (the target's address
 * minus the field's own address, resolved when the program is linked), so the
 * table needs no dynamic relocation and stays shareable in PIE and shared
 * libraries.
 *
 * Compatibility: every structure is append-only. Readers take record sizes
 * from the header (provider_sz, probe_sz, arg_sz) and ignore bytes they do not
 * know; a new field is added at the end of its record and the version is not
 * bumped for it. The version changes only for an incompatible layout, which a
 * reader refuses.
 */
#ifndef UDT_PROBE_TABLE_H
#define UDT_PROBE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define UDT_TABLE_MAGIC 0x50544455u /* "UDTP", little-endian */
#define UDT_TABLE_VERSION 1
#define UDT_TABLE_SECTION ".udtrace.table"
/*
 * The allocated notes (owner "udtrace") of .note.udtrace, through which a
 * runtime loaded later finds what a program defines (docs/format.md §3, §5):
 * each descriptor is 4 bytes, the address of the thing minus its own.
 */
#define UDT_NOTE_SDT_PROVIDER 1   /* an SDT(9) provider (struct udt_sdt_provider) */
#define UDT_NOTE_TABLE 2          /* a -G object's probe table */

/* udt_table_hdr.flags */
#define UDT_TABLE_LP64 0x1u /* written for the LP64 data model (else ILP32) */

struct udt_table_hdr {
	uint32_t size;          /* sizeof(struct udt_table_hdr) as written */
	uint32_t magic;         /* UDT_TABLE_MAGIC */
	uint16_t version;       /* UDT_TABLE_VERSION */
	uint16_t flags;
	uint32_t total_sz;      /* bytes in the whole table, this header included */
	uint32_t provider_off;  /* offsets from the start of the table */
	uint32_t provider_cnt;
	uint32_t provider_sz;   /* size of one struct udt_table_provider as written */
	uint32_t probe_off;
	uint32_t probe_cnt;
	uint32_t probe_sz;
	uint32_t arg_off;
	uint32_t arg_cnt;
	uint32_t arg_sz;
	uint32_t func_off;      /* uint32_t string offsets, func_cnt of them */
	uint32_t func_cnt;
	uint32_t str_off;       /* NUL-terminated strings; offset 0 is "" */
	uint32_t str_sz;
	uint32_t reserved;
	int64_t dispatch_rel;   /* &udt__dispatch - &dispatch_rel */
};

/* Stability attribute sets, in the order of udt_table_provider.attr. */
enum udt_attr_which {
	UDT_ATTR_PROVIDER,
	UDT_ATTR_MODULE,
	UDT_ATTR_FUNCTION,
	UDT_ATTR_NAME,
	UDT_ATTR_ARGS,
	UDT_ATTR_CNT,
};

struct udt_table_provider {
	uint32_t name;          /* string offset */
	uint32_t first_probe;   /* index of its first probe; its probes are consecutive */
	uint32_t probe_cnt;
	/* {name stability, data stability, dependency class} per udt_attr_which,
	   numbered as DTrace numbers them (docs/format.md) */
	uint8_t attr[UDT_ATTR_CNT][3];
	uint8_t pad;
};

struct udt_table_probe {
	int64_t sem_rel;        /* &semaphore - &sem_rel: identifies the probe at run time */
	uint32_t provider;      /* index of its provider */
	uint32_t name;          /* string offset; as written ("request__start") */
	uint32_t first_narg;    /* index of its first native argument in the args array */
	uint32_t first_xarg;    /* index of its first translated argument */
	uint32_t first_func;    /* index into the function-name array */
	uint32_t func_cnt;      /* enclosing functions of its sites, when -G saw objects */
	uint8_t narg_cnt;
	uint8_t xarg_cnt;
	uint8_t flags;          /* UDT_PROBE_TRANSLATED */
	uint8_t pad[5];
	/* Since the runtime's own tables (SDT(9) and dynamic providers): records of
	   UDT_TABLE_PROBE_SZ_V1 bytes (dtrace -G's) end before this field. */
	uint32_t module;        /* string offset: the module the definition names; 0: the object's */
	uint32_t pad2;
};

/* The probe record as dtrace -G writes it: without module (the object is the module). */
#define UDT_TABLE_PROBE_SZ_V1 40u

#define UDT_PROBE_TRANSLATED 0x1u /* the definition gave a translated argument list */

/* udt_table_arg.kind */
enum udt_arg_kind {
	UDT_ARG_INT = 1,        /* integer or enum: size and is_signed tell its width */
	UDT_ARG_PTR = 2,        /* pointer (arrays and functions decay to one) */
	UDT_ARG_STRING = 3,     /* D's string: a pointer to NUL-terminated characters */
	UDT_ARG_OTHER = 4,      /* translated arguments of struct or union type */
};

struct udt_table_arg {
	uint32_t type;          /* string offset: the type as the definition spells it */
	uint32_t name;          /* string offset: the argument's name, or 0 ("") */
	uint8_t mapping;        /* translated arguments: index of the native one */
	uint8_t kind;           /* enum udt_arg_kind */
	uint8_t size;           /* bytes, as the data model lays the type out (0: unknown) */
	uint8_t is_signed;
};

/* The layout is ABI (docs/format.md): these sizes never change. */
_Static_assert(sizeof(struct udt_table_hdr) == 80, "probe table header layout");
_Static_assert(sizeof(struct udt_table_provider) == 28, "provider record layout");
_Static_assert(offsetof(struct udt_table_probe, module) == UDT_TABLE_PROBE_SZ_V1,
	       "probe record layout");
_Static_assert(sizeof(struct udt_table_probe) == 48, "probe record layout");
_Static_assert(sizeof(struct udt_table_arg) == 12, "argument record layout");

/*
 * Registration, called by the constructor in every -G object when the
 * runtime is present (the references are weak; nothing happens otherwise),
 * and by the matching destructor when the object is unloaded.
 */
void udt__register(const struct udt_table_hdr *table);
void udt__unregister(const struct udt_table_hdr *table);

#endif /* UDT_PROBE_TABLE_H */
