/* SPDX-License-Identifier: MIT */
/*
 * The D lexer.
 *
 * Input is a byte buffer (not NUL-terminated) from a provider definition,
 * a translator library or a script, raw or already through cpp. The lexer
 * tracks file, line and column (1-based, in bytes) for every token, so parse
 * errors point where an editor can jump.
 *
 * What it handles besides C's tokens:
 *  - CR LF and lone CR line ends (files checked out on Windows);
 *  - lines starting with '#': cpp line markers ("# 12 \"f.d\"", "#line 12")
 *    re-position the location; "#pragma" becomes one T_PRAGMA token with the
 *    rest of the line; "#ident" is ignored; without cpp, conditionals
 *    (#if...) are an error that says to use -C and any other line is a
 *    comment (remembered for hints when a #define'd name is then unknown);
 *    in preprocessed text any other directive is an error;
 *  - what system headers hold after cpp (-C): GNU spellings of keywords
 *    (__const, __restrict), and words that change nothing D models
 *    (__extension__, __attribute__((...)), __asm__("...") labels), read as
 *    blanks in a loop, never by nested calls;
 *  - D's extra tokens: $1 / $$1 / $target macro variables, @aggregations,
 *    the ^^ operator and the D keywords;
 *  - probe descriptions ("http*:::request-start"), which are not tokens of
 *    the expression language: the parser asks for one with dl_lex_pdesc()
 *    where a clause may start.
 */
#include "dlang/internal.h"
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *word;
	int kind;
} keywords[] = {
	{ "auto", K_AUTO }, { "break", K_BREAK }, { "case", K_CASE }, { "char", K_CHAR },
	{ "const", K_CONST }, { "continue", K_CONTINUE }, { "counter", K_COUNTER },
	{ "default", K_DEFAULT }, { "do", K_DO }, { "double", K_DOUBLE }, { "else", K_ELSE },
	{ "enum", K_ENUM }, { "extern", K_EXTERN }, { "float", K_FLOAT }, { "for", K_FOR },
	{ "goto", K_GOTO }, { "if", K_IF }, { "import", K_IMPORT }, { "inline", K_INLINE },
	{ "int", K_INT }, { "long", K_LONG }, { "offsetof", K_OFFSETOF }, { "probe", K_PROBE },
	{ "provider", K_PROVIDER }, { "register", K_REGISTER }, { "restrict", K_RESTRICT },
	{ "return", K_RETURN }, { "self", K_SELF }, { "short", K_SHORT }, { "signed", K_SIGNED },
	{ "sizeof", K_SIZEOF }, { "static", K_STATIC }, { "string", K_STRING },
	{ "stringof", K_STRINGOF }, { "struct", K_STRUCT }, { "switch", K_SWITCH },
	{ "this", K_THIS }, { "translator", K_TRANSLATOR }, { "typedef", K_TYPEDEF },
	{ "union", K_UNION }, { "unsigned", K_UNSIGNED }, { "userland", K_USERLAND },
	{ "void", K_VOID }, { "volatile", K_VOLATILE }, { "while", K_WHILE }, { "xlate", K_XLATE },
	{ "_Bool", K_BOOL },
	/* GNU C's alternate spellings, as system headers write them (after the originals,
	   which dl_tok_name() finds first) */
	{ "__const", K_CONST }, { "__const__", K_CONST }, { "__volatile", K_VOLATILE },
	{ "__volatile__", K_VOLATILE }, { "__restrict", K_RESTRICT }, { "__restrict__", K_RESTRICT },
	{ "__signed", K_SIGNED }, { "__signed__", K_SIGNED }, { "__inline", K_INLINE },
	{ "__inline__", K_INLINE },
};

/*
 * Words of GNU C and C11 in system headers that change nothing D models:
 * read as blanks, with the parenthesised operand of those that take one
 * (attributes, asm labels: "extern int stat64 (...) __asm__ ("" "stat")").
 */
static const struct {
	const char *word;
	bool operand;
} blank_words[] = {
	{ "__extension__", false }, { "_Noreturn", false }, { "__thread", false },
	{ "_Thread_local", false }, { "__attribute__", true }, { "__attribute", true },
	{ "__asm__", true }, { "__asm", true },
};

static const struct {
	const char *text;
	int kind;
} puncts[] = {
	/* longest first */
	{ "...", T_ELLIPSIS }, { "<<=", T_SHL_EQ }, { ">>=", T_SHR_EQ },
	{ "->", T_ARROW }, { "++", T_INC }, { "--", T_DEC }, { "<<", T_SHL }, { ">>", T_SHR },
	{ "<=", T_LE }, { ">=", T_GE }, { "==", T_EQ }, { "!=", T_NE }, { "&&", T_LAND },
	{ "||", T_LOR }, { "^^", T_LXOR }, { "*=", T_MUL_EQ }, { "/=", T_DIV_EQ },
	{ "%=", T_MOD_EQ }, { "+=", T_ADD_EQ }, { "-=", T_SUB_EQ }, { "&=", T_AND_EQ },
	{ "^=", T_XOR_EQ }, { "|=", T_OR_EQ },
};

const char *dl_tok_name(int kind)
{
	static char one[2];

	switch (kind) {
	case T_EOF: return "end of file";
	case T_IDENT: return "identifier";
	case T_INT: return "integer constant";
	case T_FLOAT: return "floating-point constant";
	case T_STRING: return "string constant";
	case T_CHAR: return "character constant";
	case T_MACRO: case T_MACRO_STR: return "macro variable";
	case T_AGG: return "aggregation";
	case T_PRAGMA: return "#pragma";
	default: break;
	}
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (keywords[i].kind == kind)
			return keywords[i].word;
	for (size_t i = 0; i < sizeof(puncts) / sizeof(puncts[0]); i++)
		if (puncts[i].kind == kind)
			return puncts[i].text;
	if (kind > 0 && kind < 256) {
		one[0] = (char)kind;
		one[1] = '\0';
		return one;
	}
	return "token";
}

const char *dl_op_name(int op)
{
	return dl_tok_name(op);
}

void dl_lex_init(struct dl_lexer *lx, struct dl_program *p, const char *file,
		 const char *src, size_t len, bool preprocessed)
{
	memset(lx, 0, sizeof(*lx));
	lx->p = p;
	lx->src = src;
	lx->len = len;
	lx->line = 1;
	lx->col = 1;
	lx->file = dl_strdup(p, file);
	lx->preprocessed = preprocessed;
	lx->at_line_start = true;
}

static struct dl_loc here(const struct dl_lexer *lx)
{
	return (struct dl_loc){ lx->file, lx->line, lx->col };
}

static _Noreturn void lex_error(struct dl_lexer *lx, struct dl_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static _Noreturn void lex_error(struct dl_lexer *lx, struct dl_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dl_verror(lx->p, loc, fmt, ap);
}

static int peekc(const struct dl_lexer *lx, size_t ahead)
{
	return lx->pos + ahead < lx->len ? (unsigned char)lx->src[lx->pos + ahead] : -1;
}

/* Consume one character, keeping line and column. CR LF and lone CR end a line. */
static void adv(struct dl_lexer *lx)
{
	int c = peekc(lx, 0);

	if (c < 0)
		return;
	lx->pos++;
	if (c == '\n' || (c == '\r' && peekc(lx, 0) != '\n')) {
		lx->line++;
		lx->col = 1;
		lx->at_line_start = true;
	} else {
		lx->col++;
		if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v')
			lx->at_line_start = false;
	}
}

static bool at_newline(const struct dl_lexer *lx)
{
	int c = peekc(lx, 0);

	return c == '\n' || c == '\r';
}

/* Skip blanks (not newlines) within a directive line. */
static void skip_blanks(struct dl_lexer *lx)
{
	while (peekc(lx, 0) == ' ' || peekc(lx, 0) == '\t')
		adv(lx);
}

/* The rest of the line (after a directive), with \-newline continuations joined. */
static char *rest_of_line(struct dl_lexer *lx)
{
	struct udt_strbuf sb = { 0 };

	for (;;) {
		int c = peekc(lx, 0);

		if (c < 0 || c == '\n' || c == '\r')
			break;
		if (c == '\\' && (peekc(lx, 1) == '\n' || peekc(lx, 1) == '\r')) {
			adv(lx);
			adv(lx);
			continue;
		}
		if (c == '/' && peekc(lx, 1) == '/')
			break;
		if (c == '/' && peekc(lx, 1) == '*') {
			/* A comment inside a directive line counts as one blank. */
			struct dl_loc at = here(lx);

			adv(lx);
			adv(lx);
			while (peekc(lx, 0) >= 0 && !(peekc(lx, 0) == '*' && peekc(lx, 1) == '/'))
				adv(lx);
			if (peekc(lx, 0) < 0) {
				udt__sb_reset(&sb);
				lex_error(lx, at, "unterminated comment");
			}
			adv(lx);
			adv(lx);
			udt__sb_putc(&sb, ' ');
			continue;
		}
		udt__sb_putc(&sb, (char)c);
		adv(lx);
	}
	/* trim trailing blanks */
	while (sb.len > 0 && (sb.buf[sb.len - 1] == ' ' || sb.buf[sb.len - 1] == '\t'))
		sb.buf[--sb.len] = '\0';
	char *out = dl_strdup(lx->p, udt__sb_str(&sb));
	udt__sb_reset(&sb);
	return out;
}

/* The rest of the line, whatever it holds: a '#' line read as a comment. */
static void skip_line(struct dl_lexer *lx)
{
	while (peekc(lx, 0) >= 0 && !at_newline(lx))
		adv(lx);
}

/* cpp's conditionals: without cpp, which lines they keep is unknown. */
static bool is_conditional(const char *w, size_t len)
{
	static const char *const conds[] = { "if", "ifdef", "ifndef", "elif", "elifdef",
					     "elifndef", "else", "endif" };

	for (size_t i = 0; i < UDT__ARRAY_SIZE(conds); i++)
		if (strlen(conds[i]) == len && !memcmp(conds[i], w, len))
			return true;
	return false;
}

/*
 * Whether the line from the current position is the rest of a line marker:
 * digits, then optionally a quoted file name and flag digits. A comment such
 * as "# 2 probes per request" is not one.
 */
static bool marker_follows(const struct dl_lexer *lx)
{
	size_t i = 0;
	int c;

	while (peekc(lx, i) >= 0 && isdigit(peekc(lx, i)))
		i++;
	if (!i)
		return false;
	while (peekc(lx, i) == ' ' || peekc(lx, i) == '\t')
		i++;
	if (peekc(lx, i) == '"') {
		for (i++; (c = peekc(lx, i)) != '"'; i++) {
			if (c < 0 || c == '\n' || c == '\r')
				return false;
			if (c == '\\')
				i++;
		}
		i++;
	}
	while ((c = peekc(lx, i)) == ' ' || c == '\t' || (c >= 0 && isdigit(c)))
		i++;
	return c < 0 || c == '\n' || c == '\r';
}

/* Remember a cpp directive read as a comment, for hints in later errors. */
static void note_skipped(struct dl_lexer *lx, const char *w, size_t wlen, struct dl_loc at)
{
	if (wlen == 7 && !memcmp(w, "include", 7)) {
		if (!lx->skipped_include.file)
			lx->skipped_include = at;
		return;
	}
	if (!(wlen == 6 && !memcmp(w, "define", 6)))
		return;
	skip_blanks(lx);
	size_t st = lx->pos;
	while (peekc(lx, 0) >= 0 && (isalnum(peekc(lx, 0)) || peekc(lx, 0) == '_'))
		adv(lx);
	if (lx->pos == st)
		return;
	struct dl_skipped_define *d = dl_alloc(lx->p, sizeof(*d));
	d->name = dl_strndup(lx->p, lx->src + st, lx->pos - st);
	d->loc = at;
	d->next = lx->skipped_defines;
	lx->skipped_defines = d;
}

const char *dl_lex_cpp_hint(const struct dl_lexer *lx, const char *name)
{
	for (const struct dl_skipped_define *d = lx->skipped_defines; d; d = d->next)
		if (!strcmp(d->name, name))
			return dl_printf(lx->p, " (its #define at %s:%d is a comment without "
					 "cpp: run dtrace with -C)", d->loc.file, d->loc.line);
	if (lx->skipped_include.file)
		return dl_printf(lx->p, " (the #include at %s:%d is a comment without cpp: "
				 "run dtrace with -C)", lx->skipped_include.file,
				 lx->skipped_include.line);
	return "";
}

/*
 * A '#' line. Returns true when it produced a pragma token (stored in tok),
 * false when it was consumed silently (line marker, #ident, a comment).
 *
 * Without cpp (no -C), a '#' line that is not a line marker, #pragma or
 * #ident is a comment, as SystemTap's dtrace script reads it: real provider
 * files annotate probes with "# file: src/x.c" lines. Conditionals stay an
 * error: whether the lines they guard belong in the definition is cpp's call.
 * Preprocessed text holds nothing but markers and pragmas.
 */
static bool directive(struct dl_lexer *lx, struct dl_token *tok)
{
	struct dl_loc at = here(lx);
	size_t start = lx->pos;

	adv(lx); /* '#' */
	skip_blanks(lx);

	/* "# 12 "file" flags" (cpp) or "#line 12 "file"" */
	size_t wstart = lx->pos;
	while (peekc(lx, 0) >= 0 && (isalnum(peekc(lx, 0)) || peekc(lx, 0) == '_'))
		adv(lx);
	size_t wlen = lx->pos - wstart;
	const char *w = lx->src + wstart;

	if (wlen > 0 && isdigit((unsigned char)w[0])) {
		lx->pos = wstart;
		lx->col -= (int)wlen;
		if (lx->preprocessed || marker_follows(lx))
			goto line_marker;
	} else if (wlen == 4 && !memcmp(w, "line", 4)) {
		skip_blanks(lx);
		if (lx->preprocessed || marker_follows(lx))
			goto line_marker;
	} else if (wlen == 6 && !memcmp(w, "pragma", 6)) {
		skip_blanks(lx);
		tok->kind = T_PRAGMA;
		tok->loc = at;
		tok->off = start;
		tok->text = rest_of_line(lx);
		tok->len = strlen(tok->text);
		return true;
	} else if (wlen == 5 && !memcmp(w, "ident", 5)) {
		(void)rest_of_line(lx); /* Solaris' "#ident", ignored */
		return false;
	} else if (wlen == 0) {
		/* the null directive "#", "#!" and "# -- text" */
	} else if (lx->preprocessed) {
		lex_error(lx, at, "unexpected preprocessor directive #%.*s", (int)wlen, w);
	} else if (is_conditional(w, wlen)) {
		lex_error(lx, at, "preprocessor directive #%.*s requires cpp: run dtrace with -C",
			  (int)wlen, w);
	} else {
		note_skipped(lx, w, wlen, at);
	}
	skip_line(lx);
	return false;

line_marker: {
	char *end;
	unsigned long ln;
	const char *num = lx->src + lx->pos;
	size_t avail = lx->len - lx->pos;
	char buf[32];
	size_t k = 0;

	while (k < avail && k < sizeof(buf) - 1 && isdigit((unsigned char)num[k])) {
		buf[k] = num[k];
		k++;
	}
	buf[k] = '\0';
	errno = 0;
	ln = strtoul(buf, &end, 10);
	if (k == 0 || errno || ln > 1u << 30)
		lex_error(lx, at, "malformed line marker");
	for (size_t i = 0; i < k; i++)
		adv(lx);
	skip_blanks(lx);
	const char *file = lx->file;
	if (peekc(lx, 0) == '"') {
		adv(lx);
		size_t fs = lx->pos;
		while (peekc(lx, 0) >= 0 && peekc(lx, 0) != '"' && !at_newline(lx)) {
			if (peekc(lx, 0) == '\\')
				adv(lx);
			adv(lx);
		}
		if (peekc(lx, 0) != '"')
			lex_error(lx, at, "malformed line marker");
		file = dl_strndup(lx->p, lx->src + fs, lx->pos - fs);
		adv(lx);
	}
	(void)rest_of_line(lx);
	/* The marker names the line that follows. */
	if (at_newline(lx))
		adv(lx);
	lx->line = (int)ln;
	lx->col = 1;
	lx->file = file;
	lx->at_line_start = true;
	return false;
}
}

/* Skip white space, comments and silent directives. Returns true if a pragma token was made. */
static bool skip_space(struct dl_lexer *lx, struct dl_token *tok)
{
	for (;;) {
		int c = peekc(lx, 0);

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			adv(lx);
			continue;
		}
		if (c == '\\' && (peekc(lx, 1) == '\n' || peekc(lx, 1) == '\r')) {
			adv(lx);
			adv(lx);
			continue;
		}
		if (c == '/' && peekc(lx, 1) == '*') {
			struct dl_loc at = here(lx);
			bool sol = lx->at_line_start;

			adv(lx);
			adv(lx);
			while (peekc(lx, 0) >= 0 && !(peekc(lx, 0) == '*' && peekc(lx, 1) == '/'))
				adv(lx);
			if (peekc(lx, 0) < 0)
				lex_error(lx, at, "unterminated comment");
			adv(lx);
			adv(lx);
			/* A comment does not end "start of line" for directives. */
			lx->at_line_start = sol;
			continue;
		}
		if (c == '/' && peekc(lx, 1) == '/') {
			while (peekc(lx, 0) >= 0 && !at_newline(lx))
				adv(lx);
			continue;
		}
		if (c == '#' && lx->at_line_start) {
			if (directive(lx, tok))
				return true;
			continue;
		}
		return false;
	}
}

static int escape(struct dl_lexer *lx, struct dl_loc at)
{
	int c = peekc(lx, 0);
	int v;

	adv(lx);
	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'a': return '\a';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'v': return '\v';
	case '\\': return '\\';
	case '\'': return '\'';
	case '"': return '"';
	case '?': return '?';
	case 'x':
		v = 0;
		if (peekc(lx, 0) < 0 || !isxdigit(peekc(lx, 0)))
			lex_error(lx, at, "\\x used with no following hex digits");
		while (peekc(lx, 0) >= 0 && isxdigit(peekc(lx, 0))) {
			int d = peekc(lx, 0);
			v = v * 16 + (isdigit(d) ? d - '0' : (tolower(d) - 'a' + 10));
			if (v > 255)
				lex_error(lx, at, "hex escape sequence out of range");
			adv(lx);
		}
		return v;
	default:
		if (c >= '0' && c <= '7') {
			v = c - '0';
			for (int i = 0; i < 2 && peekc(lx, 0) >= '0' && peekc(lx, 0) <= '7'; i++) {
				v = v * 8 + (peekc(lx, 0) - '0');
				adv(lx);
			}
			if (v > 255)
				lex_error(lx, at, "octal escape sequence out of range");
			return v;
		}
		if (c < 0)
			lex_error(lx, at, "unterminated escape sequence");
		lex_error(lx, at, "unknown escape sequence \\%c", c);
	}
}

static void lex_quoted(struct dl_lexer *lx, struct dl_token *tok, int quote)
{
	struct dl_loc at = here(lx);
	size_t cap = 16, n = 0;
	char *buf = dl_alloc(lx->p, cap);

	adv(lx);
	for (;;) {
		int c = peekc(lx, 0);

		if (c < 0 || c == '\n' || c == '\r')
			lex_error(lx, at, quote == '"' ? "unterminated string constant"
						   : "unterminated character constant");
		if (c == quote) {
			adv(lx);
			break;
		}
		if (c == '\\') {
			adv(lx);
			c = escape(lx, at);
		} else {
			adv(lx);
		}
		if (n + 1 >= cap) {
			char *grown = dl_alloc(lx->p, cap * 2);
			memcpy(grown, buf, n);
			buf = grown;
			cap *= 2;
		}
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	tok->text = buf;
	tok->len = n;
	if (quote == '"') {
		tok->kind = T_STRING;
		return;
	}
	if (n == 0)
		lex_error(lx, at, "empty character constant");
	if (n > 8)
		lex_error(lx, at, "character constant too long");
	/* Multi-character constants pack big-endian, as C compilers do. */
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v = (v << 8) | (unsigned char)buf[i];
	if (n == 1)
		v = (uint64_t)(int64_t)(signed char)buf[0];
	tok->kind = T_CHAR;
	tok->ival = v;
}

static void lex_number(struct dl_lexer *lx, struct dl_token *tok)
{
	struct dl_loc at = here(lx);
	size_t s = lx->pos;
	bool is_float = false;

	if (peekc(lx, 0) == '0' && (peekc(lx, 1) == 'x' || peekc(lx, 1) == 'X')) {
		adv(lx);
		adv(lx);
		while (peekc(lx, 0) >= 0 && isxdigit(peekc(lx, 0)))
			adv(lx);
	} else {
		while (peekc(lx, 0) >= 0 && isdigit(peekc(lx, 0)))
			adv(lx);
		if (peekc(lx, 0) == '.' && peekc(lx, 1) != '.') {
			is_float = true;
			adv(lx);
			while (peekc(lx, 0) >= 0 && isdigit(peekc(lx, 0)))
				adv(lx);
		}
		if (peekc(lx, 0) == 'e' || peekc(lx, 0) == 'E') {
			is_float = true;
			adv(lx);
			if (peekc(lx, 0) == '+' || peekc(lx, 0) == '-')
				adv(lx);
			if (peekc(lx, 0) < 0 || !isdigit(peekc(lx, 0)))
				lex_error(lx, at, "malformed floating-point constant");
			while (peekc(lx, 0) >= 0 && isdigit(peekc(lx, 0)))
				adv(lx);
		}
	}
	char *text = dl_strndup(lx->p, lx->src + s, lx->pos - s);

	if (is_float) {
		if (peekc(lx, 0) == 'f' || peekc(lx, 0) == 'F' || peekc(lx, 0) == 'l' ||
		    peekc(lx, 0) == 'L')
			adv(lx);
		tok->kind = T_FLOAT;
		tok->fval = strtod(text, NULL);
	} else {
		char *end;
		int suffix = 0;

		errno = 0;
		tok->ival = strtoull(text, &end, 0);
		if (errno == ERANGE)
			lex_error(lx, at, "integer constant %s is too large", text);
		if (*end)
			lex_error(lx, at, "invalid digit in integer constant %s", text);
		for (;;) {
			int c = peekc(lx, 0);
			if ((c == 'u' || c == 'U') && !(suffix & 1)) {
				suffix |= 1;
			} else if ((c == 'l' || c == 'L') && (suffix >> 1) < 2) {
				suffix += 2;
			} else {
				break;
			}
			adv(lx);
		}
		tok->kind = T_INT;
		tok->int_suffix = suffix;
	}
	if (peekc(lx, 0) >= 0 && (isalnum(peekc(lx, 0)) || peekc(lx, 0) == '_'))
		lex_error(lx, at, "invalid suffix on numeric constant");
	tok->text = text;
	tok->len = strlen(text);
}

static bool is_ident_start(int c)
{
	return c >= 0 && (isalpha(c) || c == '_');
}

static bool is_ident_char(int c)
{
	return c >= 0 && (isalnum(c) || c == '_');
}

/* One token, blank words included. */
static void lex_token(struct dl_lexer *lx, struct dl_token *tok)
{
	memset(tok, 0, sizeof(*tok));
	if (skip_space(lx, tok))
		return;

	tok->loc = here(lx);
	tok->off = lx->pos;

	int c = peekc(lx, 0);

	if (c < 0) {
		tok->kind = T_EOF;
		return;
	}
	if (is_ident_start(c)) {
		size_t s = lx->pos;
		while (is_ident_char(peekc(lx, 0)))
			adv(lx);
		tok->len = lx->pos - s;
		tok->text = dl_strndup(lx->p, lx->src + s, tok->len);
		tok->kind = T_IDENT;
		for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
			if (!strcmp(keywords[i].word, tok->text)) {
				tok->kind = keywords[i].kind;
				return;
			}
		}
		return;
	}
	if (isdigit(c) || (c == '.' && peekc(lx, 1) >= 0 && isdigit(peekc(lx, 1)))) {
		lex_number(lx, tok);
		return;
	}
	if (c == '"' || c == '\'') {
		lex_quoted(lx, tok, c);
		return;
	}
	if (c == '$') {
		bool str = peekc(lx, 1) == '$';
		adv(lx);
		if (str)
			adv(lx);
		size_t s = lx->pos;
		while (is_ident_char(peekc(lx, 0)))
			adv(lx);
		if (lx->pos == s)
			lex_error(lx, tok->loc, "'$' must be followed by a macro variable name");
		tok->len = lx->pos - s;
		tok->text = dl_strndup(lx->p, lx->src + s, tok->len);
		tok->kind = str ? T_MACRO_STR : T_MACRO;
		return;
	}
	if (c == '@') {
		adv(lx);
		size_t s = lx->pos;
		while (is_ident_char(peekc(lx, 0)))
			adv(lx);
		tok->len = lx->pos - s;
		tok->text = dl_strndup(lx->p, lx->src + s, tok->len);
		tok->kind = T_AGG;
		return;
	}
	for (size_t i = 0; i < sizeof(puncts) / sizeof(puncts[0]); i++) {
		size_t n = strlen(puncts[i].text);
		if (lx->pos + n <= lx->len && !memcmp(lx->src + lx->pos, puncts[i].text, n)) {
			for (size_t k = 0; k < n; k++)
				adv(lx);
			tok->kind = puncts[i].kind;
			return;
		}
	}
	if (strchr("+-*/%<>=!~&|^?:;,.()[]{}`", c)) {
		adv(lx);
		tok->kind = c;
		return;
	}
	if (isprint(c))
		lex_error(lx, tok->loc, "invalid character '%c'", c);
	lex_error(lx, tok->loc, "invalid character 0x%02x", (unsigned)c);
}

/*
 * After a blank word that takes one: "((...))", skipped with what it holds
 * (an asm statement in a function body may have qualifiers before it).
 */
static void skip_operand(struct dl_lexer *lx, const struct dl_token *word)
{
	struct dl_token t;
	size_t depth = 0;

	for (;;) {
		lex_token(lx, &t);
		if (t.kind == '(') {
			depth++;
		} else if (t.kind == ')' && depth > 0) {
			if (--depth == 0)
				return;
		} else if (t.kind == T_EOF || (!depth && t.kind != K_VOLATILE &&
						 t.kind != K_INLINE && t.kind != K_GOTO)) {
			lex_error(lx, t.kind == T_EOF ? word->loc : t.loc,
				  "syntax error: expected '(' after %s", word->text);
		}
	}
}

/*
 * The next token. Blank words are skipped in a loop, and their operands by
 * counting parentheses, so no input nests the lexer's own calls.
 */
void dl_lex_next(struct dl_lexer *lx, struct dl_token *tok)
{
	for (;;) {
		size_t i = 0;

		lex_token(lx, tok);
		if (tok->kind != T_IDENT)
			return;
		while (i < UDT__ARRAY_SIZE(blank_words) && strcmp(blank_words[i].word, tok->text))
			i++;
		if (i == UDT__ARRAY_SIZE(blank_words))
			return;
		if (blank_words[i].operand)
			skip_operand(lx, tok);
	}
}

void dl_lex_rewind(struct dl_lexer *lx, const struct dl_token *tok)
{
	lx->pos = tok->off;
	lx->line = tok->loc.line;
	lx->col = tok->loc.col;
	lx->file = tok->loc.file;
	lx->at_line_start = false;
}

static bool is_pdesc_char(int c)
{
	return c >= 0 && (isalnum(c) || strchr("_-.*?[]!:`$", c));
}

const char *dl_lex_pdesc(struct dl_lexer *lx, struct dl_loc *ret_loc)
{
	struct dl_token dummy;

	if (skip_space(lx, &dummy))
		return NULL; /* a pragma: caller re-lexes */
	*ret_loc = here(lx);
	size_t s = lx->pos;
	int brackets = 0;

	while (is_pdesc_char(peekc(lx, 0)) || (brackets && peekc(lx, 0) >= 0 &&
					       !at_newline(lx))) {
		if (peekc(lx, 0) == '[')
			brackets++;
		else if (peekc(lx, 0) == ']' && brackets)
			brackets--;
		adv(lx);
	}
	if (lx->pos == s)
		return NULL;
	return dl_strndup(lx->p, lx->src + s, lx->pos - s);
}
