# Annotated as libvirt annotates src/libvirt_probes.d, and built without -C:
# file: src/util/event_poll.c
provider ev {
	# file: src/util/event_poll.c
	# prefix: event_poll
	probe add__handle(int watch, int fd, int events, void *cb);
	# 2 probes per handle: not a line marker
	probe remove__handle(int watch);
        # Monitor lifecycle (indented with blanks), see /* and // here
	#
};

# file: src/rpc/virnetsocket.c
# prefix: rpc
provider rpc {
	probe socket__new(void *sock, int refs, int fd, pid_t pid, const char *addr);
	# binary: libvirtd
	probe socket__free(void *sock, unsigned int refs);
};
