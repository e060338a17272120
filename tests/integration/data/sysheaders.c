/* Fires every probe of sysheaders.d with arguments of the declared types. */
#define _POSIX_C_SOURCE 200809L /* id_t, in strict C modes too */
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include HEADER

int main(void)
{
	int fd = 3;
	pid_t pid = getpid();
	uid_t uid = getuid();
	id_t id = 7;
	socklen_t len = sizeof(struct sockaddr);
	uint8_t proto = 6;
	uint16_t port = 80;
	uint32_t seq = 1;
	uint64_t bytes = 2;
	ssize_t ret = -1;
	struct sockaddr sa;
	const char *name = "h";
	size_t namelen = 1;
	off_t off = 5;

	memset(&sa, 0, sizeof(sa));
	NET_ACCEPT(fd, pid, uid, id, len);
	NET_PACKET(proto, port, seq, bytes, ret);
	NET_PEER(&sa, name, namelen, off);
	return 0;
}
