/*
 * setopt() sets an option when its record is read: quiet here, in the
 * middle of a record (the rest of it is quiet: no newline at its end), and
 * unset again with "no", as DTrace reads the values of its options.
 */
BEGIN
{
	setopt("quiet");
	printf("quiet now\n");
}

BEGIN
{
	printf("still quiet\n");
}

BEGIN
{
	setopt("quiet", "no");
}

BEGIN
{
	exit(0);
}
