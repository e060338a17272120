/* SPDX-License-Identifier: MIT */
/*
 * DTrace's error tags (its dt_errtags.h: D_OP_INCOMPAT, D_PROTO_ARG...) of
 * the compiler's messages, for -x errtags. The messages follow DTrace's
 * wording, so each kind is known by its words: the table holds a pattern
 * (fnmatch()'s, '[' escaped, over the message without its "file:line:col:
 * error: ") for
 * each, the first that matches giving the tag. A format string that
 * printf() cannot parse is D_SYNTAX (DTrace's parser reports it); a profile
 * or tick probe whose interval the provider refuses is D_PDESC_ZERO (DTrace's
 * provider makes no such probe, so the description matches none). A
 * compile error DTrace has no tag for (one about udtrace's own limits) is
 * D_UNKNOWN, as DTrace tags its own; a message that is not a compile error
 * has none.
 */
#include "dlang/internal.h"

#include <fnmatch.h>
#include <string.h>

static const struct {
	const char *tag;
	const char *pattern;
} tags[] = {
	/* declarations and the program */
	{ "D_EMPTY", "empty D program translation unit" },
	{ "D_DECL_IDRED", "identifier re*" },
	{ "D_DECL_INCOMPLETE", "*incomplete type*" },
	{ "D_DECL_BFSIZE", "bit-field width*" },
	{ "D_DECL_BFCONST", "zero-width bit-field*" },
	{ "D_DECL_BFTYPE", "bit-field * has a non-integer type" },
	{ "D_DECL_ARRSUB", "array size must not be negative" },
	{ "D_DECL_VOIDOBJ", "declaration of an array of voids" },
	{ "D_DECL_COMBO", "*in declaration specifiers" },
	{ "D_DECL_COMBO", "invalid combination of type specifiers" },
	{ "D_DECL_CLASS", "more than one storage class*" },
	{ "D_DECL_BADCLASS", "storage class * is not allowed here" },
	{ "D_DECL_LOCASSC", "*clause-local variables cannot be associative arrays" },
	{ "D_DECL_TYPERED", "typedef * conflicts with*" },
	{ "D_DECL_TYPERED", "typedef * redefined*" },
	{ "D_DECL_ENCONST", "*is not an integer constant" },
	{ "D_DECL_IDENT", "enumerator * is already defined" },
	{ "D_DECL_MNAME", "duplicate member*" },
	{ "D_SYNTAX", "syntax error*" },
	{ "D_SYNTAX", "expected *" },
	{ "D_SYNTAX", "unexpected name*" },
	{ "D_TYPE_ERR", "unknown type name*" },
	{ "D_PRAGMA_MALFORM", "malformed #pragma*" },
	{ "D_PRAGMA_INVAL", "unknown control directive*" },
	{ "D_PRAGCTL_INVAL", "preprocessor directive * requires cpp*" },
	{ "D_PRAGERR", "#pragma error*" },
	{ "D_PRAGMA_OPTSET", "failed to set option*" },
	{ "D_MACRO_UNDEF", "macro argument * is not defined" },
	{ "D_MACRO_UNUSED", "extraneous argument*" },
	{ "D_XLATE_REDECL", "translator from * has already been declared" },
	{ "D_XLATE_SOU", "translator output type must be a struct or union" },
	{ "D_XLATE_SOU", "incomplete struct/union/enum*" },
	{ "D_XLATE_MEMB", "translator member * is not a member of*" },
	{ "D_XLATE_INCOMPAT", "translator member * definition uses incompatible types*" },
	{ "D_XLATE_NONE", "translator for * is not defined*" },
	{ "D_XLATE_MEMB", "translator member * is defined twice" },
	{ "D_OP_INCOMPAT", "inline * definition uses incompatible types*" },
	{ "D_PDESC_ZERO", "*does not match any probes*" },
	/* the pid provider's (probes/pid.c), as dt_pid.c words them */
	{ "D_PROC_FUNC", "invalid probe specifier *: failed to lookup '*' in module '*'" },
	{ "D_PROC_NAME", "invalid probe specifier *: '*' is an invalid probe name" },
	{ "D_PROC_NAME", "invalid probe specifier *: only individual addresses may be specified*" },
	{ "D_PROC_OFF", "invalid probe specifier *: offset 0x* outside of function '*'" },
	{ "D_PROC_OFF", "invalid probe specifier *: address 0x* is in no function of a.out" },
	{ "D_PROC_ALIGN", "invalid probe specifier *: * is not aligned on an instruction" },
	{ "D_PROC_LIB", "invalid probe specifier *: only the a.out module is valid with the '-'*" },
	{ "D_PROC_BADPID", "invalid probe specifier *: '*' does not contain a valid pid" },
	{ "D_PROC_GRAB", "invalid probe specifier *: the pid provider makes its probes in *" },
	{ "D_PROC_CREATEFAIL", "invalid probe specifier *: failed to create * probe*" },
	{ "D_PDESC_ZERO", "invalid probe specifier *: * is not an interval: *" },
	{ "D_PDESC_ZERO", "invalid probe specifier *: * fires every *, and the profile provider's "
			  "shortest interval *" },
	/* expressions */
	{ "D_IDENT_UNDEF", "failed to resolve *: Unknown variable name" },
	{ "D_AGG_NULL", "expression has null effect: @*" },
	{ "D_FUNC_UNDEF", "undefined function name*" },
	{ "D_IDENT_BADREF", "array * may not be referenced as scalar" },
	{ "D_OP_INCOMPAT", "operands have incompatible types*" },
	{ "D_OP_INCOMPAT", "operator * cannot be applied to a string" },
	{ "D_OP_INCOMPAT", "a string cannot be compared with type*" },
	{ "D_OP_LVAL", "operator * requires a modifiable lvalue*" },
	{ "D_OP_WRITE", "operator * cannot store into*" },
	{ "D_OP_INCOMPLETE", "operator * cannot be applied to a forward declaration*" },
	{ "D_OP_PTR", "operator -> must be applied to a pointer" },
	{ "D_OP_SOU", "operator . must be applied to a struct or union" },
	{ "D_OP_SOU", "operator * cannot be applied to *" },
	{ "D_OP_INT", "operator * requires an integer*" },
	{ "D_OP_INT", "operator * requires an operand of integral type" },
	{ "D_OP_INT", "operator * requires operands of integral type" },
	{ "D_OP_ARITH", "operator * requires an operand of arithmetic type" },
	{ "D_OP_ARITH", "operator * requires operands of arithmetic type" },
	{ "D_OP_SCALAR", "operator * requires an operand of scalar type" },
	{ "D_OP_SCALAR", "operator * requires operands of scalar type" },
	{ "D_OP_ACT", "operator * operands cannot be actions" },
	{ "D_OP_ACT", "action cannot be used in a conditional context" },
	{ "D_TRACE_VOID", "trace( ) may not be applied to a void expression" },
	{ "D_PRINT_VOID", "print( ) may not be applied to a void expression" },
	{ "D_OP_SCALAR", "operands of * must be scalars" },
	{ "D_OP_SCALAR", "the condition of ?: must be a scalar" },
	{ "D_OP_ARITH", "*cannot be applied to a floating-point value*" },
	{ "D_TYPE_MEMBER", "* is not a member of *" },
	{ "D_DEREF_NONPTR", "operator * requires an operand of pointer type" },
	{ "D_ADDROF_VAR", "cannot take address of dynamic variable" },
	{ "D_ADDROF_BITFIELD", "cannot take address of bit-field" },
	{ "D_ADDROF_LVAL", "operator & requires an object*" },
	{ "D_ARR_BOUNDS", "index outside array bounds*" },
	{ "D_ARR_BADREF", "operator \\[ \\] cannot be applied to*" },
	{ "D_ARGS_IDX", "index * is out of range for * args\\[ \\]" },
	{ "D_ARGS_NONE", "args\\[\\] is not available in this clause" },
	{ "D_ARGS_TYPE", "args\\[*\\]: type * is not defined*" },
	{ "D_ARGS_XLATOR", "args\\[*\\] maps to no native argument" },
	{ "D_REGS_IDX", "uregs\\[\\]: index out of bounds*" },
	{ "D_DIV_ZERO", "division by zero*" },
	{ "D_CAST_INVAL", "cannot cast*" },
	{ "D_OFFSETOF_BITFIELD", "offsetof( ) cannot be applied to a bit-field" },
	{ "D_OFFSETOF_TYPE", "offsetof( ) operand must be a struct or union type" },
	{ "D_SIZEOF_TYPE", "sizeof applied to an incomplete type" },
	{ "D_STRINGOF_TYPE", "cannot apply stringof to*" },
	{ "D_KEY_TYPE", "a key of type * is not supported" },
	{ "D_VAR_UNSUP", "variables of type * are not supported" },
	{ "D_PRED_SCALAR", "predicate result must be of scalar type" },
	/* functions and actions */
	{ "D_SYNTAX", "format conversion #*" },
	{ "D_PRINTF_FMT_EMPTY", "* format string is empty" },
	{ "D_PRINTF_AGG_CONV", "%@ conversion requires an aggregation*" },
	{ "D_PRINTF_DYN_PROTO", "*( ) prototype mismatch: conversion #* is missing a corresponding \"*" },
	{ "D_PRINTF_ARG_PROTO", "*( ) prototype mismatch: conversion #* is missing*" },
	{ "D_PRINTF_ARG_EXTRA", "*( ) prototype mismatch: only * arguments required*" },
	{ "D_PRINTF_DYN_TYPE", "*( ) argument #* is incompatible with conversion #* prototype:\n\tconversion: % *" },
	{ "D_PRINTF_ARG_TYPE", "*( ) argument #* is incompatible with conversion #*" },
	{ "D_PRINTF_ARG_FMT", "*( ) argument #1 is incompatible with prototype:\n\tprototype: string constant*" },
	{ "D_PRINTA_AGGKEY", "printa( ): * do not have matching key signatures*" },
	{ "D_PRINTA_AGGPROTO", "printa( ): *key #* is incompatible*" },
	{ "D_PRINTA_AGGARG", "printa( ) argument #* is incompatible*" },
	{ "D_TRACEMEM_SIZE", "tracemem*( ) *" },
	{ "D_USTACK_FRAMES", "ustack( ) argument #1 must be*" },
	{ "D_LQUANT_BASETYPE", "lquantize( ) argument #1 must be an integer constant" },
	{ "D_LQUANT_BASEVAL", "lquantize( ) argument #1 must be a 32-bit quantity" },
	{ "D_LQUANT_LIMTYPE", "lquantize( ) argument #2 must be an integer constant" },
	{ "D_LQUANT_LIMVAL", "lquantize( ) argument #2 must be a 32-bit quantity" },
	{ "D_LQUANT_MISMATCH", "lquantize( ) base (argument #1) must be less than limit*" },
	{ "D_LQUANT_STEPTYPE", "lquantize( ) argument #3 must be*integer constant" },
	{ "D_LQUANT_STEPVAL", "lquantize( ) argument #3 must be a 16-bit quantity" },
	{ "D_LQUANT_STEPLARGE", "lquantize( ) step (argument #3) too large*" },
	{ "D_LQUANT_STEPSMALL", "lquantize( ) step (argument #3) too small*" },
	{ "D_LQUANT_MATCHBASE", "lquantize( ) base * doesn't match*" },
	{ "D_LQUANT_MATCHLIM", "lquantize( ) limit * doesn't match*" },
	{ "D_LQUANT_MATCHSTEP", "lquantize( ) step * doesn't match*" },
	{ "D_LLQUANT_FACTORTYPE", "llquantize( ) argument #1 (factor) must be an integer*" },
	{ "D_LLQUANT_FACTORVAL", "llquantize( ) argument #1 (factor) must be an unsigned*" },
	{ "D_LLQUANT_LOWTYPE", "llquantize( ) argument #2 (low magnitude) must be an integer*" },
	{ "D_LLQUANT_LOWVAL", "llquantize( ) argument #2 (low magnitude) must be an unsigned*" },
	{ "D_LLQUANT_HIGHTYPE", "llquantize( ) argument #3 (high magnitude) must be an integer*" },
	{ "D_LLQUANT_HIGHVAL", "llquantize( ) argument #3 (high magnitude) must be an unsigned*" },
	{ "D_LLQUANT_NSTEPTYPE", "llquantize( ) argument #4 (* steps *) must be an integer*" },
	{ "D_LLQUANT_NSTEPVAL", "llquantize( ) argument #4 (* steps *) must be an unsigned*" },
	{ "D_LLQUANT_FACTORSMALL", "llquantize( ) factor (argument #1) must be two or more" },
	{ "D_LLQUANT_MAGRANGE", "llquantize( ) high magnitude (argument #3) must be greater*" },
	{ "D_LLQUANT_FACTORNSTEPS", "llquantize( ) factor (argument #1) must be less than*" },
	{ "D_LLQUANT_FACTOREVEN", "llquantize( ) factor (argument #1) must evenly divide*" },
	{ "D_LLQUANT_MAGTOOBIG", "llquantize( ) factor (*) raised to power*" },
	{ "D_LLQUANT_FACTORMATCH", "llquantize( ) factor * doesn't match*" },
	{ "D_LLQUANT_LOWMATCH", "llquantize( ) low magnitude * doesn't match*" },
	{ "D_LLQUANT_HIGHMATCH", "llquantize( ) high magnitude * doesn't match*" },
	{ "D_LLQUANT_NSTEPMATCH", "llquantize( ) linear steps * doesn't match*" },
	{ "D_AGG_FUNC", "@* must be assigned the result of an aggregating function" },
	{ "D_AGG_REDEF", "aggregation redefined*" },
	{ "D_AGG_SCALAR", "*( ) argument #1 is incompatible with prototype:\n\tprototype: integer*" },
	{ "D_SPEC_SPEC", "speculate( ) may not follow speculate( )" },
	{ "D_SPEC_COMM", "speculate( ) may not follow commit( )" },
	{ "D_SPEC_DREC", "speculate( ) may not follow data-recording action(s)" },
	{ "D_COMM_COMM", "commit( ) may not follow commit( )" },
	{ "D_COMM_DREC", "commit( ) may not follow data-recording action(s)" },
	{ "D_DREC_COMM", "data-recording actions may not follow commit( )" },
	{ "D_AGG_COMM", "aggregating actions may not follow commit( )" },
	{ "D_AGG_SPEC", "aggregating actions may not follow speculate( )" },
	{ "D_ACT_SPEC", "destructive actions may not follow speculate( )" },
	{ "D_EXIT_SPEC", "exit( ) may not follow speculate( )" },
	{ "D_PROTO_ARG", "*argument #* is incompatible with prototype*" },
	{ "D_PROTO_ARG", "*key #* is incompatible with prototype*" },
	{ "D_PROTO_ARG", "* argument #* must be*" },
	{ "D_PROTO_LEN", "*prototype mismatch*" },
};

const char *dl_errtag(const char *msg)
{
	const char *e = strstr(msg, "error: ");

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (!fnmatch(tags[i].pattern, e ? e + 7 : msg, 0))
			return tags[i].tag;
	return e ? "D_UNKNOWN" : NULL;
}
