/* SPDX-License-Identifier: MIT */
/* The soak's target's own probes (tests/soak/soakprog.c). */
provider soak {
	/* each step: its thread and its number */
	probe step(int, long);
	/* every 64th step: the same, and a string of both */
	probe burst(int, long, char *);
};
