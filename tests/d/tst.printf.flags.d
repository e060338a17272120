/* printf() flags, widths and precisions, fixed and given by a value (*). */
#pragma D option quiet

BEGIN
{
	printf("[%5d] [%-5d] [%05d] [%+d] [% d] [%#x] [%#o] [%08.3d]\n", 42, 42, 42, 42, 42, 42,
	    8, 7);
	printf("[%*d] [%-*d] [%.*d] [%*.*d]\n", 6, 42, 6, 42, 4, 42, 7, 3, 5);
	printf("[%10s] [%-10s] [%.2s] [%*s]\n", "abc", "abc", "abc", 4, "x");
	printf("[%c%c%c] [%3c] [%-3c]\n", 65, 66, 67, 120, 121);
	printf("100%% %%d %s\n", "done");
	exit(0);
}
