/* ... and a string variable no integer but NULL (0). */
BEGIN
{
	s = "text";
	s = 5;
}
