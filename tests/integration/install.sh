#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make install` (docs/install.md) and linking with the runtime as people
# write it: an installation staged with DESTDIR, then moved, still finds its
# runtime and its D libraries (dtrace -p loads the runtime into the sample
# server, whose args[1]->hri_uri needs provider-support/http.d; dtrace -c runs
# a program built with the installed dtrace -h, -G and headers); pkg-config;
# -ludtrace under --as-needed with each linker here, libudtrace.a in a
# dynamic and a static program.
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
HTTPD=$BUILD/samples/http/httpd
cd "$WORK" || exit 1
san=
case $BUILD in */asan) san=1 ;; esac

# make_install ARGS...: install this build with ARGS (PREFIX=, DESTDIR=)
make_install() {
	make --no-print-directory -C "$TOP" BUILD="$BUILD" SAN="$san" install "$@" >install.log 2>&1 ||
		{ fail "make install $*" "$(tail -5 install.log)"; finish; exit; }
}

# -- Staged, then moved -----------------------------------------------------------------

make_install PREFIX=/opt/udtrace DESTDIR="$WORK/stage"
(cd stage/opt/udtrace && find . -type f -o -type l | sort) >files
expect_eq "make install: the commands, the runtime and its links, headers, pkg-config, D libraries, man pages" \
	"$(cat files)" "./bin/dtrace
./bin/plockstat
./include/udtrace/sdt.h
./include/udtrace/udtrace.h
./lib/libudtrace-needed.o
./lib/libudtrace-objs.a
./lib/libudtrace.a
./lib/libudtrace.so
./lib/libudtrace.so.1
./lib/libudtrace.so.1.0.0
./lib/pkgconfig/udtrace.pc
$(cd "$TOP/provider-support" && ls *.d | sed 's|^|./lib/udtrace/provider-support/|')
./share/man/man1/dtrace.1
./share/man/man1/plockstat.1"
expect_eq "the soname link" "$(readlink stage/opt/udtrace/lib/libudtrace.so.1)" "libudtrace.so.1.0.0"
expect_eq "the library's soname" \
	"$(readelf -d stage/opt/udtrace/lib/libudtrace.so.1.0.0 | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')" \
	"libudtrace.so.1"
expect_eq "udtrace.pc: paths under PREFIX, not DESTDIR" \
	"$(grep -E '^(libdir|includedir)=' stage/opt/udtrace/lib/pkgconfig/udtrace.pc)" \
	"libdir=/opt/udtrace/lib
includedir=/opt/udtrace/include"
if have man; then
	expect_eq "dtrace(1) renders" "$(man -l stage/opt/udtrace/share/man/man1/dtrace.1 2>/dev/null |
		sed -n '/^NAME/{n;p}' | sed 's/^ *//')" \
		"dtrace  - userland DTrace: trace the probes of running processes; build"
	expect_eq "plockstat(1) renders" "$(man -l stage/opt/udtrace/share/man/man1/plockstat.1 2>/dev/null |
		sed -n '/^NAME/{n;p}' | sed 's/^ *//')" \
		"plockstat  -  report  user-level  lock  contention  and hold times of a"
fi

mv stage/opt/udtrace moved
M=$WORK/moved
expect_eq "the moved dtrace runs" "$("$M/bin/dtrace" --version)" "udtrace 0.1 (Sun D 1.13)"

# plockstat runs the moved dtrace beside it: a contended mutex's block, named
cat >contend.c <<'EOF2'
#include <pthread.h>
#include <unistd.h>
pthread_mutex_t contended = PTHREAD_MUTEX_INITIALIZER;
static void *waiter(void *a) { pthread_mutex_lock(&contended); pthread_mutex_unlock(&contended); return a; }
int main(void)
{
	pthread_t t;
	pthread_mutex_lock(&contended);
	pthread_create(&t, NULL, waiter, NULL);
	usleep(100000); /* (a block or not: the check below is of the name, either way) */
	pthread_mutex_unlock(&contended);
	pthread_join(t, NULL);
	return 0;
}
EOF2
cc -O2 -g -pthread -o contend contend.c || fail "build contend"
"$M/bin/plockstat" -H ./contend >plk.out 2>plk.err
expect_eq "moved: plockstat runs its dtrace, names the lock and its holder, says nothing" \
	"$(awk '$3 == "contend`contended" && $4 ~ /^contend`main\+/ { n++ } END { print n + 0 }' plk.out):$(cat plk.err)" "1:"

# -p: the sample server, linked without the runtime, gets the moved installation's
"$HTTPD" --port 0 --root "$TOP/samples/http/www" >httpd.out 2>httpd.err &
spid=$!
wait_for httpd.out '^listening on' || fail "the sample server starts" "$(cat httpd.err)"
addr=$(sed -n 's/^listening on //p' httpd.out)
"$M/bin/dtrace" -q -n 'http*:::request-start { printf("%s\n", args[1]->hri_uri); exit(0); }' \
	-p "$spid" >http.out 2>http.err &
dpid=$!
for _ in $(seq 100); do
	grep -q 'request-start\|^/' http.out http.err 2>/dev/null && break
	exec 6<>"/dev/tcp/${addr%:*}/${addr#*:}"
	printf 'GET /index.html HTTP/1.0\r\n\r\n' >&6
	cat <&6 >/dev/null
	exec 6<&-
	sleep 0.1
done
wait "$dpid"
expect_eq "moved: -p loaded its runtime, and read http.d from its libdir (args[1]->hri_uri)" \
	"$(cat http.out http.err | grep -v '^$')" "/index.html"
expect_eq "moved: the runtime in the server is the moved installation's" \
	"$(awk '/libudtrace/ { print $6 }' "/proc/$spid/maps" | sort -u)" "$M/lib/libudtrace.so.1.0.0"
kill "$spid"
wait "$spid" 2>/dev/null

# -c: a program built with the moved dtrace -h, -G and headers, the README's recipe
"$M/bin/dtrace" -h -s "$D/inj.d" -o inj.h &&
	cc -O2 -I. -c "$D/injprog.c" -o injprog.o &&
	"$M/bin/dtrace" -G -s "$D/inj.d" -o inj_prov.o injprog.o &&
	cc -o injprog injprog.o inj_prov.o ||
	fail "build with the moved installation's dtrace -h and -G"
out=$("$M/bin/dtrace" -q -n 'inj$target:::result { printf("result %d\n", arg0); }' \
	-c './injprog sleep 10' 2>/dev/null | grep -v '^$')
expect_eq "moved: -c traces the command, its runtime preloaded" "$out" "nanosleep: 0, errno 0 (none)
slept its full 10 ms: yes
result 0"

# -- pkg-config and -ludtrace -----------------------------------------------------------

make_install PREFIX="$WORK/inst"
export PKG_CONFIG_PATH=$WORK/inst/lib/pkgconfig
if have pkg-config; then
	expect_eq "pkg-config finds udtrace" "$(pkg-config --modversion udtrace)" "0.1"
	# shellcheck disable=SC2046
	cc -o pc_prog injprog.o inj_prov.o $(pkg-config --libs udtrace) &&
		check "pkg-config --libs: the runtime NEEDED, found without LD_LIBRARY_PATH" \
			sh -c "readelf -d pc_prog | grep -q 'NEEDED.*libudtrace.so.1' && ./pc_prog sleep 0 >/dev/null 2>&1"
	# shellcheck disable=SC2046
	cc $(pkg-config --cflags udtrace) -fsyntax-only -x c - <<<'#include <udtrace/sdt.h>' &&
		ok "pkg-config --cflags: the headers" || fail "pkg-config --cflags: the headers"
else
	skip "pkg-config" "pkg-config is not installed"
fi

# -ludtrace, as written, under each linker's --as-needed (gcc's default here)
for ld in bfd gold lld; do
	if ! cc -fuse-ld=$ld -Wl,--as-needed -o ld_$ld injprog.o inj_prov.o -L"$BUILD/lib" \
		-Wl,-rpath,"$BUILD/lib" -ludtrace 2>ld_$ld.err; then
		if grep -q "cannot find\|invalid linker\|unrecognized" ld_$ld.err; then
			skip "-ludtrace with ld.$ld" "no ld.$ld here"
		else
			fail "-ludtrace with ld.$ld: links" "$(cat ld_$ld.err)"
		fi
		continue
	fi
	expect_eq "-ludtrace under --as-needed, ld.$ld: the runtime is NEEDED" \
		"$(readelf -d ld_$ld | grep -c 'NEEDED.*libudtrace.so.1')" 1
done
cc -Wl,--as-needed -Wl,--gc-sections -o gc_prog injprog.o inj_prov.o -L"$BUILD/lib" \
	-Wl,-rpath,"$BUILD/lib" -ludtrace &&
	expect_eq "-ludtrace with --gc-sections: still NEEDED" \
		"$(readelf -d gc_prog | grep -c 'NEEDED.*libudtrace.so.1')" 1

# the runtime linked in from the start: dtrace -p loads nothing, it uses that one
rm -f lk.in
mkfifo lk.in
./ld_bfd read <lk.in >lk.out 2>lk.err &
lpid=$!
exec 5>lk.in
wait_for lk.err ready
maps=$(awk '/libudtrace/ { print $6 }' "/proc/$lpid/maps" | sort -u)
"$DTRACE" -q -n 'inj$target:::result { printf("%d\n", arg0); exit(0); }' -p "$lpid" >lk.dt 2>&1 &
dpid=$!
wait_enabled "$lpid" ld_bfd inj_result_semaphore || fail "linked: dtrace enabled inj:::result"
echo "linked" >&5
exec 5>&-
wait "$lpid"
wait "$dpid"
expect_eq "linked with -ludtrace: traced with the runtime it started with" \
	"$(cat lk.dt):$(echo "$maps" | wc -l)" "7:1"

# libudtrace.a: the runtime inside the program, dynamic or static
cc -o a_prog injprog.o inj_prov.o "$BUILD/lib/libudtrace.a" 2>a.err
expect_eq "libudtrace.a in a dynamic link: the runtime is in the executable, no library NEEDED" \
	"$(nm a_prog | grep -cw 'udt__control'):$(readelf -d a_prog | grep -c 'NEEDED.*udtrace')" "1:0"
out=$("$DTRACE" -q -n 'inj$target:::result { printf("result %d\n", arg0); }' -c './a_prog sleep 10' \
	2>/dev/null | grep '^result')
expect_eq "libudtrace.a: traced (-c)" "$out" "result 0"
if cc -static -o s_prog injprog.o inj_prov.o -L"$BUILD/lib" -ludtrace 2>s.err; then
	expect_eq "-static -ludtrace: a static program with the runtime in it" \
		"$(nm s_prog | grep -c ' T udt__fire$'):$(readelf -l s_prog | grep -c INTERP)" "1:0"
	out=$("$DTRACE" -q -n 'inj$target:::result { printf("result %d\n", arg0); }' \
		-c './s_prog sleep 10' 2>/dev/null | grep '^result')
	expect_eq "-static -ludtrace: traced (-c)" "$out" "result 0"
	rm -f st.in
	mkfifo st.in
	./s_prog read <st.in >st.out 2>st.err &
	stpid=$!
	exec 5>st.in
	wait_for st.err ready
	"$DTRACE" -q -n 'inj$target:::result { printf("%d\n", arg0); exit(0); }' -p "$stpid" \
		>st.dt 2>&1 &
	dpid=$!
	wait_enabled "$stpid" s_prog inj_result_semaphore || fail "static: dtrace enabled inj:::result"
	echo "static" >&5
	exec 5>&-
	wait "$stpid"
	wait "$dpid"
	expect_eq "-static -ludtrace: traced (-p)" "$(cat st.dt)" "7"
else
	skip "a static program with the runtime" "no static C library: $(head -1 s.err)"
fi

finish
