#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Makes the fuzzers' seed corpora (tests/fuzz/corpus/NAME) anew from the
# project's own tests, with the dtrace in build/: provider files (the real
# corpus, the golden cases, the samples), the D conformance suite's scripts,
# the probe tables and objects of dtrace -G (the good ones and
# tests/integration/data/badtable.c's), and a few shared-memory images.
set -eu
cd "$(dirname "$0")/../.."
TOP=$PWD
DTRACE=$TOP/build/bin/dtrace
C=$TOP/tests/fuzz/corpus
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
rm -rf "$C"
mkdir -p "$C"/{provider,dprog,table,elf,shm}

# seed NAME FILE: FILE's bytes as a seed, named by their hash (duplicates once)
seed() { cp "$2" "$C/$1/$(sha1sum <"$2" | cut -c1-16)"; }

for f in tests/corpus/*.d tests/golden/*.d tests/integration/data/*.d samples/*/*.d \
	provider-support/*.d; do
	seed provider "$f"
done
for f in tests/d/*.d; do seed dprog "$f"; done

# objects and tables: the runtime tests' program and the http sample, with and without
# the objects -G checks; the crafted tables of tables.sh
cd "$W"
"$DTRACE" -h -s "$TOP/tests/integration/data/rt.d" -o rt.h
gcc -O1 -g0 -I. -c "$TOP/tests/integration/data/rtprog.c" -o rtprog.o
"$DTRACE" -G -s "$TOP/tests/integration/data/rt.d" -o rt_prov.o rtprog.o
"$DTRACE" -G -s "$TOP/tests/integration/data/rt.d" -o rt_noobj.o
seed elf rtprog.o
seed elf rt_prov.o
for o in rt_prov.o rt_noobj.o; do
	objcopy -O binary --only-section=.udtrace.table "$o" "$o.table"
	seed table "$o.table"
done
for v in SHORT MISALIGNED HUGE_CNT; do
	gcc -O1 -g0 -I"$TOP" -D$v -c "$TOP/tests/integration/data/badtable.c" -o bad.o
	objcopy -O binary --only-section=.udtrace.table bad.o bad.table
	seed table bad.table
done

# shared memory (tests/fuzz/fuzz_shm.c): policy, what is made well-formed, a word; then
# records of BEGIN's ECB (EPID 1) to be repeated over the image
for policy in 0 1 2; do
	for made in 0x60 0x20 0xe0; do
		printf "\\x$(printf %02x $policy)\\x${made#0x}\\x07" >shm
		printf '\x20\x00\x00\x00\x01\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00' >>shm
		printf '\x00\x00\x00\x00\x00\x00\x00\x00\x2a\x00\x00\x00\x00\x00\x00\x00' >>shm
		seed shm shm
	done
done
du -sh "$C"/*
