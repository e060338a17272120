/*
 * substr() with every form of arguments: the cases of DTrace's
 * tst.substr.d, whose expected output is what Perl's substr() gives
 * (DTrace's are Perl's, an undefined result being "").
 */
#pragma D option quiet

BEGIN
{
	s = "foobarbazbop";
	printf("substr(s, 3) = [%s]\n", substr(s, 3));
	printf("substr(s, 300) = [%s]\n", substr(s, 300));
	printf("substr(s, -10) = [%s]\n", substr(s, -10));
	printf("substr(s, 0) = [%s]\n", substr(s, 0));
	printf("substr(s, 1) = [%s]\n", substr(s, 1));
	printf("substr(s, 11) = [%s]\n", substr(s, 11));
	printf("substr(s, 12) = [%s]\n", substr(s, 12));
	printf("substr(s, 13) = [%s]\n", substr(s, 13));
	printf("substr(s, 8, 20) = [%s]\n", substr(s, 8, 20));
	printf("substr(s, 4, 4) = [%s]\n", substr(s, 4, 4));
	printf("substr(s, 5, 8) = [%s]\n", substr(s, 5, 8));
	printf("substr(s, 5, 9) = [%s]\n", substr(s, 5, 9));
	printf("substr(s, 400, 20) = [%s]\n", substr(s, 400, 20));
	printf("substr(s, 400, 0) = [%s]\n", substr(s, 400, 0));
	printf("substr(s, 400, -1) = [%s]\n", substr(s, 400, -1));
	printf("substr(s, 3, 0) = [%s]\n", substr(s, 3, 0));
	printf("substr(s, 3, -1) = [%s]\n", substr(s, 3, -1));
	printf("substr(s, 3, -4) = [%s]\n", substr(s, 3, -4));
	printf("substr(s, 3, -20) = [%s]\n", substr(s, 3, -20));
	printf("substr(s, -10, -5) = [%s]\n", substr(s, -10, -5));
	printf("substr(s, 0, 400) = [%s]\n", substr(s, 0, 400));
	printf("substr(s, -1, 400) = [%s]\n", substr(s, -1, 400));
	printf("substr(s, -1, 0) = [%s]\n", substr(s, -1, 0));
	printf("substr(s, -1, -1) = [%s]\n", substr(s, -1, -1));
	printf("substr(s, -24, 24) = [%s]\n", substr(s, -24, 24));
	printf("substr(s, -24, 12) = [%s]\n", substr(s, -24, 12));
	printf("substr(s, -24, 13) = [%s]\n", substr(s, -24, 13));
	printf("substr(s, -12, 12) = [%s]\n", substr(s, -12, 12));
	printf("substr(s, -12, 11) = [%s]\n", substr(s, -12, 11));
	exit(0);
}
