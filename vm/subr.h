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

/*
 * /proc, read raw (psinfo.c): path "<pre><n><post>" into path (sz bytes);
 * file path's bytes (sz - 1 at most), NUL-terminated: their count, 0 when
 * it cannot be read; the numbers of a stat line after its state (f[k] is
 * field k + 4 of man 5 proc's), max at most: their count. Async-signal-safe.
 */
void udt__vm_proc_path(char *path, size_t sz, const char *pre, uint64_t n, const char *post);
size_t udt__vm_slurp(const char *path, char *buf, size_t sz);
size_t udt__vm_stat_fields(char *line, size_t len, uint64_t *f, size_t max);

#endif /* UDT_VM_SUBR_H */
