/* srv: skopsd's unix socket, its clients (one per process) and their
 * control requests. A client's cgroup v2 path comes from the kernel
 * (SO_PEERCRED pid → /proc/PID/cgroup, the "0::" line), so the programs
 * attached to the application's own cgroup see its connections. */
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
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, cl->fd, NULL);
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, cl->kick, NULL);
	close(cl->fd);
	close(cl->kick);
	close(cl->pidfd);
	quota_put(d, cl->uid, Q_CLIENTS);
	free(cl);
	d->clients[ci] = NULL;
}

static int send_rep(int fd, const struct skp_rep *rep, const int *fds, int nfds)
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

/* The socket id named by the request, if this client owns it. */
static struct dsock *own(struct skopsd *d, struct client *cl, uint32_t id)
{
	if (id == 0 || id >= SKOPSD_MAX_SOCKS || !d->socks[id] || !client_holds(cl, id) ||
	    d->socks[id]->closing)
		return NULL;
	return d->socks[id];
}

static socklen_t sa_len(const struct skp_req *r)
{
	return r->len > sizeof(r->data) ? 0 : r->len;
}

/* A new stack socket for the client, in its cgroup: SOCKET and ACCEPT. */
static int new_sock(struct skopsd *d, struct client *cl, int sd, int family, struct skp_rep *rep,
		    int fds[2])
{
	int memfd, id = dsock_create(d, cl, sd, family, &memfd);
	if (id < 0)
		return id;
	fds[0] = memfd;
	fds[1] = d->socks[id]->efd;
	rep->id = (uint32_t)id;
	return 0;
}

static int route(struct skopsd *d, const struct skp_req *r)
{
	const struct sockaddr *sa = (const void *)r->data;
	uint8_t src[16];
	uint32_t mtu;
	if (sa_len(r) >= sizeof(struct sockaddr_in) && sa->sa_family == AF_INET)
		return net_route(stack_net(d->st), AF_INET,
				 &((const struct sockaddr_in *)sa)->sin_addr, src, &mtu);
	if (sa_len(r) >= sizeof(struct sockaddr_in6) && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;
		if (net_v6_mapped(s6->sin6_addr.s6_addr))
			return net_route(stack_net(d->st), AF_INET, s6->sin6_addr.s6_addr + 12, src,
					 &mtu);
		return net_route(stack_net(d->st), AF_INET6, &s6->sin6_addr, src, &mtu);
	}
	return -EAFNOSUPPORT;
}

/* UDP connect: AF_UNSPEC drops the default peer (and a port connect or
 * sendto bound, Linux __udp_disconnect); a peer skopsd does not route is
 * ENETUNREACH, as the kernel's route lookup at connect. */
static int dgram_connect(struct skopsd *d, struct dsock *s, const struct skp_req *r)
{
	const struct sockaddr *sa = (const void *)r->data;
	int rc;
	if (sa_len(r) >= sizeof(sa_family_t) && sa->sa_family == AF_UNSPEC) {
		rc = skops_connect(d->st, s->sd, sa, sa_len(r));
		if (!rc)
			atomic_fetch_and(&s->shm->state, ~SKP_ST_CONNECTED);
		return rc;
	}
	rc = skops_connect(d->st, s->sd, sa, sa_len(r));
	if (!rc && route(d, r)) {
		struct sockaddr_in6 un = {.sin6_family = AF_UNSPEC};
		skops_connect(d->st, s->sd, (struct sockaddr *)&un, sizeof(un));
		return -ENETUNREACH;
	}
	if (!rc)
		atomic_fetch_or(&s->shm->state, SKP_ST_CONNECTED);
	return rc;
}

/* A connected UDP socket bound to the wildcard names the source address
 * its route picks, as Linux's connect sets inet_saddr. */
static void dgram_local(struct skopsd *d, struct dsock *s, struct skp_rep *rep)
{
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer);
	uint8_t src[16];
	uint32_t mtu;
	if (!(atomic_load(&s->shm->state) & SKP_ST_CONNECTED) ||
	    skops_getpeername(d->st, s->sd, (struct sockaddr *)&peer, &pl))
		return;
	if (peer.ss_family == AF_INET) {
		struct sockaddr_in *l = (void *)rep->data;
		if (l->sin_addr.s_addr == 0 &&
		    !net_route(stack_net(d->st), AF_INET, &((struct sockaddr_in *)&peer)->sin_addr,
			       src, &mtu))
			memcpy(&l->sin_addr, src, 4);
	} else if (peer.ss_family == AF_INET6) {
		/* an IPv4 peer of a dual-stack socket: ::ffff:source, as Linux's
		 * ip6_datagram_connect names it */
		struct sockaddr_in6 *l = (void *)rep->data;
		const uint8_t *pa = ((struct sockaddr_in6 *)&peer)->sin6_addr.s6_addr;
		bool mapped = net_v6_mapped(pa);
		if (IN6_IS_ADDR_UNSPECIFIED(&l->sin6_addr) &&
		    !net_route(stack_net(d->st), mapped ? AF_INET : AF_INET6, mapped ? pa + 12 : pa,
			       src, &mtu)) {
			if (mapped) {
				l->sin6_addr.s6_addr[10] = l->sin6_addr.s6_addr[11] = 0xff;
				memcpy(l->sin6_addr.s6_addr + 12, src, 4);
			} else {
				memcpy(&l->sin6_addr, src, 16);
			}
		}
	}
}

/* SKP_FORK_LISTED: only the sockets r->data lists (uint32_t ids) */
static bool ticket_takes(const struct skp_req *r, unsigned id)
{
	if (!(r->a & SKP_FORK_LISTED))
		return true;
	uint32_t n = (r->len < sizeof(r->data) ? r->len : sizeof(r->data)) / sizeof(uint32_t);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v;
		memcpy(&v, r->data + i * sizeof(v), sizeof(v));
		if (v == id)
			return true;
	}
	return false;
}

/* fork: the ticket holds every socket of the parent, so a close in the
 * parent before the child claims them (accept, fork, close: the classic
 * server) does not close what the child inherited, as the kernel's file
 * references would not. The ticket is random and travels only through
 * the parent's memory into the child. */
static int ticket_new(struct skopsd *d, struct client *cl, const struct skp_req *r, uint64_t *token)
{
	unsigned t;
	for (t = 0; t < SKOPSD_MAX_TICKETS && d->tickets[t]; t++)
		;
	struct client *tk = t < SKOPSD_MAX_TICKETS ? calloc(1, sizeof(*tk)) : NULL;
	if (!tk)
		return -EAGAIN;
	int q = quota_take(d, cl->req_uid, Q_TICKETS);
	if (q) {
		free(tk);
		return q;
	}
	if (getrandom(&tk->ticket, sizeof(tk->ticket), 0) != sizeof(tk->ticket) || !tk->ticket) {
		quota_put(d, cl->req_uid, Q_TICKETS);
		free(tk);
		return -EAGAIN;
	}
	tk->fd = tk->kick = tk->pidfd = -1;
	tk->pid = cl->pid;
	tk->uid = cl->req_uid;
	tk->spawn = r->a & SKP_FORK_SPAWN;
	tk->ticket_deadline_ns = stack_now_ns(d->st) + SKOPSD_TICKET_NS;
	for (unsigned i = 1; i < SKOPSD_MAX_SOCKS; i++)
		if (d->socks[i] && client_holds(cl, i) && ticket_takes(r, i))
			dsock_hold(d->socks[i], tk, i);
	d->tickets[t] = tk;
	*token = tk->ticket;
	return 0;
}

/* cl takes the ticket's holds (NULL: nobody, it lapsed); the ticket goes. */
static void ticket_end(struct skopsd *d, unsigned t, struct client *cl)
{
	struct client *tk = d->tickets[t];
	for (unsigned i = 1; i < SKOPSD_MAX_SOCKS; i++) {
		if (!d->socks[i] || !client_holds(tk, i))
			continue;
		if (cl)
			dsock_hold(d->socks[i], cl, i);
		if (!dsock_release(d->socks[i], tk, i))
			dsock_close(d, i);
	}
	quota_put(d, tk->uid, Q_TICKETS);
	free(tk);
	d->tickets[t] = NULL;
}

static int ticket_claim(struct skopsd *d, struct client *cl, uint64_t token)
{
	for (unsigned t = 0; t < SKOPSD_MAX_TICKETS; t++) {
		if (d->tickets[t] && token && d->tickets[t]->ticket == token) {
			if (d->verbose)
				fprintf(stderr, "skopsd: pid %d shares pid %d's sockets (fork)\n",
					(int)cl->pid, (int)d->tickets[t]->pid);
			ticket_end(d, t, cl);
			return 0;
		}
	}
	return -ENOENT;
}

void srv_expire_tickets(struct skopsd *d)
{
	uint64_t now = stack_now_ns(d->st);
	for (unsigned t = 0; t < SKOPSD_MAX_TICKETS; t++)
		if (d->tickets[t] && now > d->tickets[t]->ticket_deadline_ns)
			ticket_end(d, t, NULL);
}

/* ACCEPT: a skops connection (its memfd and eventfd), or with
 * loopback-listen one the kernel's loopback listeners took (its socket
 * alone, id 0), taking turns. 0 when answered, else the stack's error
 * (-EAGAIN when neither has one). */
static int accept_one(struct skopsd *d, struct client *cl, struct dsock *s, unsigned id)
{
	struct skp_rep rep = {.id = id};
	struct sockaddr_storage ss;
	int fds[2], err = -EAGAIN;
	for (int k = 0; k < 2; k++, s->kfirst = !s->kfirst) {
		socklen_t l = sizeof(ss);
		int rc = s->kfirst ? kloop_accept(s, &ss, &l)
				   : skops_accept(d->st, s->sd, (struct sockaddr *)&ss, &l);
		if (rc < 0 && !s->kfirst)
			err = rc;
		if (rc < 0)
			continue;
		memcpy(rep.data, &ss, l < sizeof(rep.data) ? l : sizeof(rep.data));
		rep.len = l;
		s->kfirst = !s->kfirst; /* the other one goes first next time */
		if (!s->kfirst) {	/* the kernel's */
			rep.id = 0;
			send_rep(cl->fd, &rep, &rc, 1);
			close(rc); /* the app has its own */
		} else if ((rep.rc = new_sock(d, cl, rc, s->family, &rep, fds))) {
			skops_abort(d->st, rc);
			send_rep(cl->fd, &rep, NULL, 0);
		} else {
			d->socks[rep.id]->started = true;
			dsock_pump(d, rep.id);
			send_rep(cl->fd, &rep, fds, 2);
		}
		dsock_pump(d, id); /* the accept queues may be empty now */
		return 0;
	}
	dsock_pump(d, id);
	return err;
}

/* pid's parent (/proc/PID/stat: the field after the state, past the
 * command's closing parenthesis), 0 when unknown */
static pid_t parent_of(pid_t pid)
{
	char p[64], line[512];
	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(p, "re");
	if (!f)
		return 0;
	size_t n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = 0;
	char *e = strrchr(line, ')');
	int ppid = 0;
	return e && sscanf(e + 1, " %*c %d", &ppid) == 1 ? ppid : 0;
}

/* The child of a system() or popen() (the shim's ticket holds the
 * inheritable sockets while its shell starts) took socket id over: the
 * parent's ticket lets go of it, and goes once it holds nothing. */
static void ticket_pass(struct skopsd *d, struct client *cl, unsigned id)
{
	pid_t ppid = parent_of(cl->pid);
	for (unsigned t = 0; ppid && t < SKOPSD_MAX_TICKETS; t++) {
		struct client *tk = d->tickets[t];
		if (!tk || !tk->spawn || tk->pid != ppid || !client_holds(tk, id))
			continue;
		dsock_release(d->socks[id], tk, id);
		bool left = false;
		for (unsigned k = 0; k < SKOPSD_MAX_SOCKS / 64; k++)
			left |= tk->holds[k] != 0;
		if (!left)
			ticket_end(d, t, NULL);
	}
}

/* ADOPT: fd came from the client, which holds it (SCM_RIGHTS takes the
 * sender's own file, so possession is the kernel's word, as for any
 * inherited socket); the socket it is the eventfd of becomes the client's
 * too. An fd that is none of ours tells nothing and goes back unused. */
static int adopt(struct skopsd *d, struct client *cl, int fd, struct skp_rep *rep, int *memfd)
{
	int id = dsock_find_file(d, fd);
	close(fd);
	if (id < 0)
		return id;
	struct dsock *s = d->socks[id];
	struct skp_sockinfo in = {.family = s->family,
				  .type = s->dgram ? SOCK_DGRAM : SOCK_STREAM,
				  .listening = s->listening};
	memcpy(rep->data, &in, sizeof(in));
	rep->len = sizeof(in);
	if (s->closing) /* its last holder closed it before this one came */
		return -EBADF;
	if (d->verbose && !client_holds(cl, (unsigned)id))
		fprintf(stderr, "skopsd: pid %d uid %d adopts pid %d's socket %d (inherited)\n",
			(int)cl->pid, (int)cl->uid, (int)s->pid, id);
	dsock_hold(s, cl, (unsigned)id);
	ticket_pass(d, cl, (unsigned)id);
	rep->id = (uint32_t)id;
	*memfd = s->mfd;
	return 0;
}

/* Linux inet_bind: a port below net.ipv4.ip_unprivileged_port_start needs
 * CAP_NET_BIND_SERVICE (EACCES), checked on the process as it is now */
static int bind_allowed(struct skopsd *d, struct client *cl, const struct skp_req *r)
{
	const struct sockaddr_in *sa = (const void *)r->data;
	if (sa_len(r) < sizeof(*sa) || (sa->sin_family != AF_INET && sa->sin_family != AF_INET6))
		return 0;		     /* the stack's own checks answer */
	unsigned port = ntohs(sa->sin_port); /* sin6_port is at the same place */
	if (port == 0 || port >= d->port_min || peer_capable(cl, 10 /* CAP_NET_BIND_SERVICE */))
		return 0;
	return -EACCES;
}

/* listen(2) with the accept queue charged to the socket's owner (Q_PENDING):
 * backlog + 1 connections fit (tcp_acc_full), the backlog as Linux's
 * __sys_listen caps it (somaxconn, 4096), and past the owner's share the
 * backlog shrinks to what is left, as the kernel silently caps it; with
 * nothing left ENOBUFS. A second listen() recharges. */
static int listen_charged(struct skopsd *d, struct dsock *s, int backlog)
{
	unsigned want = backlog < 0 || backlog > 4096 ? 4096u : (unsigned)backlog;
	unsigned had = s->pending;
	quota_put_n(d, s->uid, Q_PENDING, had);
	s->pending = 0;
	unsigned room = quota_room(d, s->uid, Q_PENDING);
	unsigned got = want + 1 < room ? want + 1 : room;
	int rc = got ? quota_take_n(d, s->uid, Q_PENDING, got) : -ENOBUFS;
	if (!rc) {
		s->pending = got;
		rc = skops_listen(d->st, s->sd, (int)got - 1);
	}
	if (rc) {
		quota_put_n(d, s->uid, Q_PENDING, s->pending);
		s->pending = quota_take_n(d, s->uid, Q_PENDING, had) ? 0 : had;
	} else if (got < want + 1 && quota_note_ok(d)) {
		fprintf(stderr,
			"skopsd: pid %d uid %d: listen backlog %d cut to %u: accept queues at "
			"uid's share\n",
			(int)s->pid, (int)s->uid, backlog, got - 1);
	}
	return rc;
}

/* rfds: the fds that came with the request (LISTEN's loopback listeners,
 * ADOPT's fd); the request keeps them or closes them */
/* SKP_NET_STATS: the counters from index first, as text lines that fit. */
static int net_stats(struct skopsd *d, int32_t first, struct skp_rep *rep)
{
	struct net_stats ns;
	net_get_stats(stack_net(d->st), &ns);
	int total = 0;
	while (net_drop_names[total].name)
		total++;
	if (first < 0 || first > total)
		return -EINVAL;
	int i = first;
	for (; i < total; i++) {
		const struct net_stat_name *c = &net_drop_names[i];
		size_t room = sizeof(rep->data) - rep->len;
		int n =
		    snprintf((char *)rep->data + rep->len, room, "%s %llu\n", c->name,
			     (unsigned long long)*(const uint64_t *)((const char *)&ns + c->off));
		if (n < 0 || (size_t)n >= room)
			break;
		rep->len += (uint32_t)n;
	}
	rep->id = (uint32_t)i;
	return total;
}

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
		rep.rc = nk ? adopt(d, cl, rfds[0], &rep, &fds[0]) : -EINVAL;
		send_rep(cl->fd, &rep, fds, rep.rc ? 0 : 1);
		return;
	}
	if (r->op != SKP_HELLO && r->op != SKP_SOCKET && r->op != SKP_ROUTE && r->op != SKP_FORK &&
	    r->op != SKP_CLAIM && r->op != SKP_NET_STATS && !(s = own(d, cl, r->id))) {
		rep.rc = -EBADF;
		if (r->op != SKP_CLOSE) /* the shim waits for no CLOSE reply */
			send_rep(cl->fd, &rep, NULL, 0);
		for (int i = 0; i < nk; i++)
			close(rfds[i]);
		return;
	}
	if (s && s->sd < 0 && r->op != SKP_CLOSE && r->op != SKP_MEMFD) {
		rep.rc = -ECONNRESET;
		send_rep(cl->fd, &rep, NULL, 0);
		for (int i = 0; i < nk; i++)
			close(rfds[i]);
		return;
	}
	switch (r->op) {
	case SKP_HELLO: {
		/* another cgroup than the process's own: for root only */
		char want[sizeof(cl->cgroup)];
		snprintf(want, sizeof(want), "%.*s", (int)(r->len < sizeof(r->data) ? r->len : 0),
			 (const char *)r->data);
		rc = 0;
		if (want[0] && strcmp(want, cl->cgroup)) {
			if (cl->req_uid != 0 || want[0] != '/')
				rc = -EPERM;
			else
				snprintf(cl->cgroup, sizeof(cl->cgroup), "%s", want);
		}
		fds[0] = cl->kick;
		nfds = rc ? 0 : 1;
		rep.flags = d->loopback_listen ? SKP_F_LOOPBACK_LISTEN : 0;
		break;
	}
	case SKP_SOCKET: {
		bool dg = r->b == SOCK_DGRAM;
		rc = skops_socket(d->st, r->a, dg ? SOCK_DGRAM : SOCK_STREAM);
		if (rc >= 0) {
			int sd = rc;
			/* the kernel's sk_uid: SO_REUSEPORT shares a port only
			 * between sockets of one user */
			rc = dg ? 0 : skops_set_cgroup(d->st, sd, cl->cgroup);
			/* the kernel's sk_uid is the creator's fsuid at socket():
			 * a process that setuid()s since it connected owns its new
			 * sockets as its new self (the request's credentials) */
			if (!rc)
				rc = skops_set_owner(d->st, sd, cl->req_uid);
			if (!rc)
				rc = new_sock(d, cl, sd, r->a, &rep, fds);
			if (rc) {
				skops_close(d->st, sd);
			} else {
				nfds = 2;
				d->socks[rep.id]->dgram = dg;
			}
		}
		break;
	}
	case SKP_BIND:
		rc = bind_allowed(d, cl, r);
		if (!rc)
			rc = skops_bind(d->st, s->sd, (const void *)r->data, sa_len(r));
		break;
	case SKP_LISTEN:
		rc = listen_charged(d, s, r->a);
		if (!rc && nk)
			rc = kloop_adopt(d, s, r->id, rfds, nk);
		else
			for (int i = 0; i < nk; i++)
				close(rfds[i]);
		if (!rc) {
			s->listening = true;
			atomic_fetch_or(&s->shm->state, SKP_ST_LISTEN);
		}
		break;
	case SKP_CONNECT:
		if (s->dgram) {
			rc = dgram_connect(d, s, r);
			break;
		}
		rc = skops_connect(d->st, s->sd, (const void *)r->data, sa_len(r));
		s->started = !rc || rc == -EINPROGRESS;
		break;
	case SKP_ACCEPT:
		/* out of quota the connection stays queued, as the kernel's
		 * accept leaves it on EMFILE */
		if ((rc = quota_take(d, cl->req_uid, Q_SOCKS)))
			break;
		quota_put(d, cl->req_uid, Q_SOCKS);
		if (!(rc = accept_one(d, cl, s, r->id)))
			return; /* answered */
		break;
	case SKP_SHUTDOWN:
		if (s->dgram) {
			rc = skops_shutdown(d->st, s->sd, r->a);
			break;
		}
		rc = 0;
		if (r->a == SHUT_RD || r->a == SHUT_RDWR)
			rc = skops_shutdown(d->st, s->sd, SHUT_RD);
		if (!rc && (r->a == SHUT_WR || r->a == SHUT_RDWR))
			s->shut_wr_pending = true; /* after the bytes already queued */
		else if (!rc && r->a != SHUT_RD)
			rc = -EINVAL;
		dsock_pump(d, r->id);
		break;
	case SKP_CLOSE:
		if (!dsock_release(s, cl, r->id))
			dsock_close(d, r->id);
		return; /* no reply: close never waits */
	case SKP_FORK:
		rc = ticket_new(d, cl, r, &rep.token);
		break;
	case SKP_CLAIM:
		rc = ticket_claim(d, cl, r->token);
		break;
	case SKP_MEMFD:
		/* exec: the same process, a new image (the control socket was
		 * kept open across it) maps the socket again */
		cl->kept[r->id / 64] |= 1ull << (r->id % 64);
		fds[0] = s->mfd;
		nfds = 1;
		rc = 0;
		break;
	case SKP_EXEC_DONE:
		rc = 0;
		for (unsigned i = 1; i < SKOPSD_MAX_SOCKS; i++) {
			bool kept = (cl->kept[i / 64] >> (i % 64)) & 1;
			if (d->socks[i] && client_holds(cl, i) && !kept &&
			    !dsock_release(d->socks[i], cl, i))
				dsock_close(d, i);
		}
		memset(cl->kept, 0, sizeof(cl->kept));
		break;
	case SKP_SETSOCKOPT:
		rc = sockopt_set(d, cl, s, r);
		break;
	case SKP_GETSOCKOPT:
		rc = sockopt_get(d, s, r, &rep);
		break;
	case SKP_GETSOCKNAME:
	case SKP_GETPEERNAME: {
		socklen_t l = sizeof(rep.data);
		rc = (r->op == SKP_GETSOCKNAME ? skops_getsockname : skops_getpeername)(
		    d->st, s->sd, (void *)rep.data, &l);
		rep.len = l;
		if (!rc && s->dgram && r->op == SKP_GETSOCKNAME)
			dgram_local(d, s, &rep);
		break;
	}
	case SKP_ROUTE:
		rc = route(d, r);
		break;
	case SKP_NET_STATS:
		rc = net_stats(d, r->a, &rep);
		break;
	default:
		rc = -EINVAL;
	}
	rep.rc = rc;
	send_rep(cl->fd, &rep, fds, nfds);
	/* the daemon keeps its own memfd and eventfd (dsock) and kick */
}

static void drop_fd(int fd)
{
	close(fd);
}

/* One request, the fds that came with it (up to 2, close-on-exec) and its
 * sender's credentials (cr->pid 0: none came). */
static ssize_t recv_req(int fd, struct skp_req *r, int *fds, int *nfds, struct ucred *cr)
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

void srv_client(struct skopsd *d, unsigned ci)
{
	struct client *cl = d->clients[ci];
	for (int i = 0; i < 64; i++) {
		struct skp_req r;
		int fds[2], nfds;
		struct ucred cr;
		ssize_t n = recv_req(cl->fd, &r, fds, &nfds, &cr);
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
