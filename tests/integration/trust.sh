#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The traced program is untrusted: tests/integration/data/scribbler.c writes
# over each field of the shared memory's header, the hash bits of its
# aggregation tables and the dynamic variable space's header once dtrace has
# read its first record; it tries to shrink and grow the memory; it makes the
# memory unsealed. dtrace says so once, reads no more of it, prints what it
# had read and exits 1; it never crashes nor trips a sanitizer (make check)
# (docs/runtime.md, "Trust").
. "$(dirname "$0")/../lib.sh"
cd "$WORK" || exit 1
D=$TOP/tests/integration/data
if ! ("$DTRACE" -h -s "$D/rt.d" -o rt.h &&
	gcc -O2 -g -Wall -Wextra -I. -I"$TOP" -c "$D/scribbler.c" -o scribbler.o &&
	"$DTRACE" -G -s "$D/rt.d" -o prov.o scribbler.o &&
	gcc scribbler.o prov.o -o scribbler -ldl); then
	fail "build the scribbler"
	finish
	exit
fi

S='rt*:::once { printf("%s %d\n", copyinstr(arg1), arg0); @n = count(); g = arg0; a[arg0] = arg0; }'

# run WHAT [OPTION...]: the scribbler traced; out, err and rc
run() {
	local w=$1
	shift
	SCRIBBLE=$w "$DTRACE" -q "$@" -n "$S" -c ./scribbler </dev/null >out 2>err
	rc=$?
}
clean() { ! grep -qE 'Sanitizer|runtime error|Segmentation|core dumped' err; }

# corrupted WHAT MESSAGE [OPTION...]: said once, what was read printed, exit 1
corrupted() {
	local w=$1 msg=$2
	shift 2
	run "$w" "$@"
	local n
	n=$(grep -c "^dtrace: pid [0-9]* corrupted the buffers it shares with dtrace ($msg): no more is read from them$" err)
	if [ $rc -eq 1 ] && [ "$n" = 1 ] && clean && { [ $# -gt 0 ] || grep -q '^before 1$' out; }; then
		ok "$w$([ $# -gt 0 ] && echo " ($*)"): said once, dtrace exits 1"
	else
		fail "$w$([ $# -gt 0 ] && echo " ($*)"): said once, dtrace exits 1" "exit $rc" \
			"$(head -c 1500 err)" "$(head -5 out)"
	fi
}

for f in size magic version session total_sz bufsize policy tbuf_max tbuf_off data_off \
	agg_off aggsize tvar_off tvarsize gvar_off ngvars spec_off spec_data_off nspec specsize \
	ring_chunk tlocal_off tlocal_sz gstr_off dyn_off dyn_sz; do
	corrupted "$f" "the header's $f changed"
done
for f in size chunk_sz hash_bits chunk_cnt chunks_off; do
	corrupted "dynhdr_$f" "the dynamic variable space's $f changed"
done
corrupted hash "the aggregation table of thread [0-9]*"
corrupted data_off "the header's data_off changed" -x bufpolicy=ring
corrupted tbuf_off "the header's tbuf_off changed" -x bufpolicy=fill

# the count of buffers handed out only grows past what dtrace reads: nothing to say
run tbuf_cnt
if [ $rc -eq 0 ] && clean && [ "$(grep -E '^(before|after)' out)" = "$(printf 'before 1\nafter 2')" ] &&
	! grep -q corrupted err; then
	ok "tbuf_cnt: dtrace reads the buffers it knows"
else
	fail "tbuf_cnt: dtrace reads the buffers it knows" "exit $rc" "$(cat err out)"
fi

# the memory is sealed: the program can neither shrink nor grow it
run truncate
if [ $rc -eq 0 ] && clean && grep -q '^scribbler: shrink: Operation not permitted$' err &&
	grep -q '^scribbler: grow: Operation not permitted$' err &&
	[ "$(grep -E '^(before|after)' out)" = "$(printf 'before 1\nafter 2')" ]; then
	ok "the memory can neither shrink nor grow; dtrace reads it all"
else
	fail "the memory can neither shrink nor grow; dtrace reads it all" "exit $rc" "$(cat err out)"
fi

# a memory that is not sealed is not mapped
run unsealed
if [ $rc -eq 1 ] && clean &&
	grep -q "^dtrace: pid [0-9]* corrupted the buffers it shares with dtrace (its memory is not sealed against resizing)" err; then
	ok "an unsealed memory is refused"
else
	fail "an unsealed memory is refused" "exit $rc" "$(cat err out)"
fi
finish
