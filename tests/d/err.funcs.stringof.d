/* stringof() of what is neither a string, a pointer nor an integer. */
struct s {
	int a;
};

BEGIN
{
	trace(stringof(*(struct s *)0));
}
