/* SPDX-License-Identifier: MIT */
/*
 * The C type model.
 *
 * D's types are C's (plus string), with sizes fixed by the data model: LP64
 * (x86-64, aarch64 Linux) or ILP32 (-32). Each type is one struct dl_type;
 * qualifiers travel beside it in struct dl_qtype so one struct type can be
 * completed after it was first referenced (a typedef of a forward-declared
 * struct, whose body comes after the provider, is common in real .d files).
 *
 * The builtin typedefs are those D programs use without declaring them: the
 * <stdint.h> and <stddef.h> names, the POSIX <sys/types.h> ones, and the
 * Solaris shorthands (uint_t, caddr_t) found in older provider files, and
 * the compiler's own type names that system headers use. Each
 * records the C header that defines it, so dtrace -h can spell it by name
 * where C has it and by its resolved type where C does not.
 */
#include "dlang/internal.h"
#include "util/util.h"

#include <string.h>

struct dl_type *dl_type_new(struct dl_program *p, enum dl_kind kind, struct dl_loc loc)
{
	struct dl_type *t = dl_alloc(p, sizeof(*t));

	t->kind = kind;
	t->loc = loc;
	return t;
}

static struct dl_type *builtin(struct dl_program *p, enum dl_kind kind, const char *name,
			       uint64_t size, bool is_signed)
{
	struct dl_type *t = dl_type_new(p, kind, (struct dl_loc){ 0 });

	t->name = name;
	t->size = size;
	t->align = size ? (uint32_t)size : 1;
	t->is_signed = is_signed;
	t->builtin = true;
	t->complete = true;
	return t;
}

uint32_t dl_type_depth(struct dl_qtype qt)
{
	return qt.t ? qt.t->depth : 0;
}

struct dl_type *dl_type_ptr(struct dl_program *p, struct dl_qtype to)
{
	struct dl_type *t = dl_type_new(p, DL_PTR, (struct dl_loc){ 0 });

	t->ref = to;
	t->depth = dl_type_depth(to) + 1;
	t->size = p->model == DL_LP64 ? 8 : 4;
	t->align = (uint32_t)t->size;
	return t;
}

static uint64_t qsize(struct dl_qtype qt)
{
	struct dl_qtype r = dl_type_resolve(qt);

	return r.t ? r.t->size : 0;
}

static uint32_t qalign(struct dl_qtype qt)
{
	struct dl_qtype r = dl_type_resolve(qt);

	return r.t && r.t->align ? r.t->align : 1;
}

struct dl_type *dl_type_array(struct dl_program *p, struct dl_qtype elem, uint64_t n)
{
	struct dl_type *t = dl_type_new(p, DL_ARRAY, (struct dl_loc){ 0 });

	t->ref = elem;
	t->depth = dl_type_depth(elem) + 1;
	t->nelems = n;
	t->size = qsize(elem) * n;
	t->align = qalign(elem);
	return t;
}

/* Integer spellings and their sizes under each model: { name, lp64, ilp32, signed }. */
static const struct {
	const char *name;
	uint8_t lp64, ilp32;
	bool is_signed;
} ints[] = {
	{ "char", 1, 1, true },
	{ "signed char", 1, 1, true },
	{ "unsigned char", 1, 1, false },
	{ "short", 2, 2, true },
	{ "unsigned short", 2, 2, false },
	{ "int", 4, 4, true },
	{ "unsigned int", 4, 4, false },
	{ "long", 8, 4, true },
	{ "unsigned long", 8, 4, false },
	{ "long long", 8, 8, true },
	{ "unsigned long long", 8, 8, false },
	{ "_Bool", 1, 1, false },
	{ "__int128", 16, 16, true },
	{ "unsigned __int128", 16, 16, false },
};

/*
 * Builtin typedefs: { name, LP64 target, ILP32 target, C header or NULL }.
 * The header is given only where it declares the name in every language
 * mode: strict C99/C11 <sys/types.h> lacks id_t, off64_t and clock_t.
 */
static const struct {
	const char *name;
	const char *lp64;
	const char *ilp32;
	const char *header;
} typedefs[] = {
	{ "int8_t", "signed char", "signed char", "stdint.h" },
	{ "int16_t", "short", "short", "stdint.h" },
	{ "int32_t", "int", "int", "stdint.h" },
	{ "int64_t", "long", "long long", "stdint.h" },
	{ "uint8_t", "unsigned char", "unsigned char", "stdint.h" },
	{ "uint16_t", "unsigned short", "unsigned short", "stdint.h" },
	{ "uint32_t", "unsigned int", "unsigned int", "stdint.h" },
	{ "uint64_t", "unsigned long", "unsigned long long", "stdint.h" },
	{ "intptr_t", "long", "int", "stdint.h" },
	{ "uintptr_t", "unsigned long", "unsigned int", "stdint.h" },
	{ "intmax_t", "long", "long long", "stdint.h" },
	{ "uintmax_t", "unsigned long", "unsigned long long", "stdint.h" },
	{ "size_t", "unsigned long", "unsigned int", "stddef.h" },
	{ "ptrdiff_t", "long", "int", "stddef.h" },
	{ "ssize_t", "long", "int", "sys/types.h" },
	{ "off_t", "long", "long", "sys/types.h" },
	{ "off64_t", "long", "long long", NULL },
	{ "pid_t", "int", "int", "sys/types.h" },
	{ "uid_t", "unsigned int", "unsigned int", "sys/types.h" },
	{ "gid_t", "unsigned int", "unsigned int", "sys/types.h" },
	{ "id_t", "unsigned int", "unsigned int", NULL },
	{ "mode_t", "unsigned int", "unsigned int", "sys/types.h" },
	{ "time_t", "long", "long", "sys/types.h" },
	{ "clock_t", "long", "long", NULL },
	{ "dev_t", "unsigned long", "unsigned long long", "sys/types.h" },
	{ "ino_t", "unsigned long", "unsigned long", "sys/types.h" },
	{ "uchar_t", "unsigned char", "unsigned char", NULL },
	{ "ushort_t", "unsigned short", "unsigned short", NULL },
	{ "uint_t", "unsigned int", "unsigned int", NULL },
	{ "ulong_t", "unsigned long", "unsigned long", NULL },
	{ "longlong_t", "long long", "long long", NULL },
	{ "u_longlong_t", "unsigned long long", "unsigned long long", NULL },
	{ "hrtime_t", "long long", "long long", NULL },
	{ "caddr_t", "char *", "char *", NULL },
	/* the compiler's own, which system headers use under -C (sizes kept, layouts not) */
	{ "__builtin_va_list", "char *", "char *", NULL },
	{ "__int128_t", "__int128", "__int128", NULL },
	{ "__uint128_t", "unsigned __int128", "unsigned __int128", NULL },
	{ "_Float32", "float", "float", NULL },
	{ "_Float64", "double", "double", NULL },
	{ "_Float32x", "double", "double", NULL },
	{ "_Float64x", "long double", "long double", NULL },
	{ "_Float128", "long double", "long double", NULL },
	{ "__float128", "long double", "long double", NULL },
};

void dl_types_init(struct dl_program *p)
{
	bool lp64 = p->model == DL_LP64;

	/*
	 * Base types are kept in the typedef table under their spelling (which
	 * no identifier can collide with, since they contain blanks or
	 * keywords), so every lookup goes through one table.
	 */
	for (size_t i = 0; i < UDT__ARRAY_SIZE(ints); i++) {
		struct dl_type *t = builtin(p, DL_INT, ints[i].name,
					    lp64 ? ints[i].lp64 : ints[i].ilp32, ints[i].is_signed);
		dl_sym_put(p, &p->typedefs, ints[i].name, t);
	}
	p->t_void = builtin(p, DL_VOID, "void", 0, false);
	dl_sym_put(p, &p->typedefs, "void", p->t_void);
	dl_sym_put(p, &p->typedefs, "float", builtin(p, DL_FLOAT, "float", 4, true));
	p->t_double = builtin(p, DL_FLOAT, "double", 8, true);
	dl_sym_put(p, &p->typedefs, "double", p->t_double);
	struct dl_type *ld = builtin(p, DL_FLOAT, "long double", lp64 ? 16 : 12, true);
	ld->align = lp64 ? 16 : 4;
	dl_sym_put(p, &p->typedefs, "long double", ld);
	/* D's string: its size is the strsize option (256 by default). */
	p->t_string = builtin(p, DL_STRING, "string", 256, false);
	p->t_string->align = 1;
	dl_sym_put(p, &p->typedefs, "string", p->t_string);

	p->t_char = dl_lookup_typedef(p, "char");
	if (!lp64) {
		/* 64-bit integers and doubles need only 4-byte alignment on i386 */
		dl_lookup_typedef(p, "long long")->align = 4;
		dl_lookup_typedef(p, "unsigned long long")->align = 4;
		p->t_double->align = 4;
	}

	for (size_t i = 0; i < UDT__ARRAY_SIZE(typedefs); i++) {
		const char *target = lp64 ? typedefs[i].lp64 : typedefs[i].ilp32;
		struct dl_type *td = builtin(p, DL_TYPEDEF, typedefs[i].name, 0, false);
		size_t tl = strlen(target);

		if (target[tl - 1] == '*') {
			char *base = dl_strndup(p, target, tl - 2);
			td->ref.t = dl_type_ptr(p, (struct dl_qtype){ dl_lookup_typedef(p, base), 0 });
		} else {
			td->ref.t = dl_lookup_typedef(p, target);
		}
		td->size = td->ref.t->size;
		td->align = td->ref.t->align;
		td->c_header = typedefs[i].header;
		dl_sym_put(p, &p->typedefs, typedefs[i].name, td);
	}
}

struct dl_type *dl_lookup_typedef(const struct dl_program *p, const char *name)
{
	return dl_sym_get(&p->typedefs, name);
}

const char *dl_tag_key(struct dl_program *p, enum dl_kind kind, const char *tag)
{
	const char *kw = kind == DL_STRUCT ? "struct" : kind == DL_UNION ? "union" : "enum";

	return dl_printf(p, "%s %s", kw, tag);
}

struct dl_type *dl_lookup_tag(const struct dl_program *p, enum dl_kind kind, const char *tag)
{
	char key[512];
	const char *kw = kind == DL_STRUCT ? "struct" : kind == DL_UNION ? "union" : "enum";

	if ((size_t)snprintf(key, sizeof(key), "%s %s", kw, tag) >= sizeof(key))
		return NULL;
	return dl_sym_get(&p->tags, key);
}

struct dl_qtype dl_type_resolve(struct dl_qtype qt)
{
	while (qt.t && qt.t->kind == DL_TYPEDEF) {
		unsigned q = qt.quals;
		qt = qt.t->ref;
		qt.quals |= q;
	}
	return qt;
}

enum dl_argclass dl_type_argclass(struct dl_qtype qt)
{
	struct dl_qtype r = dl_type_resolve(qt);

	switch (r.t->kind) {
	case DL_INT:
	case DL_ENUM:
		return DL_ARG_INT;
	case DL_FLOAT:
		return DL_ARG_FLOAT;
	case DL_STRUCT:
	case DL_UNION:
		return DL_ARG_AGGR;
	case DL_VOID:
		return DL_ARG_VOID;
	case DL_PTR:
	case DL_ARRAY:
	case DL_FUNC:
	case DL_STRING:
	case DL_TYPEDEF:
		break;
	}
	return DL_ARG_PTR;
}

bool dl_type_equal(struct dl_qtype a, struct dl_qtype b)
{
	a = dl_type_resolve(a);
	b = dl_type_resolve(b);
	if (a.quals != b.quals)
		return false;
	if (a.t == b.t)
		return true;
	if (a.t->kind != b.t->kind)
		return false;
	switch (a.t->kind) {
	case DL_PTR:
		return dl_type_equal(a.t->ref, b.t->ref);
	case DL_ARRAY:
		return a.t->nelems == b.t->nelems && dl_type_equal(a.t->ref, b.t->ref);
	case DL_FUNC:
		if (a.t->param_cnt != b.t->param_cnt || a.t->varargs != b.t->varargs ||
		    !dl_type_equal(a.t->ref, b.t->ref))
			return false;
		for (size_t i = 0; i < a.t->param_cnt; i++)
			if (!dl_type_equal(a.t->params[i].type, b.t->params[i].type))
				return false;
		return true;
	default:
		return false;
	}
}

bool dl_type_same_repr(struct dl_qtype a, struct dl_qtype b)
{
	a = dl_type_resolve(a);
	b = dl_type_resolve(b);
	if (a.quals != b.quals || a.t->kind != b.t->kind)
		return false;
	switch (a.t->kind) {
	case DL_INT:
	case DL_FLOAT:
		return a.t->size == b.t->size && a.t->is_signed == b.t->is_signed;
	case DL_PTR:
		return dl_type_same_repr(a.t->ref, b.t->ref);
	default:
		return dl_type_equal(a, b);
	}
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return a ? (v + a - 1) / a * a : v;
}

void dl_type_layout(struct dl_program *p, struct dl_type *t)
{
	uint64_t bitpos = 0, size = 0;
	uint32_t align = 1;

	(void)p;
	for (size_t i = 0; i < t->member_cnt; i++) {
		struct dl_member *m = &t->members[i];
		uint64_t msz = qsize(m->type);
		uint32_t mal = qalign(m->type);

		if (mal > align)
			align = mal;
		if (t->kind == DL_UNION) {
			m->off = 0;
			if (msz > size)
				size = msz;
			continue;
		}
		if (m->bit_width) {
			uint64_t unit = msz * 8;
			/* start a new storage unit when the field would straddle one */
			if (unit && bitpos / unit != (bitpos + m->bit_width - 1) / unit)
				bitpos = round_up(bitpos, unit);
			m->off = unit ? (bitpos / unit) * msz : bitpos / 8;
			m->bit_off = (uint8_t)(unit ? bitpos % unit : bitpos % 8);
			bitpos += m->bit_width;
		} else {
			bitpos = round_up(bitpos, (uint64_t)mal * 8);
			m->off = bitpos / 8;
			bitpos += msz * 8;
		}
		if (round_up(bitpos, 8) / 8 > size)
			size = round_up(bitpos, 8) / 8;
	}
	t->align = align;
	t->size = round_up(size, align);
}

/* -- Spelling types in C --------------------------------------------------------- */

static void put_quals(struct udt_strbuf *sb, unsigned q, bool trailing_space)
{
	const char *names[] = { "const", "volatile", "restrict" };
	bool first = true;

	for (int i = 0; i < 3; i++) {
		if (!(q & (1u << i)))
			continue;
		if (!first)
			udt__sb_putc(sb, ' ');
		udt__sb_puts(sb, names[i]);
		first = false;
	}
	if (!first && trailing_space)
		udt__sb_putc(sb, ' ');
}

static void base_name(struct udt_strbuf *sb, const struct dl_type *t)
{
	switch (t->kind) {
	case DL_STRUCT:
	case DL_UNION:
	case DL_ENUM:
		udt__sb_puts(sb, t->kind == DL_STRUCT ? "struct" :
				 t->kind == DL_UNION ? "union" : "enum");
		if (t->name) {
			udt__sb_putc(sb, ' ');
			udt__sb_puts(sb, t->name);
		} else {
			udt__sb_puts(sb, " <anonymous>");
		}
		break;
	default:
		udt__sb_puts(sb, t->name);
		break;
	}
}

static void cdecl_rec(struct dl_program *p, struct udt_strbuf *out, struct dl_qtype qt,
		      const char *inner, bool east)
{
	struct udt_strbuf sb = { 0 };
	struct dl_type *t = qt.t;

	switch (t->kind) {
	case DL_PTR: {
		bool paren = t->ref.t->kind == DL_ARRAY || t->ref.t->kind == DL_FUNC;

		if (paren)
			udt__sb_putc(&sb, '(');
		udt__sb_putc(&sb, '*');
		if (qt.quals) {
			put_quals(&sb, qt.quals, *inner != '\0');
		}
		udt__sb_puts(&sb, inner);
		if (paren)
			udt__sb_putc(&sb, ')');
		cdecl_rec(p, out, t->ref, udt__sb_str(&sb), east);
		break;
	}
	case DL_ARRAY:
		udt__sb_puts(&sb, inner);
		if (t->nelems)
			udt__sb_printf(&sb, "[%llu]", (unsigned long long)t->nelems);
		else
			udt__sb_puts(&sb, "[]");
		cdecl_rec(p, out, t->ref, udt__sb_str(&sb), east);
		break;
	case DL_FUNC:
		udt__sb_puts(&sb, inner);
		udt__sb_putc(&sb, '(');
		for (size_t i = 0; i < t->param_cnt; i++) {
			if (i)
				udt__sb_puts(&sb, ", ");
			udt__sb_puts(&sb, east ? dl_type_cdecl_east(p, t->params[i].type, NULL)
					       : dl_type_cdecl(p, t->params[i].type, NULL));
		}
		if (t->varargs)
			udt__sb_puts(&sb, t->param_cnt ? ", ..." : "...");
		else if (!t->param_cnt && t->proto)
			udt__sb_puts(&sb, "void");
		udt__sb_putc(&sb, ')');
		cdecl_rec(p, out, t->ref, udt__sb_str(&sb), east);
		break;
	default:
		if (!east)
			put_quals(out, qt.quals, true);
		base_name(out, t);
		if (east && qt.quals) {
			udt__sb_putc(out, ' ');
			put_quals(out, qt.quals, false);
		}
		if (*inner) {
			udt__sb_putc(out, ' ');
			udt__sb_puts(out, inner);
		}
		break;
	}
	udt__sb_reset(&sb);
}

static const char *cdecl(struct dl_program *p, struct dl_qtype qt, const char *name, bool east)
{
	struct udt_strbuf out = { 0 };

	cdecl_rec(p, &out, qt, name ? name : "", east);
	char *r = dl_strdup(p, udt__sb_str(&out));
	udt__sb_reset(&out);
	return r;
}

const char *dl_type_cdecl(struct dl_program *p, struct dl_qtype qt, const char *name)
{
	return cdecl(p, qt, name, false);
}

const char *dl_type_cdecl_east(struct dl_program *p, struct dl_qtype qt, const char *name)
{
	return cdecl(p, qt, name, true);
}

bool dl_type_to_c(struct dl_program *p, struct dl_qtype qt, struct dl_qtype *ret)
{
	struct dl_type *t = qt.t;
	struct dl_qtype r;

	switch (t->kind) {
	case DL_TYPEDEF:
		if (t->builtin && t->c_header) {
			*ret = qt;
			return true;
		}
		if (!dl_type_to_c(p, t->ref, &r))
			return false;
		r.quals |= qt.quals;
		*ret = r;
		return true;
	case DL_INT:
		if (!strcmp(t->name, "_Bool"))
			qt.t = dl_lookup_typedef(p, "unsigned char");
		*ret = qt;
		return true;
	case DL_VOID:
	case DL_FLOAT:
		*ret = qt;
		return true;
	case DL_STRING:
		*ret = (struct dl_qtype){
			dl_type_ptr(p, (struct dl_qtype){ p->t_char, DL_Q_CONST }), qt.quals
		};
		return true;
	case DL_STRUCT:
	case DL_UNION:
	case DL_ENUM:
		if (!t->name || t->complete)
			return false;
		*ret = qt;
		return true;
	case DL_PTR:
		if (!dl_type_to_c(p, t->ref, &r))
			return false;
		*ret = (struct dl_qtype){ dl_type_ptr(p, r), qt.quals };
		return true;
	case DL_ARRAY:
		if (!dl_type_to_c(p, t->ref, &r))
			return false;
		*ret = (struct dl_qtype){ dl_type_array(p, r, t->nelems), qt.quals };
		return true;
	case DL_FUNC: {
		struct dl_type *f = dl_type_new(p, DL_FUNC, t->loc);

		*f = *t;
		if (!dl_type_to_c(p, t->ref, &f->ref))
			return false;
		f->params = dl_alloc(p, (t->param_cnt + 1) * sizeof(*f->params));
		for (size_t i = 0; i < t->param_cnt; i++) {
			f->params[i] = t->params[i];
			if (!dl_type_to_c(p, t->params[i].type, &f->params[i].type))
				return false;
		}
		*ret = (struct dl_qtype){ f, qt.quals };
		return true;
	}
	}
	return false;
}

const char *dl_type_c_header(struct dl_qtype qt)
{
	return qt.t->kind == DL_TYPEDEF && qt.t->builtin ? qt.t->c_header : NULL;
}

/* -- Stability attributes ------------------------------------------------------------ */

static const char *const stab_names[] = {
	"Internal", "Private", "Obsolete", "External", "Unstable", "Evolving", "Stable", "Standard",
};

static const char *const class_names[] = {
	"Unknown", "CPU", "Platform", "Group", "ISA", "Common",
};

const char *dl_stability_name(unsigned s)
{
	return s < UDT__ARRAY_SIZE(stab_names) ? stab_names[s] : "?";
}

const char *dl_class_name(unsigned c)
{
	return c < UDT__ARRAY_SIZE(class_names) ? class_names[c] : "?";
}
