/* socket: the skops_* native API over tcp/ (stream) and net's UDP
 * (datagram): descriptors, sockaddr handling, errno-style results,
 * readiness and per-connection info. */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "cgroup.h"
#include "stack_int.h"
#include "wire/wire.h"

struct skops_sock *stack_sock(struct stack *st, int sd)
{
	if (!st || sd < 0 || (uint32_t)sd >= st->nsocks || !st->socks[sd].type)
		return NULL;
	return &st->socks[sd];
}

/* A user call's time: read the clock, since the application may call long
 * after the last poll (skcat sleeps when idle), and timers armed from a stale
 * time fire early (a tail loss probe armed 14 ms in the past went out in the
 * middle of the initial window). */
static uint64_t user_now(struct stack *st)
{
	st->now = clk_now(st->cfg.net.clk);
	return st->now;
}

static int sock_alloc(struct stack *st)
{
	int sd = st->free_sd;
	if (sd < 0)
		return -EMFILE;
	struct skops_sock *s = &st->socks[sd];
	st->free_sd = s->next_free;
	memset(s, 0, sizeof(*s));
	s->st = st;
	s->sd = sd;
	return sd;
}

static void sock_free(struct stack *st, int sd)
{
	struct skops_sock *s = &st->socks[sd];
	free(s->q);
	memset(s, 0, sizeof(*s));
	s->next_free = st->free_sd;
	st->free_sd = sd;
}

/* sockaddr → (address bytes, port); -EINVAL/-EAFNOSUPPORT as the kernel. */
static int sa_get(int family, const struct sockaddr *sa, socklen_t len, uint8_t addr[16],
		  uint16_t *port)
{
	if (!sa)
		return -EFAULT;
	memset(addr, 0, 16);
	if (family == AF_INET) {
		if (len < sizeof(struct sockaddr_in))
			return -EINVAL;
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		if (in->sin_family != AF_INET)
			return -EAFNOSUPPORT;
		memcpy(addr, &in->sin_addr, 4);
		*port = ntohs(in->sin_port);
		return 0;
	}
	if (len < sizeof(struct sockaddr_in6))
		return -EINVAL;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
	if (in6->sin6_family != AF_INET6)
		return -EAFNOSUPPORT;
	memcpy(addr, &in6->sin6_addr, 16);
	*port = ntohs(in6->sin6_port);
	return 0;
}

static void sa_put(int family, const void *addr, uint16_t port, struct sockaddr *sa, socklen_t *len)
{
	if (!sa || !len)
		return;
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	socklen_t n;
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		in->sin_family = AF_INET;
		memcpy(&in->sin_addr, addr, 4);
		in->sin_port = htons(port);
		n = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
		in6->sin6_family = AF_INET6;
		memcpy(&in6->sin6_addr, addr, 16);
		in6->sin6_port = htons(port);
		n = sizeof(*in6);
	}
	memcpy(sa, &ss, *len < n ? *len : n);
	*len = n;
}

/* An address of the wire's family (wfam) in the socket's own: IPv4 on an
 * AF_INET6 socket shows ::ffff:a.b.c.d, as Linux's getsockname, getpeername,
 * accept and recvfrom do. */
static void sa_put_as(const struct skops_sock *s, uint8_t wfam, const void *a, uint16_t port,
		      struct sockaddr *sa, socklen_t *len)
{
	uint8_t mapped[16] = {[10] = 0xff, [11] = 0xff};
	if (s->family == AF_INET6 && wfam == AF_INET) {
		memcpy(mapped + 12, a, 4);
		a = mapped;
	}
	sa_put(s->family, a, port, sa, len);
}

/* A stream socket's local or remote address in its own family. */
static void tcb_sa_put(const struct skops_sock *s, bool local, struct sockaddr *sa, socklen_t *len)
{
	const struct tcp_tuple *t = tcp_tcb_tuple(s->tcb);
	const void *a = local ? (const void *)&t->laddr : (const void *)&t->raddr;
	sa_put_as(s, t->family, a, local ? t->lport : t->rport, sa, len);
}

/* A UDP socket's address (socket form) as the wire's: a v4-mapped one of
 * an AF_INET6 socket is IPv4. */
static uint8_t udp_wire(const struct skops_sock *s, const uint8_t a[16], const uint8_t **wa)
{
	bool mapped = s->family == AF_INET6 && net_v6_mapped(a);
	*wa = mapped ? a + 12 : a;
	return mapped ? AF_INET : (uint8_t)s->family;
}

int skops_socket(struct stack *st, int family, int type)
{
	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	if (type != SOCK_STREAM && type != SOCK_DGRAM)
		return -EPROTONOSUPPORT;
	int sd = sock_alloc(st);
	if (sd < 0)
		return sd;
	struct skops_sock *s = &st->socks[sd];
	s->type = type;
	s->family = family;
	if (type == SOCK_STREAM) {
		int rc = tcp_open(st->tcp, family, &s->tcb);
		if (rc < 0) {
			sock_free(st, sd);
			return rc;
		}
		tcp_tcb_set_sd(s->tcb, sd);
	} else {
		s->q = calloc(1, sizeof(*s->q));
		if (!s->q) {
			sock_free(st, sd);
			return -ENOMEM;
		}
	}
	return sd;
}

static void udp_dirty(struct skops_sock *s);

static void udp_rx(void *arg, struct rte_mbuf *m, const struct ip_meta *meta, uint16_t sport,
		   uint16_t dport)
{
	(void)dport;
	struct skops_sock *s = arg;
	if (s->q->len == STACK_UDP_QLEN) {
		s->q->drops++;
		rte_pktmbuf_free(m);
		return;
	}
	struct skops_udp_dgram *d = &s->q->d[(s->q->head + s->q->len) % STACK_UDP_QLEN];
	d->m = m;
	d->family = meta->family;
	memcpy(d->src, &meta->src, 16);
	d->sport = sport;
	s->q->len++;
	udp_dirty(s);
}

/* Linux __udp4_lib_err/__udp6_lib_err without IP_RECVERR: only a connected
 * socket whose peer the quoted datagram went to hears of an error, and only
 * of a hard one: port unreachable, ECONNREFUSED (SO_ERROR, EV_ERR). */
static void udp_err(void *arg, const struct net_icmp_err *e)
{
	struct skops_sock *s = arg;
	const uint8_t *peer;
	uint8_t fam = udp_wire(s, s->peer, &peer);
	if (!s->connected || e->kind != NET_ICMP_UNREACH_PORT || e->inner.family != fam ||
	    memcmp(&e->inner.dst, peer, fam == AF_INET ? 4 : 16) ||
	    wire_get16(e->l4 + 2) != s->pport)
		return;
	s->q->so_error = ECONNREFUSED;
	udp_dirty(s);
}

/* s's readiness changed: its callback runs in this poll */
static void udp_dirty(struct skops_sock *s)
{
	if (!s->q->dirty) {
		struct stack *st = s->st;
		s->q->dirty = true;
		if (st->n_udp_dirty < st->nsocks)
			st->udp_dirty[st->n_udp_dirty++] = s->sd;
		else
			st->udp_scan = true;
	}
}

static int udp_bind(struct stack *st, struct skops_sock *s, const uint8_t *addr, uint16_t port)
{
	if (s->udp)
		return -EINVAL;
	struct net_udp_opts o = {.v6only = s->v6only,
				 .reuseaddr = s->reuseaddr,
				 .reuseport = s->reuseport,
				 .uid = s->uid};
	int rc = net_udp_open_opts(st->net, (uint8_t)s->family, addr, port, &o, udp_rx, s, &s->udp);
	if (rc < 0)
		return rc;
	memcpy(s->laddr, addr, 16);
	s->lport = net_udp_port(s->udp);
	net_udp_set_err(s->udp, udp_err);
	return 0;
}

int skops_bind(struct stack *st, int sd, const struct sockaddr *addr, socklen_t len)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	uint8_t a[16];
	uint16_t port;
	int rc = sa_get(s->family, addr, len, a, &port);
	if (rc < 0)
		return rc;
	if (s->type == SOCK_DGRAM) /* net_udp_open checks the address */
		return udp_bind(st, s, a, port);
	static const uint8_t zero[16];
	if (s->family == AF_INET6 && net_v6_mapped(a)) {
		/* ::ffff:a.b.c.d binds the IPv4 address a.b.c.d (0.0.0.0
		 * included) on an AF_INET6 socket (Linux inet6_bind) */
		if (tcp_tcb_v6only(s->tcb))
			return -EINVAL;
		if (memcmp(a + 12, zero, 4) && !net_is_local(st->net, AF_INET, a + 12))
			return -EADDRNOTAVAIL;
		return tcp_bind(st->tcp, s->tcb, a, port);
	}
	if (memcmp(a, zero, 16) && !net_is_local(st->net, (uint8_t)s->family, a))
		return -EADDRNOTAVAIL;
	return tcp_bind(st->tcp, s->tcb, a, port);
}

int skops_listen(struct stack *st, int sd, int backlog)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (s->type != SOCK_STREAM)
		return -EOPNOTSUPP;
	return tcp_listen(st->tcp, s->tcb, backlog, user_now(st));
}

int skops_accept(struct stack *st, int sd, struct sockaddr *addr, socklen_t *len)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (s->type != SOCK_STREAM || tcp_tcb_state(s->tcb) != TCP_LISTEN)
		return -EINVAL;
	if (st->free_sd < 0)
		return -EMFILE;
	struct tcb *c = tcp_accept(st->tcp, s->tcb);
	if (!c)
		return -EAGAIN;
	int nsd = sock_alloc(st);
	struct skops_sock *n = &st->socks[nsd];
	n->type = SOCK_STREAM;
	n->family = tcp_tcb_family(c);
	n->tcb = c;
	tcp_tcb_set_sd(c, nsd);
	tcb_sa_put(n, false, addr, len);
	return nsd;
}

int skops_connect(struct stack *st, int sd, const struct sockaddr *addr, socklen_t len)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (s->type == SOCK_DGRAM && addr && len >= sizeof(sa_family_t) &&
	    addr->sa_family == AF_UNSPEC) {
		/* Linux __udp_disconnect: the default peer goes; the port stays
		 * (a 6.x kernel keeps one connect bound, too) */
		s->connected = false;
		if (s->udp)
			net_udp_connect(s->udp, 0, NULL, 0);
		return 0;
	}
	uint8_t a[16];
	uint16_t port;
	int rc = sa_get(s->family, addr, len, a, &port);
	if (rc < 0)
		return rc;
	if (s->type == SOCK_DGRAM) {
		/* Linux __ip6_datagram_connect: IPv4 needs a dual-stack socket */
		if (s->family == AF_INET6 && net_v6_mapped(a) &&
		    (s->udp ? net_udp_v6only(s->udp) : s->v6only))
			return -ENETUNREACH;
		if (!s->udp) {
			static const uint8_t any[16];
			rc = udp_bind(st, s, any, 0);
			if (rc < 0)
				return rc;
		}
		memcpy(s->peer, a, 16);
		s->pport = port;
		s->connected = true;
		const uint8_t *wa;
		uint8_t wfam = udp_wire(s, a, &wa);
		net_udp_connect(s->udp, wfam, wa, port);
		return 0;
	}
	return tcp_connect(st->tcp, s->tcb, a, port, user_now(st));
}

ssize_t skops_send(struct stack *st, int sd, const void *buf, size_t len, int flags)
{
	(void)flags;
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (s->type == SOCK_DGRAM) {
		if (!s->connected)
			return -EDESTADDRREQ;
		const uint8_t *peer;
		uint8_t fam = udp_wire(s, s->peer, &peer);
		int rc = net_udp_sendto(st->net, s->udp, buf, len, fam, peer, s->pport);
		return rc < 0 ? rc : (ssize_t)len;
	}
	if (len > INT32_MAX)
		len = INT32_MAX;
	return tcp_send(st->tcp, s->tcb, buf, (uint32_t)len, user_now(st));
}

ssize_t skops_recv(struct stack *st, int sd, void *buf, size_t len, int flags)
{
	return skops_recvfrom(st, sd, buf, len, flags, NULL, NULL);
}

ssize_t skops_sendto(struct stack *st, int sd, const void *buf, size_t len, int flags,
		     const struct sockaddr *to, socklen_t tolen)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (s->type == SOCK_STREAM || !to)
		return skops_send(st, sd, buf, len, flags);
	uint8_t a[16];
	uint16_t port;
	int rc = sa_get(s->family, to, tolen, a, &port);
	if (rc < 0)
		return rc;
	if (!s->udp) {
		static const uint8_t any[16];
		rc = udp_bind(st, s, any, 0);
		if (rc < 0)
			return rc;
	}
	const uint8_t *wa;
	uint8_t fam = udp_wire(s, a, &wa);
	rc = net_udp_sendto(st->net, s->udp, buf, len, fam, wa, port);
	return rc < 0 ? rc : (ssize_t)len;
}

ssize_t skops_recvfrom(struct stack *st, int sd, void *buf, size_t len, int flags,
		       struct sockaddr *from, socklen_t *fromlen)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	bool peek = (flags & MSG_PEEK) != 0;
	if (s->type == SOCK_STREAM) {
		if (len > INT32_MAX)
			len = INT32_MAX;
		int32_t n = tcp_recv(st->tcp, s->tcb, buf, (uint32_t)len, peek, user_now(st));
		if (n >= 0 && from)
			tcb_sa_put(s, false, from, fromlen);
		return n;
	}
	if (!s->q->len)
		return -EAGAIN;
	struct skops_udp_dgram *d = &s->q->d[s->q->head];
	uint32_t plen = rte_pktmbuf_pkt_len(d->m);
	uint32_t n = plen < len ? plen : (uint32_t)len;
	const void *p = rte_pktmbuf_read(d->m, 0, n, buf);
	if (p && p != buf)
		memcpy(buf, p, n);
	sa_put_as(s, d->family, d->src, d->sport, from, fromlen);
	if (!peek) {
		rte_pktmbuf_free(d->m);
		s->q->head = (s->q->head + 1) % STACK_UDP_QLEN;
		s->q->len--;
	}
	return (ssize_t)n;
}

int skops_shutdown(struct stack *st, int sd, int how)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
		return -EINVAL;
	if (s->type == SOCK_DGRAM)
		return s->connected ? 0 : -ENOTCONN;
	return tcp_shutdown(st->tcp, s->tcb, how != SHUT_WR, how != SHUT_RD, user_now(st));
}

int skops_close(struct stack *st, int sd)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (s->type == SOCK_STREAM) {
		tcp_close(st->tcp, s->tcb, user_now(st));
	} else {
		if (s->udp)
			net_udp_close(st->net, s->udp);
		while (s->q->len) {
			rte_pktmbuf_free(s->q->d[s->q->head].m);
			s->q->head = (s->q->head + 1) % STACK_UDP_QLEN;
			s->q->len--;
		}
	}
	sock_free(st, sd);
	return 0;
}

int skops_abort(struct stack *st, int sd)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (s->type != SOCK_STREAM)
		return skops_close(st, sd);
	tcp_abort(st->tcp, s->tcb, user_now(st), true);
	sock_free(st, sd);
	return 0;
}

/* SO_REUSEADDR and SO_REUSEPORT take effect at bind; the other socket
 * level options are accepted and do nothing. */
static int udp_setsockopt(struct skops_sock *s, int level, int optname, const void *val,
			  socklen_t len)
{
	if (level != SOL_SOCKET)
		return -ENOPROTOOPT;
	if (optname != SO_REUSEADDR && optname != SO_REUSEPORT)
		return 0;
	int v;
	if (!val || len < sizeof(v))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	*(optname == SO_REUSEADDR ? &s->reuseaddr : &s->reuseport) = v != 0;
	return 0;
}

int skops_setsockopt(struct stack *st, int sd, int level, int optname, const void *val,
		     socklen_t len)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (level == SOL_IPV6 && optname == IPV6_V6ONLY) {
		/* the socket's binding, not a TCP option: programs cannot set it */
		int v;
		if (s->family != AF_INET6)
			return -ENOPROTOOPT;
		if (!val || len < sizeof(v))
			return -EINVAL;
		memcpy(&v, val, sizeof(v));
		if (s->type == SOCK_STREAM)
			return tcp_set_v6only(s->tcb, v != 0);
		if (s->udp) /* Linux: once the socket has a port */
			return -EINVAL;
		s->v6only = v != 0;
		return 0;
	}
	if (s->type == SOCK_DGRAM)
		return udp_setsockopt(s, level, optname, val, len);
	return tcp_setsockopt(s->tcb, level, optname, val, len, false);
}

int skops_getsockopt(struct stack *st, int sd, int level, int optname, void *val, socklen_t *len)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (!len)
		return -EFAULT;
	if (level == SOL_IPV6 && optname == IPV6_V6ONLY) {
		if (s->family != AF_INET6)
			return -EOPNOTSUPP;
		int v = s->type == SOCK_STREAM ? tcp_tcb_v6only(s->tcb)
			: s->udp	       ? net_udp_v6only(s->udp)
					       : s->v6only;
		if (*len < sizeof(v))
			return -EINVAL;
		memcpy(val, &v, sizeof(v));
		*len = sizeof(v);
		return 0;
	}
	if (s->type == SOCK_DGRAM) {
		if (level == SOL_SOCKET &&
		    (optname == SO_ERROR || optname == SO_TYPE || optname == SO_REUSEADDR ||
		     optname == SO_REUSEPORT) &&
		    *len >= sizeof(int)) {
			int v = optname == SO_TYPE	  ? SOCK_DGRAM
				: optname == SO_REUSEADDR ? s->reuseaddr
				: optname == SO_REUSEPORT ? s->reuseport
							  : s->q->so_error;
			if (optname == SO_ERROR)
				s->q->so_error = 0; /* read once, as sock_error */
			memcpy(val, &v, sizeof(v));
			*len = sizeof(int);
			return 0;
		}
		return -ENOPROTOOPT;
	}
	uint32_t l = *len;
	int rc = tcp_getsockopt(s->tcb, level, optname, val, &l);
	*len = l;
	return rc;
}

int skops_getsockname(struct stack *st, int sd, struct sockaddr *addr, socklen_t *len)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (s->type == SOCK_DGRAM)
		sa_put(s->family, s->laddr, s->lport, addr, len);
	else
		tcb_sa_put(s, true, addr, len);
	return 0;
}

int skops_getpeername(struct stack *st, int sd, struct sockaddr *addr, socklen_t *len)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (s->type == SOCK_DGRAM) {
		if (!s->connected)
			return -ENOTCONN;
		sa_put(s->family, s->peer, s->pport, addr, len);
		return 0;
	}
	uint8_t st_ = tcp_tcb_state(s->tcb);
	if (st_ == TCP_CLOSED || st_ == TCP_LISTEN || st_ == TCP_SYN_SENT)
		return -ENOTCONN;
	tcb_sa_put(s, false, addr, len);
	return 0;
}

uint32_t skops_events(struct stack *st, int sd)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return 0;
	if (s->type == SOCK_DGRAM)
		return (s->q->len ? SKOPS_EV_IN : 0) | SKOPS_EV_OUT |
		       (s->q->so_error ? SKOPS_EV_ERR : 0);
	_Static_assert(TCP_EV_IN == SKOPS_EV_IN && TCP_EV_OUT == SKOPS_EV_OUT &&
			   TCP_EV_HUP == SKOPS_EV_HUP && TCP_EV_ERR == SKOPS_EV_ERR &&
			   TCP_EV_RDHUP == SKOPS_EV_RDHUP,
		       "tcp_events reports in skops.h's bits");
	return tcp_events(s->tcb);
}

static void udp_event(struct stack *st, struct skops_sock *s)
{
	if (s->type == SOCK_DGRAM && s->q->dirty) {
		s->q->dirty = false;
		if (s->cb)
			s->cb(s->cb_arg, s->sd, skops_events(st, s->sd));
	}
}

/* UDP readiness from the list of sockets that received (as TCP's dirty
 * list). This ran every poll over every socket slot, 16448 with skperf's
 * defaults: half of a busy-polling skperf's time went to it. */
void stack_udp_events(struct stack *st)
{
	/* A callback may receive, close or open: entries it adds are served
	 * in this round too (the array bounds them). */
	for (uint32_t i = 0; i < st->n_udp_dirty; i++)
		udp_event(st, &st->socks[st->udp_dirty[i]]);
	st->n_udp_dirty = 0;
	if (st->udp_scan) {
		st->udp_scan = false;
		for (uint32_t i = 0; i < st->nsocks; i++)
			udp_event(st, &st->socks[i]);
	}
}

int skops_set_callback(struct stack *st, int sd, void (*fn)(void *arg, int sd, uint32_t ev),
		       void *arg)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	s->cb = fn;
	s->cb_arg = arg;
	return 0;
}

int skops_set_cgroup(struct stack *st, int sd, const char *path)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (!st->cfg.cg_tree)
		return -EOPNOTSUPP;
	if (s->type != SOCK_STREAM)
		return -EOPNOTSUPP;
	struct cg_node *cg;
	int rc = cg_lookup(st->cfg.cg_tree, path, true, &cg);
	if (rc < 0)
		return rc;
	rc = tcp_set_cgroup(s->tcb, cg);
	cg_node_put(cg);
	return rc;
}

int skops_set_owner(struct stack *st, int sd, uint32_t uid)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (s->type == SOCK_DGRAM) {
		if (s->udp) /* Linux sets sk_uid at socket(); bind takes it */
			return -EISCONN;
		s->uid = uid;
		return 0;
	}
	tcp_set_owner(s->tcb, uid);
	return 0;
}

const char *skops_cc_available(void)
{
	return tcp_cc_available();
}

int skops_tcp_counters(struct stack *st, struct skops_tcp_counters *out)
{
	if (!out)
		return -EINVAL;
	tcp_get_counters(st->tcp, out);
	return 0;
}

int skops_tcp_info(struct stack *st, int sd, struct skops_tcp_info *out)
{
	struct skops_sock *s = stack_sock(st, sd);
	if (!s)
		return -EBADF;
	if (s->type != SOCK_STREAM || !out)
		return -EOPNOTSUPP;
	tcp_get_info(s->tcb, out);
	return 0;
}
