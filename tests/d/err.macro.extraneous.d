/* @args: 1 2 */
/* An argument no clause refers to. */
BEGIN
{
	trace($1);
}
