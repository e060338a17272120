#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SDT(9) probes (udtrace/sdt.h) end to end: the manual's examples built with
# gcc and g++, without `dtrace -G`; dtrace lists them with their module and
# argument types and traces them, both sites of ip:::receive, the translated
# ICMP probe through a library's translator; gdb and bpftrace see the sites.
. "$(dirname "$0")/../lib.sh"

D=$TOP/tests/integration/data
RT=$BUILD/lib/libudtrace.so.1
cd "$WORK" || exit 1
FLAGS="-O2 -g -Wall -Wextra -Werror -pedantic -I$SDK_INCLUDE"
# shellcheck disable=SC2086
gcc -std=c99 $FLAGS "$D/sdt_ip.c" -o sdt_ip &&
	g++ -x c++ -std=c++11 -Wold-style-cast $FLAGS "$D/sdt_ip.c" -o sdt_ip++ &&
	gcc $FLAGS "$D/sdt_xlate.c" -o sdt_xlate &&
	gcc $FLAGS -fPIC -shared -DSDT_LIB "$D/sdt_lib.c" -o libsdt.so &&
	gcc $FLAGS "$D/sdt_lib.c" -L. -lsdt -Wl,-rpath,"$WORK" -o sdt_lib &&
	gcc $FLAGS -DSDT_DLOPEN "$D/sdt_lib.c" -L"$BUILD/lib" -Wl,-rpath,"$BUILD/lib" \
		-ludtrace -ldl -o sdt_dlopen ||
	{ fail "build the SDT programs"; finish; exit; }

expect_eq "no -G object and no runtime needed to link and run" "$(./sdt_ip 3 2>/dev/null)" \
	"done 372"
expect_eq "no SDT symbol is left undefined but the runtime's weak ones" \
	"$(nm -u sdt_ip | grep -i sdt | sort | tr -s ' ' | tr '\n' ' ')" \
	" w udt__sdt_register  w udt__sdt_unregister "

# Listing: the module is the program's (left unspecified) or the one the definition names
list=$("$DTRACE" -l -c './sdt_ip 0' 2>/dev/null | awk 'NR > 1 && $2 != "dtrace" && $2 != "profile" { sub(/[0-9]+$/, "", $2); print $2, $3, $4, $5 }' | sort)
expect_eq "dtrace -l lists the SDT probes: provider, module, function, name (__ as -)" \
	"$(echo "$list" | tr '\n' '|')" \
	"icmp sdt_ip receive-unreachable |ip kmod ip_stats seven|ip sdt_ip none |ip sdt_ip receive |ip sdt_ip untyped |"
types=$("$DTRACE" -l -v -n 'ip$target:::receive' -n 'ip$target:::seven' -n 'ip$target:::untyped' \
	-c './sdt_ip 0' 2>/dev/null | grep -E 'args\[|None' | tr -d '\t' | tr '\n' '|')
expect_eq "dtrace -l -v shows the argument types as the definitions give them" "$types" \
	"args[0]: int|args[1]: unsigned int|args[2]: long long|args[3]: short|args[4]: unsigned char|args[5]: char *|args[6]: uint64_t|None|args[0]: struct ifnet *|args[1]: struct ip *|args[2]: struct ip6_hdr *|"

cat >ip.d <<'D'
struct ifnet { char if_xname[16]; int if_index; };
struct ip { unsigned char ip_vhl; unsigned char ip_tos; unsigned short ip_len; };
struct ip6_hdr { unsigned int ip6_flow; unsigned short ip6_plen; };
ip$target:::receive /args[1] != 0/ { printf("v4 %s %d len %d\n", args[0]->if_xname, args[0]->if_index, args[1]->ip_len); }
ip$target:::receive /args[2] != 0/ { printf("v6 %s plen %d flow %x\n", args[0]->if_xname, args[2]->ip6_plen, args[2]->ip6_flow); }
icmp$target:::receive-unreachable { printf("icmp %d\n", args[0] != 0); }
ip$target:::seven { printf("%d %u %d %d %u %s %u\n", args[0], args[1], args[2], args[3], args[4], copyinstr((uintptr_t)args[5]), args[6]); }
ip$target:::untyped { printf("untyped %d %d\n", arg0, arg1); }
ip$target:::none { printf("none\n"); }
D
want="v4 em0 2 len 84|v6 em0 plen 40 flow 60000000|icmp 1|none|untyped 0 0|-1 4000000000 -1234567890123 -2 255 str 18446744073709551615|v4 em0 2 len 84|v6 em0 plen 40 flow 60000000|icmp 1|none|untyped 1 -1|-1 4000000000 -1234567890123 -2 255 str 18446744073709551615|"
for prog in sdt_ip sdt_ip++; do
	out=$("$DTRACE" -q -s ip.d -c "./$prog 2" 2>err.txt | grep -v '^$\|^done' | tr '\n' '|')
	expect_eq "$prog: both sites of ip:::receive fire, args[] typed as defined (members, strings, widths)" \
		"$out" "$want"
done

# The manual's translated probe: args[0] is a struct icmp_hdr_dt * through the library's translator
expect_eq "_XLATE: dtrace -l -v shows the translated type" \
	"$("$DTRACE" -l -v -n 'ip$target:::receive' -c './sdt_xlate 0' 2>/dev/null | grep 'args\[' | tr -d '\t')" \
	"args[0]: struct icmp_hdr_dt *"
out=$("$DTRACE" -L "$D/sdt-lib" -q -n 'ip$target:::receive { printf("type %d code %d cksum %x\n",
	args[0]->type, args[0]->code, args[0]->checksum); }' -c './sdt_xlate 3' 2>&1 | grep -v '^$' | tr '\n' '|')
# (the program's "done" and dtrace's lines share the terminal: in either order)
expect_eq "_XLATE: traced through the translator" \
	"${out/done|/} $(grep -o 'done|' <<<"$out" | wc -l)" \
	"type 0 code 10 cksum beef|type 1 code 11 cksum beef|type 2 code 12 cksum beef| 1"

# In a shared library: its own module name
expect_eq "a provider in a shared library: the library is the module" \
	"$("$DTRACE" -l -n 'lib$target:::' -c ./sdt_lib 2>/dev/null | awk 'NR > 1 { print $3, $NF }')" \
	"libsdt.so call"
# (the program's "done" and dtrace's line share the terminal: in either order)
expect_eq "a provider in a shared library: traced" \
	"$("$DTRACE" -q -n 'lib$target:::call { printf("%d %s\n", args[0], copyinstr((uintptr_t)args[1])); }' \
		-c ./sdt_lib 2>/dev/null | grep -v '^$' | sort | tr '\n' '|')" "42 from main|done|"

# dtrace -p: a running process with the runtime preloaded (the registry, read from its memory)
rm -f ctl
mkfifo ctl
LD_PRELOAD=$RT ./sdt_ip loop <ctl >loop.out 2>loop.err &
lpid=$!
exec 4>ctl
wait_for loop.err '^ready' || fail "the SDT program started" "$(cat loop.err)"
expect_eq "dtrace -l -p lists a running process's SDT probes" \
	"$("$DTRACE" -l -n 'ip$target:::receive' -p "$lpid" 2>&1 | awk 'NR > 1 { print $2, $3, $NF }')" \
	"ip$lpid sdt_ip receive"
out=$("$DTRACE" -q -n 'ip$target:::receive /args[2] != 0/ { printf("v6 %d\n", args[2]->ip6_plen); exit(0); }
	struct ip6_hdr { unsigned int ip6_flow; unsigned short ip6_plen; };' -p "$lpid" 2>&1)
# (a struct after the clause is fine in D; keep the check to the value)
expect_eq "dtrace -p traces a running process's SDT probe" "$(echo "$out" | grep -v '^$')" "v6 40"
exec 4>&-
wait "$lpid"
expect_eq "the traced process ran on and ended normally" "$(sed 's/[0-9]*$/N/' loop.out)" "done N"

# dlopen after start: the provider's constructor registers it; dlclose unregisters it
rm -f dctl
mkfifo dctl
./sdt_dlopen <dctl >dl.out 2>dl.err &
dlpid=$!
exec 5>dctl
wait_line() { for _ in $(seq 1 100); do grep -q "^$1" dl.err && return 0; sleep 0.05; done; return 1; }
wait_line ready
listed() { "$DTRACE" -l -n 'lib$target:::' -p "$dlpid" 2>&1 | awk 'NR > 1 && !/^dtrace:/ { print $3, $NF } /does not match/ { print "none" }'; }
expect_eq "before dlopen: no lib provider" "$(listed)" "none"
echo open >&5
wait_line opened
expect_eq "dlopen'ed after the runtime started: registered by its constructor" "$(listed)" "libsdt.so call"
echo close >&5
wait_line closed
expect_eq "dlclose'd: unregistered" "$(listed)" "none"
exec 5>&-
wait "$dlpid"
expect_eq "the program ended normally" "$(cat dl.out)" "done"

# External tracers see the same sites
if gdb_usable; then
	out=$(gdb -nx -batch -ex 'info probes stap' ./sdt_ip 2>&1 | awk '$1 == "stap" { print $2, $3 }' | sort | tr '\n' '|')
	expect_eq "gdb lists the sites (ip:::receive twice)" "$out" \
		"icmp receive__unreachable|ip none|ip receive|ip receive|ip seven|ip untyped|"
	out=$(gdb -nx -batch -ex 'break -probe-stap ip:receive' -ex run \
		-ex 'p ((struct ip *)$_probe_arg1)->ip_len' -ex 'p $_probe_arg2' -ex continue \
		-ex 'p $_probe_arg1' -ex 'p ((struct ip6_hdr *)$_probe_arg2)->ip6_plen' \
		-ex 'kill' --args ./sdt_ip 1 2>&1 | sed -n 's/^\$[0-9]* = //p' | tr '\n' ' ')
	expect_eq "gdb stops at both sites of ip:receive and reads their arguments" "$out" "84 0 0 40 "
	out=$(gdb -nx -batch -ex 'break -probe-stap ip:seven' -ex run -ex 'p $_probe_arg0' \
		-ex 'p $_probe_arg1' -ex 'p $_probe_arg2' -ex 'p $_probe_arg3' -ex 'p $_probe_arg4' \
		-ex 'p (char *)$_probe_arg5' -ex 'kill' --args ./sdt_ip 1 2>&1 | sed -n 's/^\$[0-9]* = //p' | tr '\n' ' ')
	expect_eq "gdb reads integers of each sign and width, and a string" "$out" \
		'-1 4000000000 -1234567890123 -2 255 0x'"$(echo "$out" | sed -n 's/.* 0x\([0-9a-f]*\) .*/\1/p')"' "str" '
else
	skip "gdb" "$GDB_WHY"
fi
if have bpftrace; then
	expect_eq "bpftrace -l lists the probes" \
		"$(timeout 60 bpftrace -l "usdt:./sdt_ip:*" 2>&1 | sort | tr '\n' ' ')" \
		"usdt:./sdt_ip:icmp:receive__unreachable usdt:./sdt_ip:ip:none usdt:./sdt_ip:ip:receive usdt:./sdt_ip:ip:seven usdt:./sdt_ip:ip:untyped "
else
	skip "bpftrace" "bpftrace is not installed"
fi
finish
