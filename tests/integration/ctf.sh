#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CTF traces (-x ctfdir=DIR, docs/output.md "CTF"), read by the real reader,
# babeltrace2: the sample server's request-start probe traced under
# concurrent load (an event for each request the server says it served, each
# with its uri field the URI requested), each kind of field (integers of
# each width, strings, printf(), ustack() and addresses, tracemem(),
# print()), field names from the D expressions, a thread a stream, drops
# reported by babeltrace2 as discarded events, and the directory refused
# when it holds something.
. "$(dirname "$0")/../lib.sh"

HTTPD=$BUILD/samples/http/httpd
if ! have babeltrace2; then
	skip "CTF traces" "babeltrace2 is not installed (Debian's babeltrace2)"
	finish
	exit
fi
cd "$WORK" || exit 1
build_rtprog

# bt DIR: the events babeltrace2 reads from the trace in DIR, without the times
bt() {
	babeltrace2 --no-delta --clock-seconds "$1" 2>"$1.bt-err" | sed 's/^\[[0-9.]*\] //'
}

# -- fields -----------------------------------------------------------------------------------

"$DTRACE" -q -x ctfdir=t1 -n 'BEGIN { this->uri = "/index.html"; trace(this->uri);
	trace((char)-1); trace((unsigned short)65535); trace(-3); trace(1ull << 40);
	printf("%s=%d\n", "n", 7); trace(42); exit(0); }' >t1.out 2>t1.err
expect_eq "ctf: dtrace exits 0 and prints nothing (the records are in the trace)" "$?:$(cat t1.out)" "0:"
expect_eq "ctf: a metadata file and a stream for dtrace's thread" "$(ls t1 | sed 's/[0-9]*$//')" \
	"metadata
stream-"
check "ctf: the metadata says CTF 1.8" grep -q '^/\* CTF 1.8 \*/$' t1/metadata
ev=$(bt t1)
expect_eq "ctf: babeltrace2 reads one event, the BEGIN clause's, every field named and valued" \
	"$(echo "$ev" | sed 's/^.*dtrace:::BEGIN: //; s/vpid = [0-9]*, vtid = [0-9]*, cpu_id = [0-9]*/CTX/')" \
	'{ cpu_id = 0 }, { CTX }, { uri = "/index.html", arg1 = -1, arg2 = 65535, arg3 = -3, arg4 = 1099511627776, printf = "n=7\n", arg6 = "n", arg7 = 7, arg8 = 42 }'
expect_eq "ctf: the event's thread is dtrace's (the stream's name)" \
	"$(echo "$ev" | sed -n 's/.*vtid = \([0-9]*\).*/\1/p')" "$(ls t1 | sed -n 's/^stream-//p')"

# names from the expressions: a member, a variable, a builtin, a keyword, the same twice
"$DTRACE" -q -x ctfdir=t2 -n 'rt$target:::mem { self->string = 1; trace(self->string); trace(timestamp);
	trace(execname); trace(execname); trace(copyinstr(*(uintptr_t *)(arg0 + 24)));
	tracemem(arg0, 4); trace(usym(uregs[R_PC])); ustack(); print(arg1); }' -c './rtprog mem' \
	>t2.out 2>t2.err
ev=$(bt t2)
expect_eq "ctf: one event, rt:::mem's" "$(echo "$ev" | grep -c ':rtprog:main:mem: ')" 1
fields=$(echo "$ev" | sed 's/.*}, { //; s/ }$//' | grep -o '\(^\|, \)[a-z_0-9]* = ' | tr -d ',= ' | tr '\n' ' ')
expect_eq "ctf: fields named by the D expressions (a keyword kept, a second one numbered)" \
	"$fields" "string timestamp execname execname_2 arg4 tracemem_length tracemem usym ustack_length ustack arg1 "
expect_eq "ctf: the string the pointer points to (an expression without a name: its place)" \
	"$(echo "$ev" | grep -o 'arg4 = "[^"]*"')" 'arg4 = "a string"'
expect_eq "ctf: tracemem()'s 4 bytes (the struct's first: -8, 200, then -1600)" \
	"$(echo "$ev" | grep -o 'tracemem = \[\( \[[0-9]\] = [0-9]*,\?\)* \]')" \
	'tracemem = [ [0] = 248, [1] = 200, [2] = 192, [3] = 249 ]'
pc=$(echo "$ev" | sed -n 's/.*ustack = \[ \[0\] = \(0x[0-9a-f]*\).*/\1/p')
expect_eq "ctf: ustack()'s first frame is in main (its address, as the text names it)" \
	"$(echo "$ev" | sed -n 's/.*usym = \(0x[0-9a-f]*\).*/\1/p' | head -c 6)" "$(echo "$pc" | head -c 6)"
expect_eq "ctf: print() as its text" "$(echo "$ev" | grep -o 'arg1 = .*')" 'arg1 = "int64_t 0\n" }'

# -- the sample server under load: an event a request, its uri field ------------------------------

if ! have curl; then
	skip "ctf: the sample server under load" "curl is not installed"
else
	"$HTTPD" --port 0 --root "$TOP/samples/http/www" >httpd.out 2>httpd.err &
	spid=$!
	wait_for httpd.out '^listening on' || fail "the sample server starts" "$(cat httpd.err)"
	URL=http://$(sed -n 's/^listening on //p' httpd.out)
	"$DTRACE" -q -x ctfdir=http -n 'http*:::request-start { this->uri = args[1]->hri_uri;
		trace(this->uri); trace(args[1]->hri_method); }' -p "$spid" >http.out 2>http.err &
	dpid=$!
	wait_enabled "$spid" "$HTTPD" http_request__start_semaphore ||
		fail "ctf: dtrace -p enables request-start" "$(cat http.err)"
	for i in $(seq 40); do
		echo /index.html
		echo "/about.txt?n=$i"
		echo "/nothing-$i"
	done >urls
	xargs -P 8 -I{} curl -s -o /dev/null "$URL{}" <urls
	kill -INT "$dpid"
	wait "$dpid"
	expect_eq "ctf: dtrace -p ends on ^C" "$?" 0
	kill -TERM "$spid"
	wait "$spid"
	served=$(sed -n 's/^httpd: shut down after \([0-9]*\) requests$/\1/p' httpd.err)
	ev=$(bt http)
	expect_eq "ctf: as many request-start events as the server served requests ($(wc -l <urls))" \
		"$(echo "$ev" | grep -c ':request-start: ')" "$served"
	# (babeltrace2 writes '?' as "\?", as C does against trigraphs)
	expect_eq "ctf: each event's uri field is a URI requested, each once" \
		"$(echo "$ev" | sed -n 's/.*uri = "\([^"]*\)".*/\1/p' | sed 's/\\?/?/g' | sort | md5sum)" \
		"$(sort urls | md5sum)"
	expect_eq "ctf: each a GET" "$(echo "$ev" | grep -c 'hri_method = "GET"')" "$served"
	streams=$(ls http | grep -c '^stream-')
	threads=$(echo "$ev" | grep -o 'vtid = [0-9]*' | sort -u | wc -l)
	expect_eq "ctf: a stream for each thread that fired ($threads)" "$streams" "$threads"
	expect_eq "ctf: babeltrace2 has nothing to say" "$(cat http.bt-err)" ""
fi

# -- drops: discarded events ------------------------------------------------------------------------

"$DTRACE" -q -x ctfdir=drops -b 4k -x switchrate=1000hz -n 'rt*:::tick { trace(arg1); }' \
	-c './rtprog ticks 20000 2' >d.out 2>d.err
events=$(babeltrace2 drops 2>/dev/null | grep -c ':tick: ')
discarded=$(babeltrace2 drops 2>&1 >/dev/null | sed -n 's/.*[Tt]racer discarded \([0-9]*\) events\{0,1\}.*/\1/p' |
	paste -sd+ - | bc)
said=$(sed -n 's/^dtrace: \([0-9]*\) drops\{0,1\} on thread .*/\1/p' d.err | paste -sd+ - | bc)
expect_eq "ctf drops: events plus discarded ones are the probes fired (40000)" \
	"$((events + ${discarded:-0}))" 40000
expect_eq "ctf drops: babeltrace2's discarded events are dtrace's drops" "${discarded:-0}" "${said:-0}"

# -- refused ---------------------------------------------------------------------------------------

mkdir full && touch full/x
out=$("$DTRACE" -x ctfdir=full -n 'BEGIN { exit(0); }' 2>&1)
expect_eq "ctf: a directory that holds something is refused" "$?:$out" \
	"1:dtrace: failed to set -x ctfdir: full: not empty (a trace goes into a new directory)"
out=$("$DTRACE" -x ctfdir=none -x oformat=json -n 'BEGIN { exit(0); }' 2>&1)
expect_eq "ctf: not with -x oformat=json" "$?:$out" \
	"1:dtrace: failed to set -x ctfdir: the records go to a CTF trace or to -x oformat's output, not both"
"$DTRACE" -x ctfdir=bad -n 'BEGIN { trace(nosuchvar); }' >/dev/null 2>&1
expect_eq "ctf: a script that does not compile leaves no directory" "$(ls -d bad 2>&1 | grep -c 'No such')" 1

finish
