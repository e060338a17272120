/*
 * An expression alone as a statement is evaluated and records nothing, as
 * DTrace compiles it (dt_compile_exp(): a DIFEXPR action of a void type):
 * nothing printed for "x;", "x + 1;" or "\"str\";", while the assignment
 * inside one ("(y = 3);") takes effect.
 */
#pragma D option quiet

BEGIN
{
	x = 2;
	x;
	x + 1;
	"str";
	(y = 3);
	printf("y=%d\n", y);
	exit(0);
}
