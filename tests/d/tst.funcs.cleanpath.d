/*
 * cleanpath(): a path without empty and "." components, each ".." taken
 * back with the component before it (at the root, dropped), and no trailing
 * slash (paths of illumos's funcs/tst.cleanpath.d, and more).
 */
#pragma D option quiet

BEGIN
{
	printf("\"%s\"\n", cleanpath("/foo/bar/baz"));
	printf("\"%s\"\n", cleanpath("/foo/bar///baz/"));
	printf("\"%s\"\n", cleanpath("/foo/bar/baz/."));
	printf("\"%s\"\n", cleanpath("/foo/bar/../../baz/.//"));
	printf("\"%s\"\n", cleanpath("foo/bar/./././././baz/"));
	printf("\"%s\"\n", cleanpath("/foo/bar/baz/../../../../../../"));
	printf("\"%s\"\n", cleanpath("/foo/bar/baz/../../bop/bang/../../bar/baz/"));
	printf("\"%s\"\n", cleanpath("./"));
	printf("\"%s\"\n", cleanpath("//"));
	printf("\"%s\"\n", cleanpath("/./."));
	printf("\"%s\"\n", cleanpath(""));
	printf("\"%s\"\n", cleanpath(".."));
	printf("\"%s\"\n", cleanpath("../.."));
	printf("\"%s\"\n", cleanpath("a/.."));
	printf("\"%s\"\n", cleanpath("a/../.."));
	printf("\"%s\"\n", cleanpath("z/a/b/../../././c///d/e"));
	printf("\"%s\"\n", cleanpath("/a/../.."));
	printf("\"%s\"\n", cleanpath("a/./b/../c/./"));
	this->p = "/usr/./lib//../bin/";
	printf("\"%s\"\n", cleanpath(this->p));
	exit(0);
}
