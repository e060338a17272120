/* SPDX-License-Identifier: MIT */
/*
 * SystemTap sites are patched on x86-64 only (runtime/sites.c,
 * runtime/tramp.c; docs/notes.md): elsewhere the runtime's sync has none to
 * patch, and the consumer is refused when it asks (site_armed stays 0).
 */
#include "runtime/internal.h"

__thread const uint64_t *udt__site_gpr __attribute__((tls_model("initial-exec")));

void udt__sites_sync(bool wait)
{
	(void)wait;
}
