/* SPDX-License-Identifier: MIT */
/*
 * Direct fault-safe loads (x86-64): the copies of vm/safe.c that read
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
 * long udt__safe_direct_strn(char *dst, const char *src, size_t n)
 * Copy the string at src up to and with its NUL, at most n (> 0) bytes,
 * all in one page of src; write nothing after the NUL. Return: its length
 * if the NUL was among them, else n; or -EFAULT. A word at a time once src
 * is 8-aligned: an aligned word never crosses a page, so its bytes past
 * the NUL (or past n) are in the page the caller knows is readable.
 */
	.globl	udt__safe_direct_strn
	.hidden	udt__safe_direct_strn
	.type	udt__safe_direct_strn, @function
udt__safe_direct_strn:
	.cfi_startproc
	xor	%eax, %eax
	movabs	$0x0101010101010101, %r9
	movabs	$0x8080808080808080, %r10
	/* bytes until src + i is aligned */
1:	test	$7, %sil
	jz	3f
2:	movzbl	(%rsi,%rax), %ecx
	mov	%cl, (%rdi,%rax)
	test	%cl, %cl
	jz	9f
	inc	%rax
	cmp	%rdx, %rax
	jae	9f
	lea	(%rsi,%rax), %rcx
	test	$7, %cl
	jnz	2b
	/* words while 8 more fit and hold no NUL */
3:	lea	8(%rax), %rcx
	cmp	%rdx, %rcx
	ja	5f
	mov	(%rsi,%rax), %r8
	mov	%r8, %r11
	sub	%r9, %r11
	mov	%r8, %rcx
	not	%rcx
	and	%r10, %rcx
	test	%rcx, %r11
	jnz	5f
	mov	%r8, (%rdi,%rax)
	add	$8, %rax
	jmp	3b
	/* the last bytes, one at a time */
5:	cmp	%rdx, %rax
	jae	9f
	movzbl	(%rsi,%rax), %ecx
	mov	%cl, (%rdi,%rax)
	test	%cl, %cl
	jz	9f
	inc	%rax
	jmp	5b
9:	ret
	.cfi_endproc
	.size	udt__safe_direct_strn, . - udt__safe_direct_strn

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
