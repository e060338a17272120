/*
 * basename() and dirname() as the POSIX commands cut a path (the cases of
 * DTrace's tst.basename.d; the expected output is what coreutils'
 * basename and dirname print, but for "", which D defines as ".").
 */
#pragma D option quiet

BEGIN
{
	printf("[%s] [%s] [%s]\n", "/foo/bar/baz", basename("/foo/bar/baz"), dirname("/foo/bar/baz"));
	printf("[%s] [%s] [%s]\n", "/foo/bar///baz/", basename("/foo/bar///baz/"), dirname("/foo/bar///baz/"));
	printf("[%s] [%s] [%s]\n", "/foo/bar/baz/", basename("/foo/bar/baz/"), dirname("/foo/bar/baz/"));
	printf("[%s] [%s] [%s]\n", "/foo/bar/baz//", basename("/foo/bar/baz//"), dirname("/foo/bar/baz//"));
	printf("[%s] [%s] [%s]\n", "/foo/bar/baz/.", basename("/foo/bar/baz/."), dirname("/foo/bar/baz/."));
	printf("[%s] [%s] [%s]\n", "/foo/bar/baz/./", basename("/foo/bar/baz/./"), dirname("/foo/bar/baz/./"));
	printf("[%s] [%s] [%s]\n", "/foo/bar/baz/.//", basename("/foo/bar/baz/.//"), dirname("/foo/bar/baz/.//"));
	printf("[%s] [%s] [%s]\n", "foo/bar/baz/", basename("foo/bar/baz/"), dirname("foo/bar/baz/"));
	printf("[%s] [%s] [%s]\n", "/", basename("/"), dirname("/"));
	printf("[%s] [%s] [%s]\n", "./", basename("./"), dirname("./"));
	printf("[%s] [%s] [%s]\n", "//", basename("//"), dirname("//"));
	printf("[%s] [%s] [%s]\n", "/.", basename("/."), dirname("/."));
	printf("[%s] [%s] [%s]\n", "/./", basename("/./"), dirname("/./"));
	printf("[%s] [%s] [%s]\n", "/./.", basename("/./."), dirname("/./."));
	printf("[%s] [%s] [%s]\n", "/.//", basename("/.//"), dirname("/.//"));
	printf("[%s] [%s] [%s]\n", ".", basename("."), dirname("."));
	printf("[%s] [%s] [%s]\n", "f", basename("f"), dirname("f"));
	printf("[%s] [%s] [%s]\n", "f/", basename("f/"), dirname("f/"));
	printf("[%s] [%s] [%s]\n", "/////", basename("/////"), dirname("/////"));
	printf("[%s] [%s] [%s]\n", "", basename(""), dirname(""));
	exit(0);
}
