/* kloop: the kernel loopback listeners of a wildcard skops listener
 * (loopback-listen). A program listening on 0.0.0.0 or [::] expects
 * 127.0.0.1 and ::1 to reach it, as they do on the kernel; skops has no
 * loopback device, so with loopback-listen the shim makes kernel listeners
 * on the loopback addresses and the same port, in the application's own
 * network namespace, and hands them over with LISTEN. skopsd keeps them with
 * the skops listener: its accept queue readiness is theirs too (an
 * edge-triggered epoll registration sets kpend), ACCEPT takes from either
 * in turn, and they close with it, so every process holding the listener
 * (fork, nginx's workers) accepts from both. */
#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "skopsd.h"

int kloop_adopt(struct skopsd *d, struct dsock *s, unsigned id, const int *fds, int nfds)
{
	int rc = 0;
	for (int i = 0; i < nfds; i++) {
		int acc = 0, fl = rc ? -1 : fcntl(fds[i], F_GETFL);
		socklen_t l = sizeof(acc);
		struct epoll_event ev = {.events = EPOLLIN | EPOLLET,
					 .data.u32 = SKOPSD_TAG_KLOOP | id};
		/* listening sockets only, non-blocking: the loop never waits in accept */
		if (rc || i >= 2 || getsockopt(fds[i], SOL_SOCKET, SO_ACCEPTCONN, &acc, &l) ||
		    !acc || fl < 0 || fcntl(fds[i], F_SETFL, fl | O_NONBLOCK)) {
			rc = rc ? rc : -EINVAL;
		} else if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, fds[i], &ev)) {
			rc = -errno;
		} else {
			s->kfd[i] = fds[i];
			/* a connection may have come before the registration */
			s->kpend = true;
			continue;
		}
		close(fds[i]);
	}
	if (rc)
		kloop_close(d, s);
	return rc;
}

int kloop_accept(struct dsock *s, void *sa, socklen_t *len)
{
	if (!s->kpend)
		return -EAGAIN;
	for (int k = 0; k < 2; k++) {
		int fd = s->kfd[(s->kturn + k) % 2];
		socklen_t l = *len;
		/* the listener is the app's open file too: it can clear
		 * O_NONBLOCK and take the connection first, so the accept is
		 * bounded (guard.c) and one that would sleep drops the
		 * listener */
		int c = -1, e = 0;
		if (fd >= 0) {
			guard_begin();
			c = accept4(fd, sa, &l, SOCK_CLOEXEC | SOCK_NONBLOCK);
			e = errno;
			guard_end();
		}
		if (c < 0 && e == EINTR) {
			s->kbad = true;
			continue;
		}
		if (c >= 0) {
			/* the next one from the other listener, then skops's */
			s->kturn ^= 1;
			*len = l;
			/* the shim sets O_NONBLOCK as accept4's flags ask */
			return c;
		}
	}
	s->kpend = false; /* a new connection sets it again (an epoll edge) */
	return -EAGAIN;
}

void kloop_close(struct skopsd *d, struct dsock *s)
{
	for (int i = 0; i < 2; i++) {
		if (s->kfd[i] < 0)
			continue;
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, s->kfd[i], NULL);
		close(s->kfd[i]);
		s->kfd[i] = -1;
	}
	s->kpend = false;
}
