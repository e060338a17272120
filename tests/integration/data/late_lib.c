/* SPDX-License-Identifier: MIT */
/*
 * liblate.so, the library lateprog loads after a consumer attached
 * (tests/integration/late.sh): the probes of a `dtrace -G` provider (late.d)
 * and of an SDT(9) provider (sdtlate) in one object. lib_work(n) fires, for
 * i = 0..n-1, late:::enter(i, "lib"), sdtlate:::tick(i) and late:::leave(i).
 */
#include <stdio.h>

#include <udtrace/sdt.h>

#include "late.h"

SDT_PROVIDER_DEFINE(sdtlate);
SDT_PROBE_DEFINE1(sdtlate, , , tick, "int");

int lib_work(int n);
int lib_work(int n)
{
	for (int i = 0; i < n; i++) {
		LATE_ENTER(i, "lib");
		SDT_PROBE1(sdtlate, , , tick, i);
		LATE_LEAVE(i);
	}
	return n;
}

/*
 * The library's semaphores: a consumer that enables the library's probes
 * sets them (the SDT(9) one under the name udtrace/sdt.h gives it).
 */
void lib_sems(unsigned *ret);
void lib_sems(unsigned *ret)
{
	ret[0] = late_enter_semaphore;
	ret[1] = late_leave_semaphore;
	ret[2] = udt__sdt_sem_sdtlate___tick;
}
