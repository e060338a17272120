/* @target: mem */
/* @options: -L lib */
/*
 * Strings of the process compared with constants and with each other, in
 * predicates and expressions: copyinstr(), translated string members, char
 * arrays; ==, !=, <, <=, >, >= as strcmp() orders them.
 */
#pragma D option quiet

struct first {
	char two[2];
};

rt$target:::info
/args[0]->text == "a string"/
{
	printf("== %d %d\n", args[0]->text == "a string", "a string" == args[0]->text);
	printf("!= %d %d\n", args[0]->text != "a string", args[0]->text != "another");
	printf("< %d %d %d\n", args[0]->text < "b", args[0]->text < "a", args[0]->text < "a strinh");
	printf("> %d %d\n", args[0]->text > "a", args[0]->text >= "a string");
	printf("<= %d\n", copyinstr((uintptr_t)args[2]->str) <= args[0]->text);
	printf("array %d\n", ((struct first *)args[2]->str)->two == "a ");
}

rt$target:::info
/args[0]->text == "something else"/
{
	printf("never\n");
}
