/*
 * SPDX-License-Identifier: MIT
 *
 * Constants DTrace's D libraries give every script: the fault types the
 * dtrace:::ERROR probe gives in arg4 (docs/d-language.md, "The ERROR
 * probe"), with DTrace's names and values.
 */

inline int DTRACEFLT_UNKNOWN = 0;	/* a fault of no other type */
#pragma D binding "1.0" DTRACEFLT_UNKNOWN
inline int DTRACEFLT_BADADDR = 1;	/* a load from an address that cannot be read: arg5 */
#pragma D binding "1.0" DTRACEFLT_BADADDR
inline int DTRACEFLT_BADALIGN = 2;	/* a misaligned access (none here: x86-64 allows them) */
#pragma D binding "1.0" DTRACEFLT_BADALIGN
inline int DTRACEFLT_ILLOP = 3;		/* an operation given what it cannot take */
#pragma D binding "1.0" DTRACEFLT_ILLOP
inline int DTRACEFLT_DIVZERO = 4;	/* an integer division by zero */
#pragma D binding "1.0" DTRACEFLT_DIVZERO
inline int DTRACEFLT_NOSCRATCH = 5;	/* the scratch space is full */
#pragma D binding "1.0" DTRACEFLT_NOSCRATCH
inline int DTRACEFLT_KPRIV = 6;		/* a kernel address (none here) */
#pragma D binding "1.0" DTRACEFLT_KPRIV
inline int DTRACEFLT_UPRIV = 7;		/* a user address without privilege (none here) */
#pragma D binding "1.0" DTRACEFLT_UPRIV
inline int DTRACEFLT_TUPOFLOW = 8;	/* the tuple stack overflowed (none here) */
#pragma D binding "1.0" DTRACEFLT_TUPOFLOW
inline int DTRACEFLT_BADSTACK = 9;	/* a bad stack (none here) */
#pragma D binding "1.0" DTRACEFLT_BADSTACK
inline int DTRACEFLT_LIBRARY = 1000;	/* a fault in dtrace rather than in a probe (none here) */
#pragma D binding "1.0" DTRACEFLT_LIBRARY
