/* SPDX-License-Identifier: MIT */
/* D's subroutines behind UDT_OP_SUBR (vm/subr.c). */
#ifndef UDT_VM_SUBR_H
#define UDT_VM_SUBR_H

#include "vm/vm.h"

#include <stdbool.h>

/*
 * Subroutine which (enum udt_subr, checked by the verifier) of a and b for
 * the DIFO running in ctx. Return: 0 with *ret set, or a fault (enum
 * udt_fault). Async-signal-safe; errno is left as it was.
 */
int udt__subr(struct udt_vm_ctx *ctx, uint32_t which, uint64_t a, uint64_t b, uint64_t *ret);

/*
 * chill(ns) (destructive): spin ns nanoseconds, unless that would take the
 * thread whose budget is *mark (when the current second began, ns) and
 * *chilled (ns spun since) over DTrace's dtrace_chill_max, 500 ms in each
 * second: then false (DTrace's "illegal operation") and no spin.
 * Async-signal-safe (the vDSO's clock_gettime).
 */
bool udt__chill(uint64_t ns, uint64_t *mark, uint64_t *chilled);

#endif /* UDT_VM_SUBR_H */
