DLANG_SRCS := dlang/arena.c dlang/macro.c dlang/lexer.c dlang/ctype.c dlang/expr.c dlang/parse.c \
	      dlang/compile.c dlang/compile_var.c dlang/compile_str.c dlang/errtags.c
$(BUILD)/lib/libdlang.a: $(call objs_of,$(DLANG_SRCS))
