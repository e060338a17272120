/* SPDX-License-Identifier: MIT */
/*
 * A program of tests/integration/usdt.sh that runs a helper through the
 * shell, twice: system("usdt_sys 2") and popen("usdt_sys 3"). The helper is
 * this program with an argument: it fires usdt:::tick(N) and exits. Without
 * one it fires tick(1), runs both, and fires tick(4).
 */
#include "usdt.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	char cmd[4200];
	FILE *f;

	if (argc > 1) {
		USDT_TICK(atoi(argv[1]));
		return 0;
	}
	USDT_TICK(1);
	snprintf(cmd, sizeof(cmd), "%s 2", argv[0]);
	if (system(cmd) != 0)
		return 1;
	snprintf(cmd, sizeof(cmd), "%s 3", argv[0]);
	if (!(f = popen(cmd, "r")) || pclose(f) != 0)
		return 1;
	USDT_TICK(4);
	return 0;
}
