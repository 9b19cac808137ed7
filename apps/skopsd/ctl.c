/* ctl: the control connection's messages, one request in and one reply
 * out, each with the fds that go with it (SCM_RIGHTS): the transport under
 * the control server (srv.c) and its requests (req_*.c). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "skopsd.h"

int ctl_reply(int fd, const struct skp_rep *rep, const int *fds, int nfds)
{
	struct iovec iov = {.iov_base = (void *)rep, .iov_len = sizeof(*rep)};
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	skp_fds_put(&m, u.buf, fds, nfds);
	return sendmsg(fd, &m, MSG_NOSIGNAL) == (ssize_t)sizeof(*rep) ? 0 : -errno;
}

static void drop_fd(int fd)
{
	close(fd);
}

/* One request, the fds that came with it (up to 2, close-on-exec) and its
 * sender's credentials (cr->pid 0: none came). */
ssize_t ctl_request(int fd, struct skp_req *r, int *fds, int *nfds, struct ucred *cr)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = r, .iov_len = sizeof(*r)};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = u.buf,
			   .msg_controllen = sizeof(u.buf)};
	ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	*nfds = n >= 0 ? skp_fds_take(&m, fds, 2, drop_fd) : 0;
	cr->pid = 0;
	for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len == CMSG_LEN(sizeof(*cr)))
			memcpy(cr, CMSG_DATA(c), sizeof(*cr));
	if (n >= 0 && (m.msg_flags & MSG_CTRUNC)) { /* more fds than a request carries */
		errno = EPROTO;
		n = -1;
	}
	return n;
}
