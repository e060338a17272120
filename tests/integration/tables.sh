#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Probe tables are data from the traced program: a table shorter than its
# header, one with misaligned records and one whose counts reach far past it
# (tests/integration/data/badtable.c), linked after a good one, are skipped;
# dtrace lists the good table's probes as it does without them, and neither
# crashes nor trips a sanitizer (make check) (docs/runtime.md, "Trust").
. "$(dirname "$0")/../lib.sh"

build_rtprog
cd "$WORK" || exit 1
D=$TOP/tests/integration/data

# the probes dtrace lists for DIR/rtprog, the pid taken out of the provider names
# (and the columns' padding, which follows the pid's width)
list() {
	(cd "$1" && "$DTRACE" -l -c "./rtprog idle" </dev/null >out 2>err; echo "exit $?" >>err)
	sed 's/rt[0-9][0-9]*/rtPID/; s/  */ /g' "$1/out"
}

mkdir good && cp rtprog good/
want=$(list good)
case $want in *rtPID*once*) ;; *) fail "the good program's probes are listed" "$want" ;; esac
for v in SHORT MISALIGNED HUGE_CNT; do
	mkdir $v
	if ! gcc -O2 -I"$TOP" -D$v -c "$D/badtable.c" -o bad_$v.o ||
		! gcc rtprog.o rtprog_prov.o bad_$v.o -o $v/rtprog -lpthread; then
		fail "build a program with a $v table"
		continue
	fi
	got=$(list $v)
	if [ "$got" = "$want" ] && grep -q '^exit 0$' $v/err &&
		! grep -qE 'Sanitizer|runtime error' $v/err; then
		ok "a $v table is skipped, the good one listed"
	else
		fail "a $v table is skipped, the good one listed" "$(cat $v/err)" \
			"$(diff <(echo "$want") <(echo "$got") | head -20)"
	fi
done
finish
