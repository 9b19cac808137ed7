/* Fixtures for the TCP unit tests (smoltcp style): one struct tcp driven at
 * explicit times, every segment it sends captured as a repr + payload, and
 * helpers that build a tcb in each RFC 9293 state. No device, no sleeps.
 * "Local" is 10.0.0.1:80 (or an ephemeral port when we connect), the peer
 * 10.0.0.2:5000. */
#ifndef SKOPS_TEST_TCP_FIXTURE_H
#define SKOPS_TEST_TCP_FIXTURE_H

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "skops.h"
#include "tcp/tcp_int.h"

#define FX_MAX_OUT 256
#define MS	   1000000ull

struct fx_seg {
	struct tcp_tuple t;
	uint8_t tos;
	struct tcp_repr r;
	uint32_t len;
	uint8_t data[2048];
	uint64_t at;
};

struct fx {
	struct tcp *tcp;
	struct tcp_config cfg;
	uint64_t now;
	struct fx_seg out[FX_MAX_OUT];
	unsigned nout, next; /* captured, consumed by fx_pop */
	struct tcp_tuple t;  /* local view of the connection */
	uint32_t peer_seq;   /* the peer's next sequence number */
	uint32_t events;
};

static int fx_xmit(void *arg, const struct tcp_tuple *t, uint8_t tos, const struct tcp_repr *r,
		   const struct tcp_iov *d)
{
	struct fx *f = arg;
	ck_assert_uint_lt(f->nout, FX_MAX_OUT);
	struct fx_seg *s = &f->out[f->nout++];
	s->t = *t;
	s->tos = tos;
	s->r = *r;
	s->len = d->n[0] + d->n[1];
	ck_assert_uint_le(s->len, sizeof(s->data));
	if (d->n[0])
		memcpy(s->data, d->p[0], d->n[0]);
	if (d->n[1])
		memcpy(s->data + d->n[0], d->p[1], d->n[1]);
	s->at = f->now;
	/* every segment names the connection's ports */
	ck_assert_uint_eq(r->sport, t->lport);
	ck_assert_uint_eq(r->dport, t->rport);
	return 0;
}

static int fx_route(void *arg, uint8_t family, const void *dst, void *src, uint32_t *mtu)
{
	(void)arg;
	(void)dst;
	if (family == AF_INET6) {
		/* fd00::1 */
		if (src) {
			uint8_t a[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
			memcpy(src, a, 16);
		}
	} else if (family != AF_INET) {
		return -ENETUNREACH;
	} else if (src) {
		uint32_t a = inet_addr("10.0.0.1");
		memcpy(src, &a, 4);
	}
	if (mtu)
		*mtu = 1500;
	return 0;
}

static void fx_event(void *arg, struct tcb *tcb)
{
	struct fx *f = arg;
	f->events |= tcp_events(tcb);
}

/* cfg_fn may adjust the config before tcp_create. */
static inline void fx_init_cfg(struct fx *f, void (*cfg_fn)(struct tcp_config *))
{
	memset(f, 0, sizeof(*f));
	f->cfg.hz = 1000;
	f->cfg.syn_linear_timeouts = 4;
	f->cfg.seed = 42;
	f->cfg.keys_from_seed = true;
	f->cfg.max_conns = 64;
	f->cfg.xmit = fx_xmit;
	f->cfg.route = fx_route;
	f->cfg.event = fx_event;
	f->cfg.arg = f;
	if (cfg_fn)
		cfg_fn(&f->cfg);
	ck_assert_int_eq(tcp_create(&f->cfg, &f->tcp), 0);
	f->now = 1000 * MS;
	f->t.family = AF_INET;
	f->t.laddr.v4 = inet_addr("10.0.0.1");
	f->t.raddr.v4 = inet_addr("10.0.0.2");
	f->t.lport = 80;
	f->t.rport = 5000;
}

/* The peer and us in IPv6: fd00::1 (us) and a peer in the same /44
 * ("nearby" for hooks/progs/policy.h) or far away; port is ours when
 * passive, the peer's when active. */
static inline void fx_v6(struct fx *f, bool nearby, uint16_t lport, uint16_t rport)
{
	uint8_t l[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	uint8_t r[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
	if (!nearby)
		r[1] = 0x99;
	memset(&f->t, 0, sizeof(f->t));
	f->t.family = AF_INET6;
	memcpy(f->t.laddr.v6, l, 16);
	memcpy(f->t.raddr.v6, r, 16);
	f->t.lport = lport;
	f->t.rport = rport;
}

static inline void fx_init(struct fx *f)
{
	fx_init_cfg(f, NULL);
}

static inline void fx_fini(struct fx *f)
{
	tcp_destroy(f->tcp);
}

static inline void fx_at(struct fx *f, uint64_t now)
{
	f->now = now;
	tcp_timers(f->tcp, now);
}

/* The next captured segment, or fail. */
static inline struct fx_seg *fx_pop(struct fx *f)
{
	ck_assert_msg(f->next < f->nout, "expected a segment, none sent");
	return &f->out[f->next++];
}

static inline void fx_none(struct fx *f)
{
	ck_assert_msg(f->next == f->nout, "expected nothing, got %u segment(s) (first flags %#x)",
		      f->nout - f->next, f->next < f->nout ? f->out[f->next].r.flags : 0);
}

static inline struct tcp_repr fx_repr(uint32_t seq, uint32_t ack, uint8_t flags, uint16_t wnd)
{
	struct tcp_repr r;
	memset(&r, 0, sizeof(r));
	r.sport = 5000;
	r.dport = 80;
	r.seq = seq;
	r.ack = ack;
	r.flags = flags;
	r.window = wnd;
	r.wscale = -1;
	return r;
}

/* Feed a segment from the peer at the current time. */
static inline void fx_send(struct fx *f, const struct tcp_repr *r, const void *data, uint32_t len)
{
	struct tcp_repr c = *r;
	c.sport = f->t.rport;
	c.dport = f->t.lport;
	tcp_input(f->tcp, f->now, &f->t, &c, data, len, 0, NULL);
}

static inline void fx_send_ecn(struct fx *f, const struct tcp_repr *r, const void *data,
			       uint32_t len, uint8_t ecn)
{
	struct tcp_repr c = *r;
	c.sport = f->t.rport;
	c.dport = f->t.lport;
	tcp_input(f->tcp, f->now, &f->t, &c, data, len, ecn, NULL);
}

#define FX_PEER_ISN 1000u

/* A listener on port 80 and a connection accepted from the peer (no
 * options when plain, else MSS 1460, WS 7, SACK, TS). */
static inline struct tcb *fx_passive(struct fx *f, bool opts, struct tcb **listener)
{
	struct tcb *l;
	ck_assert_int_eq(tcp_open(f->tcp, f->t.family, &l), 0);
	uint8_t any[16] = {0};
	ck_assert_int_eq(tcp_bind(f->tcp, l, any, f->t.lport), 0);
	ck_assert_int_eq(tcp_listen(f->tcp, l, 16, f->now), 0);
	l->sd = 0;
	struct tcp_repr syn = fx_repr(FX_PEER_ISN, 0, TCP_SYN, 65535);
	if (opts) {
		syn.mss = 1460;
		syn.wscale = 7;
		syn.sack_perm = true;
		syn.ts = true;
		syn.tsval = 100;
	}
	fx_send(f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(f);
	ck_assert_uint_eq(sa->r.flags, TCP_SYN | TCP_ACK);
	ck_assert_uint_eq(sa->r.ack, FX_PEER_ISN + 1);
	struct tcp_repr ack = fx_repr(FX_PEER_ISN + 1, sa->r.seq + 1, TCP_ACK, opts ? 512 : 65535);
	if (opts) {
		ack.ts = true;
		ack.tsval = 101;
		ack.tsecr = sa->r.tsval;
	}
	f->now += 10 * MS;
	fx_send(f, &ack, NULL, 0);
	fx_none(f);
	struct tcb *c = tcp_accept(f->tcp, l);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	c->sd = 1;
	f->peer_seq = FX_PEER_ISN + 1;
	if (listener)
		*listener = l;
	return c;
}

/* We connect to the peer and it answers (options as fx_passive). */
static inline struct tcb *fx_active(struct fx *f, bool opts)
{
	struct tcb *c;
	ck_assert_int_eq(tcp_open(f->tcp, f->t.family, &c), 0);
	c->sd = 0;
	ck_assert_int_eq(tcp_connect(f->tcp, c, &f->t.raddr, f->t.rport, f->now), -EINPROGRESS);
	f->t = c->t;
	struct fx_seg *syn = fx_pop(f);
	ck_assert_uint_eq(syn->r.flags, TCP_SYN);
	struct tcp_repr sa = fx_repr(FX_PEER_ISN, syn->r.seq + 1, TCP_SYN | TCP_ACK, 65535);
	if (opts) {
		sa.mss = 1460;
		sa.wscale = 7;
		sa.sack_perm = true;
		sa.ts = true;
		sa.tsval = 100;
		sa.tsecr = syn->r.tsval;
	}
	f->now += 10 * MS;
	fx_send(f, &sa, NULL, 0);
	struct fx_seg *ack = fx_pop(f);
	ck_assert_uint_eq(ack->r.flags, TCP_ACK);
	ck_assert_uint_eq(ack->r.ack, FX_PEER_ISN + 1);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	f->peer_seq = FX_PEER_ISN + 1;
	return c;
}

/* The peer acknowledges everything we sent, window w. */
static inline void fx_ack_all(struct fx *f, struct tcb *c, uint16_t w)
{
	struct tcp_repr a = fx_repr(f->peer_seq, c->send.nxt, TCP_ACK, w);
	if (c->flags & TCB_F_TS) {
		a.ts = true;
		a.tsval = (uint32_t)(f->now / MS);
		a.tsecr = c->recv.ts_recent;
	}
	fx_send(f, &a, NULL, 0);
}

#endif
