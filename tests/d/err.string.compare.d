/* @target: mem */
rt$target:::mem
/copyinstr(arg0) == 1/
{
	exit(0);
}
