/* tcp_syncookie: SYN cookies (RFC 4987 §3.6) with Linux's encoding
 * (syncookies.c: __cookie_v4_init_sequence, cookie_v4_check,
 * cookie_init_timestamp, cookie_timestamp_decode): when a listener's SYN
 * queue is full its SYN-ACK carries the state in the ISN and the TSval, and
 * the final ACK makes the connection. Read docs/tcp.md "SYN cookies". */
#include <stdlib.h>
#include <string.h>

#include "tcp_int.h"

#define COOKIE_BITS 24
#define COOKIE_MASK ((1u << COOKIE_BITS) - 1)
#define COOKIE_AGE  2 /* minutes a cookie stays good (MAX_SYNCOOKIE_AGE) */
/* Linux TCP_SYNCOOKIE_VALID: ACKs are taken as cookies for two minutes
 * after the last cookie went out (tcp_synq_no_recent_overflow); else an
 * ACK to a listener is answered with a RST without a hash. */
#define COOKIE_VALID_NS (120ull * CLK_NS_PER_S)

/* Option bits in the low 6 bits of TSval (TS_OPT_*): the peer's window
 * scale, 15 for none; SACK permitted; ECN agreed. */
#define TS_BITS	  6
#define TS_WSCALE 0x0fu
#define TS_SACK	  0x10u
#define TS_ECN	  0x20u

/* The MSS a cookie can say: the largest entry not above the SYN's. */
static const uint16_t mss4[] = {536, 1300, 1440, 1460};
static const uint16_t mss6[] = {1280 - 60, 1480 - 60, 1500 - 60, 9000 - 60};

static const uint16_t *mss_tab(uint8_t family)
{
	return family == AF_INET6 ? mss6 : mss4;
}

static uint32_t minutes(const struct tcp *tcp)
{
	return (uint32_t)(tcp->now / (60ull * CLK_NS_PER_S));
}

/* Two keyed hashes of the 4-tuple: one fixed, one per minute. */
static uint32_t h_fixed(struct tcp *tcp, const struct tcp_tuple *t)
{
	return tcp_tuple_hash32(tcp, t, 3);
}

static uint32_t h_count(struct tcp *tcp, const struct tcp_tuple *t, uint32_t count)
{
	return tcp_tuple_hash32(tcp, t, ((uint64_t)count << 8) | 4);
}

/* ISN = H0 + peer ISN + minute << 24 + (H1(minute) + MSS index) mod 2^24. */
static uint32_t cookie_make(struct tcp *tcp, const struct tcp_tuple *t, uint32_t sseq, uint32_t ind)
{
	uint32_t count = minutes(tcp);
	return h_fixed(tcp, t) + sseq + (count << COOKIE_BITS) +
	       ((h_count(tcp, t, count) + ind) & COOKIE_MASK);
}

/* The MSS index a cookie holds, or -1 when it is not ours or too old. */
static int cookie_check(struct tcp *tcp, const struct tcp_tuple *t, uint32_t cookie, uint32_t sseq)
{
	uint32_t count = minutes(tcp);
	cookie -= h_fixed(tcp, t) + sseq;
	uint32_t age = (count - (cookie >> COOKIE_BITS)) & (0xffffffffu >> COOKIE_BITS);
	if (age >= COOKIE_AGE)
		return -1;
	uint32_t ind = (cookie - h_count(tcp, t, count - age)) & COOKIE_MASK;
	return ind < 4 ? (int)ind : -1;
}

static uint32_t ts_raw(const struct tcp *tcp)
{
	return (uint32_t)(tcp->now / CLK_NS_PER_MS);
}

void tcp_syncookie_send(struct tcp *tcp, struct tcb *l, const struct tcp_tuple *t,
			const struct tcp_repr *h, uint8_t ecn)
{
	/* Nothing is kept: the SYN-ACK is built on the stack's scratch
	 * request, which is scrubbed again once it has gone out. */
	struct tcb *c = tcp->cookie_req;
	memset(c, 0, sizeof(*c));
	c->tcp = tcp;
	c->sd = -1;
	c->t.family = t->family;
	tcp_req_init(tcp, l, c, t, h);
	const uint16_t *tab = mss_tab(t->family);
	uint32_t peer = h->mss ? h->mss : TCP_MSS_DEFAULT;
	uint32_t ind = 3;
	while (ind > 0 && peer < tab[ind])
		ind--;
	tcp_snd_init(c, cookie_make(tcp, t, h->seq, ind));
	tcp_snd_set_window(c, c->send.wnd, c->send.wl1, c->send.iss);
	if ((h->flags & (TCP_ECE | TCP_CWR)) == (TCP_ECE | TCP_CWR))
		c->flags |= TCB_F_SYN_ECN;
	/* Linux tcp_conn_request: NEEDS_ECN and RWND_INIT as for any
	 * request, TIMEOUT_INIT not (nothing retransmits it), no saved SYN. */
	tcp_so_sock_init(tcp, c, l->hs.cg, false);
	c->hs.cb_flags = l->hs.cb_flags;
	c->hs.sk_cb_flags = l->hs.sk_cb_flags;
	tcp_so_save_syn(c, h);
	tcp_so_passive_request(tcp, c, tcp->cfg.ecn != 0 && (ecn & 3) == 0, true);
	if (c->flags & TCB_F_TS) {
		uint32_t opts = (c->flags & TCB_F_WS) ? c->snd_wscale : TS_WSCALE;
		if (c->flags & TCB_F_SACK)
			opts |= TS_SACK;
		if (c->flags & TCB_F_ECN)
			opts |= TS_ECN;
		/* cookie_init_timestamp: the options replace the low bits of
		 * our clock, never moving it forward. */
		uint32_t raw = ts_raw(tcp);
		uint32_t enc = (raw & ~((1u << TS_BITS) - 1)) | opts;
		if (SEQ_GT(enc, raw))
			enc -= 1u << TS_BITS;
		c->ts_off += enc - raw;
	} else {
		/* Without timestamps a cookie has no room for the options:
		 * the connection goes without scaling, SACK and ECN. */
		c->flags &= ~(TCB_F_WS | TCB_F_SACK | TCB_F_ECN);
	}
	l->cookie_ns = tcp->now ? tcp->now : 1;
	tcp->stats.syncookies_sent++;
	tcp_send_syn(tcp, c);
	tcp_conn_scrub(tcp, c);
	free(c->saved_syn);
	tcp_so_syn_free(c);
	memset(c, 0, sizeof(*c));
}

int tcp_syncookie_ack(struct tcp *tcp, struct tcb *l, const struct tcp_tuple *t,
		      const struct tcp_repr *h, struct tcb **out)
{
	*out = NULL;
	if (!tcp->cfg.syncookies || (h->flags & (TCP_SYN | TCP_RST | TCP_ACK)) != TCP_ACK)
		return 0;
	if (!l->cookie_ns || tcp->now - l->cookie_ns > COOKIE_VALID_NS)
		return 0;
	int ind = cookie_check(tcp, t, h->ack - 1, h->seq - 1);
	if (ind < 0) {
		tcp->stats.syncookies_failed++;
		return 0;
	}
	/* The SYN as the cookie remembers it (cookie_timestamp_decode). */
	struct tcp_repr syn;
	memset(&syn, 0, sizeof(syn));
	syn.flags = TCP_SYN;
	syn.seq = h->seq - 1;
	syn.mss = mss_tab(t->family)[ind];
	syn.wscale = -1;
	bool ecn = false;
	if (h->ts) {
		uint32_t opts = (h->tsecr - tcp_ts_offset(tcp, t)) & ((1u << TS_BITS) - 1);
		bool bad = tcp->cfg.no_timestamps || ((opts & TS_SACK) && tcp->cfg.no_sack) ||
			   ((opts & TS_WSCALE) != TS_WSCALE && tcp->cfg.no_wscale);
		if (bad) {
			tcp->stats.syncookies_failed++;
			return 0;
		}
		syn.ts = true;
		syn.tsval = h->tsval;
		syn.sack_perm = (opts & TS_SACK) != 0;
		if ((opts & TS_WSCALE) != TS_WSCALE)
			syn.wscale = (int8_t)(opts & TS_WSCALE);
		/* cookie_ecn_ok: agreed then, and still allowed now */
		ecn =
		    (opts & TS_ECN) && (tcp->cfg.ecn != 0 || (l->cc.ops->flags & TCP_CC_NEEDS_ECN));
	}
	tcp->stats.syncookies_recv++;
	/* tcp_get_cookie_sock: a full accept queue drops the ACK, as for a
	 * request the queue kept (ListenOverflows). */
	if (tcp_acc_full(l)) {
		tcp->stats.listen_overflows++;
		tcp->stats.listen_drops++;
		return -1;
	}
	struct tcb *c = tcb_alloc(tcp, t->family);
	if (!c) {
		tcp->stats.listen_drops++;
		return -1;
	}
	tcp_req_init(tcp, l, c, t, &syn);
	tcp_snd_init(c, h->ack - 1);
	tcp_snd_set_window(c, c->send.wnd, c->send.wl1, c->send.iss);
	tcp_snd_syn_sent(c); /* the SYN-ACK the cookie stood for */
	if (ecn)
		c->flags |= TCB_F_ECN | TCB_F_ECN_WANT;
	/* The child's calls run as for any passive open from here
	 * (PASSIVE_ESTABLISHED_CB when the ACK is processed); Linux's
	 * cookie_v4_check sizes the window without RWND_INIT. */
	tcp_so_sock_init(tcp, c, l->hs.cg, false);
	c->hs.cb_flags = l->hs.cb_flags;
	c->hs.sk_cb_flags = l->hs.sk_cb_flags;
	c->syn_wnd = tcp_rwnd_init_bytes(c, -1);
	tcp_rcv_offer(c, c->syn_wnd);
	c->syn_rto_us = TCP_RTO_INIT_US;
	if (tcp_hash_insert(tcp, c) < 0) {
		tcp_so_sock_fini(c);
		tcb_free(tcp, c);
		tcp->stats.listen_drops++;
		return -1;
	}
	tcp_req_link(l, c);
	tcp_timer_set_us(tcp, c, TCP_T_RTX, c->syn_rto_us);
	*out = c;
	return 1;
}
