/* shim_dgram: UDP sockets on skopsd. Each datagram is one record in a ring
 * (struct skp_dgram, then the payload), so boundaries survive the shared
 * memory; the checks the kernel makes before a datagram leaves (udp_sendmsg,
 * udpv6_sendmsg) are made here, in its order, so errno is the kernel's. */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "shim_fdtab.h"

static size_t iov_total(const struct iovec *iov, size_t n)
{
	size_t t = 0;
	for (size_t i = 0; i < n; i++)
		t += iov[i].iov_len;
	return t;
}

static bool dg_mapped(const struct skp_dgram *h)
{
	return h->family == AF_INET6 && IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)h->addr);
}

/* The largest payload one datagram (to h, when it names a destination) may
 * carry on this socket: the kernel's limit for the family it leaves in;
 * over the path MTU the stack fragments (RFC 791 §3.2, RFC 8200 §4.5). */
static size_t dg_max(const struct ssock *s, const struct skp_dgram *h)
{
	return s->family == AF_INET || dg_mapped(h) ? 65507 : SKP_DGRAM_MAX;
}

/* IPV6_V6ONLY, asked of the daemon at the first IPv4 destination and kept
 * until the application sets it (shim_dg_setopt). */
static bool dg_v6only(struct ssock *s)
{
	if (!s->v6only_known) {
		struct skp_req req = {.op = SKP_GETSOCKOPT,
				      .id = s->id,
				      .a = IPPROTO_IPV6,
				      .b = IPV6_V6ONLY,
				      .len = sizeof(int)};
		struct skp_rep rep;
		int v = 0;
		if (!shim_rpc(&req, &rep, NULL, NULL) && rep.len >= sizeof(int))
			memcpy(&v, rep.data, sizeof(v));
		s->v6only = v != 0;
		s->v6only_known = true;
	}
	return s->v6only;
}

/* An IPv4 destination as the record's: the address itself on an AF_INET
 * socket, ::ffff:a.b.c.d on a dual-stack AF_INET6 one (the daemon's stack
 * sends it as IPv4); ENETUNREACH on an IPv6-only one (udpv6_sendmsg). */
static int dg_dest4(struct ssock *s, const struct in_addr *a, in_port_t port, struct skp_dgram *h)
{
	if (s->family == AF_INET6 && dg_v6only(s)) /* before udp_sendmsg's checks */
		return -ENETUNREACH;
	if (!port)
		return -EINVAL;
	h->port = port;
	if (s->family == AF_INET) {
		h->family = AF_INET;
		memcpy(h->addr, a, 4);
		return 0;
	}
	h->family = AF_INET6;
	memset(h->addr, 0, 10);
	h->addr[10] = h->addr[11] = 0xff;
	memcpy(h->addr + 12, a, 4);
	return 0;
}

/* The destination into the record header; -errno as the kernel's, 1 when
 * the address names none (the connected peer). */
static int dg_dest(struct ssock *s, const struct sockaddr *to, socklen_t tolen, struct skp_dgram *h)
{
	const struct sockaddr_in *in = (const void *)to;
	if (s->family == AF_INET) {
		if (tolen < sizeof(*in))
			return -EINVAL;
		/* udp_sendmsg takes AF_UNSPEC as AF_INET */
		if (in->sin_family != AF_INET && in->sin_family != AF_UNSPEC)
			return -EAFNOSUPPORT;
		return dg_dest4(s, &in->sin_addr, in->sin_port, h);
	}
	/* udpv6_sendmsg: AF_UNSPEC is no address, AF_INET goes to
	 * udp_sendmsg (IPv4), another family is EINVAL */
	const struct sockaddr_in6 *in6 = (const void *)to;
	if (tolen < offsetof(struct sockaddr, sa_data))
		return -EINVAL;
	if (in6->sin6_family == AF_UNSPEC)
		return 1;
	if (in6->sin6_family == AF_INET)
		return tolen < sizeof(*in) ? -EINVAL : dg_dest4(s, &in->sin_addr, in->sin_port, h);
	if (in6->sin6_family != AF_INET6 || tolen < 24) /* SIN6_LEN_RFC2133 */
		return -EINVAL;
	if (!in6->sin6_port)
		return -EINVAL;
	if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
		return dg_dest4(s, (const struct in_addr *)(in6->sin6_addr.s6_addr + 12),
				in6->sin6_port, h);
	h->family = AF_INET6;
	h->port = in6->sin6_port;
	memcpy(h->addr, &in6->sin6_addr, 16);
	return 0;
}

ssize_t shim_dg_send(int fd, struct ssock *s, const struct msghdr *msg, int flags)
{
	size_t total = iov_total(msg->msg_iov, msg->msg_iovlen);
	struct skp_dgram h = {.len = (uint32_t)total};
	int rc = 0;
	uint32_t st = atomic_load(&s->shm->state);
	if (total > 0xffff)
		rc = -EMSGSIZE;
	else if (flags & MSG_OOB)
		rc = -EOPNOTSUPP;
	else if (msg->msg_name)
		rc = dg_dest(s, msg->msg_name, msg->msg_namelen, &h);
	if (rc == 1) /* no address after all */
		rc = 0;
	if (!rc && !h.family && !(st & SKP_ST_CONNECTED))
		rc = -EDESTADDRREQ;
	if (!rc && total > dg_max(s, &h))
		rc = -EMSGSIZE;
	if (!rc && (st & SKP_ST_ERR))
		rc = -atomic_load(&s->shm->err);
	int soft = rc ? 0 : shim_dg_soft_err(s, true); /* sock_alloc_send_skb's sock_error */
	if (soft)
		rc = -soft;
	if (!rc && s->shut_wr) /* sock_alloc_send_pskb: EPIPE, no SIGPIPE for UDP */
		rc = -EPIPE;
	bool asked = false;
	pthread_mutex_lock(&s->tx_lock);
	while (!rc) {
		struct skp_shm *m = s->shm;
		if (shim_daemon_dead()) {
			rc = -ECONNRESET;
			break;
		}
		uint32_t head = atomic_load_explicit(&m->tx.head, memory_order_relaxed);
		uint32_t used = head - atomic_load_explicit(&m->tx.tail, memory_order_acquire);
		uint32_t room = used > SKP_RING_SIZE ? 0 : SKP_RING_SIZE - used;
		if (room >= sizeof(h) + total) {
			skp_ring_write(m->txbuf, head, &h, sizeof(h));
			uint32_t at = head + (uint32_t)sizeof(h);
			for (size_t i = 0; i < msg->msg_iovlen; i++) {
				skp_ring_write(m->txbuf, at, msg->msg_iov[i].iov_base,
					       (uint32_t)msg->msg_iov[i].iov_len);
				at += (uint32_t)msg->msg_iov[i].iov_len;
			}
			atomic_store_explicit(&m->tx.head, at, memory_order_release);
			shim_kick_asleep(m);
			break;
		}
		if (shim_nonblock(s) || (flags & MSG_DONTWAIT)) {
			if (!asked) { /* room may have come before the ask */
				shim_ask_out(s);
				asked = true;
				continue;
			}
			rc = -EAGAIN;
			break;
		}
		pthread_mutex_unlock(&s->tx_lock);
		rc = shim_wait(fd, s, POLLOUT, s->sndtimeo_ms);
		pthread_mutex_lock(&s->tx_lock);
	}
	pthread_mutex_unlock(&s->tx_lock);
	if (rc) {
		errno = -rc;
		return -1;
	}
	return (ssize_t)total;
}

/* The record at the rx tail: its header, or false when the ring is empty. */
static bool dg_peek(struct ssock *s, struct skp_dgram *h, uint32_t *tail)
{
	struct skp_shm *m = s->shm;
	*tail = atomic_load_explicit(&m->rx.tail, memory_order_relaxed);
	uint32_t avail = atomic_load_explicit(&m->rx.head, memory_order_acquire) - *tail;
	if (avail > SKP_RING_SIZE || avail < sizeof(*h))
		return false;
	skp_ring_read(m->rxbuf, *tail, h, sizeof(*h));
	if (h->len > avail - sizeof(*h)) /* never past what the daemon wrote */
		h->len = avail - (uint32_t)sizeof(*h);
	return true;
}

static void dg_name(const struct ssock *s, const struct skp_dgram *h, struct msghdr *msg)
{
	struct sockaddr_storage ss;
	socklen_t l;
	memset(&ss, 0, sizeof(ss));
	if (s->family == AF_INET) {
		struct sockaddr_in *in = (void *)&ss;
		in->sin_family = AF_INET;
		in->sin_port = h->port;
		memcpy(&in->sin_addr, h->addr, 4);
		l = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (void *)&ss;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = h->port;
		memcpy(&in6->sin6_addr, h->addr, 16);
		l = sizeof(*in6);
	}
	memcpy(msg->msg_name, &ss, msg->msg_namelen < l ? msg->msg_namelen : l);
	msg->msg_namelen = l;
}

ssize_t shim_dg_recv(int fd, struct ssock *s, struct msghdr *msg, int flags)
{
	size_t total = iov_total(msg->msg_iov, msg->msg_iovlen);
	msg->msg_flags = 0;
	msg->msg_controllen = 0;
	if (flags & MSG_ERRQUEUE) { /* nothing is ever queued there (no IP_RECVERR) */
		errno = EAGAIN;
		return -1;
	}
	pthread_mutex_lock(&s->rx_lock);
	ssize_t ret;
	for (;;) {
		struct skp_dgram h;
		uint32_t tail;
		/* __skb_recv_udp takes a pending error before the queue */
		int soft = shim_dg_soft_err(s, true);
		if (soft) {
			ret = -soft;
			break;
		}
		if (dg_peek(s, &h, &tail)) {
			uint32_t n = h.len < total ? h.len : (uint32_t)total, at = tail + sizeof(h);
			for (size_t i = 0, left = n; left && i < msg->msg_iovlen; i++) {
				uint32_t k = msg->msg_iov[i].iov_len < left
						 ? (uint32_t)msg->msg_iov[i].iov_len
						 : (uint32_t)left;
				skp_ring_read(s->shm->rxbuf, at, msg->msg_iov[i].iov_base, k);
				at += k;
				left -= k;
			}
			if (msg->msg_name)
				dg_name(s, &h, msg);
			if (h.len > total)
				msg->msg_flags |= MSG_TRUNC;
			if (!(flags & MSG_PEEK)) {
				atomic_store_explicit(&s->shm->rx.tail, tail + sizeof(h) + h.len,
						      memory_order_release);
				if (atomic_exchange(&s->shm->rx_full, 0))
					shim_kick_asleep(s->shm);
			}
			/* MSG_TRUNC asks for the datagram's real length */
			ret = (flags & MSG_TRUNC) ? (ssize_t)h.len : (ssize_t)n;
			break;
		}
		if (atomic_load(&s->shm->state) & SKP_ST_ERR) {
			ret = -atomic_load(&s->shm->err);
			break;
		}
		if (shim_daemon_dead()) {
			ret = -ECONNRESET;
			break;
		}
		if (s->shut_rd) { /* __skb_wait_for_more_packets: no wait, 0 */
			ret = 0;
			break;
		}
		int rc = shim_rx_block(fd, s, flags);
		if (rc) {
			ret = rc;
			break;
		}
	}
	pthread_mutex_unlock(&s->rx_lock);
	return shim_ret(ret);
}

int shim_dg_next_len(struct ssock *s)
{
	struct skp_dgram h;
	uint32_t tail;
	pthread_mutex_lock(&s->rx_lock);
	int n = dg_peek(s, &h, &tail) ? (int)h.len : 0;
	pthread_mutex_unlock(&s->rx_lock);
	return n;
}

bool shim_dg_local_opt(int level, int name)
{
	return level == SOL_SOCKET && (name == SO_RCVBUF || name == SO_SNDBUF ||
				       name == SO_RCVBUFFORCE || name == SO_SNDBUFFORCE);
}

int shim_dg_setopt(struct ssock *s, int level, int name, const void *val, socklen_t len)
{
	if (level == IPPROTO_IPV6 && name == IPV6_V6ONLY)
		s->v6only_known = false; /* the daemon's answer decides */
	if (!shim_dg_local_opt(level, name))
		return 1;
	/* a kernel UDP socket does the kernel's arithmetic (the doubling,
	 * rmem_max/wmem_max, the minimums) and gives the kernel's errors */
	int k = shim_real.socket(s->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (k < 0)
		return -1;
	int rc = shim_real.setsockopt(k, level, name, val, len), v = 0;
	socklen_t l = sizeof(v);
	bool rcv = name == SO_RCVBUF || name == SO_RCVBUFFORCE;
	if (!rc && !shim_real.getsockopt(k, SOL_SOCKET, rcv ? SO_RCVBUF : SO_SNDBUF, &v, &l)) {
		if (rcv) {
			s->rcvbuf = v;
			atomic_store(&s->shm->rcvbuf, (uint32_t)v);
		} else {
			s->sndbuf = v;
		}
	}
	int e = errno;
	shim_real.close(k);
	errno = e;
	return rc;
}

int shim_dg_getopt(struct ssock *s, int level, int name, void *val, socklen_t *len)
{
	if (!shim_dg_local_opt(level, name))
		return 1;
	int v = name == SO_RCVBUF ? s->rcvbuf : name == SO_SNDBUF ? s->sndbuf : 0;
	if (v) {
		if (*len < sizeof(v)) {
			errno = EINVAL;
			return -1;
		}
		memcpy(val, &v, sizeof(v));
		*len = sizeof(v);
		return 0;
	}
	/* not set: a fresh kernel UDP socket's answer (the defaults) */
	int k = shim_real.socket(s->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (k < 0)
		return -1;
	int rc = shim_real.getsockopt(k, level, name, val, len), e = errno;
	shim_real.close(k);
	errno = e;
	return rc;
}
