#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The dtrace command as build systems call it: options in any order, default
# output names, cpp with -C -I -D, the flags SystemTap's script accepts, -G on
# a script without providers, -G checking the objects it is given, and bad
# input: one clear error, exit 1, no output file left behind.
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
cd "$WORK" || exit 1
cp "$D/lnk.d" .

# Orders real builds use.
mkdir -p o1 o2 o3 o4
check "-h -s F -o O" "$DTRACE" -h -s lnk.d -o o1/x.h
check "-o O -h -s F" "$DTRACE" -o o2/x.h -h -s lnk.d
check "-s F -o O -h" "$DTRACE" -s lnk.d -o o3/x.h -h
check "attached arguments: -sF -oO" "$DTRACE" -h -slnk.d -oo4/x.h
expect_eq "the same header every way" "$(md5sum o1/x.h o2/x.h o3/x.h o4/x.h | cut -c1-32 | sort -u | wc -l)" 1
check "compatibility flags: -64 -fPIC -fpic -k -x nolibs -xnolibs" \
	"$DTRACE" -64 -fPIC -fpic -k -x nolibs -xnolibs -h -s lnk.d -o d.h
mkdir -p sub && (cd sub && "$DTRACE" -h -s ../lnk.d) && [ -f sub/lnk.h ]
expect_eq "default -h output: <basename>.h in the current directory" "$?" 0
(cd sub && "$DTRACE" -G -s ../lnk.d) && [ -f sub/lnk.o ]
expect_eq "default -G output: <basename>.o in the current directory" "$?" 0
expect_eq "no temporary files are left" "$(ls -A sub | tr '\n' ' ')" "lnk.h lnk.o "

# cpp: -C with -I and -D, errors reported at the original file and line.
mkdir -p inc
echo '#define WIDE_T long long' >inc/wide.h
cat >cpp.d <<'EOF'
#include "wide.h"
provider cpp {
#ifdef WITH_EXTRA
	probe extra(WIDE_T w);
#endif
	probe base(int x);
};
EOF
check "-C -I -D" "$DTRACE" -C -I inc -DWITH_EXTRA -h -s cpp.d -o cpp.h
expect_eq "-D reaches cpp" "$(grep -c '^#define CPP_EXTRA(' cpp.h)" "2"
"$DTRACE" -C -Iinc -h -s cpp.d -o cpp2.h
expect_eq "without -D the #ifdef'd probe is gone" "$(grep -c '^#define CPP_EXTRA(' cpp2.h)" "0"
out=$("$DTRACE" -h -s cpp.d -o nocpp.h 2>&1)
expect_eq "without -C: a conditional is an error that says to use -C" "$out" \
	"dtrace: cpp.d:3:1: error: preprocessor directive #ifdef requires cpp: run dtrace with -C"
printf '#define N 3\nprovider bad {\n\tprobe p(undefined_t x);\n};\n' >cppbad.d
out=$("$DTRACE" -C -h -s cppbad.d -o x.h 2>&1)
expect_eq "errors after cpp name the original line" "$out" \
	"dtrace: cppbad.d:3:10: error: unknown type name 'undefined_t'"
# an executable D script under -C: its "#!" line is not cpp's, as in DTrace (the toolkit's
# "#!/usr/sbin/dtrace -Cs"); its quoted includes found beside it, its errors' lines its own
mkdir -p sb
printf '#define VAL 42\n' >sb/val.h
printf '#!/usr/sbin/dtrace -Cs\n#include "val.h"\n#pragma D option quiet\nBEGIN { printf("%%d\\n", VAL); exit(0); }\n' >sb/ok.d
printf '#!/usr/sbin/dtrace -Cs\n\nBEGIN { x = ; }\n' >sb/bad.d
expect_eq "-C: a script starting with #! runs, its include found beside it" \
	"$("$DTRACE" -C -s sb/ok.d 2>&1)" "42"
expect_eq "-C: and an error in such a script names its own line" \
	"$("$DTRACE" -C -s sb/bad.d 2>&1)" 'dtrace: sb/bad.d:3:13: error: syntax error near ";"'
out=$("$DTRACE" -C -h -s nonexistent.d -o x.h 2>&1)
rc=$?
expect_eq "cpp failure: exit 1" "$rc" 1
case $out in *"dtrace: failed to preprocess nonexistent.d"*) ok "cpp failure is reported" ;;
*) fail "cpp failure is reported" "$out" ;; esac

# CPython's configure: -G over a script with no provider.
echo 'BEGIN{}' >conftest.d
check "-G on BEGIN{} exits 0" "$DTRACE" -G -s conftest.d -o conftest.o
check "and the object links" gcc -c -x c /dev/null -o empty.o
check "the BEGIN{} object is a valid relocatable object" readelf -h conftest.o

# Usage errors exit 2.
"$DTRACE" >/dev/null 2>&1
expect_eq "no arguments: exit 2" "$?" 2
"$DTRACE" -h >/dev/null 2>&1
expect_eq "-h without -s: exit 2" "$?" 2
"$DTRACE" -h -G -s lnk.d >/dev/null 2>&1
expect_eq "-h with -G: exit 2" "$?" 2
"$DTRACE" -Q -h -s lnk.d >/dev/null 2>&1
expect_eq "unknown option: exit 2" "$?" 2
out=$("$DTRACE" -h -s missing.d -o m.h 2>&1)
expect_eq "missing input: message" "$out" "dtrace: failed to open missing.d: No such file or directory"
check "-V prints a version" "$DTRACE" -V

# -G checks the objects it is given.
"$DTRACE" -h -s lnk.d -o lnk.h
cat >undeclared.c <<'EOF'
#include "lnk.h"
void handler(int n);
void handler(int n) { LNK_HIT(n, "x"); }
EOF
gcc -O2 -I. -c undeclared.c -o good.o
# an object from a definition with an extra probe, and one with a different arity
printf 'provider lnk {\n\tprobe hit(int n, const char *w);\n\tprobe extra();\n};\n' >more.d
printf 'provider lnk {\n\tprobe hit(int n);\n};\n' >fewer.d
"$DTRACE" -h -s more.d -o lnk.h
printf '#include "lnk.h"\nvoid other_fn(void);\nvoid other_fn(void) { LNK_EXTRA(); }\n' >extra.c
gcc -O2 -I. -c extra.c -o extra.o
out=$("$DTRACE" -G -s lnk.d -o bad1.o good.o extra.o 2>&1)
rc=$?
expect_eq "an undeclared probe: exit 1" "$rc" 1
case $out in
*"extra.o: error: function 'other_fn' fires probe lnk:extra, which provider 'lnk' (lnk.d:"*"does not declare"*)
	ok "an undeclared probe: the error names the object and function" ;;
*) fail "an undeclared probe: the error names the object and function" "$out" ;;
esac
[ ! -e bad1.o ]
expect_eq "an undeclared probe: no output left" "$?" 0
out=$("$DTRACE" -G -s fewer.d -o bad2.o good.o 2>&1)
rc=$?
expect_eq "a wrong argument count: exit 1" "$rc" 1
case $out in
*"good.o: error: function 'handler' fires probe lnk:hit with 2 arguments, but fewer.d:2 declares 1"*)
	ok "a wrong argument count: the error names the object and function" ;;
*) fail "a wrong argument count: the error names the object and function" "$out" ;;
esac
[ ! -e bad2.o ]
expect_eq "a wrong argument count: no output left" "$?" 0
check "objects of another provider are not this -G's business" \
	"$DTRACE" -G -s conftest.d -o other.o good.o extra.o

# Corrupt and foreign input objects.
echo "not an object" >text.o
head -c 100 good.o >truncated.o
cp good.o corrupt.o
# overwrite the section header offset with garbage
printf '\xff\xff\xff\xff\xff\xff\xff\x7f' | dd of=corrupt.o bs=1 seek=40 conv=notrunc 2>/dev/null
ar rcs lib.a good.o
gcc -O2 -fPIC -I. -c undeclared.c -o pic.o && "$DTRACE" -G -s lnk.d -o picprov.o pic.o &&
	gcc -shared pic.o picprov.o -o lib.so || fail "build a shared object"
for bad in text.o truncated.o corrupt.o lib.a lib.so missing.o; do
	rm -f out.o
	out=$("$DTRACE" -G -s lnk.d -o out.o good.o "$bad" 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && [ ! -e out.o ] && [[ $out == "$bad: error: "* ]] &&
		[ "$(echo "$out" | wc -l)" -eq 1 ]; then
		ok "-G given $bad: one clear error, exit 1, no output ($out)"
	else
		fail "-G given $bad: one clear error, exit 1, no output" "exit $rc: $out" "$(ls)"
	fi
done

# An existing output is replaced only when the new one is complete.
echo "previous" >keep.h
"$DTRACE" -h -s "$TOP/tests/golden/err.type.unknown.d" -o keep.h 2>/dev/null
expect_eq "a failed -h leaves the previous output untouched" "$(cat keep.h)" "previous"
echo "previous" >keep.o
"$DTRACE" -G -s lnk.d -o keep.o text.o 2>/dev/null
expect_eq "a failed -G leaves the previous output untouched" "$(cat keep.o)" "previous"
"$DTRACE" -h -s lnk.d -o /nonexistent-dir/x.h 2>err.txt
expect_eq "an unwritable output: exit 1" "$?" 1
expect_eq "an unwritable output: message" "$(cat err.txt)" \
	"dtrace: cannot create /nonexistent-dir/x.h: No such file or directory"
expect_eq "nothing temporary is left in the working directory" \
	"$(ls -A | grep -c '^\.')" "0"

# -o names something other than a regular file: written into, never replaced.
mkdir -p reg special
# References written to regular files of the same names (the header's guard is named after it).
for name in x.h chain.h sock; do "$DTRACE" -h -s lnk.d -o "reg/$name" || fail "-h -o reg/$name"; done
"$DTRACE" -G -s lnk.d -o reg/x.o good.o || fail "-G -o reg/x.o"
for kind in h o; do
	mkfifo "special/x.$kind"
	cat "special/x.$kind" >"got.$kind" &
	reader=$!
	if [ $kind = h ]; then
		"$DTRACE" -h -s lnk.d -o "special/x.$kind"
	else
		"$DTRACE" -G -s lnk.d -o "special/x.$kind" good.o
	fi
	rc=$?
	wait $reader
	mode=$([ $kind = h ] && echo -h || echo -G)
	if [ $rc -eq 0 ] && cmp -s "got.$kind" "reg/x.$kind" && [ -p "special/x.$kind" ]; then
		ok "$mode into a FIFO: the reader gets the whole output, the FIFO stays"
	else
		fail "$mode into a FIFO" "exit $rc" "$(ls -l special got.$kind)"
	fi
done
mkdir -p lnk lnk/dir
ln -s dir/real.h lnk/x.h
ln -s ../lnk/x.h lnk/chain.h
"$DTRACE" -h -s lnk.d -o lnk/chain.h
rc=$?
if [ $rc -eq 0 ] && [ -L lnk/x.h ] && [ -L lnk/chain.h ] && [ -f lnk/dir/real.h ] &&
	cmp -s lnk/dir/real.h reg/chain.h; then
	ok "-h through a chain of symbolic links: the file named is written, the links kept"
else
	fail "-h through symbolic links" "exit $rc" "$(ls -lR lnk)"
fi
echo previous >lnk/dir/obj.o
ln -s dir/obj.o lnk/x.o
"$DTRACE" -G -s lnk.d -o lnk/x.o good.o && [ -L lnk/x.o ] && cmp -s lnk/dir/obj.o reg/x.o
expect_eq "-G through a symbolic link replaces the file it names, keeps the link" "$?" 0
expect_eq "no temporary file beside the link or its target" \
	"$(ls -A lnk lnk/dir | grep -c '^\.')" 0
ln -s loop2 lnk/loop1 && ln -s loop1 lnk/loop2
expect_eq "a loop of links: one clear error" \
	"$("$DTRACE" -h -s lnk.d -o lnk/loop1 2>&1; echo "exit $?")" \
	"dtrace: cannot create lnk/loop1: Too many levels of symbolic links
exit 1"
expect_eq "a directory: one clear error, exit 1" \
	"$("$DTRACE" -G -s lnk.d -o special good.o 2>&1; echo "exit $?")" \
	"dtrace: cannot create special: Is a directory
exit 1"
expect_eq "a directory is left as it was" "$(ls -A special | tr '\n' ' ')" "x.h x.o "
if [ -c /dev/full ]; then
	expect_eq "a device that refuses the data: one clear error, exit 1" \
		"$("$DTRACE" -h -s lnk.d -o /dev/full 2>&1; echo "exit $?")" \
		"dtrace: cannot write /dev/full: No space left on device
exit 1"
	[ -c /dev/full ]
	expect_eq "/dev/full is still a character device" "$?" 0
fi
# A device of the test's own (never the system's /dev/null), where mknod is allowed.
if mknod special/null c 1 3 2>/dev/null && echo probe >special/null 2>/dev/null; then
	"$DTRACE" -h -s lnk.d -o special/null && "$DTRACE" -G -s lnk.d -o special/null good.o &&
		[ -c special/null ]
	expect_eq "-h and -G into a character device: written into, the device stays" "$?" 0
else
	skip "-h and -G into a character device" "cannot create or open a device node here (mknod needs CAP_MKNOD and a mount without nodev)"
fi
if have python3; then
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("special/sock"); s.listen(1); print("ready", flush=True)
c, _ = s.accept(); data = b""
while True:
	b = c.recv(65536)
	if not b: break
	data += b
open("got.sock", "wb").write(data)' >sock.out &
	server=$!
	wait_for sock.out ready
	"$DTRACE" -h -s lnk.d -o special/sock
	rc=$?
	wait $server
	if [ $rc -eq 0 ] && [ -S special/sock ] && cmp -s got.sock reg/sock; then
		ok "-h into a listening UNIX socket: connected and written, the socket stays"
	else
		fail "-h into a UNIX socket" "exit $rc" "$(ls -l special)"
	fi
fi

# make -j: many -G at once into one directory
for i in $(seq 1 8); do "$DTRACE" -G -s lnk.d -o "par$i.o" good.o & done
wait
ok=0
for i in $(seq 1 8); do cmp -s par1.o "par$i.o" && ok=$((ok + 1)); done
expect_eq "eight parallel -G write eight identical objects" "$ok" 8
finish
