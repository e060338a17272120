/*
 * SPDX-License-Identifier: MIT
 *
 * Connection information for network protocol providers, as DTrace's net.d
 * defines it: the first translated argument of their probes (http's, for
 * one), so that scripts read every protocol's connections the same way.
 */

typedef struct conninfo {
	string ci_local;        /* the local host's address */
	string ci_remote;       /* the remote host's address */
	string ci_protocol;     /* "ipv4", "ipv6" */
} conninfo_t;
