/* toupper() and tolower(): ASCII letters only. */
#pragma D option quiet

BEGIN
{
	s = "Hello, World! 123 [aZ]";
	printf("[%s] [%s] [%s]\n", toupper(s), tolower(s), toupper(""));
	exit(0);
}
