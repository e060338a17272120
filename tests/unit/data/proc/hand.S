/* SPDX-License-Identifier: MIT */
/*
 * Two probe tables written by hand in one .udtrace.table section
 * (docs/format.md §2): the first one's total_sz (163) is not a multiple of 8,
 * so a reader must round it up to find the second, as for tables that other
 * writers than dtrace -G leave unpadded.
 */

/* TABLE label, provider string offset, probe string offset, semaphore, total_sz */
.macro TABLE name, prov, probe, sem, total
	.balign 8
\name:
	.long 80, 0x50544455		/* size, magic */
	.short 1, 1			/* version, flags: LP64 */
	.long \total			/* total_sz */
	.long 80, 1, 28			/* providers */
	.long 112, 1, 40		/* probes */
	.long 152, 0, 12		/* arguments */
	.long 152, 0			/* function names */
	.long 152, \total - 152		/* strings */
	.long 0				/* reserved */
	.quad 0				/* dispatch_rel: none */
	/* provider, at 80 */
	.long \prov, 0, 1
	.fill 15, 1, 4			/* attributes: Unstable */
	.byte 0
	.balign 8
	/* probe, at 112 */
	.quad \sem - .			/* sem_rel */
	.long 0, \probe, 0, 0, 0, 0
	.byte 0, 0, 0, 0, 0, 0, 0, 0
.endm

	.section .udtrace.table, "a"
	TABLE t1, 1, 6, hand_made_semaphore, 163
	.asciz ""			/* strings, at 152: 11 bytes */
	.asciz "hand"
	.asciz "made"
	TABLE t2, 1, 7, hand2_other_semaphore, 165
	.asciz ""			/* 13 bytes */
	.asciz "hand2"
	.asciz "other"
	.balign 8

	.section .probes, "aw"
	.balign 2
	.hidden hand_made_semaphore
	.globl hand_made_semaphore
	.type hand_made_semaphore, @object
	.size hand_made_semaphore, 2
hand_made_semaphore:
	.short 0
	.hidden hand2_other_semaphore
	.globl hand2_other_semaphore
	.type hand2_other_semaphore, @object
	.size hand2_other_semaphore, 2
hand2_other_semaphore:
	.short 0

	.section .note.GNU-stack, "", @progbits
