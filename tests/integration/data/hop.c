/*
 * A SystemTap site that code also enters past its nop (tests/integration/
 * notes.sh): hop_fn(x) is, by hand, a site of probe hop:::site (its note
 * below, as sys/sdt.h writes one) and two instructions that compute 2x + 1:
 *
 *	hop_site:  nop                  the probe
 *	hop_after: lea 1(%rdi), %eax    (3 bytes)
 *	           add %edi, %eax       (2 bytes)
 *	           ret
 *
 * main() calls hop_fn(i), which fires the probe, and, through a pointer the
 * decoder of hop_fn cannot see, hop_after(i), which runs the same bytes from
 * the second instruction and fires nothing. Enabled by a jump, hop_after's
 * first byte is an int3 of the runtime (where an instruction the jump
 * displaced starts): the runtime sends the thread to that instruction's copy.
 *
 * Usage: hop N [wait]: N rounds of both; prints the sum of their results.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hop_fn(int x);
int hop_after(int x);

__asm__(".text\n"
	".globl hop_fn\n"
	".type hop_fn, @function\n"
	"hop_fn:\n"
	"hop_site: nop\n"
	".globl hop_after\n"
	"hop_after: lea 1(%rdi), %eax\n"
	"add %edi, %eax\n"
	"ret\n"
	".size hop_fn, . - hop_fn\n"
	".pushsection .note.stapsdt, \"\", \"note\"\n"
	".balign 4\n"
	".4byte 992f - 991f, 994f - 993f, 3\n"
	"991: .asciz \"stapsdt\"\n"
	"992: .balign 4\n"
	"993: .8byte hop_site, 0, 0\n"
	".asciz \"hop\"\n"
	".asciz \"site\"\n"
	".asciz \"-4@%edi\"\n"
	"994: .balign 4\n"
	".popsection\n");

/* The pointer: volatile, so that nothing in hop_fn's function names hop_after. */
static int (*volatile after)(int) = hop_after;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long sum = 0;
	char line[16];

	if (argc > 2 && !strcmp(argv[2], "wait")) {
		printf("ready\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	for (int i = 0; i < n; i++)
		sum += hop_fn(i) + after(i);
	printf("sum=%ld\n", sum);
	if (argc > 2 && !strcmp(argv[2], "wait")) {
		printf("done\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	return 0;
}
