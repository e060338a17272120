#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Output other tools read (docs/output.md): -x oformat=json, jsonl and xml as
# FreeBSD's dtrace writes them, read by the real readers (jq, Python's json,
# xmllint): every kind of record (trace() of each width and sign and of
# strings with every byte, printf(), printa() of each aggregating function,
# ustack() and the address functions, tracemem(), print(), exit()), drops,
# faults and the ERROR probe, a trace stopped by ^C and by exit(), -O and
# --libxo; the values checked against what the text output says of the same
# session.
. "$(dirname "$0")/../lib.sh"

RT=$BUILD/lib/libudtrace.so.1
cd "$WORK" || exit 1
build_rtprog

if ! have jq || ! have xmllint; then
	skip "structured output" "jq and xmllint (libxml2-utils) are needed to read it"
	finish
	exit
fi

# valid_json NAME FILE: Python's json reads FILE whole
valid_json() {
	check "$1" python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$2"
}
# jqe NAME FILE FILTER: jq -e FILTER over FILE is true
jqe() {
	local out
	if out=$(jq -e "$3" "$2" 2>&1); then ok "$1"; else fail "$1" "jq -e '$3': $out" "$(head -c 600 "$2")"; fi
}

# -- trace(), printf(), strings of every byte -------------------------------------------------

"$DTRACE" -x oformat=json -n 'BEGIN {
	trace((char)-1); trace((short)-2); trace((int)-3); trace((long)-4);
	trace((unsigned char)255); trace((unsigned int)4000000000); trace(0xffffffffffffffff);
	trace("q\"b\\s/n\nt\tc\001e\377");
	printf("%d-%s-%x\n", 42, "str", 255);
	exit(0);
}' >t.json 2>t.err
expect_eq "json: dtrace exits 0" "$?" 0
valid_json "json: Python reads the document" t.json
jqe "json: one probe object, dtrace:::BEGIN, with its CPU, ID and thread" t.json \
	'.dtrace.probes | length == 1 and (.[0] | .provider == "dtrace" and .module == "" and
	 .function == "" and .name == "BEGIN" and .id == 1 and (.cpu | type) == "number" and
	 .tid > 0 and .pid == .tid and .timestamp > 0)'
jqe "json: trace() of each width, signed and unsigned, as numbers" t.json \
	'[.dtrace.probes[0].output[0:7][].value] == [-1, -2, -3, -4, 255, 4000000000, 18446744073709551615]'
got=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
print(ascii(d["dtrace"]["probes"][0]["output"][7]["value"]))' t.json)
expect_eq "json: a string keeps every byte (quote, backslash, slash, controls; a stray 0xff is U+00FF)" \
	"$got" "'q\"b\\\\s/n\\nt\\tc\\x01e\\xff'"
jqe "json: printf() is its message, then each argument's value (FreeBSD's)" t.json \
	'.dtrace.probes[0].output[8:12] == [{"message": "42-str-ff\n"}, {"value": 42},
	 {"value": "str"}, {"value": 255}]'
jqe "json: exit() records nothing more" t.json '.dtrace.probes[0].output | length == 12'

# the text of the same clause says the same message
"$DTRACE" -q -n 'BEGIN { printf("%d-%s-%x\n", 42, "str", 255); exit(0); }' >t.txt 2>/dev/null
expect_eq "json: printf()'s message is the text output's" \
	"$(jq -r '.dtrace.probes[0].output[8].message' t.json)" "$(cat t.txt)"

# -- printa() of each aggregating function ---------------------------------------------------

"$DTRACE" -q -x oformat=json -n 'BEGIN {
	@c["k"] = count(); @c["k"] = count(); @c["j"] = count();
	@s = sum(5); @s = sum(7); @a = avg(2); @a = avg(4); @mi = min(2); @mi = min(4);
	@ma = max(2); @ma = max(4); @sd = stddev(2); @sd = stddev(4);
	@q = quantize(10); @q = quantize(1000); @l = lquantize(3, 0, 10, 2); @l = lquantize(-5, 0, 10, 2);
	@ll = llquantize(50, 10, 0, 3, 10);
	printa(@c); printa(@s); printa(@a); printa(@mi); printa(@ma); printa(@sd);
	printa(@q); printa(@l); printa(@ll); printa("%s=%@d;", @c);
	exit(0);
}' >a.json 2>a.err
valid_json "json printa: Python reads it" a.json
# agg NAME: the aggregation object of that name printed without a format
agg() { echo ".dtrace.probes[0].output | map(select(.\"aggregation-name\" == \"$1\"))[0]"; }
jqe "json printa: count(), keyed, sorted by value as the text" a.json \
	"$(agg c).\"aggregation-data\" == [{\"keys\": [\"j\"], \"count\": 1}, {\"keys\": [\"k\"], \"count\": 2}]"
jqe "json printa: sum()" a.json "$(agg s).\"aggregation-data\" == [{\"keys\": [], \"sum\": 12}]"
jqe "json printa: avg()" a.json "$(agg a).\"aggregation-data\" == [{\"keys\": [], \"avg\": 3}]"
jqe "json printa: min()" a.json "$(agg mi).\"aggregation-data\" == [{\"keys\": [], \"min\": 2}]"
jqe "json printa: max()" a.json "$(agg ma).\"aggregation-data\" == [{\"keys\": [], \"max\": 4}]"
jqe "json printa: stddev()" a.json "$(agg sd).\"aggregation-data\" == [{\"keys\": [], \"stddev\": 1}]"
jqe "json printa: quantize() as buckets of value and count, around the used ones" a.json \
	"$(agg q).\"aggregation-data\"[0].buckets | (map(select(.count > 0)) ==
	 [{\"value\": 8, \"count\": 1}, {\"value\": 512, \"count\": 1}]) and .[0].value == 4 and
	 .[-1].value == 1024"
jqe "json printa: lquantize(), its underflow bucket marked" a.json \
	"$(agg l).\"aggregation-data\"[0].buckets | map(select(.count > 0)) ==
	 [{\"value\": 0, \"count\": 1, \"underflow\": true}, {\"value\": 2, \"count\": 1}]"
jqe "json printa: llquantize(): 50 in the bucket from 50" a.json \
	"$(agg ll).\"aggregation-data\"[0].buckets | map(select(.count > 0)) == [{\"value\": 50, \"count\": 1}]"
jqe "json printa: with a format, each entry's message too" a.json \
	'[.dtrace.probes[0].output[-1]."aggregation-data"[].message] == ["j=1;", "k=2;"]'
# the distribution's counts are the text output's
"$DTRACE" -q -n 'BEGIN { @q = quantize(10); @q = quantize(1000); printa(@q); exit(0); }' >q.txt 2>/dev/null
expect_eq "json printa: quantize()'s buckets are the rows of the text's distribution" \
	"$(jq -r "$(agg q).\"aggregation-data\"[0].buckets[] | \"\\(.value) \\(.count)\"" a.json)" \
	"$(awk '/\|/ { print $1, $NF }' q.txt)"

# at exit: FreeBSD prints the aggregations only with -O
"$DTRACE" -x oformat=json -n 'BEGIN { @n[1, "a"] = count(); exit(0); }' >x.json 2>/dev/null
jqe "json: without -O no aggregation at exit (FreeBSD's)" x.json \
	'[.dtrace.probes[] | select(.name == "AGGREGATIONS")] == []'
"$DTRACE" -O -x oformat=json -n 'BEGIN { @n[1, "a"] = count(); exit(0); }' >x.json 2>/dev/null
jqe "json -O: the aggregations at exit, an integer and a string key" x.json \
	'.dtrace.probes[-1] | .name == "AGGREGATIONS" and .module == "INTERNAL" and
	 .output == [{"aggregation-name": "n", "aggregation-data": [{"keys": [1, "a"], "count": 1}]}]'
"$DTRACE" -O --libxo json -n 'BEGIN { @n[1, "a"] = count(); exit(0); }' >lx.json 2>/dev/null
expect_eq "--libxo json: the same as -x oformat=json" \
	"$(jq -c '.dtrace.probes[-1].output' lx.json)" "$(jq -c '.dtrace.probes[-1].output' x.json)"

# -- stacks, addresses, memory, print() in a process ------------------------------------------

"$DTRACE" -x oformat=json -n 'rt*:::once { ustack(); usym(uregs[R_PC]); umod(uregs[R_PC]);
	tracemem(copyin(arg1, 5), 5); print(arg0); }' -c './rtprog bad' >s.json 2>s.err
valid_json "json ustack: Python reads it" s.json
jqe "json ustack(): frames, the probe's function first, _start last (FreeBSD's ustack-frames)" s.json \
	'.dtrace.probes[0].output[0]."ustack-frames" | (.[0] | .module == "rtprog" and .name == "main" and
	 (.symbol | startswith("rtprog`main+0x")) and (.offset | startswith("0x"))) and .[-1].name == "_start"'
jqe "json usym(), umod()" s.json \
	'.dtrace.probes[0].output[1:3] == [{"usym": "rtprog`main"}, {"umod": "rtprog"}]'
jqe "json tracemem(): the bytes in hex" s.json \
	'.dtrace.probes[0].output[3] == {"tracemem": "6166746572"}'
jqe "json print(): the type, and the text print() prints" s.json \
	'.dtrace.probes[0].output[4] == {"type": "int64_t", "print": "int64_t 0x7\n"}'

# -- drops, faults, the ERROR probe ----------------------------------------------------------

"$DTRACE" -x oformat=jsonl -b 4k -x switchrate=1000hz -n 'rt*:::tick { trace(arg1); }' \
	-c './rtprog ticks 20000 2' >d.jsonl 2>d.err
check "jsonl: every line is a JSON object" python3 -c 'import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
	assert isinstance(json.loads(line), dict)' d.jsonl
printed=$(jq -s '[.[] | select(.name == "tick")] | length' d.jsonl)
dropped=$(jq -s '[.[] | select(.name == "DROP") | .count] | add // 0' d.jsonl)
said=$(sed -n 's/^dtrace: \([0-9]*\) drops\{0,1\} on thread .*/\1/p' d.err | paste -sd+ - | bc)
expect_eq "jsonl drops: records plus DROP counts are the probes fired (40000)" \
	"$((printed + dropped))" 40000
expect_eq "jsonl drops: the DROP objects count what stderr says" "$dropped" "${said:-0}"
if [ "$dropped" -gt 0 ]; then
	jqe "jsonl drops: a DROP is dtrace:INTERNAL:INTERNAL:DROP of kind 0 with its thread" d.jsonl \
		'select(.name == "DROP") | .provider == "dtrace" and .module == "INTERNAL" and .id == -1 and
		 .kind == 0 and .tid > 0 and (.msg | test("drops? on thread")) and .total >= .count'
else
	skip "jsonl drops: the DROP object" "no record was dropped this time"
fi

"$DTRACE" -x oformat=json -n 'rt*:::bad { trace(*args[0]); } dtrace:::ERROR { trace(arg4); trace(arg5); }' \
	-c './rtprog bad' >e.json 2>e.err
valid_json "json faults: Python reads it" e.json
jqe "json faults: each fault a dtrace:INTERNAL:INTERNAL:ERROR object, in DTrace's words" e.json \
	'[.dtrace.probes[] | select(.module == "INTERNAL" and .name == "ERROR") | .msg] | length == 2 and
	 (.[0] | test("^error on enabled probe ID [0-9]+ \\(ID [0-9]+: rt[0-9]+:rtprog:main:bad\\): invalid address \\(0x0\\) in action #1"))'
jqe "json faults: the ERROR probe's records first, with the fault type and address" e.json \
	'[.dtrace.probes[] | select(.provider == "dtrace" and .module == "" and .name == "ERROR") | .output] ==
	 [[{"value": 1}, {"value": 0}], [{"value": 1}, {"value": 16}]]'
jqe "json faults: the good pointer's value (42) recorded" e.json \
	'[.dtrace.probes[] | select(.name == "bad") | .output[0].value] == [42]'
expect_eq "json faults: stderr says them as ever" "$(grep -c 'invalid address' e.err)" 2

# -- a trace stopped by ^C, and written to -o's file -----------------------------------------

mkfifo ctl
LD_PRELOAD=$RT ./rtprog loop <ctl >loop.out 2>loop.err &
lpid=$!
exec 4>ctl
wait_for loop.err '^ready' || fail "the looping program started" "$(cat loop.err)"
"$DTRACE" -x oformat=json -o int.json -n 'rt*:::tick { trace(arg1); }' -p "$lpid" 2>int.err &
dpid=$!
# (the records reach the file each round; a loaded machine may take a while to attach)
for _ in $(seq 600); do grep -q '"name":"tick"' int.json 2>/dev/null && break; sleep 0.1; done
kill -INT "$dpid"
wait "$dpid"
rc=$?
exec 4>&-
wait "$lpid"
expect_eq "json ^C: dtrace exits 0" "$rc" 0
valid_json "json ^C: the document is closed (Python reads it)" int.json
jqe "json ^C: the records are there, in order" int.json \
	'[.dtrace.probes[].output[0].value] | length > 0 and . == sort'

# -- XML ---------------------------------------------------------------------------------------

"$DTRACE" -x oformat=xml -n 'BEGIN { trace(1); trace("<a&b>"); printf("%d\n", 2); @c["x"] = count(); printa(@c); exit(0); }' \
	>o.xml 2>o.err
check "xml: xmllint reads it" xmllint --noout o.xml
expect_eq "xml: libxo's shape: <dtrace><probes> with the values in <output>" \
	"$(xmllint --xpath 'concat(/dtrace/probes/name, ":", /dtrace/probes/output[1]/value, ":",
		/dtrace/probes/output[2]/value, ":", /dtrace/probes/output[5]/aggregation-data/count)' o.xml)" \
	"BEGIN:1:<a&b>:1"

# -- options ------------------------------------------------------------------------------------

out=$("$DTRACE" -x oformat=yaml -n 'BEGIN { exit(0); }' 2>&1)
expect_eq "oformat: an unknown format is refused, as DTrace refuses a bad value" "$?:$out" \
	"1:dtrace: failed to set -x oformat: Invalid value for specified option"
"$DTRACE" -s /dev/stdin >p.json 2>/dev/null <<'EOF'
#pragma D option oformat=json,pretty
BEGIN { trace(7); exit(0); }
EOF
valid_json "json,pretty from a #pragma: Python reads it" p.json
within "json,pretty: indented, a member a line" "$(grep -c '^ ' p.json)" 8 1000

finish
