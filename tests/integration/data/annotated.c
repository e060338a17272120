/* Fires every probe of annotated.d with arguments of the declared types. */
#include <sys/types.h>
#include <unistd.h>
#include HEADER

int main(void)
{
	int watch = 1, fd = 2, events = 4;
	void *cb = &watch;
	pid_t pid = getpid();
	const char *addr = "127.0.0.1";
	unsigned int refs = 3;

	EV_ADD_HANDLE(watch, fd, events, cb);
	EV_REMOVE_HANDLE(watch);
	RPC_SOCKET_NEW(cb, watch, fd, pid, addr);
	RPC_SOCKET_FREE(cb, refs);
	return 0;
}
