/* skp_fds: the fds of a control message (SCM_RIGHTS), both ways. */
#include <string.h>
#include <sys/socket.h>

#include "skp_proto.h"

void skp_fds_put(struct msghdr *m, void *buf, const int *fds, int n)
{
	if (n <= 0 || n > SKP_FDS_MAX)
		return;
	m->msg_control = buf;
	m->msg_controllen = CMSG_SPACE(n * sizeof(int));
	struct cmsghdr *c = CMSG_FIRSTHDR(m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
}

int skp_fds_take(struct msghdr *m, int *fds, int room, void (*drop)(int))
{
	int got = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (int i = 0; i < k; i++) {
			int f;
			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (got < room)
				fds[got++] = f;
			else
				drop(f);
		}
	}
	return got;
}
