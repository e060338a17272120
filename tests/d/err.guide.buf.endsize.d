/*
 * The DTrace Guide's "fill Policy and END Probes": with the fill policy,
 * DTrace keeps room in the principal buffer for what END records, and
 * refuses to start when END's records would not fit in it: this END
 * records 72 bytes (a 24-byte header and six 8-byte values) and the buffer
 * is 64.
 */
#pragma D option bufpolicy=fill
#pragma D option bufsize=64

END
{
	trace(pid);
	trace(tid);
	trace(walltimestamp);
	trace(vtimestamp);
	trace(cpu);
	trace(pid);
}
