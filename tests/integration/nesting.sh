#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Input that nests 100,000 levels deep (parentheses, operators, chains,
# statements, declarators, types) gets an error naming the parser's limit,
# in -s, -n and -h, never a crash of the recursive parts (docs/d-language.md,
# "Limits"); nesting within the limit still compiles and runs.
. "$(dirname "$0")/../lib.sh"
cd "$WORK" || exit 1

N=100000
LIMIT="more than 256 levels"

# rep STRING COUNT: STRING COUNT times, on one line
rep() { yes -- "$1" | head -n "$2" | tr -d '\n'; }

# refused NAME WANT CMD...: CMD fails (exit 1, no signal) with an error naming WANT, and
# the sanitizers (under make check) say nothing
refused() {
	local name=$1 want=$2
	shift 2
	"$@" >out 2>err
	local rc=$?
	if [ $rc -eq 1 ] && grep -q "$want" err && ! grep -qE 'Sanitizer|runtime error' err; then
		ok "$name"
	else
		fail "$name" "exit $rc" "$(head -c 600 err)"
	fi
}

# one D program per kind of nesting
{
	echo "BEGIN { x = $(rep '(' $N)1$(rep ')' $N); }" >paren.d
	echo "BEGIN { x = $(rep '- ' $N)1; }" >unary.d
	echo "BEGIN { x = $(rep '(int)' $N)1; }" >cast.d
	echo "BEGIN { x = $(rep 'sizeof ' $N)1; }" >sizeof.d
	echo "BEGIN { x = $(rep '1 ? 1 : ' $N)1; }" >ternary.d
	echo "BEGIN { x = $(rep '1 + ' $N)1; }" >sum.d
	echo "BEGIN { $(rep 'x = ' $N)1; }" >assign.d
	echo "BEGIN { x = $(rep 'f(' $N)1$(rep ')' $N); }" >call.d
	echo "BEGIN { x = a$(rep '[1]' $N); }" >index.d
	echo "BEGIN { x = y$(rep '->z' $N); }" >member.d
	echo "BEGIN $(rep '{' $N)x = 1;$(rep '}' $N)" >block.d
	echo "BEGIN { $(rep 'if (1) ' $N)x = 1; }" >if.d
	echo "int $(rep '*' $N)p;" >pointer.d
	echo "int $(rep '(' $N)p$(rep ')' $N);" >declparen.d
	echo "$(rep 'struct s { ' $N)" >struct.d
	echo "BEGIN { x = (int $(rep '*' $N))0; }" >castptr.d
	# each operand of ?: (the middle one too), predicates, else chains, keys, indexes,
	# a translator's members, C declarations
	echo "BEGIN { x = $(rep '1 ? ' $N)1$(rep ' : 0' $N); }" >ternary_mid.d
	echo "BEGIN /$(rep '(' $N)1$(rep ')' $N)/ { }" >predicate.d
	echo "BEGIN { $(rep 'if (1) {} else ' $N)x = 1; }" >else.d
	echo "BEGIN { @[$(rep 'f(' $N)1$(rep ')' $N)] = count(); }" >aggkey.d
	echo "BEGIN { x = $(rep 'self->a[' $N)1$(rep ']' $N); }" >selfidx.d
	echo "BEGIN { x = $(rep 'stringof(' $N)1$(rep ')' $N); }" >stringof.d
	echo "BEGIN { x = y$(rep '++' $N); }" >postinc.d
	echo "struct t { int a; }; translator struct t < int *p > { a = $(rep '(' $N)1$(rep ')' $N); };" >xlator.d
	echo "enum e { $(rep 'a = (' $N)1$(rep ')' $N) };" >enum.d
	echo "int a[$(rep '(' $N)1$(rep ')' $N)];" >arraysize.d
	echo "int $(rep '(*' $N)p$(rep ')()' $N);" >fnptr.d
}
for k in paren unary cast sizeof ternary sum assign call index member block if pointer \
	declparen struct ternary_mid predicate else aggkey selfidx stringof postinc xlator enum \
	arraysize fnptr; do
	refused "-s: $k nested $N deep" "$LIMIT" "$DTRACE" -s $k.d
done
refused "-s: a cast to a pointer $N levels deep" "type nested too deeply: $LIMIT" \
	"$DTRACE" -s castptr.d
# (an argument is at most 128 KiB)
echo "BEGIN { x = $(rep '(' 30000)1$(rep ')' 30000); }" >paren_n.d
echo "BEGIN { x = $(rep '1?1:' 20000)1; }" >ternary_n.d
echo "BEGIN { x = $(rep '1+' 30000)1; }" >sum_n.d
for k in paren ternary sum; do
	refused "-n: $k nested 20,000 deep or more" "$LIMIT" "$DTRACE" -n "$(cat ${k}_n.d)"
done

# a header's C declarations under -C
echo "struct h0 { $(rep 'struct { ' $N)int x;$(rep '} a; ' $N) };" >deep.h
printf '#include "deep.h"\nBEGIN { exit(0); }\n' >cpp.d
refused "-C: a header's struct nested $N deep" "$LIMIT" "$DTRACE" -C -I. -s cpp.d

# inlines of inlines: each is shallow, their expansion is not (nor, doubling, its size)
inlines() { echo 'inline int i0 = 1;'; for i in $(seq 1 "$1"); do echo "inline int i$i = i$((i - 1)) $2;"; done; }
{ inlines 300 '+ 1'; echo 'BEGIN { trace(i300); }'; } >inline_deep.d
refused "-s: an inline of inlines 300 deep" "inlines nested too deeply: $LIMIT" \
	"$DTRACE" -s inline_deep.d
{ echo 'inline int i0 = 1;'; for i in $(seq 1 40); do echo "inline int i$i = i$((i - 1)) + i$((i - 1));"; done
	echo 'BEGIN { trace(i40); }'; } >inline_double.d
refused "-s: inlines that double 40 times" "more than 65536 inline expansions in one clause" \
	"$DTRACE" -s inline_double.d
{ inlines 200 '+ 1'; echo 'BEGIN { trace(i200); exit(0); }'; } >inline_ok.d
expect_eq "an inline of inlines 200 deep: its value (once refused past 16 as recursion)" \
	"$("$DTRACE" -q -s inline_ok.d 2>&1)" "201"
expect_eq "an inline defined in terms of itself: refused" \
	"$("$DTRACE" -n 'inline int a = a + 1; BEGIN { trace(a); }' 2>&1 | grep -c 'failed to resolve a\|defined in terms of itself')" 1

# typedefs over typedefs: each declaration is shallow, the type is not
for i in $(seq 1 300); do echo "typedef t$((i - 1)) *t$i;"; done >typedefs.d
sed -i '1i typedef int t0;' typedefs.d
refused "-s: typedefs 300 deep" "type nested too deeply: $LIMIT" "$DTRACE" -s typedefs.d

# dtrace -h: the provider's argument types, and no header left behind
printf 'provider deep {\n\tprobe p(int %s);\n};\n' "$(rep '*' $N)" >prov_ptr.d
printf 'provider deep {\n\tprobe p(int %sx%s);\n};\n' "$(rep '(' $N)" "$(rep ')' $N)" >prov_paren.d
(cat typedefs.d; printf 'provider deep {\n\tprobe p(t300);\n};\n') >prov_typedef.d
for k in ptr paren typedef; do
	refused "-h: argument type by $k nested too deeply" "$LIMIT" \
		"$DTRACE" -h -s prov_$k.d -o prov_$k.h
	[ ! -e prov_$k.h ] && ok "-h: no header for the $k provider" ||
		fail "-h: no header for the $k provider"
done

# within the limit: 200 levels compile and give what C would
"$DTRACE" -q -n "BEGIN { printf(\"%d %d %d\\n\", $(rep '(' 200)7$(rep ')' 200), $(rep '1 + ' 199)1, $(rep '- ' 200)3); exit(0); }" >out 2>err
expect_eq "200 parentheses, a sum of 200 terms and 200 minus signs" "$(cat out err)" "7 200 3"
printf 'provider deep {\n\tprobe p(int %s);\n};\n' "$(rep '*' 200)" >prov_ok.d
"$DTRACE" -h -s prov_ok.d -o prov_ok.h 2>err && grep -q "int $(rep '\*' 200)" prov_ok.h &&
	ok "-h: a pointer 200 levels deep" || fail "-h: a pointer 200 levels deep" "$(cat err)"
finish
