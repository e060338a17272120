#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Probe sites and -G objects in every way programs are linked: PIE, non-PIE,
# static, shared libraries (linked and dlopen'ed), LTO, --gc-sections, C++
# inline functions (COMDAT), clang. gdb reads the values back where a process
# runs; a test stand-in for the runtime (data/fakert.c) checks registration,
# the table it receives and the dispatch of fired probes.
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
cd "$WORK" || exit 1
"$DTRACE" -h -s "$D/lnk.d" -o lnk.h || { fail "dtrace -h"; finish; exit; }
CFLAGS="-O2 -g -Wall -Wextra -Werror -I. -I$D"

# gdb_hit BINARY [ARGS...]: "n where" as gdb reads them at lnk:hit
gdb_hit() {
	local bin=$1; shift
	gdb -nx -batch -ex 'set breakpoint pending on' -ex 'break -probe-stap lnk:hit' -ex "run $*" \
		-ex 'printf "HIT %d %s\n", $_probe_arg0, (char *)$_probe_arg1' "$bin" 2>&1 |
		sed -n 's/^HIT //p' | head -n 1
}

# build NAME CC_FLAGS LD_FLAGS: lnk_main.c + -G object into NAME
build() {
	local name=$1 cflags=$2 ldflags=$3
	# shellcheck disable=SC2086
	gcc $CFLAGS $cflags -c "$D/lnk_main.c" -o "$name.o" &&
		"$DTRACE" -G -s "$D/lnk.d" -o "$name.prov.o" "$name.o" &&
		gcc $cflags "$name.o" "$name.prov.o" $ldflags -o "$name"
}

GDB_OK=1
gdb_usable || GDB_OK=0
# expect_hit NAME WANT BINARY [ARGS...]: gdb reads WANT at lnk:hit (skipped without gdb)
expect_hit() {
	local name=$1 want=$2; shift 2
	if [ $GDB_OK = 0 ]; then
		skip "$name" "$GDB_WHY"
	else
		expect_eq "$name" "$(gdb_hit "$@")" "$want"
	fi
}

for variant in "pie:-fpie:-pie" "nopie:-fno-pie:-no-pie" "static:-fno-pie:-static"; do
	IFS=: read -r name cflags ldflags <<<"$variant"
	if ! out=$(build "$name" "$cflags" "$ldflags" 2>&1); then
		if [ "$name" = static ] && echo "$out" | grep -q 'cannot find -lc'; then
			skip "$name executable" "no static libc"
			continue
		fi
		fail "$name executable builds" "$out"
		continue
	fi
	expect_hit "$name executable: gdb reads the probe" "42 main" "./$name"
done

# LTO: the objects -G sees hold no code yet; the notes appear at link time.
if gcc $CFLAGS -flto -c "$D/lnk_main.c" -o lto.o &&
	"$DTRACE" -G -s "$D/lnk.d" -o lto.prov.o lto.o &&
	gcc -O2 -flto lto.o lto.prov.o -o lto 2>lto.log; then
	expect_hit "-flto: gdb reads the probe" "42 main" ./lto
else
	fail "-flto builds" "$(cat lto.log)"
fi

# --gc-sections: the note of a dead function goes with it.
gcc $CFLAGS -ffunction-sections -c "$D/lnk_main.c" -o gc.o &&
	"$DTRACE" -G -s "$D/lnk.d" -o gc.prov.o gc.o &&
	gcc gc.o gc.prov.o -Wl,--gc-sections -o gc &&
	gcc gc.o gc.prov.o -o nogc || fail "--gc-sections builds"
expect_eq "--gc-sections drops the dead probe's note" \
	"$(readelf -n gc | sed -n 's/ *Name: //p' | sort | tr '\n' ' ')" "hit "
expect_eq "without --gc-sections both notes stay" \
	"$(readelf -n nogc | sed -n 's/ *Name: //p' | sort | tr '\n' ' ')" "dead hit "

# C++: an inline function used in two translation units keeps one site.
for cxx in g++ clang++; do
	have $cxx || { skip "$cxx COMDAT" "$cxx not installed"; continue; }
	$cxx -O0 -std=c++17 -Wall -Wextra -Werror -I. -I"$D" -c "$D/inl1.cc" -o inl1.o &&
		$cxx -O0 -std=c++17 -Wall -Wextra -Werror -I. -I"$D" -c "$D/inl2.cc" -o inl2.o &&
		"$DTRACE" -G -s "$D/lnk.d" -o inl.prov.o inl1.o inl2.o &&
		$cxx inl1.o inl2.o inl.prov.o -o inl || { fail "$cxx inline builds"; continue; }
	expect_eq "$cxx: one note for an inline function in two units" \
		"$(readelf -n inl | grep -c 'Name: hit')" "1"
	expect_hit "$cxx: gdb reads the inline probe" "1 inline" ./inl
done

# clang-compiled sites
if have clang; then
	clang $CFLAGS -c "$D/lnk_main.c" -o cl.o && "$DTRACE" -G -s "$D/lnk.d" -o cl.prov.o cl.o &&
		clang cl.o cl.prov.o -o cl || fail "clang builds"
	expect_hit "clang: gdb reads the probe" "42 main" ./cl
fi

# A shared library with its own semaphores, linked and dlopen'ed.
gcc $CFLAGS -fPIC -c "$D/lnk_lib.c" -o lib.o &&
	"$DTRACE" -G -fPIC -s "$D/lnk.d" -o lib.prov.o lib.o &&
	gcc -shared lib.o lib.prov.o -o liblnk.so &&
	gcc $CFLAGS "$D/lnk_uselib.c" -L. -llnk -Wl,-rpath,"$WORK" -o uselib &&
	gcc $CFLAGS -DDLOPEN "$D/lnk_uselib.c" -o dlopener -ldl ||
	fail "shared library builds"
expect_eq "shared library: semaphores are not exported" \
	"$(readelf --dyn-syms -W liblnk.so | grep -c '_semaphore\|udt__dispatch')" "0"
expect_hit "shared library: gdb reads the probe" "7 library" ./uselib
expect_hit "dlopen'ed library: gdb reads the probe" "7 library" ./dlopener "$WORK/liblnk.so"

# The runtime contract, with the stand-in runtime.
gcc -O2 -g -fPIC -shared -I"$TOP" "$D/fakert.c" "$TOP/proc/table.c" -o libfakert.so ||
	fail "build the stand-in runtime"
expect_eq "no runtime: the program runs untraced" "$(./pie)" "done"
expect_eq "LD_PRELOAD runtime: registered, enabled, dispatched, unregistered" \
	"$(LD_PRELOAD=./libfakert.so ./pie | tr '\n' '|')" \
	'fakert: register lnk (2 probes)|fakert: fire lnk:hit 42 "main"|done|fakert: unregister|'
expect_eq "LD_PRELOAD runtime, non-PIE executable" \
	"$(LD_PRELOAD=./libfakert.so ./nopie | tr '\n' '|')" \
	'fakert: register lnk (2 probes)|fakert: fire lnk:hit 42 "main"|done|fakert: unregister|'
# The -G object refers to the runtime weakly, which does not make a library
# "needed" under --as-needed (Debian's default): link it with --no-as-needed.
gcc pie.o pie.prov.o -L. -Wl,--no-as-needed -lfakert -Wl,--as-needed -Wl,-rpath,"$WORK" \
	-o linked
expect_eq "linked runtime" "$(./linked | tr '\n' '|')" \
	'fakert: register lnk (2 probes)|fakert: fire lnk:hit 42 "main"|done|fakert: unregister|'
expect_eq "dlopen and dlclose of an instrumented library" \
	"$(LD_PRELOAD=./libfakert.so ./dlopener "$WORK/liblnk.so" | tr '\n' '|')" \
	'fakert: register lnk (2 probes)|fakert: fire lnk:hit 7 "library"|result 8|fakert: unregister|closed|'
expect_eq "registered but not enabled: nothing dispatched" \
	"$(FAKERT_QUIET=1 LD_PRELOAD=./libfakert.so ./pie | tr '\n' '|')" \
	'fakert: register lnk (2 probes)|done|fakert: unregister|'
finish
