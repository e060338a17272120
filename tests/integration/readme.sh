#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the README and dtrace(1) tell a newcomer, exactly as written: the
# set-up line names what .ci/run installs on a fresh machine, the build
# recipe (extracted from README.md) builds a program dtrace traces, and
# every option dtrace's usage text prints is described in its man page.
. "$(dirname "$0")/../lib.sh"

README=$TOP/README.md
cd "$WORK" || exit 1

# -- The set-up line: the same packages as .ci/run's
readme_pkgs=$(awk '/^## Set up/ { s = 1 } s && /^apt-get install/ { sub(/^apt-get install /, ""); print; exit }' \
	"$README" | tr ' ' '\n' | grep . | sort)
ci_pkgs=$(sed -n '/^pkgs=(/,/)/p' "$TOP/.ci/run" | sed 's/^pkgs=(//; s/)//' | tr ' \t' '\n\n' |
	grep . | sort)
expect_eq "the README's apt-get line names every package .ci/run installs" \
	"$(comm -13 <(echo "$readme_pkgs") <(echo "$ci_pkgs") | tr '\n' ' ')" ""
expect_eq "and nothing .ci/run does not install" \
	"$(comm -23 <(echo "$readme_pkgs") <(echo "$ci_pkgs") | tr '\n' ' ')" ""
check "the README says to build with make -j\"\$(nproc)\"" grep -q '^make -j"$(nproc)"' "$README"

# -- The build recipe, as printed
awk '/^## Using it in a build/ { s = 1 } s && /^```make/ { m = 1; next } m && /^```/ { exit } m' \
	"$README" >Makefile
check "the README's recipe is a Makefile whose first target is all" \
	grep -q '^all: server$' <(head -1 Makefile)
cat >provider.d <<'D'
provider newcomer {
	probe tick(int);
};
D
cat >server.c <<'C'
#include "provider.h"
int main(void)
{
	for (int i = 0; i < 3; i++)
		NEWCOMER_TICK(i);
	return 0;
}
C
PATH=$BUILD/bin:$PATH make >make.out 2>&1
rc=$?
expect_eq "make, run as the README says, builds server" "$rc:$([ -x server ] && echo built)" "0:built"
out=$(PATH=$BUILD/bin:$PATH dtrace -q -n 'newcomer*:::tick { printf("%d ", arg0); }' -c ./server 2>&1)
expect_eq "and dtrace -c traces it" "$out" "0 1 2 "
# a provider with translated types declares them (and builds no translator)
cat >xlate.d <<'D'
typedef struct jobinfo jobinfo_t;
provider jobs {
	probe job__start(struct job *j) : (jobinfo_t *j);
};
D
check "a provider file declaring its translated type builds a header" \
	"$DTRACE" -h -s xlate.d -o xlate.h
sed 1d xlate.d >noxlate.d
"$DTRACE" -h -s noxlate.d -o noxlate.h 2>nox.err
expect_eq "and without the declaration, the error names the type" \
	"$?:$(grep -c "unknown type name 'jobinfo_t'" nox.err)" "1:1"

# -- dtrace(1) describes every option of the usage text
usage=$("$DTRACE" 2>&1)
opts=$( { echo "$usage" | sed -n 's/^Usage: dtrace \[-\([A-Za-z]*\)\].*/\1/p' | fold -w1
	echo "$usage" | grep -o '^	-[A-Za-z]' | tr -d '\t-'; } | sort -u)
missing=
for o in $opts; do
	grep -q "^\.BI\? \\\\-$o\b\|^\.BR \\\\-$o\b" "$TOP/cmd/dtrace/dtrace.1" || missing+="-$o "
done
expect_eq "dtrace(1) describes every option dtrace's usage text names" "${missing:-none}" none
check "and --libxo" grep -q '^\.BI \\-\\-libxo' "$TOP/cmd/dtrace/dtrace.1"
# -- The build's lines: one a step, "  CC     file" (no stray "[pic]" line under a PIC object's)
# (not a sub-make's: under make check, its "Entering directory" lines)
(cd "$TOP" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make BUILD="$WORK/b" \
	"$WORK/b/obj-pic/runtime/fire.o") >build.out 2>&1
expect_eq "the build says one line a step, a PIC object's marked on it" \
	"$(grep -cv '^  [A-Z]\+ \+[^ ]' build.out):$(grep -c '^  CC     runtime/fire.c \[pic\]$' build.out)" "0:1"

# -- make demo: its heading names the command it runs; its URI column holds every URI it asks for
DEMO=$TOP/samples/http/demo.sh
check "the demo's heading names the -P its dtrace -l runs" \
	grep -q 'echo "== dtrace -l -p \$spid -P http\$spid: ' "$DEMO"
width=$(sed -n 's/.*printf("%-4s %-\([0-9]*\)s .*/\1/p' "$TOP/samples/http/demo.d")
longest=$(sed -n 's/^paths=(\(.*\))$/\1/p' "$DEMO" | tr ' ' '\n' |
	awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
check "the demo's URI column ($width) holds its longest URI ($longest)" \
	[ "${width:-0}" -ge "$longest" -a "$longest" -gt 0 ]
finish
