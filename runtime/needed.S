/* SPDX-License-Identifier: MIT */
/*
 * libudtrace-needed.o: what `-ludtrace` links ahead of the runtime (the
 * libudtrace.so and libudtrace.a linker scripts name it; docs/install.md).
 * A -G object refers to the runtime weakly, so that a program links without
 * it, and a weak reference does not make the linker keep a library under
 * --as-needed (Debian's default), nor pull a member out of an archive. This
 * strong reference does both: one word of read-only data after relocation,
 * in a section kept by --gc-sections ("R", SHF_GNU_RETAIN: lld decides what
 * is needed after collecting).
 */
	.section .data.rel.ro.udtrace_needed, "awR"
	.p2align 3
	.quad	udt__runtime_id

	.section .note.GNU-stack, "", @progbits
