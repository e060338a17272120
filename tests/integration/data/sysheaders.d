/* Built with -C: glibc's headers redeclare pid_t, uid_t, id_t, uint8_t, size_t... */
#include <sys/types.h>
#include <stdint.h>
#include <sys/socket.h>

provider net {
	probe accept(int fd, pid_t pid, uid_t uid, id_t id, socklen_t len);
	probe packet(uint8_t proto, uint16_t port, uint32_t seq, uint64_t bytes, ssize_t ret);
	probe peer(struct sockaddr *sa, const char *name, size_t namelen, off_t off);
};
