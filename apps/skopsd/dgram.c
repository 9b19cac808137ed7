/* dgram: a UDP socket's records (struct skp_dgram, then the payload)
 * between its rings and the stack. The tx ring is the app's: each record's
 * length is checked against SKP_DGRAM_MAX and against what was published
 * before a byte of it is used. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "skops.h"
#include "skopsd.h"

/* one payload at a time: the daemon is single-threaded */
static uint8_t dbuf[SKP_DGRAM_MAX + 1];

static socklen_t rec_to_sa(const struct skp_dgram *h, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (h->family == AF_INET) {
		struct sockaddr_in *in = (void *)ss;
		in->sin_family = AF_INET;
		in->sin_port = h->port;
		memcpy(&in->sin_addr, h->addr, 4);
		return sizeof(*in);
	}
	struct sockaddr_in6 *in6 = (void *)ss;
	in6->sin6_family = AF_INET6;
	in6->sin6_port = h->port;
	memcpy(&in6->sin6_addr, h->addr, 16);
	return sizeof(*in6);
}

static void sa_to_rec(const struct sockaddr_storage *ss, struct skp_dgram *h)
{
	memset(h, 0, sizeof(*h));
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)ss;
		h->family = AF_INET;
		h->port = in->sin_port;
		memcpy(h->addr, &in->sin_addr, 4);
	} else {
		const struct sockaddr_in6 *in6 = (const void *)ss;
		h->family = AF_INET6;
		h->port = in6->sin6_port;
		memcpy(h->addr, &in6->sin6_addr, 16);
	}
}

/* The app's records into the stack. A datagram the stack refuses (no route,
 * over the MTU) is dropped, as a kernel datagram lost on the way would be;
 * a full device queue leaves it for the next round. */
static int dgram_tx(struct skopsd *d, struct dsock *s, bool *bad)
{
	int used =
	    skp_ring_used(atomic_load_explicit(&s->shm->tx.head, memory_order_acquire), s->tx_tail);
	if (used < 0) {
		*bad = true;
		return 0;
	}
	int work = 0;
	while ((uint32_t)used >= sizeof(struct skp_dgram)) {
		struct skp_dgram h;
		skp_ring_read(s->shm->txbuf, s->tx_tail, &h, sizeof(h));
		if (h.len > SKP_DGRAM_MAX || sizeof(h) + h.len > (uint32_t)used ||
		    (h.family && h.family != AF_INET && h.family != AF_INET6)) {
			*bad = true;
			break;
		}
		skp_ring_read(s->shm->txbuf, s->tx_tail + sizeof(h), dbuf, h.len);
		ssize_t rc;
		if (h.family) {
			struct sockaddr_storage ss;
			socklen_t l = rec_to_sa(&h, &ss);
			rc = skops_sendto(d->st, s->sd, dbuf, h.len, 0, (struct sockaddr *)&ss, l);
		} else {
			rc = skops_send(d->st, s->sd, dbuf, h.len, 0);
		}
		if (rc == -ENOBUFS || rc == -EAGAIN)
			break;
		if (rc < 0 && s->dgram_drops++ == 0 && d->verbose)
			fprintf(stderr, "skopsd: pid %d: datagram of %u bytes dropped: %s\n",
				(int)s->pid, h.len, strerror((int)-rc));
		s->tx_tail += (uint32_t)sizeof(h) + h.len;
		used -= (int)(sizeof(h) + h.len);
		work++;
	}
	if (work) {
		atomic_store_explicit(&s->shm->tx.tail, s->tx_tail, memory_order_release);
		wake_tx(s);
	}
	return work;
}

/* The stack's datagrams into the app's ring, while the app's SO_RCVBUF
 * (as bytes of records) and a largest record's room allow; the rest wait
 * in the stack's queue, which drops beyond its length as a full kernel
 * receive buffer does. */
static int dgram_rx(struct skopsd *d, struct dsock *s, bool *bad)
{
	uint32_t t = atomic_load_explicit(&s->shm->rx.tail, memory_order_acquire);
	if (skp_ring_check_tail(s->rx_head, s->rx_tail, t)) {
		*bad = true;
		return 0;
	}
	s->rx_tail = t;
	uint32_t limit = atomic_load(&s->shm->rcvbuf);
	if (!limit || limit > SKP_RING_SIZE)
		limit = SKP_RING_SIZE;
	int work = 0;
	for (;;) {
		uint32_t used = s->rx_head - s->rx_tail;
		if (SKP_RING_SIZE - used < SKP_DGRAM_ROOM || used >= limit) {
			atomic_store(&s->shm->rx_full, 1);
			break;
		}
		struct sockaddr_storage ss;
		socklen_t l = sizeof(ss);
		ssize_t r = skops_recvfrom(d->st, s->sd, dbuf, SKP_DGRAM_MAX, 0,
					   (struct sockaddr *)&ss, &l);
		if (r < 0)
			break;
		struct skp_dgram h;
		sa_to_rec(&ss, &h);
		h.len = (uint32_t)r;
		skp_ring_write(s->shm->rxbuf, s->rx_head, &h, sizeof(h));
		skp_ring_write(s->shm->rxbuf, s->rx_head + sizeof(h), dbuf, h.len);
		s->rx_head += (uint32_t)sizeof(h) + h.len;
		work++;
	}
	if (work) {
		atomic_store_explicit(&s->shm->rx.head, s->rx_head, memory_order_release);
		wake_app(s);
	}
	return work;
}

int dgram_pump(struct skopsd *d, struct dsock *s, bool *bad)
{
	int work = 0;
	/* the stack's SO_ERROR is read once: it moves to the app's soft error */
	if (skops_events(d->st, s->sd) & SKOPS_EV_ERR) {
		int e = 0;
		socklen_t l = sizeof(e);
		if (!skops_getsockopt(d->st, s->sd, SOL_SOCKET, SO_ERROR, &e, &l) && e) {
			atomic_store(&s->shm->soft_err, e);
			atomic_fetch_add_explicit(&s->shm->err_seq, 1, memory_order_release);
			wake_app(s);
			work++;
		}
	}
	work += dgram_tx(d, s, bad);
	if (!*bad && !s->closing)
		work += dgram_rx(d, s, bad);
	return work;
}
