/* srv: skopsd's control server: its unix socket, its clients (one per
 * process), and each request read, checked against what the client holds
 * and dispatched to its handler (req_sock.c, req_fork.c). A client's cgroup v2 path comes from the
 * kernel (SO_PEERCRED pid → /proc/PID/cgroup, the "0::" line), so the programs attached to the
 * application's own cgroup see its connections. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <unistd.h>

#include "req.h"
#include "skops.h"
#include "skopsd.h"

/* The socket's directory: made by skopsd (0755) when missing; one that
 * others can write to (a sticky /tmp, a group's directory) is refused, since
 * a name in it could be swapped under the daemon. Returns an O_PATH fd. */
static int sock_dir(const char *dir, char *err, size_t elen)
{
	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, elen, "--sock: mkdir %s: %s", dir, strerror(errno));
		return -errno;
	}
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (dfd < 0 || fstat(dfd, &st)) {
		int e = errno;
		snprintf(err, elen, "--sock: %s: %s", dir, strerror(e));
		if (dfd >= 0)
			close(dfd);
		return -e;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 0022)) {
		snprintf(err, elen,
			 "--sock: directory %s is %s: the socket goes in a directory only skopsd "
			 "can write to (default /run/skops)",
			 dir,
			 st.st_uid != geteuid() ? "not skopsd's user's" : "writable by others");
		close(dfd);
		return -EPERM;
	}
	return dfd;
}

int srv_listen(struct skopsd *d, char *err, size_t elen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(d->sock_path) >= sizeof(sa.sun_path)) {
		snprintf(err, elen, "--sock %s: path too long", d->sock_path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, d->sock_path);
	char dir[sizeof(sa.sun_path)];
	snprintf(dir, sizeof(dir), "%s", d->sock_path);
	char *sl = strrchr(dir, '/');
	const char *name = d->sock_path;
	if (sl) {
		name = d->sock_path + (sl - dir) + 1;
		if (sl == dir)
			sl[1] = 0; /* "/name" */
		else
			*sl = 0;
	} else {
		snprintf(dir, sizeof(dir), ".");
	}
	int dfd = sock_dir(dir, err, elen);
	if (dfd < 0)
		return dfd;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, elen, "socket: %s", strerror(errno));
		close(dfd);
		return -errno;
	}
	/* A live daemon answers a connect: then the path is in use. A stale
	 * file from a killed daemon is replaced. */
	int probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (probe >= 0 && !connect(probe, (struct sockaddr *)&sa, sizeof(sa))) {
		close(probe);
		close(fd);
		close(dfd);
		snprintf(err, elen, "--sock %s: in use by a running skopsd", d->sock_path);
		return -EADDRINUSE;
	}
	if (probe >= 0)
		close(probe);
	unlinkat(dfd, name, 0);
	/* created 0660 (the owner's group, or --group's once chowned): the
	 * mode is right from bind on, never widened by a chmod of the path */
	mode_t old = umask(0117);
	int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (!rc && d->sock_gid != (gid_t)-1)
		rc = fchownat(dfd, name, (uid_t)-1, d->sock_gid, AT_SYMLINK_NOFOLLOW);
	/* every request carries its sender's credentials (SCM_CREDENTIALS,
	 * filled in by the kernel when the sender gave none): ownership
	 * follows a setuid() made after connect */
	int one = 1;
	if (!rc)
		rc = setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	if (rc || listen(fd, 64)) {
		int e = errno;
		snprintf(err, elen, "--sock %s: %s", d->sock_path, strerror(e));
		close(fd);
		close(dfd);
		return -e;
	}
	close(dfd);
	d->lfd = fd;
	return 0;
}

/* A client is who the kernel says it is (peer.c): a process whose pidfd
 * still names it after its cgroup was read, or none (refused, never filed
 * under "/"); and one uid holds at most its share of the connections. */
void srv_accept(struct skopsd *d)
{
	for (int budget = 0; budget < 64; budget++) {
		int fd = accept4(d->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		/* inherited from the listener at accept; set again for kernels
		 * that did not copy it */
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
		unsigned ci;
		for (ci = 0; ci < SKOPSD_MAX_CLIENTS && d->clients[ci]; ci++)
			;
		struct client *cl = ci < SKOPSD_MAX_CLIENTS ? calloc(1, sizeof(*cl)) : NULL;
		struct ucred cr = {0};
		int rc = !cl ? -EUSERS : d->draining ? -ESHUTDOWN : 0;
		if (!rc)
			rc = peer_identify(fd, &cr, &cl->pidfd, cl->cgroup, sizeof(cl->cgroup));
		if (!rc && (rc = quota_take(d, cr.uid, Q_CLIENTS)))
			close(cl->pidfd);
		if (rc) {
			if (rc != -ESHUTDOWN && quota_note_ok(d))
				fprintf(stderr, "skopsd: pid %d uid %d refused: %s\n", (int)cr.pid,
					(int)cr.uid,
					rc == -ESRCH	? "the process is gone"
					: rc == -ENOENT ? "its cgroup v2 path cannot be read"
					: rc == -EUSERS ? "too many control connections"
							: strerror(-rc));
			free(cl);
			close(fd);
			continue;
		}
		cl->fd = fd;
		cl->pid = cr.pid;
		cl->uid = cl->req_uid = cr.uid;
		cl->kick = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		d->clients[ci] = cl;
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = ci};
		epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev);
		/* edge-triggered, never read: a read on the app's own file
		 * could sleep (it can clear O_NONBLOCK and take the count
		 * first); each kick is an edge */
		ev.events = EPOLLIN | EPOLLET;
		ev.data.u32 = ci | 0x80000000u;
		epoll_ctl(d->epfd, EPOLL_CTL_ADD, cl->kick, &ev);
		if (d->verbose)
			fprintf(stderr, "skopsd: pid %d uid %d cgroup %s connected\n", (int)cr.pid,
				(int)cr.uid, cl->cgroup);
	}
}

void srv_drop_client(struct skopsd *d, unsigned ci, bool reset)
{
	struct client *cl = d->clients[ci];
	unsigned n = 0;
	for (unsigned i = 1; i < SKOPSD_MAX_SOCKS; i++) {
		/* a socket another process still holds (fork) lives on; one the
		 * app closed is still flushing and is no longer held */
		if (d->socks[i] && client_holds(cl, i) && !dsock_release(d->socks[i], cl, i)) {
			/* the process is gone, however it ended: the kernel closes
			 * an exiting process's fds (queued bytes, FIN; a reset only
			 * for unread data); at skopsd's own exit they are reset */
			if (reset)
				dsock_abort(d, i);
			else
				dsock_close(d, i);
			n++;
		}
	}
	if (d->verbose)
		fprintf(stderr, "skopsd: pid %d gone, %u socket(s) %s\n", (int)cl->pid, n,
			reset ? "reset" : "closed");
	dsock_pool_drop(d, cl);
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, cl->fd, NULL);
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, cl->kick, NULL);
	close(cl->fd);
	close(cl->kick);
	close(cl->pidfd);
	quota_put(d, cl->uid, Q_CLIENTS);
	free(cl);
	d->clients[ci] = NULL;
}

/* The socket id named by the request, if this client owns it. */
static struct dsock *own(struct skopsd *d, struct client *cl, uint32_t id)
{
	if (id == 0 || id >= SKOPSD_MAX_SOCKS || !d->socks[id] || !client_holds(cl, id) ||
	    d->socks[id]->closing)
		return NULL;
	return d->socks[id];
}

/* rfds: the fds that came with the request (LISTEN's loopback listeners,
 * ADOPT's fd); the request keeps them or closes them */
static void serve(struct skopsd *d, struct client *cl, const struct skp_req *r, int *rfds,
		  int nrfds)
{
	int nk = r->op == SKP_LISTEN && d->loopback_listen ? nrfds : 0;
	if (r->op == SKP_ADOPT && nrfds == 1)
		nk = 1;
	for (int i = nk; i < nrfds; i++)
		close(rfds[i]);
	struct skp_rep rep = {.id = r->id};
	int fds[2], nfds = 0, rc;
	struct dsock *s = NULL;
	if (r->op == SKP_ADOPT) {
		rep.rc = nk ? req_adopt(d, cl, rfds[0], &rep, &fds[0]) : -EINVAL;
		ctl_reply(cl->fd, &rep, fds, rep.rc ? 0 : 1);
		return;
	}
	if (r->op != SKP_HELLO && r->op != SKP_SOCKET && r->op != SKP_SOCK_CONNECT &&
	    r->op != SKP_ROUTE && r->op != SKP_FORK && r->op != SKP_CLAIM &&
	    r->op != SKP_NET_STATS && !(s = own(d, cl, r->id))) {
		rep.rc = -EBADF;
		if (r->op != SKP_CLOSE) /* the shim waits for no CLOSE reply */
			ctl_reply(cl->fd, &rep, NULL, 0);
		for (int i = 0; i < nk; i++)
			close(rfds[i]);
		return;
	}
	if (s && s->sd < 0 && r->op != SKP_CLOSE && r->op != SKP_MEMFD) {
		rep.rc = -ECONNRESET;
		ctl_reply(cl->fd, &rep, NULL, 0);
		for (int i = 0; i < nk; i++)
			close(rfds[i]);
		return;
	}
	/* a pure dispatch: each op's handler is in req_sock.c or req_fork.c */
	switch (r->op) {
	case SKP_HELLO:
		rc = req_hello(d, cl, r, &rep, fds, &nfds);
		break;
	case SKP_SOCKET:
		rc = req_socket(d, cl, r, &rep, fds, &nfds);
		break;
	case SKP_SOCK_CONNECT:
		rc = req_sock_connect(d, cl, r, &rep, fds, &nfds);
		break;
	case SKP_BIND:
		rc = req_bind(d, cl, s, r);
		break;
	case SKP_LISTEN:
		rc = req_listen(d, s, r, rfds, nk);
		break;
	case SKP_CONNECT:
		rc = req_connect(d, s, r);
		break;
	case SKP_ACCEPT:
		if (!(rc = req_accept(d, cl, s, r->id)))
			return; /* answered */
		break;
	case SKP_SHUTDOWN:
		rc = req_shutdown(d, s, r);
		break;
	case SKP_CLOSE:
		req_close(d, cl, s, r->id);
		return; /* no reply: close never waits */
	case SKP_FORK:
		rc = req_fork(d, cl, r, &rep.token);
		break;
	case SKP_CLAIM:
		rc = req_claim(d, cl, r->token);
		break;
	case SKP_MEMFD:
		rc = req_memfd(cl, s, r->id, fds, &nfds);
		break;
	case SKP_EXEC_DONE:
		rc = req_exec_done(d, cl);
		break;
	case SKP_SETSOCKOPT:
		rc = sockopt_set(d, cl, s, r);
		break;
	case SKP_GETSOCKOPT:
		rc = sockopt_get(d, s, r, &rep);
		break;
	case SKP_GETSOCKNAME:
	case SKP_GETPEERNAME:
		rc = req_name(d, s, r, &rep);
		break;
	case SKP_ROUTE:
		rc = req_route(d, r);
		break;
	case SKP_NET_STATS:
		rc = req_net_stats(d, r, &rep);
		break;
	default:
		rc = -EINVAL;
	}
	rep.rc = rc;
	ctl_reply(cl->fd, &rep, fds, nfds);
	/* the daemon keeps its own memfd and eventfd (dsock) and kick */
}

void srv_client(struct skopsd *d, unsigned ci)
{
	struct client *cl = d->clients[ci];
	for (int i = 0; i < 64; i++) {
		struct skp_req r;
		int fds[2], nfds;
		struct ucred cr;
		ssize_t n = ctl_request(cl->fd, &r, fds, &nfds, &cr);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n != (ssize_t)sizeof(r) || r.op == 0 || r.op >= SKP_OP_MAX) {
			for (int k = 0; k < nfds; k++)
				close(fds[k]);
			srv_drop_client(d, ci, false);
			return;
		}
		/* the kernel checked what the sender claims (its own pid, one
		 * of its uids, else CAP_SETUID); without them, the process's
		 * fsuid now, read through its pidfd */
		struct peer_st ps;
		if (cr.pid)
			cl->req_uid = cr.uid;
		else if (!peer_status(cl, &ps))
			cl->req_uid = ps.fsuid;
		else
			cl->req_uid = cl->uid;
		serve(d, cl, &r, fds, nfds);
	}
}
