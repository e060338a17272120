/* speculate() comes before any data-recording action of its clause. */
BEGIN
{
	printf("principal\n");
	speculate(1);
}
