/* A variable declared twice with different types. */
int x;
string x;

BEGIN
{
	exit(0);
}
