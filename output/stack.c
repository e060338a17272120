/* SPDX-License-Identifier: MIT */
/*
 * Stacks and addresses as text (docs/profile.md, "Stacks"): a ustack() as
 * dt_print_ustack() prints it, an address by the namer the consumer gives
 * (proc names them: module`function+0xoff), and the folded form
 * (-x aggfmt=folded) of aggregations keyed by a stack, as FlameGraph reads it.
 */
#include "output/output.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

const char *out_name(const struct out_namer *n, uint64_t pc, enum out_addrfmt fmt, bool ret)
{
	static char buf[32];

	if (n && n->name)
		return n->name(n->arg, pc, fmt, ret);
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)pc);
	return buf;
}

char *out_stack_text(const struct out_namer *n, const uint8_t *pcs, uint32_t nframes,
		     uint32_t indent)
{
	struct udt_strbuf sb = { 0 };

	udt__sb_puts(&sb, "\n");
	for (uint32_t i = 0; i < nframes; i++) {
		uint64_t pc;
		memcpy(&pc, pcs + (size_t)i * 8, 8);
		if (!pc)
			break;
		/* every frame but the first is a return address */
		udt__sb_printf(&sb, "%*s%s\n", (int)indent, "", out_name(n, pc, OUT_ADDR_UADDR, i > 0));
	}
	return udt__sb_take(&sb);
}

/* -- Folded stacks (-x aggfmt=folded) ------------------------------------------------------ */

/*
 * A stack key's text (as out_stack_text() made it: a newline, then a frame a
 * line) folded: the frames from the outermost in, without their offsets,
 * joined by ';', as FlameGraph's stackcollapse.pl makes them.
 */
static void fold_stack(struct udt_strbuf *sb, const char *text)
{
	const char *end = text + strlen(text);
	bool first = true;

	/* the last line is the outermost frame */
	while (end > text) {
		const char *line_end = end;
		while (line_end > text && line_end[-1] == '\n')
			line_end--;
		const char *line = line_end;
		while (line > text && line[-1] != '\n')
			line--;
		end = line;
		while (line < line_end && *line == ' ')
			line++;
		if (line == line_end)
			continue;
		/* module`function+0xoff: the offset goes (its last "+", as stackcollapse.pl) */
		const char *plus = NULL;
		for (const char *p = line; p < line_end; p++)
			if (*p == '+')
				plus = p;
		if (plus && plus + 2 < line_end && plus[1] == '0' && plus[2] == 'x')
			line_end = plus;
		udt__sb_printf(sb, "%s%.*s", first ? "" : ";", (int)(line_end - line), line);
		first = false;
	}
}

bool out_agg_foldable(const struct out_aggvar *v)
{
	bool stack = false;

	if (v->func != UDT_AGG_COUNT && v->func != UDT_AGG_SUM && v->func != UDT_AGG_MIN &&
	    v->func != UDT_AGG_MAX)
		return false;
	for (size_t k = 0; k < v->nkeys; k++)
		stack |= v->keys[k].sym == OUT_ADDR_USTACK;
	return stack;
}

char *out_agg_fold(const struct out_aggvar *v, const char *const *keys, const uint64_t *ints)
{
	struct udt_strbuf sb = { 0 };

	for (size_t k = 0; k < v->nkeys; k++) {
		if (sb.len)
			udt__sb_puts(&sb, ";");
		if (v->keys[k].sym == OUT_ADDR_USTACK)
			fold_stack(&sb, keys[k]);
		else if (keys[k])
			udt__sb_puts(&sb, keys[k]);
		else
			udt__sb_printf(&sb, "%lld", (long long)ints[k]);
	}
	if (!sb.buf)
		udt__sb_puts(&sb, "");
	return udt__sb_take(&sb);
}
