/*
 * strtok(NULL, ...) with no string before it reads address 0 (DTrace's
 * tst.strtok_null.d, where ERROR fires).
 */
BEGIN
{
	trace(strtok(NULL, "!"));
}

BEGIN
{
	exit(1);
}
