/* tcp_input: segment arrival, RFC 9293 §3.10.7 in its order: LISTEN,
 * SYN-SENT, then for synchronised states PAWS (RFC 7323 §5.3), sequence
 * acceptability, RST with RFC 5961 §3 checks, SYN with the RFC 5961 §4
 * challenge ACK, ACK (RFC 5961 §5 range, SACK recovery in tcp_recovery.c or
 * NewReno per RFC 6582 without SACK, ECN echo per RFC 3168 §6.1.2), data
 * with out-of-order reassembly (SACK blocks, RFC 2018), FIN. TIME_WAIT
 * reuse follows RFC 6191 (timestamps) / RFC 9293 §3.10.7.4 (a higher
 * sequence number). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tcp_int.h"

#define PAWS_24DAYS_NS (24ull * 86400 * CLK_NS_PER_S)

struct seg_ctx {
	const struct tcp_repr *h;
	uint32_t seq;
	const uint8_t *data;
	uint32_t len;
	uint8_t flags;
	uint8_t ecn;
	bool handshake; /* the ACK completed a passive open */
};

/* Linux tcp_invalid_ratelimit: at most one ACK per oow_ratelimit_ms for the
 * segments a connection refuses, so that two ends cannot be driven into an
 * ACK loop and an attacker's segments buy few replies. */
static bool oow_limited(struct tcp *tcp, struct tcb *tcb)
{
	uint32_t ms = tcp->cfg.oow_ratelimit_ms;
	if (ms == UINT32_MAX)
		return false;
	if (tcb->last_oow_ns && tcp->now - tcb->last_oow_ns < (uint64_t)ms * CLK_NS_PER_MS)
		return true;
	tcb->last_oow_ns = tcp->now;
	return false;
}

/* The stack-wide budget of challenge ACKs for the current second (Linux
 * tcp_challenge_ack_limit). Drawn at random in [limit/2, limit·3/2) each
 * second so that the count cannot serve as a side channel (CVE-2016-5696). */
static bool challenge_budget(struct tcp *tcp)
{
	uint32_t limit = tcp->cfg.challenge_ack_limit;
	if (!limit)
		return true;
	uint64_t sec = tcp->now / CLK_NS_PER_S;
	if (sec != tcp->challenge_sec) {
		uint32_t half = limit / 2 + (limit & 1);
		tcp->challenge_sec = sec;
		tcp->challenge_left = half + rnd_below(&tcp->rnd, limit);
	}
	if (!tcp->challenge_left)
		return false;
	tcp->challenge_left--;
	return true;
}

/* RFC 9293 §3.10.7.4 first: an unacceptable segment is answered with an
 * ACK. Linux throttles these unless the segment carries data (a data
 * segment cannot be part of an ACK loop). */
static void refused_ack(struct tcp *tcp, struct tcb *tcb, const struct seg_ctx *s)
{
	if ((s->len == 0 || (s->flags & TCP_SYN)) && oow_limited(tcp, tcb)) {
		tcp->stats.oow_ack_skipped++;
		return;
	}
	tcb->flags |= TCB_F_ACK_NOW;
}

/* RFC 5961 §3.2, §4.2, §5.2 challenge ACK, throttled as §7 asks. */
static void challenge_ack(struct tcp *tcp, struct tcb *tcb)
{
	if (oow_limited(tcp, tcb) || !challenge_budget(tcp)) {
		tcp->stats.challenge_ack_skipped++;
		return;
	}
	tcp->stats.in_challenge_ack++;
	tcp_send_ack(tcp, tcb);
}

static void take_syn_options(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h)
{
	tcb->peer_mss = h->mss ? h->mss : TCP_MSS_DEFAULT;
	if (h->wscale >= 0 && !tcp->cfg.no_wscale) {
		tcb->flags |= TCB_F_WS;
		tcb->snd_wscale = (uint8_t)h->wscale;
	} else {
		tcb->snd_wscale = 0;
		tcb->rcv_wscale = 0;
	}
	if (h->sack_perm && !tcp->cfg.no_sack)
		tcb->flags |= TCB_F_SACK;
	if (h->ts && !tcp->cfg.no_timestamps) {
		tcb->flags |= TCB_F_TS;
		tcb->ts_recent = h->tsval;
		tcb->ts_recent_age = tcp->now;
	}
}

/* ---- LISTEN (RFC 9293 §3.10.7.2) ---- */

/* Linux tcp_reqsk_record_syn: the headers as they came, from the IP header
 * (or the Ethernet header for TCP_SAVE_SYN 2); nothing when the caller has
 * no contiguous copy or memory is short (TCP_SAVED_SYN then finds none). */
static void save_syn(struct tcb *c, uint8_t mode, const struct tcp_rx_hdrs *hdrs)
{
	if (!mode || !hdrs || !hdrs->p)
		return;
	uint16_t mac = mode == 2 ? hdrs->mac_len : 0;
	uint32_t n = (uint32_t)mac + hdrs->net_len + hdrs->tcp_len;
	struct tcp_saved_syn *s = malloc(sizeof(*s) + n);
	if (!s)
		return;
	s->mac_len = mac;
	s->net_len = hdrs->net_len;
	s->tcp_len = hdrs->tcp_len;
	memcpy(s->data, hdrs->p + (hdrs->mac_len - mac), n);
	c->saved_syn = s;
}

/* A request for SYN h to listener l: what it inherits, our ISN and
 * options, its MSS (from a SYN cookie too: tcp_syncookie.c). */
void tcp_req_init(struct tcp *tcp, struct tcb *l, struct tcb *c, const struct tcp_tuple *t,
		  const struct tcp_repr *h)
{
	c->t = *t;
	/* What a child inherits from its listener (Linux sk_clone_lock); an
	 * IPv4 child of an AF_INET6 listener stays an AF_INET6 socket. */
	c->sk_family = l->sk_family;
	c->v6only = l->v6only;
	c->flags =
	    l->flags & (TCB_F_NODELAY | TCB_F_KEEPALIVE | TCB_F_SNDBUF_LOCK | TCB_F_RCVBUF_LOCK);
	c->flags |= TCB_F_LISTEN_CHILD;
	c->sndbuf = l->sndbuf;
	c->rcvbuf = l->rcvbuf;
	c->user_mss = l->user_mss;
	c->window_clamp = l->window_clamp;
	c->keep_idle_s = l->keep_idle_s;
	c->keep_intvl_s = l->keep_intvl_s;
	c->keep_cnt = l->keep_cnt;
	c->user_timeout_ms = l->user_timeout_ms;
	c->rto_min_us = l->rto_min_us;
	c->delack_max_us = l->delack_max_us;
	c->cc = l->cc;
	c->tos = l->tos;
	c->mark = l->mark;
	c->priority = l->priority;
	c->syn_retries = l->syn_retries;
	c->save_syn = l->save_syn;
	c->max_pacing_rate = c->pacing_rate = l->max_pacing_rate;
	c->pace_req = l->pace_req;
	tcp_pathopt_inherit(c, l);
	c->rto_us = TCP_RTO_INIT_US;
	c->state = TCP_SYN_RECEIVED;
	c->irs = h->seq;
	c->rcv_nxt = h->seq + 1;
	/* a cookie request's ISN is the cookie (tcp_syncookie_send): no hash
	 * spent on one it replaces, in a flood the SYN's largest cost */
	c->iss = c == tcp->cookie_req ? 0 : tcp_isn(tcp, t, tcp->now);
	c->snd_una = c->snd_nxt = c->snd_max = c->iss;
	c->snd_wnd = h->window; /* never scaled in a SYN (RFC 7323 §2.2) */
	c->snd_wl1 = h->seq;
	c->snd_wl2 = c->iss;
	c->ts_off = tcp_ts_offset(tcp, t);
	uint32_t mtu = 1500;
	if (tcp->cfg.route)
		tcp->cfg.route(tcp->cfg.arg, t->family, &t->raddr, NULL, &mtu);
	c->pmtu = mtu;
	c->rcv_wscale = (uint8_t)tcp_pick_wscale(tcp, c);
	take_syn_options(tcp, c, h);
	c->rcv_mss = (uint16_t)(mtu - tcp_hdrs_len(t->family));
	if (c->user_mss && c->rcv_mss > c->user_mss)
		c->rcv_mss = c->user_mss;
	if ((h->flags & (TCP_ECE | TCP_CWR)) == (TCP_ECE | TCP_CWR))
		c->flags |= TCB_F_SYN_ECN;
}

/* Linux tcp_conn_request: a full SYN queue answers with a SYN cookie
 * (tcp_syncookies 1; 2 always), a full accept queue drops the SYN
 * (ListenOverflows); every SYN dropped counts in ListenDrops. The accept
 * queue is full as Linux's sk_acceptq_is_full says: with more than backlog
 * connections in it, so a listener holds backlog + 1 (tcp_acc_full). */
static void listen_input(struct tcp *tcp, struct tcb *l, const struct tcp_tuple *t,
			 const struct tcp_repr *h, uint32_t len, uint8_t ecn,
			 const struct tcp_rx_hdrs *hdrs)
{
	if (h->flags & TCP_RST)
		return;
	if (h->flags & TCP_ACK) {
		tcp_reply_rst(tcp, t, h, len);
		return;
	}
	if (!(h->flags & TCP_SYN))
		return;
	bool cookie = false;
	/* Cookies also when the owner says replies to new peers strain it: a
	 * flood from spoofed on-link sources fills its neighbour table, and a
	 * cookie keeps at least the SYN queue out of it. */
	if (tcp->cfg.syncookies == 2 || l->nq_syn >= l->backlog ||
	    (tcp->cfg.syncookies && tcp->cfg.syn_pressure &&
	     tcp->cfg.syn_pressure(tcp->cfg.arg, t->family))) {
		cookie = tcp->cfg.syncookies != 0;
		if (!cookie) {
			tcp->stats.listen_drops++;
			tcp->stats.syn_drop++;
			return;
		}
	}
	if (tcp_acc_full(l)) {
		tcp->stats.listen_overflows++;
		tcp->stats.listen_drops++;
		tcp->stats.syn_drop++;
		return;
	}
	if (cookie) {
		tcp_syncookie_send(tcp, l, t, h, ecn);
		return;
	}
	struct tcb *c = tcb_alloc(tcp, t->family);
	if (!c) {
		/* No tcb for a request is a full SYN queue too. */
		if (tcp->cfg.syncookies) {
			tcp_syncookie_send(tcp, l, t, h, ecn);
			return;
		}
		tcp->stats.listen_drops++;
		tcp->stats.syn_drop++;
		return;
	}
	tcp_req_init(tcp, l, c, t, h);
	save_syn(c, l->save_syn, hdrs);
	/* tcp_ecn 1 or 2 agrees to a SYN that asks, unless the SYN itself is
	 * ECT (RFC 3168 §6.1.1: a SYN is never ECT; Linux then leaves the
	 * choice to the CC or a program). */
	bool ecn_ok = tcp->cfg.ecn != 0 && (ecn & 3) == 0;
	/* The request runs the passive calls in the listener's cgroup on a
	 * non-full socket (docs/sockops.md §3). */
	tcp_so_sock_init(tcp, c, l->hs.cg, false);
	c->hs.cb_flags = l->hs.cb_flags;
	tcp_so_save_syn(c, h);
	tcp_so_passive_request(tcp, c, ecn_ok, false);
	if (tcp_hash_insert(tcp, c) < 0) {
		tcp_so_sock_fini(c);
		tcb_free(tcp, c);
		tcp->stats.syn_drop++;
		tcp->stats.listen_drops++;
		return;
	}
	tcp_req_link(l, c);
	tcp_send_syn(tcp, c);
	tcp_timer_set(tcp, c, TCP_T_RTX, tcp->now + (uint64_t)c->syn_rto_us * CLK_NS_PER_US);
}

/* Onto the listener's SYN queue. */
void tcp_req_link(struct tcb *l, struct tcb *c)
{
	c->parent = l;
	c->prev = NULL;
	c->next = l->syn_head;
	if (l->syn_head)
		l->syn_head->prev = c;
	l->syn_head = c;
	l->nq_syn++;
}

/* Both ends after the handshake: MSS, cwnd, buffers, CC (Linux tcp_init_transfer). */
static void establish(struct tcp *tcp, struct tcb *tcb, bool active)
{
	/* The passive side is a full socket from here on: Linux makes the
	 * child when this ACK arrives, before the RTT sample. */
	if (!active)
		tcb->hs.fullsock = true;
	tcp_update_mss(tcp, tcb, 0);
	tcb->recover = tcb->iss;
	/* RTT of the handshake, unless the SYN (or SYN-ACK) was retransmitted. */
	if (tcb->syn_tx == 1)
		tcp_rtt_sample(tcp, tcb, (uint32_t)((tcp->now - tcb->syn_last_ns) / CLK_NS_PER_US));
	else
		tcb->rto_us = TCP_RTO_INIT_US; /* RFC 6298 §5 (7): no sample after a lost SYN */
	tcb->retransmits = 0;
	tcb->backoff = 0;
	tcp_timer_clear(tcp, tcb, TCP_T_RTX);
	/* Linux: the active side changes state and then runs
	 * tcp_init_transfer (cwnd, ACTIVE_ESTABLISHED_CB, CC); the passive
	 * side runs it in SYN_RECV and changes state after (STATE_CB last). */
	if (active)
		tcp_set_state(tcp, tcb, TCP_ESTABLISHED);
	tcp_init_cwnd(tcp, tcb);
	tcp_rcvbuf_init(tcp, tcb);
	tcp_so_established(tcp, tcb, active);
	if (!(tcb->flags & TCB_F_CC_INIT)) {
		tcb->flags |= TCB_F_CC_INIT;
		tcp_cc_init(tcb);
	}
	tcp_pace_update(tcp, tcb);
	if (!active)
		tcp_set_state(tcp, tcb, TCP_ESTABLISHED);
	if (tcb->flags & TCB_F_KEEPALIVE)
		tcp_timer_set(tcp, tcb, TCP_T_KEEP,
			      tcp->now + (uint64_t)tcb->keep_idle_s * CLK_NS_PER_S);
	tcp_mark_event(tcp, tcb);
}

/* ---- SYN-SENT (RFC 9293 §3.10.7.3) ---- */

static bool syn_sent_input(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h)
{
	bool ack_ok = false;
	if (h->flags & TCP_ACK) {
		if (SEQ_LEQ(h->ack, tcb->iss) || SEQ_GT(h->ack, tcb->snd_max)) {
			if (!(h->flags & TCP_RST))
				tcp_reply_rst(tcp, &tcb->t, h, 0);
			return true;
		}
		ack_ok = true;
	}
	if (h->flags & TCP_RST) {
		if (ack_ok) {
			tcp->stats.in_rst++;
			tcp_done(tcp, tcb, ECONNREFUSED);
			return false;
		}
		return true;
	}
	if (!(h->flags & TCP_SYN))
		return true;
	tcb->irs = h->seq;
	tcb->rcv_nxt = h->seq + 1;
	tcb->rcv_adv = tcb->rcv_nxt + tcb->syn_wnd; /* what our SYN offered */
	uint8_t want_ws = tcb->rcv_wscale;
	take_syn_options(tcp, tcb, h);
	if (tcb->flags & TCB_F_WS)
		tcb->rcv_wscale = want_ws;
	tcb->snd_wl1 = h->seq;
	if (ack_ok) {
		tcb->snd_una = h->ack;
		tcb->snd_wnd = h->window; /* SYN-ACK windows are not scaled */
		tcb->snd_wl2 = h->ack;
		tcb->max_wnd = tcb->snd_wnd;
		/* RFC 3168 §6.1.1: ECN when we asked and the SYN-ACK has ECE alone. */
		if ((tcb->flags & TCB_F_ECN_WANT) && (h->flags & (TCP_ECE | TCP_CWR)) == TCP_ECE)
			tcb->flags |= TCB_F_ECN;
		establish(tcp, tcb, true);
		if (tcb->state == TCP_CLOSED)
			return false;
		tcb->flags |= TCB_F_ACK_NOW;
		return true;
	}
	/* Simultaneous open: SYN-RECEIVED, our SYN again with an ACK. */
	tcb->snd_wnd = h->window;
	tcb->max_wnd = tcb->snd_wnd;
	tcp_set_state(tcp, tcb, TCP_SYN_RECEIVED);
	if ((tcb->flags & TCB_F_ECN_WANT) &&
	    (h->flags & (TCP_ECE | TCP_CWR)) == (TCP_ECE | TCP_CWR))
		tcb->flags |= TCB_F_ECN;
	tcb->syn_tx = 0;
	tcp_send_syn(tcp, tcb);
	tcp_timer_set(tcp, tcb, TCP_T_RTX, tcp->now + (uint64_t)tcb->syn_rto_us * CLK_NS_PER_US);
	return true;
}

/* ---- synchronised states ---- */

static bool seq_acceptable(const struct tcb *tcb, uint32_t seq, uint32_t seglen, uint32_t wnd)
{
	/* RFC 9293 §3.10.7.4, the four cases. */
	if (seglen == 0) {
		if (wnd == 0)
			return seq == tcb->rcv_nxt;
		return SEQ_LEQ(tcb->rcv_nxt, seq) && SEQ_LT(seq, tcb->rcv_nxt + wnd);
	}
	if (wnd == 0)
		return false;
	uint32_t last = seq + seglen - 1;
	return (SEQ_LEQ(tcb->rcv_nxt, seq) && SEQ_LT(seq, tcb->rcv_nxt + wnd)) ||
	       (SEQ_LEQ(tcb->rcv_nxt, last) && SEQ_LT(last, tcb->rcv_nxt + wnd));
}

/* RFC 2883: [l, r) arrived twice; the next ACK reports it in its first SACK
 * block (Linux tcp_dsack_set: a newer duplicate replaces an unsent one). */
static void dsack_set(struct tcb *tcb, uint32_t l, uint32_t r)
{
	if (!(tcb->flags & TCB_F_SACK) || !SEQ_LT(l, r))
		return;
	tcb->dsack = true;
	tcb->dsack_l = l;
	tcb->dsack_r = r;
}

/* Linux tcp_dsack_extend: grow a pending report when [l, r) touches it,
 * else keep it (the duplicate found first in a segment is reported). */
static void dsack_extend(struct tcb *tcb, uint32_t l, uint32_t r)
{
	if (!tcb->dsack) {
		dsack_set(tcb, l, r);
		return;
	}
	if (SEQ_GT(l, tcb->dsack_r) || SEQ_GT(tcb->dsack_l, r))
		return;
	if (SEQ_LT(l, tcb->dsack_l))
		tcb->dsack_l = l;
	if (SEQ_GT(r, tcb->dsack_r))
		tcb->dsack_r = r;
}

/* Places an out-of-order segment's bytes in the receive ring where no
 * segment that starts before it (or at the same place and reaches as far)
 * holds them. This is the order in which Linux reads overlapping segments
 * from its out-of-order queue, so a monitor built on Linux sees the same
 * stream. Held ranges are merged, so a held range counts as one segment.
 * Returns how many bytes from s->seq on are now held (less when the ring is
 * full). */
static uint32_t ooo_write(struct tcb *tcb, const struct seg_ctx *s)
{
	uint32_t l = s->seq, r = s->seq + s->len;
	uint32_t keep_end = l;			  /* [l, keep_end) stays as it is */
	uint32_t i = tcp_ooo_first_after(tcb, l); /* ranges are sorted and disjoint */
	if (i < tcb->ooo_n && SEQ_LT(tcb->ooo[i].l, r)) {
		uint32_t L = tcb->ooo[i].l, R = tcb->ooo[i].r;
		/* the first held range it overlaps is the duplicate reported */
		dsack_set(tcb, SEQ_GT(L, l) ? L : l, SEQ_LT(R, r) ? R : r);
		if (SEQ_LEQ(L, l) && !(L == l && SEQ_GT(r, R)))
			keep_end = SEQ_LT(R, r) ? R : r;
	}
	uint32_t skip = keep_end - l;
	uint32_t off = tcb->rcv.len + (keep_end - tcb->rcv_nxt);
	uint32_t n = ring_write_at(&tcb->rcv, off, s->data + skip, s->len - skip);
	return skip + n;
}

static void data_input(struct tcp *tcp, struct tcb *tcb, struct seg_ctx *s)
{
	if (s->len == 0)
		return;
	if (ring_reserve(tcp, &tcb->rcv, tcb->rcvbuf) < 0) {
		s->len = 0;
		s->flags &= (uint8_t)~TCP_FIN;
		return;
	}
	if (s->seq == tcb->rcv_nxt) {
		uint32_t unread = tcb->rcv.len; /* before this segment */
		uint32_t n = ring_write_at(&tcb->rcv, tcb->rcv.len, s->data, s->len);
		if (n < s->len)
			s->flags &= (uint8_t)~TCP_FIN; /* buffer full: the rest comes again */
		if (tcb->ooo_n && SEQ_GT(s->seq + n, tcb->ooo[0].l))
			dsack_extend(tcb, tcb->ooo[0].l,
				     SEQ_LT(s->seq + n, tcb->ooo[0].r) ? s->seq + n
								       : tcb->ooo[0].r);
		tcb->rcv_nxt += n;
		tcb->bytes_received += n;
		tcb->rcv_unacked += n;
		bool filled = false;
		uint32_t more = tcp_ooo_pull(tcb, &filled);
		tcb->rcv.len += more;
		tcb->rcv_nxt += more;
		tcb->bytes_received += more;
		tcp_rcvbuf_data(tcp, tcb, s->h, s->len, unread);
		/* Linux tcp_grow_window, simplified: the offered window grows
		 * with the data that arrives, up to the largest window the
		 * buffer offers (Linux: window_clamp), so that a buffer
		 * autotuning grew is opened two segments per segment, not at
		 * once. */
		tcb->rcv_ssthresh += 2u * tcb->rcv_mss;
		if (tcb->rcv_ssthresh > tcp_rcvbuf_wnd_max(tcb))
			tcb->rcv_ssthresh = tcp_rcvbuf_wnd_max(tcb);
		/* RFC 1122 §4.2.3.2 / RFC 5681 §4.2: ACK at least every second
		 * full segment, at once when a hole was filled. */
		uint32_t rmss = tcb->rcv_mss - ((tcb->flags & TCB_F_TS) ? 12u : 0u);
		if (filled || tcb->rcv_unacked >= 2u * rmss || tcb->ooo_n)
			tcb->flags |= TCB_F_ACK_NOW;
		else if (!(tcb->flags & TCB_F_DELACK)) {
			tcb->flags |= TCB_F_DELACK;
			uint32_t d = TCP_DELACK_MIN_US < tcb->delack_max_us ? TCP_DELACK_MIN_US
									    : tcb->delack_max_us;
			tcp_timer_set(tcp, tcb, TCP_T_DELACK,
				      tcp->now + (uint64_t)d * CLK_NS_PER_US);
		}
		tcp_mark_event(tcp, tcb);
		return;
	}
	/* Out of order (seq > rcv_nxt after trimming): place it, remember the
	 * range, ACK at once (the duplicate ACK with SACK blocks). */
	if (!tcp_ooo_fits(tcb, s->seq, s->seq + s->len)) {
		tcp->stats.ooo_drop++; /* TCP_OOO_MAX holes, or no memory */
		s->len = 0;
		s->flags &= (uint8_t)~TCP_FIN;
		tcb->flags |= TCB_F_ACK_NOW;
		return;
	}
	uint32_t n = ooo_write(tcb, s);
	if (n) {
		if (tcp_ooo_insert(tcb, s->seq, s->seq + n)) {
			tcp_ooo_arrived(tcb, s->seq);
			tcp_rcvbuf_ooo(tcp, tcb);
		} else
			tcp->stats.ooo_drop++;
	}
	if (n < s->len)
		s->flags &= (uint8_t)~TCP_FIN; /* not all kept: the rest comes again */
	tcb->flags |= TCB_F_ACK_NOW;
}

static bool fin_input(struct tcp *tcp, struct tcb *tcb)
{
	tcb->rcv_nxt++;
	tcb->flags |= TCB_F_FIN_RCVD | TCB_F_ACK_NOW;
	tcp_mark_event(tcp, tcb);
	switch (tcb->state) {
	case TCP_SYN_RECEIVED:
	case TCP_ESTABLISHED:
		tcp_set_state(tcp, tcb, TCP_CLOSE_WAIT);
		break;
	case TCP_FIN_WAIT_1:
		if (tcb->snd_una == tcb->snd_max && (tcb->flags & TCB_F_FIN_SENT)) {
			tcp_send_ack(tcp, tcb);
			tcp_enter_time_wait(tcp, tcb);
		} else {
			tcp_set_state(tcp, tcb, TCP_CLOSING);
		}
		break;
	case TCP_FIN_WAIT_2:
		tcp_send_ack(tcp, tcb);
		tcp_enter_time_wait(tcp, tcb);
		break;
	default:
		break;
	}
	return true;
}

static void ecn_ece(struct tcp *tcp, struct tcb *tcb)
{
	(void)tcp;
	tcb->ecn_seen |= 8u; /* SKOPS_ECN_ECE_SEEN */
	/* RFC 3168 §6.1.2: reduce once per window of data. */
	if (tcb->cc_state != TCP_CA_OPEN && tcb->cc_state != TCP_CA_DISORDER)
		return;
	tcb->prior_cwnd = tcb->cwnd;
	tcb->sb.undo = false; /* a congestion signal is never undone (Linux tcp_enter_cwr) */
	tcb->ssthresh = tcp_cc_ssthresh(tcb);
	if (tcb->ssthresh > tcb->cwnd_clamp)
		tcb->ssthresh = tcb->cwnd_clamp;
	tcb->cwnd = tcb->ssthresh;
	tcb->recover = tcb->snd_max;
	tcb->flags |= TCB_F_CWR_PENDING;
	tcp_cc_set_state(tcb, TCP_CA_CWR);
}

static uint32_t segs_of(const struct tcb *tcb, uint32_t bytes)
{
	uint32_t mss = tcb->mss ? tcb->mss : TCP_MSS_DEFAULT;
	uint32_t n = (bytes + mss - 1) / mss;
	return n ? n : 1;
}

/* An RTT sample for the CC on every ACK that moves snd_una (HyStart++ wants
 * several a round, Karn's timing gives one): the timestamp echo (RFC 7323
 * §4), at the 1 ms resolution of our TSval clock. -1: none. */
static int32_t ack_rtt_us(const struct tcp *tcp, const struct tcb *tcb, const struct tcp_repr *h)
{
	if (!(tcb->flags & TCB_F_TS) || !h->ts || !h->tsecr)
		return -1;
	uint32_t ms = tcp_ts_now(tcp, tcb) - h->tsecr;
	return ms < 60000 ? (int32_t)(ms * 1000) : -1;
}

/* RFC 5961 §5.2: SND.UNA − MAX.SND.WND <= SEG.ACK <= SND.NXT (snd_max: after
 * a go-back-N rewind snd_nxt may lie left of what was sent). MAX.SND.WND is
 * bounded by the bytes ever acknowledged, as Linux does, so that early in a
 * connection an ACK for something before our first byte is refused too. */
static bool ack_acceptable(const struct tcb *tcb, uint32_t ack)
{
	if (SEQ_GT(ack, tcb->snd_max))
		return false;
	uint64_t maxw = tcb->max_wnd ? tcb->max_wnd : 65535u;
	if (tcb->bytes_acked < maxw)
		maxw = tcb->bytes_acked;
	return !SEQ_LT(ack, tcb->snd_una - (uint32_t)maxw);
}

/* RFC 9293 §3.10.7.4 fifth: ACK processing of an acceptable ACK. false: tcb
 * freed. */
static bool ack_input(struct tcp *tcp, struct tcb *tcb, const struct seg_ctx *s)
{
	const struct tcp_repr *h = s->h;
	uint32_t ack = h->ack;
	uint32_t wnd = (uint32_t)h->window << tcb->snd_wscale;
	bool wnd_changed = false;
	/* Linux's FLAG_WIN_UPDATE (tcp_may_update_window), for the CC. */
	bool win_update = SEQ_GT(ack, tcb->snd_una) || SEQ_LT(tcb->snd_wl1, s->seq) ||
			  (tcb->snd_wl1 == s->seq && (wnd > tcb->snd_wnd || wnd == 0));
	if (SEQ_LT(tcb->snd_wl1, s->seq) ||
	    (tcb->snd_wl1 == s->seq && SEQ_LEQ(tcb->snd_wl2, ack))) {
		wnd_changed = wnd != tcb->snd_wnd;
		bool opened = tcb->snd_wnd == 0 && wnd > 0;
		tcb->snd_wnd = wnd;
		tcb->snd_wl1 = s->seq;
		tcb->snd_wl2 = ack;
		if (wnd > tcb->max_wnd)
			tcb->max_wnd = wnd;
		if (opened && (tcb->flags & TCB_F_PERSIST)) {
			tcb->flags &= ~TCB_F_PERSIST;
			tcp_timer_clear(tcp, tcb, TCP_T_RTX);
			tcb->backoff = 0;
		}
	}
	/* cong_control: the CC alone sizes the window after this ACK; what
	 * recovery writes to cwnd meanwhile is put back before it runs. */
	uint32_t cwnd_before = tcb->cwnd;
	tcp_rate_ack_begin(tcb);
	bool ece = (tcb->flags & TCB_F_ECN) && (h->flags & TCP_ECE);
	/* Linux tcp_in_ack_event: before the reduction an ECE may cause. Linux
	 * takes the handshake's ACK before the CC's init, so it never sees it. */
	if (SEQ_GEQ(ack, tcb->snd_una) && !s->handshake)
		tcp_cc_in_ack_event(
		    tcb, ack, (win_update ? CC_ACK_WIN_UPDATE : 0u) | (ece ? CC_ACK_ECE : 0u));
	if (ece)
		ecn_ece(tcp, tcb);
	uint32_t prior_una = tcb->snd_una, prior_sacked = tcb->sb.sacked;
	bool sack = (tcb->flags & TCB_F_SACK) != 0;
	if (SEQ_GT(ack, tcb->snd_una)) {
		uint32_t acked = ack - tcb->snd_una;
		tcb->prior_inflight = tcb->snd_nxt - tcb->snd_una;
		bool fin_acked = (tcb->flags & TCB_F_FIN_SENT) && SEQ_GT(ack, tcb->fin_seq);
		uint32_t data = fin_acked ? tcb->fin_seq - tcb->snd_una : acked;
		if (data > tcb->snd.len)
			data = tcb->snd.len;
		ring_drop(&tcb->snd, data);
		if (tcb->snd.len == 0)
			ring_release(tcp, &tcb->snd, false);
		tcb->bytes_acked += data;
		int32_t rtt_us = ack_rtt_us(tcp, tcb, h);
		if ((tcb->flags & TCB_F_RTT_TIMING) && SEQ_GT(ack, tcb->rtt_seq)) {
			tcb->flags &= ~TCB_F_RTT_TIMING;
			uint32_t r = (uint32_t)((tcp->now - tcb->rtt_start) / CLK_NS_PER_US);
			tcp_rtt_sample(tcp, tcb, r);
			rtt_us = (int32_t)r;
		}
		tcb->snd_una = ack;
		if (SEQ_LT(tcb->snd_nxt, ack))
			tcb->snd_nxt = ack;
		tcb->retransmits = 0;
		tcb->backoff = 0;
		tcb->rtx_first_ns = 0;
		uint32_t segs = segs_of(tcb, acked);
		tcp_cc_pkts_acked(tcb, segs, rtt_us);
		if (sack) {
			/* RFC 6675 with PRR (tcp_recovery.c) */
			if (!tcp_rec_ack(tcp, tcb, h, prior_una, prior_sacked, false)) {
				if (tcb->cc_state != TCP_CA_OPEN && SEQ_GEQ(ack, tcb->recover))
					tcp_cc_set_state(tcb, TCP_CA_OPEN);
				tcp_cc_cong_avoid(tcb, ack, segs);
			}
		} else if (tcb->flags & TCB_F_IN_RECOVERY) {
			if (SEQ_GEQ(ack, tcb->recover)) {
				/* RFC 6582 §3.2 (3): full acknowledgment, deflate. */
				tcb->flags &= ~TCB_F_IN_RECOVERY;
				tcb->cwnd = tcb->ssthresh;
				tcp_cc_set_state(tcb, TCP_CA_OPEN);
			} else {
				/* (5) partial: resend the next hole, deflate by what
				 * was acked, add one segment back. */
				tcb->cwnd = tcb->cwnd > segs ? tcb->cwnd - segs + 1 : 1;
				tcp_retransmit_head(tcp, tcb);
			}
		} else {
			if (tcb->cc_state != TCP_CA_OPEN && SEQ_GEQ(ack, tcb->recover))
				tcp_cc_set_state(tcb, TCP_CA_OPEN);
			tcp_cc_cong_avoid(tcb, ack, segs);
		}
		if (tcb->cwnd > tcb->cwnd_clamp)
			tcb->cwnd = tcb->cwnd_clamp;
		/* (cong_control: the window is the CC's, below) */
		if (tcb->cwnd > tcb->max_cwnd && !tcb->cc->cong_control)
			tcb->max_cwnd = tcb->cwnd;
		tcp_sndbuf_expand(tcb);
		tcb->dupacks = 0;
		tcp_rearm_rtx(tcp, tcb);
		tcp_mark_event(tcp, tcb);
		if (fin_acked) {
			switch (tcb->state) {
			case TCP_FIN_WAIT_1:
				tcp_set_state(tcp, tcb, TCP_FIN_WAIT_2);
				if (tcb->flags & TCB_F_ORPHAN)
					tcp_timer_set(tcp, tcb, TCP_T_KEEP,
						      tcp->now +
							  TCP_FIN_TIMEOUT_MS * CLK_NS_PER_MS);
				break;
			case TCP_CLOSING:
				tcp_enter_time_wait(tcp, tcb);
				break;
			case TCP_LAST_ACK:
				tcp_done(tcp, tcb, 0);
				return false;
			default:
				break;
			}
		}
	} else if (sack) {
		/* SACK blocks count on old ACKs too (Linux tcp_ack). */
		bool dup_shape = ack == tcb->snd_una && s->len == 0 &&
				 !(s->flags & (TCP_SYN | TCP_FIN)) && !wnd_changed;
		tcp_rec_ack(tcp, tcb, h, prior_una, prior_sacked, dup_shape);
	} else if (ack == tcb->snd_una && s->len == 0 && !(s->flags & (TCP_SYN | TCP_FIN)) &&
		   !wnd_changed && tcb->snd_max != tcb->snd_una) {
		/* RFC 5681 §2 duplicate ACK. */
		tcb->dupacks++;
		if (tcb->flags & TCB_F_IN_RECOVERY) {
			tcb->cwnd++; /* RFC 6582 §3.2 (4): inflate */
		} else if (tcb->dupacks == 3 && tcb->cc_state != TCP_CA_LOSS &&
			   SEQ_GT(ack, tcb->recover - 1)) {
			/* RFC 6582 §3.2 (2): fast retransmit, enter recovery. */
			tcp->stats.fast_retrans++;
			tcb->prior_cwnd = tcb->cwnd;
			tcb->prior_ssthresh = tcb->ssthresh;
			tcb->ssthresh = tcp_cc_ssthresh(tcb);
			if (tcb->ssthresh > tcb->cwnd_clamp)
				tcb->ssthresh = tcb->cwnd_clamp;
			tcb->recover = tcb->snd_max;
			tcb->flags |= TCB_F_IN_RECOVERY;
			tcp_cc_set_state(tcb, TCP_CA_RECOVERY);
			tcb->cwnd = tcb->ssthresh + 3;
			tcp_retransmit_head(tcp, tcb);
		}
	}
	if (tcb->cc->cong_control && SEQ_GEQ(ack, prior_una) && !s->handshake) {
		if (!sack) {
			/* the rate records see the cumulative ACK alone */
			struct tcp_sb_res none = {0};
			struct tcp_rack_ack ra;
			tcp_rack_ack(tcp, tcb, h, &none, &ra);
		}
		struct tcp_rate_sample rs;
		tcp_rate_gen(tcp, tcb, &rs);
		tcb->cwnd = cwnd_before;
		tcp_cc_cong_control(tcb, ack, &rs);
		if (tcb->cwnd > tcb->max_cwnd)
			tcb->max_cwnd = tcb->cwnd;
	}
	tcp_pace_update(tcp, tcb); /* Linux tcp_cong_control, every ACK */
	return true;
}

/* A passive open still in SYN-RECEIVED (Linux: a request socket). */
static bool half_open(const struct tcb *tcb)
{
	return tcb->state == TCP_SYN_RECEIVED && (tcb->flags & TCB_F_LISTEN_CHILD);
}

/* RFC 5961 §3.2: a RST resets only at exactly RCV.NXT. Linux also takes
 * RCV.NXT − 1 once the peer's FIN is in (stacks that abort after a FIN send
 * the RST with the FIN's number) and the right edge of our highest SACK
 * block (the peer's next sequence number as it sees it). */
static bool rst_exact(const struct tcb *tcb, uint32_t seq)
{
	if (seq == tcb->rcv_nxt)
		return true;
	if (seq == tcb->rcv_nxt - 1 && (tcb->flags & TCB_F_FIN_RCVD) &&
	    (tcb->state == TCP_CLOSE_WAIT || tcb->state == TCP_LAST_ACK ||
	     tcb->state == TCP_CLOSING))
		return true;
	return (tcb->flags & TCB_F_SACK) && tcb->ooo_n && seq == tcb->ooo[tcb->ooo_n - 1].r;
}

/* An acceptable RST in a synchronised state (RFC 9293 §3.10.7.4 second). */
static bool rst_input(struct tcp *tcp, struct tcb *tcb)
{
	tcp->stats.in_rst++;
	int err = ECONNRESET;
	if (tcb->state == TCP_SYN_RECEIVED && (tcb->flags & TCB_F_LISTEN_CHILD))
		err = 0; /* back to LISTEN: the request just goes away */
	else if (tcb->state == TCP_CLOSE_WAIT || tcb->state == TCP_CLOSING ||
		 tcb->state == TCP_LAST_ACK || tcb->state == TCP_TIME_WAIT)
		err = tcb->state == TCP_CLOSE_WAIT ? EPIPE : 0;
	else if (tcb->state == TCP_SYN_RECEIVED)
		err = ECONNREFUSED;
	tcp_done(tcp, tcb, err);
	return false;
}

static bool time_wait_input(struct tcp *tcp, struct tcb *tcb, const struct seg_ctx *s)
{
	const struct tcp_repr *h = s->h;
	if (h->flags & TCP_RST) {
		/* Linux (not RFC 1337): a valid RST ends TIME_WAIT early. */
		if (s->seq == tcb->rcv_nxt) {
			tcp_done(tcp, tcb, 0);
			return false;
		}
		return true;
	}
	if (h->flags & TCP_SYN) {
		challenge_ack(tcp, tcb);
		return true;
	}
	if (h->flags & TCP_FIN) {
		/* A retransmitted FIN: our last ACK was lost. ACK it again and
		 * restart 2·MSL (RFC 9293 §3.10.7.4 eighth). */
		tcp_send_ack(tcp, tcb);
		tcp_timer_set(tcp, tcb, TCP_T_KEEP,
			      tcp->now + 2ull * tcp->cfg.msl_ms * CLK_NS_PER_MS);
	}
	return true;
}

/* A SYN for a TIME_WAIT connection may start a new incarnation when it is
 * provably newer: a higher timestamp (RFC 6191 §2) or, without timestamps,
 * a sequence number above rcv_nxt (RFC 9293 §3.10.7.4, Linux tcp_timewait_state_process). */
static bool tw_reusable(const struct tcb *tcb, const struct tcp_repr *h)
{
	if ((tcb->flags & TCB_F_TS) && h->ts)
		return SEQ_GT(h->tsval, tcb->ts_recent);
	return SEQ_GT(h->seq, tcb->rcv_nxt);
}

static bool synced_input(struct tcp *tcp, struct tcb *tcb, struct seg_ctx *s)
{
	const struct tcp_repr *h = s->h;
	/* RFC 7323 §5.3 PAWS (R1): an old timestamp marks an old duplicate. */
	if ((tcb->flags & TCB_F_TS) && h->ts && !(h->flags & TCP_RST) &&
	    SEQ_LT(h->tsval, tcb->ts_recent) && tcp->now - tcb->ts_recent_age < PAWS_24DAYS_NS) {
		tcp->stats.in_paws++;
		if (s->flags & TCP_SYN)
			challenge_ack(tcp, tcb);
		else
			refused_ack(tcp, tcb, s);
		return true;
	}
	if (tcb->state == TCP_TIME_WAIT)
		return time_wait_input(tcp, tcb, s);
	/* A retransmitted SYN for a request we answered: answer again. */
	if (tcb->state == TCP_SYN_RECEIVED && (h->flags & TCP_SYN) && !(h->flags & TCP_ACK) &&
	    h->seq == tcb->irs) {
		tcp_send_syn(tcp, tcb);
		return true;
	}
	/* Simultaneous open: the peer's SYN-ACK repeats its SYN and ACKs ours
	 * (RFC 9293 Figure 8 line 5; Linux tcp_validate_incoming passes it). */
	if (tcb->state == TCP_SYN_RECEIVED &&
	    (s->flags & (TCP_SYN | TCP_ACK)) == (TCP_SYN | TCP_ACK) && s->seq + 1 == tcb->rcv_nxt &&
	    h->ack == tcb->snd_nxt && s->len == 0) {
		s->flags &= (uint8_t)~TCP_SYN;
		s->seq++;
	}
	uint32_t wnd = SEQ_GT(tcb->rcv_adv, tcb->rcv_nxt) ? tcb->rcv_adv - tcb->rcv_nxt : 0;
	if (tcb->state == TCP_SYN_RECEIVED && wnd == 0)
		wnd = tcb->syn_wnd;
	/* first: the sequence number */
	uint32_t seglen = s->len + !!(s->flags & TCP_SYN) + !!(s->flags & TCP_FIN);
	if (!seq_acceptable(tcb, s->seq, seglen, wnd)) {
		/* Zero window: still take the ACK of a segment at rcv_nxt. A
		 * duplicate that ends exactly at rcv_nxt (a retransmitted FIN
		 * that now also ACKs ours) has its ACK taken too, as Linux's
		 * tcp_sequence (end_seq >= rcv_wup), then gets its dup ACK. */
		bool ends_here =
		    seglen && s->seq + seglen == tcb->rcv_nxt && !(s->flags & (TCP_RST | TCP_SYN));
		/* D-SACK edges count the FIN, as Linux's end_seq. */
		if (ends_here)
			dsack_set(tcb, s->seq, s->seq + seglen);
		if (!(wnd == 0 && s->seq == tcb->rcv_nxt) && !ends_here) {
			tcp->stats.in_unacceptable++;
			if (s->flags & TCP_RST) {
				if (rst_exact(tcb, s->seq))
					return rst_input(tcp, tcb);
			} else if ((s->flags & TCP_SYN) && !half_open(tcb)) {
				/* RFC 5961 §4.2: whatever its sequence number (a
				 * request just gets its ACK, Linux tcp_check_req). */
				challenge_ack(tcp, tcb);
			} else {
				if (seglen && SEQ_LT(s->seq, tcb->rcv_nxt))
					dsack_set(tcb, s->seq,
						  SEQ_LT(s->seq + seglen, tcb->rcv_nxt)
						      ? s->seq + seglen
						      : tcb->rcv_nxt);
				refused_ack(tcp, tcb, s);
			}
			return true;
		}
		s->len = 0;
		s->flags &= (uint8_t)~TCP_FIN;
		tcb->flags |= TCB_F_ACK_NOW;
	}
	/* second: RST (RFC 5961 §3.2) */
	if (s->flags & TCP_RST) {
		if (rst_exact(tcb, s->seq))
			return rst_input(tcp, tcb);
		challenge_ack(tcp, tcb);
		return true;
	}
	/* third: security: skops sends and accepts no IP security
	 * compartments, so there is nothing to compare. */
	/* fourth: SYN (RFC 5961 §4.2) */
	if (s->flags & TCP_SYN) {
		if (half_open(tcb) && s->seq != tcb->irs) {
			/* From a passive OPEN: back to LISTEN (RFC 9293). As
			 * Linux tcp_check_req, the new SYN gets a RST; the
			 * peer's next one finds the listener. */
			tcp_reply_rst(tcp, &tcb->t, h, s->len);
			tcp_done(tcp, tcb, 0);
			return false;
		}
		if (half_open(tcb))
			return true; /* the first SYN again, with more: old */
		challenge_ack(tcp, tcb);
		return true;
	}
	tcp_so_parse_hdr(tcp, tcb, h, s->len);
	/* fifth: the ACK field */
	if (!(s->flags & TCP_ACK))
		return true;
	if (tcb->state == TCP_SYN_RECEIVED) {
		if (!(SEQ_LT(tcb->snd_una, h->ack) && SEQ_LEQ(h->ack, tcb->snd_max))) {
			tcp_reply_rst(tcp, &tcb->t, h, 0);
			return true;
		}
	} else if (!ack_acceptable(tcb, h->ack)) {
		/* RFC 9293 §3.10.7.4 fifth, RFC 5961 §5.2: ACK and drop, so that
		 * a blind injector who guessed only a sequence number in the
		 * window gets neither its data nor its FIN taken. */
		challenge_ack(tcp, tcb);
		return true;
	}
	/* RFC 7323 §4.3: ts_recent from segments covering Last.ACK.sent, once
	 * the segment is known to be acceptable. */
	if ((tcb->flags & TCB_F_TS) && h->ts && SEQ_LEQ(s->seq, tcb->ts_last_ack_sent) &&
	    SEQ_GEQ(h->tsval, tcb->ts_recent)) {
		tcb->ts_recent = h->tsval;
		tcb->ts_recent_age = tcp->now;
	}
	if (tcb->state == TCP_SYN_RECEIVED && tcb->parent && tcp_acc_full(tcb->parent)) {
		/* Linux tcp_check_req → listen_overflow: the ACK is dropped,
		 * the request stays and its SYN-ACK timer brings the peer's
		 * ACK again; with tcp_abort_on_overflow the request is reset
		 * and goes (embryonic_reset). */
		tcp->stats.listen_overflows++;
		tcp->stats.listen_drops++;
		if (!tcp->cfg.abort_on_overflow)
			return true;
		tcp_reply_rst(tcp, &tcb->t, h, s->len);
		tcp_done(tcp, tcb, 0);
		return false;
	}
	if (tcb->state == TCP_SYN_RECEIVED) {
		tcb->snd_una = h->ack;
		tcb->snd_wnd = (uint32_t)h->window << tcb->snd_wscale;
		tcb->max_wnd = tcb->snd_wnd;
		tcb->snd_wl1 = s->seq;
		tcb->snd_wl2 = h->ack;
		struct tcb *l = tcb->parent;
		s->handshake = true;
		establish(tcp, tcb, false);
		if (tcb->state == TCP_CLOSED)
			return false;
		if (l) {
			/* From the SYN queue to the accept queue. */
			if (tcb->prev)
				tcb->prev->next = tcb->next;
			else
				l->syn_head = tcb->next;
			if (tcb->next)
				tcb->next->prev = tcb->prev;
			tcb->next = tcb->prev = NULL;
			l->nq_syn--;
			if (l->acc_tail)
				l->acc_tail->next = tcb;
			else
				l->acc_head = tcb;
			l->acc_tail = tcb;
			l->nq_acc++;
			tcb->flags |= TCB_F_ACCQ;
			tcp_mark_event(tcp, l);
		}
	}
	if (!ack_input(tcp, tcb, s))
		return false;
	if (s->ecn && (tcb->flags & TCB_F_ECN)) {
		/* RFC 3168 §6.1.3: echo CE with ECE until the peer's CWR. An
		 * algorithm that needs ECN (DCTCP) sets the echo per segment
		 * itself (Linux __tcp_ecn_check_ce → CA_EVENT_ECN_*). */
		bool ce = (s->ecn & 3) == 3;
		bool own_echo = (tcb->cc->flags & TCP_CC_NEEDS_ECN) != 0;
		if (s->flags & TCP_CWR)
			tcb->flags &= ~TCB_F_ECE_PENDING;
		if (own_echo)
			tcp_cc_event(tcb, ce ? CA_EVENT_ECN_IS_CE : CA_EVENT_ECN_NO_CE);
		if (ce) {
			if (!own_echo)
				tcb->flags |= TCB_F_ECE_PENDING | TCB_F_ACK_NOW;
			tcb->ecn_seen |= 4u; /* SKOPS_ECN_CE_SEEN */
		} else {
			tcb->ecn_seen |= 2u; /* SKOPS_ECN_ECT_SEEN */
		}
	}
	/* sixth: URG. Urgent data stays in the stream (as with SO_OOBINLINE);
	 * the pointer is not reported. */
	/* seventh: the text, trimmed to the window: what we already have on
	 * the left, what does not fit on the right. */
	if (SEQ_LT(s->seq, tcb->rcv_nxt)) {
		uint32_t skip = tcb->rcv_nxt - s->seq;
		dsack_set(tcb, s->seq, skip < s->len ? tcb->rcv_nxt : s->seq + s->len);
		if (skip >= s->len) {
			if (skip > s->len)
				s->flags &= (uint8_t)~TCP_FIN;
			s->seq += s->len;
			s->len = 0;
		} else {
			s->data += skip;
			s->len -= skip;
			s->seq += skip;
		}
		tcb->flags |= TCB_F_ACK_NOW; /* a duplicate: tell the peer where we are */
	}
	if (s->len && SEQ_GT(s->seq + s->len, tcb->rcv_nxt + wnd)) {
		s->len = tcb->rcv_nxt + wnd - s->seq;
		s->flags &= (uint8_t)~TCP_FIN;
	}
	switch (tcb->state) {
	case TCP_ESTABLISHED:
	case TCP_FIN_WAIT_1:
	case TCP_FIN_WAIT_2:
		if (s->len && (tcb->flags & TCB_F_ORPHAN) && (tcb->flags & TCB_F_RD_SHUT)) {
			/* Data for a closed socket: nobody will read it (Linux,
			 * RFC 9293 §3.10.4 "reset"). */
			tcp_send_rst(tcp, tcb);
			tcp_done(tcp, tcb, ECONNRESET);
			return false;
		}
		data_input(tcp, tcb, s);
		break;
	default:
		s->len = 0;
		break;
	}
	/* eighth: FIN, taken once the sequence space before it is complete. A
	 * FIN beyond a hole is held like the data it came with (RFC 9293
	 * §3.10.7.4 seventh: segments beyond RCV.NXT are kept for later). */
	bool fin = false;
	if ((s->flags & TCP_FIN) && !(tcb->flags & TCB_F_FIN_RCVD)) {
		uint32_t at = s->seq + s->len;
		if (at == tcb->rcv_nxt) {
			fin = true;
		} else if (SEQ_GT(at, tcb->rcv_nxt) &&
			   (tcb->state == TCP_ESTABLISHED || tcb->state == TCP_FIN_WAIT_1 ||
			    tcb->state == TCP_FIN_WAIT_2)) {
			tcb->ooo_fin = true;
			tcb->ooo_fin_seq = at;
			tcp_ooo_arrived(tcb, s->len ? s->seq : at);
			tcb->flags |= TCB_F_ACK_NOW;
		}
	}
	if (tcb->ooo_fin && tcb->rcv_nxt == tcb->ooo_fin_seq && !(tcb->flags & TCB_F_FIN_RCVD))
		fin = true;
	if (fin) {
		tcb->ooo_fin = false;
		fin_input(tcp, tcb);
	}
	return true;
}

static void input_segment(struct tcp *tcp, uint64_t now, const struct tcp_tuple *t,
			  const struct tcp_repr *seg, const uint8_t *payload, uint32_t len,
			  uint8_t ecn, const struct tcp_rx_hdrs *hdrs)
{
	tcp->stats.in_segs++;
	struct tcb *tcb = tcp_hash_find(tcp, t);
	if (tcb && !tcp_dev_ok(tcp, tcb))
		tcb = NULL; /* bound to another port: not for it (Linux inet_match) */
	if (tcb && tcb->state == TCP_TIME_WAIT &&
	    (seg->flags & (TCP_SYN | TCP_ACK | TCP_RST)) == TCP_SYN && tw_reusable(tcb, seg)) {
		tcp_done(tcp, tcb, 0);
		tcb = tcp_hash_find(tcp, t);
	}
	if (!tcb) {
		struct tcb *l = tcp_listener_find(tcp, t);
		int ck = l ? tcp_syncookie_ack(tcp, l, t, seg, &tcb) : 0;
		if (ck < 0)
			return; /* a valid cookie, but no room for its connection */
		if (l && !tcb) {
			listen_input(tcp, l, t, seg, len, ecn, hdrs);
			return;
		}
	}
	if (!tcb) {
		tcp->stats.in_no_conn++;
		tcp_reply_rst(tcp, t, seg, len);
		return;
	}
	tcb->segs_in++;
	if (len)
		tcb->data_segs_in++;
	struct seg_ctx s = {.h = seg,
			    .seq = seg->seq,
			    .data = payload,
			    .len = len,
			    .flags = seg->flags,
			    .ecn = ecn};
	bool alive;
	if (tcb->state == TCP_SYN_SENT)
		alive = syn_sent_input(tcp, tcb, seg);
	else if (tcb->state == TCP_CLOSED || tcb->state == TCP_LISTEN)
		alive = true;
	else
		alive = synced_input(tcp, tcb, &s);
	if (!alive || tcb->state == TCP_CLOSED)
		return;
	tcp_check_tcb(tcp, tcb);
	if (tcb->keep_probes && tcb->flags & TCB_F_KEEPALIVE) {
		tcb->keep_probes = 0;
	}
	if ((tcb->flags & TCB_F_KEEPALIVE) &&
	    (tcb->state == TCP_ESTABLISHED || tcb->state == TCP_CLOSE_WAIT))
		tcp_timer_set(tcp, tcb, TCP_T_KEEP,
			      now + (uint64_t)tcb->keep_idle_s * CLK_NS_PER_S);
	tcp_output(tcp, tcb);
}

/* sock_ops effects recorded while the segment was processed are applied on
 * the way out (tcp_effect.c). */
void tcp_input(struct tcp *tcp, uint64_t now, const struct tcp_tuple *t, const struct tcp_repr *seg,
	       const uint8_t *payload, uint32_t len, uint8_t ecn, const struct tcp_rx_hdrs *hdrs)
{
	tcp->now = now;
	tcp_enter(tcp);
	input_segment(tcp, now, t, seg, payload, len, ecn, hdrs);
	tcp_leave(tcp);
}
