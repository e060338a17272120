/* SPDX-License-Identifier: MIT */
/* The provider of bench/fire_instr.sh: two probes with three integer arguments. */
provider cg {
	probe a(long, long, long);
	probe b(long, long, long);
};
