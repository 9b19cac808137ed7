/* req_sock: the control requests on one socket (SOCKET, BIND, LISTEN,
 * CONNECT, SOCK_CONNECT, ACCEPT, SHUTDOWN, CLOSE, the names, ROUTE) and HELLO and
 * NET_STATS, one handler each; srv.c dispatches to them after checking
 * that the client holds the socket it names. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "req.h"
#include "skops.h"
#include "skopsd.h"

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
			ctl_reply(cl->fd, &rep, &rc, 1);
			close(rc); /* the app has its own */
		} else if ((rep.rc = new_sock(d, cl, rc, s->family, &rep, fds))) {
			skops_abort(d->st, rc);
			ctl_reply(cl->fd, &rep, NULL, 0);
		} else {
			d->socks[rep.id]->started = true;
			dsock_pump(d, rep.id);
			ctl_reply(cl->fd, &rep, fds, 2);
		}
		dsock_pump(d, id); /* the accept queues may be empty now */
		return 0;
	}
	dsock_pump(d, id);
	return err;
}

/* SKP_NET_STATS: the counters from index first, as text lines that fit. */
static int net_stats(struct skopsd *d, int32_t first, struct skp_rep *rep)
{
	struct net_stats ns;
	net_get_stats(stack_net(d->st), &ns);
	int total = 0;
	while (net_stat_names[total].name)
		total++;
	if (first < 0 || first > total)
		return -EINVAL;
	int i = first;
	for (; i < total; i++) {
		const struct net_stat_name *c = &net_stat_names[i];
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

int req_hello(struct skopsd *d, struct client *cl, const struct skp_req *r, struct skp_rep *rep,
	      int *fds, int *nfds)
{
	/* another cgroup than the process's own: for root only */
	char want[sizeof(cl->cgroup)];
	snprintf(want, sizeof(want), "%.*s", (int)(r->len < sizeof(r->data) ? r->len : 0),
		 (const char *)r->data);
	int rc = 0;
	if (want[0] && strcmp(want, cl->cgroup)) {
		if (cl->req_uid != 0 || want[0] != '/')
			rc = -EPERM;
		else
			snprintf(cl->cgroup, sizeof(cl->cgroup), "%s", want);
	}
	fds[0] = cl->kick;
	*nfds = rc ? 0 : 1;
	rep->flags = (d->loopback_listen ? SKP_F_LOOPBACK_LISTEN : 0) | SKP_F_SOCK_CONNECT |
		     SKP_F_SOCK_CONNECT_DGRAM;
	return rc;
}

int req_socket(struct skopsd *d, struct client *cl, const struct skp_req *r, struct skp_rep *rep,
	       int *fds, int *nfds)
{
	bool dg = r->b == SOCK_DGRAM;
	int rc = skops_socket(d->st, r->a, dg ? SOCK_DGRAM : SOCK_STREAM);
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
			rc = new_sock(d, cl, sd, r->a, rep, fds);
		if (rc) {
			skops_close(d->st, sd);
		} else {
			*nfds = 2;
			d->socks[rep->id]->dgram = dg;
		}
	}
	return rc;
}

/* SOCK_CONNECT's data: the header, then the sockaddr and the options,
 * each part within what the request holds and nothing after them; the
 * offset of the first option is the header's and the sockaddr's length */
static int sconn_check(const struct skp_req *r, struct skp_sconn *h)
{
	if (r->len > sizeof(r->data) || r->len < sizeof(*h))
		return -EINVAL;
	memcpy(h, r->data, sizeof(*h));
	uint32_t off = sizeof(*h) + h->salen;
	for (unsigned i = 0; i < h->nopts && off <= r->len; i++) {
		struct skp_opt o;
		if (r->len - off < sizeof(o))
			return -EINVAL;
		memcpy(&o, r->data + off, sizeof(o));
		off += sizeof(o);
		if (o.len > r->len - off)
			return -EINVAL;
		off += o.len;
	}
	return off == r->len ? 0 : -EINVAL;
}

int req_sock_connect(struct skopsd *d, struct client *cl, const struct skp_req *r,
		     struct skp_rep *rep, int *fds, int *nfds)
{
	struct skp_sconn h;
	int rc = sconn_check(r, &h);
	if (rc)
		return rc;
	/* the type as SOCKET takes it: a UDP connect is one request too */
	int type = r->b == SOCK_DGRAM ? SOCK_DGRAM : SOCK_STREAM;
	struct skp_req one = {.op = SKP_SOCKET, .a = r->a, .b = type};
	if ((rc = req_socket(d, cl, &one, rep, fds, nfds)))
		return rc;
	struct dsock *s = d->socks[rep->id];
	uint32_t off = sizeof(h) + h.salen;
	for (unsigned i = 0; i < h.nopts; i++) {
		struct skp_opt o;
		memcpy(&o, r->data + off, sizeof(o));
		off += sizeof(o);
		one = (struct skp_req){
		    .op = SKP_SETSOCKOPT, .id = rep->id, .a = o.level, .b = o.name, .len = o.len};
		memcpy(one.data, r->data + off, o.len);
		off += o.len;
		/* not reported, as the shim's batched replay never asked: the
		 * app's kernel socket accepted the option when it was set */
		(void)sockopt_set(d, cl, s, &one);
	}
	one = (struct skp_req){.op = SKP_CONNECT, .id = rep->id, .len = h.salen};
	memcpy(one.data, r->data + sizeof(h), h.salen);
	return req_connect(d, s, &one);
}

int req_bind(struct skopsd *d, struct client *cl, struct dsock *s, const struct skp_req *r)
{
	int rc = bind_allowed(d, cl, r);
	if (!rc)
		rc = skops_bind(d->st, s->sd, (const void *)r->data, sa_len(r));
	return rc;
}

int req_listen(struct skopsd *d, struct dsock *s, const struct skp_req *r, int *rfds, int nk)
{
	int rc = listen_charged(d, s, r->a);
	if (!rc && nk)
		rc = kloop_adopt(d, s, r->id, rfds, nk);
	else
		for (int i = 0; i < nk; i++)
			close(rfds[i]);
	if (!rc) {
		s->listening = true;
		atomic_fetch_or(&s->shm->state, SKP_ST_LISTEN);
	}
	return rc;
}

int req_connect(struct skopsd *d, struct dsock *s, const struct skp_req *r)
{
	if (s->dgram)
		return dgram_connect(d, s, r);
	int rc = skops_connect(d->st, s->sd, (const void *)r->data, sa_len(r));
	s->started = !rc || rc == -EINPROGRESS;
	return rc;
}

int req_accept(struct skopsd *d, struct client *cl, struct dsock *s, unsigned id)
{
	/* out of quota the connection stays queued, as the kernel's
	 * accept leaves it on EMFILE */
	int rc = quota_take(d, cl->req_uid, Q_SOCKS);
	if (rc)
		return rc;
	quota_put(d, cl->req_uid, Q_SOCKS);
	return accept_one(d, cl, s, id);
}

int req_shutdown(struct skopsd *d, struct dsock *s, const struct skp_req *r)
{
	if (s->dgram)
		return skops_shutdown(d->st, s->sd, r->a);
	int rc = 0;
	if (r->a == SHUT_RD || r->a == SHUT_RDWR)
		rc = skops_shutdown(d->st, s->sd, SHUT_RD);
	if (!rc && (r->a == SHUT_WR || r->a == SHUT_RDWR))
		s->shut_wr_pending = true; /* after the bytes already queued */
	else if (!rc && r->a != SHUT_RD)
		rc = -EINVAL;
	dsock_pump(d, r->id);
	return rc;
}

void req_close(struct skopsd *d, struct client *cl, struct dsock *s, unsigned id)
{
	if (!dsock_release(s, cl, id))
		dsock_close(d, id);
}

int req_name(struct skopsd *d, struct dsock *s, const struct skp_req *r, struct skp_rep *rep)
{
	socklen_t l = sizeof(rep->data);
	int rc = (r->op == SKP_GETSOCKNAME ? skops_getsockname : skops_getpeername)(
	    d->st, s->sd, (void *)rep->data, &l);
	rep->len = l;
	if (!rc && s->dgram && r->op == SKP_GETSOCKNAME)
		dgram_local(d, s, rep);
	return rc;
}

int req_route(struct skopsd *d, const struct skp_req *r)
{
	return route(d, r);
}

int req_net_stats(struct skopsd *d, const struct skp_req *r, struct skp_rep *rep)
{
	return net_stats(d, r->a, rep);
}
