/* @args: 42 hello 0x10 -7 */
/* Macro arguments: $N an integer (decimal, hex, negative), $$N a string, $0 the script. */
#pragma D option quiet

BEGIN
{
	printf("%d %s %d %d %s|%s\n", $1 + 2, $$2, $3, $4, $$1, $$0);
	exit(0);
}
