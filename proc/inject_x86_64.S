/* SPDX-License-Identifier: MIT */
/*
 * The stub proc/inject.c copies into a traced process (docs/injection.md):
 * it calls one function there with up to four arguments, keeps the thread's
 * errno as it was, and parks. Position-independent, and it refers to nothing
 * but its registers: the consumer starts it with %rbx pointing to the control
 * block (proc/inject_stub.h) and %rsp at the top of a stack of its own,
 * 16-aligned; rbx is callee-saved, so it survives the calls.
 *
 * It ends in a loop of pause() system calls with every signal blocked but the
 * faults: the consumer sees DONE set, interrupts the thread there and puts
 * back the registers it saved. Nothing returns from the loop by itself.
 */
#include "inject_stub.h"

	.section .rodata.cs_inject, "a"
	.globl	pr__inject_stub
	.hidden	pr__inject_stub
	.globl	pr__inject_park
	.hidden	pr__inject_park
	.globl	pr__inject_stub_end
	.hidden	pr__inject_stub_end
	.p2align 4
pr__inject_stub:
	/* errno, before anything can change it */
	mov	PR_INJ_ERRNO_FN*8(%rbx), %rax
	test	%rax, %rax
	jz	1f
	call	*%rax
	mov	%rax, PR_INJ_ERRNO_PTR*8(%rbx)
	movslq	(%rax), %rax
	mov	%rax, PR_INJ_ERRNO_VAL*8(%rbx)
1:	mov	PR_INJ_A0*8(%rbx), %rdi
	mov	PR_INJ_A1*8(%rbx), %rsi
	mov	PR_INJ_A2*8(%rbx), %rdx
	mov	PR_INJ_A3*8(%rbx), %rcx
	xor	%eax, %eax		/* no vector arguments, for a variadic callee */
	call	*PR_INJ_FN*8(%rbx)
	mov	%rax, PR_INJ_RET*8(%rbx)
	/* a 0 returned: ask why (dlerror()) */
	test	%rax, %rax
	jnz	2f
	mov	PR_INJ_ERR_FN*8(%rbx), %rax
	test	%rax, %rax
	jz	2f
	call	*%rax
	mov	%rax, PR_INJ_ERR_RET*8(%rbx)
	/* errno back as it was */
2:	mov	PR_INJ_ERRNO_PTR*8(%rbx), %rax
	test	%rax, %rax
	jz	3f
	mov	PR_INJ_ERRNO_VAL*8(%rbx), %rdx
	mov	%edx, (%rax)
3:	movq	$1, PR_INJ_DONE*8(%rbx)
pr__inject_park:
	mov	$34, %eax		/* SYS_pause */
	syscall
	jmp	pr__inject_park
pr__inject_stub_end:

	.section .note.GNU-stack, "", @progbits
