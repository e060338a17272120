/* SPDX-License-Identifier: MIT */
/*
 * Probe tables that lie, for tests/integration/tables.sh: linked after a
 * good table (dtrace -G's), a .udtrace.table section holding one of them.
 *   -DSHORT      16 bytes of a table whose header says it is whole
 *   -DMISALIGNED a table whose probe records are 44 bytes: every other one
 *                misaligned for its 64-bit field
 *   -DHUGE_CNT   counts that would read far past the table
 */
#include "abi/probe_table.h"

#define SECTION __attribute__((section(UDT_TABLE_SECTION), used, retain, aligned(8)))

#if defined(SHORT)
SECTION static const struct {
	uint32_t size, magic;
	uint16_t version, flags;
	uint32_t total_sz;
} table = { sizeof(struct udt_table_hdr), UDT_TABLE_MAGIC, UDT_TABLE_VERSION, UDT_TABLE_LP64, 16 };
#else
#define PSZ (UDT_TABLE_PROBE_SZ_V1 + 4)
struct crafted {
	struct udt_table_hdr h;
	struct udt_table_provider pv;
	uint8_t pad[4];
	uint8_t probes[2 * PSZ];
	char str[16];
};
SECTION static const struct crafted table = {
	.h = {
		.size = sizeof(struct udt_table_hdr),
		.magic = UDT_TABLE_MAGIC,
		.version = UDT_TABLE_VERSION,
		.flags = UDT_TABLE_LP64,
		.total_sz = sizeof(struct crafted),
		.provider_off = offsetof(struct crafted, pv),
		.provider_cnt = 1,
		.provider_sz = sizeof(struct udt_table_provider),
		.probe_off = offsetof(struct crafted, probes),
#if defined(HUGE_CNT)
		.probe_cnt = 0x10000000,
		.probe_sz = 0x100,
#else
		.probe_cnt = 2,
		.probe_sz = PSZ,
#endif
		.arg_sz = sizeof(struct udt_table_arg),
		.str_off = offsetof(struct crafted, str),
		.str_sz = sizeof(((struct crafted *)0)->str),
	},
	.pv = { .name = 1, .first_probe = 0, .probe_cnt = 2 },
	/* each probe: provider 0, named "prb" (offset 1) */
	.probes = { [12] = 1, [PSZ + 12] = 1 },
	.str = "\0prb",
};
#endif
