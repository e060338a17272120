/*
 * Vector registers across a SystemTap site (tests/integration/notes.sh):
 * vec_site() loads %ymm0-15 (and, with AVX-512, %zmm16-31) and the general
 * registers with known values, fires the probe vecs:::site at a nop (its
 * note by hand, as sys/sdt.h writes one), stores them all back, and main()
 * compares. A trampoline saves only what the runtime changes: whatever a
 * clause does (strings, aggregations, ustack() through libunwind), nothing
 * the program holds may change: neither the flags nor the red zone below
 * its stack pointer.
 *
 * Usage: vecs N [wait]: N rounds; prints "ok N" or the first difference.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* vec_site(in, out, zmm): in and out 32 * 64 bytes, then 16 * 8 of general registers */
void vec_site(const uint8_t *in, uint8_t *out, long zmm);

__asm__(".text\n"
	".globl vec_site\n"
	".type vec_site, @function\n"
	"vec_site:\n"
	"push %rbx\n push %rbp\n push %r12\n push %r13\n push %r14\n push %r15\n"
	"push %rdi\n push %rsi\n"
	"vmovdqu 0(%rdi), %ymm0\n vmovdqu 64(%rdi), %ymm1\n vmovdqu 128(%rdi), %ymm2\n"
	"vmovdqu 192(%rdi), %ymm3\n vmovdqu 256(%rdi), %ymm4\n vmovdqu 320(%rdi), %ymm5\n"
	"vmovdqu 384(%rdi), %ymm6\n vmovdqu 448(%rdi), %ymm7\n vmovdqu 512(%rdi), %ymm8\n"
	"vmovdqu 576(%rdi), %ymm9\n vmovdqu 640(%rdi), %ymm10\n vmovdqu 704(%rdi), %ymm11\n"
	"vmovdqu 768(%rdi), %ymm12\n vmovdqu 832(%rdi), %ymm13\n vmovdqu 896(%rdi), %ymm14\n"
	"vmovdqu 960(%rdi), %ymm15\n"
	"test %rdx, %rdx\n jz 1f\n"
	"vmovdqu64 1024(%rdi), %zmm16\n vmovdqu64 1088(%rdi), %zmm17\n vmovdqu64 1152(%rdi), %zmm18\n"
	"vmovdqu64 1216(%rdi), %zmm19\n vmovdqu64 1280(%rdi), %zmm20\n vmovdqu64 1344(%rdi), %zmm21\n"
	"vmovdqu64 1408(%rdi), %zmm22\n vmovdqu64 1472(%rdi), %zmm23\n vmovdqu64 1536(%rdi), %zmm24\n"
	"vmovdqu64 1600(%rdi), %zmm25\n vmovdqu64 1664(%rdi), %zmm26\n vmovdqu64 1728(%rdi), %zmm27\n"
	"vmovdqu64 1792(%rdi), %zmm28\n vmovdqu64 1856(%rdi), %zmm29\n vmovdqu64 1920(%rdi), %zmm30\n"
	"vmovdqu64 1984(%rdi), %zmm31\n"
	"1:\n"
	/* the general registers, the carry set, and two words of the red zone */
	"mov 2048(%rdi), %rax\n mov 2056(%rdi), %rcx\n mov 2064(%rdi), %rdx\n mov 2072(%rdi), %rbx\n"
	"mov 2088(%rdi), %rbp\n mov 2112(%rdi), %r8\n mov 2120(%rdi), %r9\n mov 2128(%rdi), %r10\n"
	"mov 2136(%rdi), %r11\n mov 2144(%rdi), %r12\n mov 2152(%rdi), %r13\n mov 2160(%rdi), %r14\n"
	"mov 2168(%rdi), %r15\n mov 2096(%rdi), %rsi\n mov 2104(%rdi), %rdi\n"
	"mov %rax, -8(%rsp)\n mov %rcx, -120(%rsp)\n"
	"stc\n"
	".globl vec_nop\n"
	"vec_nop: nop\n"
	/* below the red zone: the flags, rdi, and out (the caller's rsi, at the old 0(%rsp)) */
	"lea -128(%rsp), %rsp\n pushfq\n push %rdi\n mov 144(%rsp), %rdi\n"
	"mov %rax, 2048(%rdi)\n mov %rcx, 2056(%rdi)\n mov %rdx, 2064(%rdi)\n mov %rbx, 2072(%rdi)\n"
	"mov %rbp, 2088(%rdi)\n mov %rsi, 2096(%rdi)\n mov %r8, 2112(%rdi)\n mov %r9, 2120(%rdi)\n"
	"mov %r10, 2128(%rdi)\n mov %r11, 2136(%rdi)\n mov %r12, 2144(%rdi)\n mov %r13, 2152(%rdi)\n"
	"mov %r14, 2160(%rdi)\n mov %r15, 2168(%rdi)\n"
	"mov 0(%rsp), %rax\n mov %rax, 2104(%rdi)\n"
	"mov 8(%rsp), %rax\n and $1, %eax\n mov %rax, 2080(%rdi)\n"
	"mov 136(%rsp), %rax\n mov %rax, 2184(%rdi)\n mov 24(%rsp), %rax\n mov %rax, 2192(%rdi)\n"
	"lea 144(%rsp), %rsp\n"
	"vmovdqu %ymm0, 0(%rdi)\n vmovdqu %ymm1, 64(%rdi)\n vmovdqu %ymm2, 128(%rdi)\n"
	"vmovdqu %ymm3, 192(%rdi)\n vmovdqu %ymm4, 256(%rdi)\n vmovdqu %ymm5, 320(%rdi)\n"
	"vmovdqu %ymm6, 384(%rdi)\n vmovdqu %ymm7, 448(%rdi)\n vmovdqu %ymm8, 512(%rdi)\n"
	"vmovdqu %ymm9, 576(%rdi)\n vmovdqu %ymm10, 640(%rdi)\n vmovdqu %ymm11, 704(%rdi)\n"
	"vmovdqu %ymm12, 768(%rdi)\n vmovdqu %ymm13, 832(%rdi)\n vmovdqu %ymm14, 896(%rdi)\n"
	"vmovdqu %ymm15, 960(%rdi)\n"
	"cmpq $0, 2176(%rdi)\n jz 2f\n"
	"vmovdqu64 %zmm16, 1024(%rdi)\n vmovdqu64 %zmm17, 1088(%rdi)\n vmovdqu64 %zmm18, 1152(%rdi)\n"
	"vmovdqu64 %zmm19, 1216(%rdi)\n vmovdqu64 %zmm20, 1280(%rdi)\n vmovdqu64 %zmm21, 1344(%rdi)\n"
	"vmovdqu64 %zmm22, 1408(%rdi)\n vmovdqu64 %zmm23, 1472(%rdi)\n vmovdqu64 %zmm24, 1536(%rdi)\n"
	"vmovdqu64 %zmm25, 1600(%rdi)\n vmovdqu64 %zmm26, 1664(%rdi)\n vmovdqu64 %zmm27, 1728(%rdi)\n"
	"vmovdqu64 %zmm28, 1792(%rdi)\n vmovdqu64 %zmm29, 1856(%rdi)\n vmovdqu64 %zmm30, 1920(%rdi)\n"
	"vmovdqu64 %zmm31, 1984(%rdi)\n"
	"2:\n vzeroupper\n"
	"pop %rsi\n pop %rdi\n"
	"pop %r15\n pop %r14\n pop %r13\n pop %r12\n pop %rbp\n pop %rbx\n"
	"ret\n"
	".size vec_site, . - vec_site\n"
	".pushsection .note.stapsdt, \"\", \"note\"\n"
	".balign 4\n"
	".4byte 992f - 991f, 994f - 993f, 3\n"
	"991: .asciz \"stapsdt\"\n"
	"992: .balign 4\n"
	"993: .8byte vec_nop, 0, 0\n"
	".asciz \"vecs\"\n"
	".asciz \"site\"\n"
	".asciz \"8@%rbx 8@%r12\"\n"
	"994: .balign 4\n"
	".popsection\n");

#define SZ 2200

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long zmm = __builtin_cpu_supports("avx512f");
	static uint8_t in[SZ], out[SZ];
	char line[16];

	if (!__builtin_cpu_supports("avx")) {
		printf("no AVX\n");
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "wait")) {
		printf("ready\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	for (int r = 0; r < n; r++) {
		for (int i = 0; i < 2048; i++)
			in[i] = (uint8_t)(i * 7 + r + 1);
		/* the registers: rdi's own value last, rsp's slot the carry (1) */
		for (int i = 0; i < 16; i++) {
			uint64_t v = 0x0101010101010101ull * (uint64_t)(i + 1) + (uint64_t)r;
			memcpy(in + 2048 + 8 * i, &v, 8);
		}
		uint64_t carry = 1;
		memcpy(in + 2048 + 8 * 4, &carry, 8);
		memcpy(in + 2176, &zmm, 8);
		memset(out, 0, sizeof(out));
		memcpy(out + 2176, &zmm, 8);
		vec_site(in, out, zmm);
		size_t len = zmm ? 2048 : 1024;
		for (size_t i = 0; i < len; i++) {
			if (i < 1024 && i % 64 >= 32)
				continue; /* (a ymm is 32 of the 64 bytes of its slot) */
			if (in[i] != out[i]) {
				printf("round %d: vector byte %zu changed\n", r, i);
				return 1;
			}
		}
		for (int i = 0; i < 16; i++) {
			if (memcmp(in + 2048 + 8 * i, out + 2048 + 8 * i, 8)) {
				printf("round %d: general register %d (4: the carry) changed\n", r, i);
				return 1;
			}
		}
		/* the red zone: rax's and rcx's values */
		if (memcmp(out + 2184, in + 2048, 8) || memcmp(out + 2192, in + 2056, 8)) {
			printf("round %d: the red zone changed\n", r);
			return 1;
		}
	}
	printf("ok %d\n", n);
	if (argc > 2 && !strcmp(argv[2], "wait")) {
		printf("done\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	return 0;
}
