/* SPDX-License-Identifier: MIT */
/*
 * Direct fault-safe loads (x86-64): the copies of runtime/safe.c that read
 * application memory without a system call. Every instruction that may
 * fault on the application's address lies between udt__safe_text_begin and
 * udt__safe_text_end; on a fault there, safe.c's SIGSEGV/SIGBUS handler
 * moves the interrupted PC to udt__safe_fixup, which returns -EFAULT from
 * the routine, as the kernel's exception tables do for copy_from_user().
 * The routines are leaves that push nothing, so the fix-up's ret returns to
 * the caller with the stack as it was.
 *
 * Written in assembly, not C, so that no compiler (nor ASan's or UBSan's
 * instrumentation) can move a load out of the range or call out of it.
 */
	.section .text.udt_safe,"ax",@progbits

	.globl	udt__safe_text_begin
	.hidden	udt__safe_text_begin
udt__safe_text_begin:

/*
 * int udt__safe_direct_copy(void *dst, const void *src, size_t len)
 * Copy len (> 0) bytes: 0, or -EFAULT (dst may hold part of them).
 */
	.globl	udt__safe_direct_copy
	.hidden	udt__safe_direct_copy
	.type	udt__safe_direct_copy, @function
udt__safe_direct_copy:
	.cfi_startproc
	cmp	$8, %rdx
	jne	1f
	mov	(%rsi), %rax
	mov	%rax, (%rdi)
	xor	%eax, %eax
	ret
1:	cmp	$4, %rdx
	jne	2f
	mov	(%rsi), %eax
	mov	%eax, (%rdi)
	xor	%eax, %eax
	ret
2:	mov	%rdx, %rcx
	rep movsb
	xor	%eax, %eax
	ret
	.cfi_endproc
	.size	udt__safe_direct_copy, . - udt__safe_direct_copy

/*
 * long udt__safe_direct_str(char *dst, const char *src, size_t max)
 * Copy the string at src, at most max - 1 (max > 0) bytes of it, and a
 * NUL; never read past its NUL. Return: its length, or -EFAULT.
 */
	.globl	udt__safe_direct_str
	.hidden	udt__safe_direct_str
	.type	udt__safe_direct_str, @function
udt__safe_direct_str:
	.cfi_startproc
	xor	%eax, %eax
	dec	%rdx
	jz	2f
1:	movzbl	(%rsi,%rax), %ecx
	mov	%cl, (%rdi,%rax)
	test	%cl, %cl
	jz	3f
	inc	%rax
	cmp	%rdx, %rax
	jb	1b
2:	movb	$0, (%rdi,%rax)
3:	ret
	.cfi_endproc
	.size	udt__safe_direct_str, . - udt__safe_direct_str

	.globl	udt__safe_text_end
	.hidden	udt__safe_text_end
udt__safe_text_end:

/* Where a fault in the range above resumes: the routine returns -EFAULT. */
	.globl	udt__safe_fixup
	.hidden	udt__safe_fixup
	.type	udt__safe_fixup, @function
udt__safe_fixup:
	.cfi_startproc
	mov	$-14, %rax
	ret
	.cfi_endproc
	.size	udt__safe_fixup, . - udt__safe_fixup

	.section .note.GNU-stack,"",@progbits
