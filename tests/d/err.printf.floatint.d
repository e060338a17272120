/* %f takes a floating-point value; D's integers are not one. */
BEGIN
{
	printf("%f\n", 1);
}
