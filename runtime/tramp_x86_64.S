/* SPDX-License-Identifier: MIT */
/*
 * The common part of the SystemTap sites' trampolines (runtime/sites.c,
 * docs/notes.md "Trampolines"). A site's nop is a jump to its entry, which
 * steps over the red zone, pushes the site's index and calls here through a
 * pointer at the start of its page:
 *
 *	0(%rsp)    the entry's return address: its relocated instructions
 *	8(%rsp)    the site's index in the runtime's table of patched sites
 *	16(%rsp)   128 bytes left alone: the interrupted code's red zone
 *	144(%rsp)  the interrupted code's stack
 *
 * This saves what the runtime's C code can change, and nothing more: the
 * general registers and the flags on the stack (the frame, in the x86
 * encoding's order of the registers: rax, rcx, rdx, rbx, a slot for rsp,
 * rbp, rsi, rdi, r8 to r15, then the flags), %xmm0-15 in an FXSAVE-shaped
 * area (xmm i at 160 + 16 i). The runtime is
 * compiled for the x86-64 baseline (SSE2 at most) and calls none of the C
 * library's memory and string functions (runtime/string.c): the upper
 * halves of the vector registers, AVX-512 state and the x87 state are
 * never touched, and saving them whole (XSAVE) would cost more than the
 * rest of the fire. Where the runtime does call out (libunwind, for
 * ustack()), it saves the whole extended state first (ustack.c).
 *
 * Then udt__tramp_fire(frame, fx) with the C ABI's aligned stack and a
 * clear direction flag, and back: everything restored, the flags first.
 * Not with popfq, which is microcoded and slow (and would restore nothing
 * more: the C code changes no other bit of them), but as binary
 * translators do: the direction flag by std when it was set, the overflow
 * flag by an add that overflows or not, the five others by sahf; then the
 * registers, by moves and pops, which leave the flags alone. MXCSR is
 * neither saved nor loaded (stmxcsr alone was a sixth of the entry's time
 * on an AMD EPYC): nothing the fire runs writes it, and ustack()'s call out
 * saves and restores the whole extended state itself.
 */
	.text
	.globl udt__tramp_entry
	.hidden udt__tramp_entry
	.type udt__tramp_entry, @function
udt__tramp_entry:
	.cfi_startproc
	/* the caller is a trampoline: no unwinder can go past it */
	.cfi_undefined rip
	pushfq
	push %r15
	push %r14
	push %r13
	push %r12
	push %r11
	push %r10
	push %r9
	push %r8
	push %rdi
	push %rsi
	push %rbp
	push %rsp              /* (a slot: the C code puts the interrupted value there) */
	push %rbx
	push %rdx
	push %rcx
	push %rax
	mov %rsp, %rbx         /* the frame, kept across the call */
	cld
	sub $416, %rsp         /* the FXSAVE-shaped area, 16-aligned */
	and $-16, %rsp
	movdqu %xmm0, 160(%rsp)
	movdqu %xmm1, 176(%rsp)
	movdqu %xmm2, 192(%rsp)
	movdqu %xmm3, 208(%rsp)
	movdqu %xmm4, 224(%rsp)
	movdqu %xmm5, 240(%rsp)
	movdqu %xmm6, 256(%rsp)
	movdqu %xmm7, 272(%rsp)
	movdqu %xmm8, 288(%rsp)
	movdqu %xmm9, 304(%rsp)
	movdqu %xmm10, 320(%rsp)
	movdqu %xmm11, 336(%rsp)
	movdqu %xmm12, 352(%rsp)
	movdqu %xmm13, 368(%rsp)
	movdqu %xmm14, 384(%rsp)
	movdqu %xmm15, 400(%rsp)
	mov %rbx, %rdi
	mov %rsp, %rsi
	call udt__tramp_fire
	movdqu 160(%rsp), %xmm0
	movdqu 176(%rsp), %xmm1
	movdqu 192(%rsp), %xmm2
	movdqu 208(%rsp), %xmm3
	movdqu 224(%rsp), %xmm4
	movdqu 240(%rsp), %xmm5
	movdqu 256(%rsp), %xmm6
	movdqu 272(%rsp), %xmm7
	movdqu 288(%rsp), %xmm8
	movdqu 304(%rsp), %xmm9
	movdqu 320(%rsp), %xmm10
	movdqu 336(%rsp), %xmm11
	movdqu 352(%rsp), %xmm12
	movdqu 368(%rsp), %xmm13
	movdqu 384(%rsp), %xmm14
	movdqu 400(%rsp), %xmm15
	mov %rbx, %rsp
	mov 128(%rsp), %rax    /* the flags */
	bt $10, %eax           /* DF */
	jnc 1f
	std
1:	mov %eax, %ecx
	shr $11, %ecx          /* OF, into bit 0 */
	and $1, %ecx
	add $0x7f, %cl         /* OF = it (0x7f + 1 overflows) */
	mov %al, %ah
	sahf                   /* SF ZF AF PF CF (OF stays) */
	pop %rax
	pop %rcx
	pop %rdx
	pop %rbx
	lea 8(%rsp), %rsp      /* the rsp slot (lea and pop: the flags stay as restored) */
	pop %rbp
	pop %rsi
	pop %rdi
	pop %r8
	pop %r9
	pop %r10
	pop %r11
	pop %r12
	pop %r13
	pop %r14
	pop %r15
	lea 8(%rsp), %rsp      /* the flags' slot */
	ret
	.cfi_endproc
	.size udt__tramp_entry, . - udt__tramp_entry

	.section .note.GNU-stack, "", @progbits
