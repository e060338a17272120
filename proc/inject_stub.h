/* SPDX-License-Identifier: MIT */
/*
 * The code proc/inject.c copies into a process to call one of its
 * functions (proc/inject_x86_64.S), and the control block it reads its
 * orders from and writes its results to: 64-bit slots, by index.
 */
#ifndef UDT_CONSUMER_INJECT_STUB_H
#define UDT_CONSUMER_INJECT_STUB_H

#define PR_INJ_FN 0           /* the function to call */
#define PR_INJ_A0 1           /* its arguments (rdi, rsi, rdx, rcx) */
#define PR_INJ_A1 2
#define PR_INJ_A2 3
#define PR_INJ_A3 4
#define PR_INJ_ERRNO_FN 5     /* __errno_location, or 0: errno is saved around the call */
#define PR_INJ_ERR_FN 6       /* called when the function returned 0 (dlerror), or 0 */
#define PR_INJ_RET 7          /* out: what the function returned */
#define PR_INJ_ERR_RET 8      /* out: what ERR_FN returned */
#define PR_INJ_ERRNO_PTR 9    /* (the stub's own: where errno is, and its value) */
#define PR_INJ_ERRNO_VAL 10
#define PR_INJ_DONE 11        /* out: 1 once the thread has reached the parking loop */
#define PR_INJ_SLOTS 12

#ifndef __ASSEMBLER__
#include <stdint.h>

/* The stub's bytes, and the parking loop within them (from the .S file). */
extern const uint8_t pr__inject_stub[], pr__inject_park[], pr__inject_stub_end[];
#endif

#endif /* UDT_CONSUMER_INJECT_STUB_H */
