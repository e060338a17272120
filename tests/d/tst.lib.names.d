/*
 * The names DTrace's D libraries give every script: signals (signal.d, this
 * system's numbers, as kill -l gives them), errno values (errno.d) and
 * illumos's <sys/types.h> names scripts from illumos use (types.d).
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d\n", SIGINT, SIGKILL, SIGTERM, SIGUSR1);
	printf("%d %d %d\n", ENOENT, EAGAIN, EWOULDBLOCK);
	b = (boolean_t)B_TRUE;
	printf("%d %d %d %d\n", b, B_FALSE, sizeof (zoneid_t), sizeof (major_t));
	exit(0);
}
