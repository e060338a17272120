/*
 * String variables of every scope: a string is copied when assigned (the
 * source may change after), a global one starts as "", a thread-local one
 * unset (NULL, equal to ""); a string variable may be set to NULL.
 */
#pragma D option quiet

string empty;
self string never;

BEGIN
{
	g = "global";
	self->t = "thread";
	this->l = "local";
	this->copy = this->l;
	this->l = "changed";
	printf("%s %s %s %s\n", g, self->t, this->l, this->copy);
	printf("%d %d %d\n", empty == "", self->never == NULL, self->never == "");
	self->t = NULL;
	printf("%d\n", self->t == NULL);
	g = strjoin(g, "+");
	g = strjoin(g, g);
	printf("%s\n", g);
	exit(0);
}
