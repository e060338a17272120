/* SPDX-License-Identifier: MIT */
/*
 * dtrace-g: dtrace -G. It owns the object holding the semaphores and the
 * probe table of a D program's providers, written with libelf, and the
 * checks of the application's objects against them. It includes dlang/,
 * abi/ (the probe table) and util/; never the consumer's rooms
 * (docs/layout.md).
 */
#ifndef UDT_DTRACE_G_H
#define UDT_DTRACE_G_H

#include <stddef.h>

#include "dlang/dlang.h"

/*
 * dg_object() - check the application's objects against the providers of p
 * and write the provider object to fd.
 * @p: the parsed program (providers with their probes)
 * @objs: the objects given on the command line (may be 0)
 * @obj_cnt: their number
 * @fd: where the ELF relocatable object is written (from the start)
 * @ret_err: on failure, a malloc'ed message naming the object and function
 *
 * Every probe site in the objects (a .note.stapsdt note) whose provider is
 * one of p's must fire a declared probe with the declared number of
 * arguments. The object defines the semaphores, udt__dispatch and the probe
 * table (abi/probe_table.h), with a constructor and a destructor that
 * register it with the runtime when one is loaded.
 *
 * Return: 0, or -1 with *ret_err set.
 */
int dg_object(struct dl_program *p, const char *const *objs, size_t obj_cnt, int fd,
	      char **ret_err);

#endif /* UDT_DTRACE_G_H */
