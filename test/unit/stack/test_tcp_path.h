/* Two stacks joined by a simulated path, for the simulations of loss
 * recovery and receive-buffer autotuning: the segments in flight, each
 * queued for the other end at its arrival time and seen as the receiver
 * sees it, the route both ends use, and each direction's line. The tests
 * own the event loop; the pieces here are what they would write alike. */
#ifndef TEST_TCP_PATH_H
#define TEST_TCP_PATH_H

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "tcp/tcp_int.h"

#define TPATH_QCAP 16384u
#define TPATH_WIRE 66u /* bytes of framing our accounting adds to a segment */

struct tpath_pk {
	uint64_t at;
	uint8_t to;
	struct tcp_tuple t; /* the receiver's view */
	struct tcp_repr r;
	uint32_t len;
	uint8_t data[1600];
};

struct tpath {
	struct tpath_pk *q;
	unsigned nq;
	uint64_t busy[2]; /* each direction's line is busy until */
	uint64_t rate_bps;
};

/* When a frame of len bytes from end `from`, offered at now, leaves its
 * line (the line is busy for it whether it arrives or not). *start: when
 * it began to go out, so now..start is the queue it waited in. */
static inline uint64_t tpath_line(struct tpath *w, int from, uint64_t now, uint32_t len,
				  uint64_t *start)
{
	uint64_t s = w->busy[from] > now ? w->busy[from] : now;
	w->busy[from] = s + (uint64_t)(len + TPATH_WIRE) * 8 * 1000000000ull / w->rate_bps;
	if (start)
		*start = s;
	return w->busy[from];
}

/* Queue what end `from` sent for the other end, arriving at `at`. */
static inline void tpath_put(struct tpath *w, int from, uint64_t at, const struct tcp_tuple *t,
			     const struct tcp_repr *r, const struct tcp_iov *d)
{
	uint32_t len = d->n[0] + d->n[1];
	ck_assert_uint_le(len, sizeof(w->q[0].data));
	ck_assert_uint_lt(w->nq, TPATH_QCAP);
	struct tpath_pk *k = &w->q[w->nq++];
	k->at = at;
	k->to = (uint8_t)(1 - from);
	k->t = *t;
	k->t.laddr = t->raddr;
	k->t.raddr = t->laddr;
	k->t.lport = t->rport;
	k->t.rport = t->lport;
	k->r = *r;
	k->len = len;
	if (d->n[0])
		memcpy(k->data, d->p[0], d->n[0]);
	if (d->n[1])
		memcpy(k->data + d->n[0], d->p[1], d->n[1]);
}

/* Hand every segment due by now to its receiver, except those for end
 * `held` (-1: none), which is not running. after(arg) runs after each. */
static inline void tpath_deliver(struct tpath *w, struct tcp *tcp[2], uint64_t now, int held,
				 void (*after)(void *), void *arg)
{
	for (unsigned i = 0; i < w->nq;) {
		if (w->q[i].at > now || w->q[i].to == held) {
			i++;
			continue;
		}
		struct tpath_pk k = w->q[i];
		w->q[i] = w->q[--w->nq];
		tcp_input(tcp[k.to], now, &k.t, &k.r, k.data, k.len, 0, NULL);
		if (after)
			after(arg);
	}
}

/* The earliest of `next`, the segments' arrivals and both stacks' timers:
 * when the simulation has something to do (UINT64_MAX: nothing, ever). */
static inline uint64_t tpath_next(const struct tpath *w, struct tcp *tcp[2], uint64_t next)
{
	for (unsigned i = 0; i < w->nq; i++)
		if (w->q[i].at < next)
			next = w->q[i].at;
	for (int i = 0; i < 2; i++) {
		uint64_t d = tcp_next_deadline(tcp[i]);
		if (d < next)
			next = d;
	}
	return next;
}

/* Both ends route IPv4 only, from 198.18.0.1, over a 1500-byte MTU. */
static inline int tpath_route(void *arg, uint8_t family, const void *dst, void *src, uint32_t *mtu)
{
	(void)arg;
	(void)dst;
	if (family != AF_INET)
		return -ENETUNREACH;
	if (src) {
		uint32_t a = inet_addr("198.18.0.1");
		memcpy(src, &a, 4);
	}
	if (mtu)
		*mtu = 1500;
	return 0;
}

#endif
