/* Calls the library: linked (default), or through dlopen with -DDLOPEN (argv[1] = path). */
#include <dlfcn.h>
#include <stdio.h>

int lib_work(int n);

int main(int argc, char **argv)
{
#ifdef DLOPEN
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	int (*fn)(int) = (int (*)(int))dlsym(h, "lib_work");
	printf("result %d\n", fn(7));
	dlclose(h);
	puts("closed");
#else
	(void)argc;
	(void)argv;
	printf("result %d\n", lib_work(7));
#endif
	return 0;
}
