/*
 * SPDX-License-Identifier: MIT
 *
 * The demo's D program (make demo): a line per request as it is served, and
 * at the end the requests by URI and status and their latency, from the
 * translated arguments the provider support file defines
 * (provider-support/http.d): args[0] is a conninfo_t, args[1] an
 * http_reqinfo_t.
 */
#pragma D option quiet

http*:::request-start
{
	self->start = timestamp;
}

http*:::request-done
/self->start/
{
	printf("%-4s %-14s %3d %6d bytes  %s\n", args[1]->hri_method, args[1]->hri_uri,
	    args[1]->hri_respcode, args[1]->hri_byteswritten, args[0]->ci_remote);
	@uri[args[1]->hri_uri] = count();
	@status[args[1]->hri_respcode] = count();
	@latency = quantize((timestamp - self->start) / 1000);
	self->start = 0;
}

END
{
	printf("\nrequests by URI:\n");
	printa("  %-14s %@6d\n", @uri);
	printf("requests by status:\n");
	printa("  %-14d %@6d\n", @status);
	printf("latency of a request, in microseconds:");
	printa(@latency);
}
