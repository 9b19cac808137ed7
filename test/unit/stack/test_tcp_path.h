/* Two stacks joined by a simulated path, for the simulations of loss
 * recovery, receive-buffer autotuning and BBR: the clock, the two stacks
 * and the ends their xmit is called for, the segments in flight, each
 * queued for the other end at its arrival time and seen as the receiver
 * sees it, the route both ends use, and each direction's line. The tests
 * own the event loop; the pieces here are what they would write alike. */
#ifndef TEST_TCP_PATH_H
#define TEST_TCP_PATH_H

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
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

/* One end: the arg its stack's xmit is called with. */
struct tpath_end {
	struct tpath *w;
	int idx; /* 0: A, 1: B */
};

struct tpath {
	uint64_t now;
	struct tcp *tcp[2];
	struct tpath_end end[2];
	struct tpath_pk *q;
	unsigned nq;
	uint64_t busy[2]; /* each direction's line is busy until */
	uint64_t rate_bps;
};

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

/* The simulation embedding the path w as `member`, from an end's arg. */
#define TPATH_OWNER(e, type, member) ((type *)(void *)((char *)(e)->w - offsetof(type, member)))

/* An empty path whose lines carry rate_bps, its clock at 1 s. */
static inline void tpath_init(struct tpath *w, uint64_t rate_bps)
{
	w->q = calloc(TPATH_QCAP, sizeof(*w->q));
	ck_assert_ptr_nonnull(w->q);
	w->rate_bps = rate_bps;
	w->now = 1000000000ull;
}

/* End i's stack from cfg (its xmit and what it sets itself), routed by
 * tpath_route and called with &w->end[i]. */
static inline void tpath_stack(struct tpath *w, int i, struct tcp_config *cfg)
{
	w->end[i].w = w;
	w->end[i].idx = i;
	cfg->route = tpath_route;
	cfg->arg = &w->end[i];
	ck_assert_int_eq(tcp_create(cfg, &w->tcp[i]), 0);
}

static inline void tpath_fini(struct tpath *w)
{
	tcp_destroy(w->tcp[0]);
	tcp_destroy(w->tcp[1]);
	free(w->q);
}

/* When a frame of len bytes from end `from`, offered now, leaves its
 * line (the line is busy for it whether it arrives or not). *start: when
 * it began to go out, so now..start is the queue it waited in. */
static inline uint64_t tpath_line(struct tpath *w, int from, uint32_t len, uint64_t *start)
{
	uint64_t s = w->busy[from] > w->now ? w->busy[from] : w->now;
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
static inline void tpath_deliver(struct tpath *w, int held, void (*after)(void *), void *arg)
{
	for (unsigned i = 0; i < w->nq;) {
		if (w->q[i].at > w->now || w->q[i].to == held) {
			i++;
			continue;
		}
		struct tpath_pk k = w->q[i];
		w->q[i] = w->q[--w->nq];
		tcp_input(w->tcp[k.to], w->now, &k.t, &k.r, k.data, k.len, 0, NULL);
		if (after)
			after(arg);
	}
}

/* The earliest of `next`, the segments' arrivals and both stacks' timers:
 * when the simulation has something to do (UINT64_MAX: nothing, ever). */
static inline uint64_t tpath_next(const struct tpath *w, uint64_t next)
{
	for (unsigned i = 0; i < w->nq; i++)
		if (w->q[i].at < next)
			next = w->q[i].at;
	for (int i = 0; i < 2; i++) {
		uint64_t d = tcp_next_deadline(w->tcp[i]);
		if (d < next)
			next = d;
	}
	return next;
}

#endif
