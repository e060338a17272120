/* A declared array's key types are its prototype. */
int counts[string];

BEGIN
{
	counts[1]++;
}
