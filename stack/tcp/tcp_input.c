/* tcp_input: segment arrival, RFC 9293 §3.10.7 in its order: the
 * connection's lookup, LISTEN and SYN-SENT (tcp_handshake.c), then for
 * synchronised states one step per check: PAWS (RFC 7323 §5.3), sequence
 * acceptability, RST with RFC 5961 §3 checks, SYN with the RFC 5961 §4
 * challenge ACK, the ACK field's acceptability (RFC 5961 §5) before
 * tcp_ack.c processes it, then the text and FIN (tcp_rcv.c). TIME_WAIT
 * reuse follows RFC 6191 (timestamps) / RFC 9293 §3.10.7.4 (a higher
 * sequence number). */
#include <errno.h>

#include "tcp_input.h"

#define PAWS_24DAYS_NS (24ull * 86400 * CLK_NS_PER_S)

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

/* ---- synchronised states ---- */

static bool seq_acceptable(const struct tcb *tcb, uint32_t seq, uint32_t seglen, uint32_t wnd)
{
	/* RFC 9293 §3.10.7.4, the four cases. */
	if (seglen == 0) {
		if (wnd == 0)
			return seq == tcb->recv.nxt;
		return SEQ_LEQ(tcb->recv.nxt, seq) && SEQ_LT(seq, tcb->recv.nxt + wnd);
	}
	if (wnd == 0)
		return false;
	uint32_t last = seq + seglen - 1;
	return (SEQ_LEQ(tcb->recv.nxt, seq) && SEQ_LT(seq, tcb->recv.nxt + wnd)) ||
	       (SEQ_LEQ(tcb->recv.nxt, last) && SEQ_LT(last, tcb->recv.nxt + wnd));
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
	if (seq == tcb->recv.nxt)
		return true;
	if (seq == tcb->recv.nxt - 1 && (tcb->flags & TCB_F_FIN_RCVD) &&
	    (tcb->state == TCP_CLOSE_WAIT || tcb->state == TCP_LAST_ACK ||
	     tcb->state == TCP_CLOSING))
		return true;
	return (tcb->flags & TCB_F_SACK) && tcb->ooo.n && seq == tcb->ooo.r[tcb->ooo.n - 1].r;
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
		if (s->seq == tcb->recv.nxt) {
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
		tcp_timer_set_us(tcp, tcb, TCP_T_KEEP, 2ull * tcp->cfg.msl_ms * CLK_US_PER_MS);
	}
	return true;
}

/* A SYN for a TIME_WAIT connection may start a new incarnation when it is
 * provably newer: a higher timestamp (RFC 6191 §2) or, without timestamps,
 * a sequence number above rcv_nxt (RFC 9293 §3.10.7.4, Linux tcp_timewait_state_process). */
static bool tw_reusable(const struct tcb *tcb, const struct tcp_repr *h)
{
	if ((tcb->flags & TCB_F_TS) && h->ts)
		return SEQ_GT(h->tsval, tcb->recv.ts_recent);
	return SEQ_GT(h->seq, tcb->recv.nxt);
}

/* What a step of synced_input decided: go on to the next check, stop
 * with the connection alive, or stop because it was freed. */
enum step { STEP_NEXT, STEP_STOP, STEP_FREED };

/* RFC 7323 §5.3 PAWS (R1): an old timestamp marks an old duplicate. */
static enum step check_paws(struct tcp *tcp, struct tcb *tcb, const struct seg_ctx *s)
{
	const struct tcp_repr *h = s->h;
	if (!(tcb->flags & TCB_F_TS) || !h->ts || (h->flags & TCP_RST) ||
	    !SEQ_LT(h->tsval, tcb->recv.ts_recent) ||
	    tcp->now - tcb->recv.ts_recent_ns >= PAWS_24DAYS_NS)
		return STEP_NEXT;
	tcp->stats.in_paws++;
	if (s->flags & TCP_SYN)
		challenge_ack(tcp, tcb);
	else
		refused_ack(tcp, tcb, s);
	return STEP_STOP;
}

/* SYN-RECEIVED's repeats: a retransmitted SYN for a request we answered
 * is answered again; the SYN-ACK of a simultaneous open repeats the
 * peer's SYN and ACKs ours (RFC 9293 Figure 8 line 5; Linux
 * tcp_validate_incoming passes it). */
static enum step check_syn_received(struct tcp *tcp, struct tcb *tcb, struct seg_ctx *s)
{
	const struct tcp_repr *h = s->h;
	if (tcb->state != TCP_SYN_RECEIVED)
		return STEP_NEXT;
	if ((h->flags & TCP_SYN) && !(h->flags & TCP_ACK) && h->seq == tcb->recv.irs) {
		tcp_send_syn(tcp, tcb);
		return STEP_STOP;
	}
	if ((s->flags & (TCP_SYN | TCP_ACK)) == (TCP_SYN | TCP_ACK) &&
	    s->seq + 1 == tcb->recv.nxt && h->ack == tcb->send.nxt && s->len == 0) {
		s->flags &= (uint8_t)~TCP_SYN;
		s->seq++;
	}
	return STEP_NEXT;
}

/* first: the sequence number. */
static enum step check_seq(struct tcp *tcp, struct tcb *tcb, struct seg_ctx *s, uint32_t wnd)
{
	uint32_t seglen = s->len + !!(s->flags & TCP_SYN) + !!(s->flags & TCP_FIN);
	if (seq_acceptable(tcb, s->seq, seglen, wnd))
		return STEP_NEXT;
	/* Zero window: still take the ACK of a segment at rcv_nxt. A
	 * duplicate that ends exactly at rcv_nxt (a retransmitted FIN
	 * that now also ACKs ours) has its ACK taken too, as Linux's
	 * tcp_sequence (end_seq >= rcv_wup), then gets its dup ACK. */
	bool ends_here =
	    seglen && s->seq + seglen == tcb->recv.nxt && !(s->flags & (TCP_RST | TCP_SYN));
	/* D-SACK edges count the FIN, as Linux's end_seq. */
	if (ends_here)
		tcp_dsack_set(tcb, s->seq, s->seq + seglen);
	if (!(wnd == 0 && s->seq == tcb->recv.nxt) && !ends_here) {
		tcp->stats.in_unacceptable++;
		if (s->flags & TCP_RST) {
			if (rst_exact(tcb, s->seq))
				return rst_input(tcp, tcb) ? STEP_STOP : STEP_FREED;
		} else if ((s->flags & TCP_SYN) && !half_open(tcb)) {
			/* RFC 5961 §4.2: whatever its sequence number (a
			 * request just gets its ACK, Linux tcp_check_req). */
			challenge_ack(tcp, tcb);
		} else {
			if (seglen && SEQ_LT(s->seq, tcb->recv.nxt))
				tcp_dsack_set(tcb, s->seq,
					      SEQ_LT(s->seq + seglen, tcb->recv.nxt)
						  ? s->seq + seglen
						  : tcb->recv.nxt);
			refused_ack(tcp, tcb, s);
		}
		return STEP_STOP;
	}
	s->len = 0;
	s->flags &= (uint8_t)~TCP_FIN;
	tcb->flags |= TCB_F_ACK_NOW;
	return STEP_NEXT;
}

/* second: RST (RFC 5961 §3.2). third, security: skops sends and accepts
 * no IP security compartments, so there is nothing to compare. */
static enum step check_rst(struct tcp *tcp, struct tcb *tcb, const struct seg_ctx *s)
{
	if (!(s->flags & TCP_RST))
		return STEP_NEXT;
	if (rst_exact(tcb, s->seq))
		return rst_input(tcp, tcb) ? STEP_STOP : STEP_FREED;
	challenge_ack(tcp, tcb);
	return STEP_STOP;
}

/* fourth: SYN (RFC 5961 §4.2). */
static enum step check_syn(struct tcp *tcp, struct tcb *tcb, const struct seg_ctx *s)
{
	if (!(s->flags & TCP_SYN))
		return STEP_NEXT;
	if (half_open(tcb) && s->seq != tcb->recv.irs) {
		/* From a passive OPEN: back to LISTEN (RFC 9293). As
		 * Linux tcp_check_req, the new SYN gets a RST; the
		 * peer's next one finds the listener. */
		tcp_reply_rst(tcp, &tcb->t, s->h, s->len);
		tcp_done(tcp, tcb, 0);
		return STEP_FREED;
	}
	if (!half_open(tcb)) /* else the first SYN again, with more: old */
		challenge_ack(tcp, tcb);
	return STEP_STOP;
}

/* fifth: whether the ACK field may be processed; ts_recent once it may. */
static enum step check_ack(struct tcp *tcp, struct tcb *tcb, const struct seg_ctx *s)
{
	const struct tcp_repr *h = s->h;
	if (!(s->flags & TCP_ACK))
		return STEP_STOP;
	if (tcb->state == TCP_SYN_RECEIVED) {
		if (!(SEQ_LT(tcb->send.una, h->ack) && SEQ_LEQ(h->ack, tcb->send.max))) {
			tcp_reply_rst(tcp, &tcb->t, h, 0);
			return STEP_STOP;
		}
	} else if (!tcp_ack_acceptable(tcb, h->ack)) {
		/* RFC 9293 §3.10.7.4 fifth, RFC 5961 §5.2: ACK and drop, so that
		 * a blind injector who guessed only a sequence number in the
		 * window gets neither its data nor its FIN taken. */
		challenge_ack(tcp, tcb);
		return STEP_STOP;
	}
	/* RFC 7323 §4.3: ts_recent from segments covering Last.ACK.sent, once
	 * the segment is known to be acceptable. */
	if ((tcb->flags & TCB_F_TS) && h->ts && SEQ_LEQ(s->seq, tcb->recv.ts_last_ack_sent) &&
	    SEQ_GEQ(h->tsval, tcb->recv.ts_recent)) {
		tcp_rcv_ts_recent(tcb, h->tsval, tcp->now);
	}
	if (tcb->state == TCP_SYN_RECEIVED && tcb->parent && tcp_acc_full(tcb->parent)) {
		/* Linux tcp_check_req → listen_overflow: the ACK is dropped,
		 * the request stays and its SYN-ACK timer brings the peer's
		 * ACK again; with tcp_abort_on_overflow the request is reset
		 * and goes (embryonic_reset). */
		tcp->stats.listen_overflows++;
		tcp->stats.listen_drops++;
		if (!tcp->cfg.abort_on_overflow)
			return STEP_STOP;
		tcp_reply_rst(tcp, &tcb->t, h, s->len);
		tcp_done(tcp, tcb, 0);
		return STEP_FREED;
	}
	return STEP_NEXT;
}

/* RFC 9293 §3.10.7.4, the steps in its order. false: tcb was freed. */
static bool synced_input(struct tcp *tcp, struct tcb *tcb, struct seg_ctx *s)
{
	enum step st = check_paws(tcp, tcb, s);
	if (st == STEP_NEXT && tcb->state == TCP_TIME_WAIT)
		return time_wait_input(tcp, tcb, s);
	if (st == STEP_NEXT)
		st = check_syn_received(tcp, tcb, s);
	uint32_t wnd = SEQ_GT(tcb->recv.adv, tcb->recv.nxt) ? tcb->recv.adv - tcb->recv.nxt : 0;
	if (tcb->state == TCP_SYN_RECEIVED && wnd == 0)
		wnd = tcb->syn_wnd;
	if (st == STEP_NEXT)
		st = check_seq(tcp, tcb, s, wnd);
	if (st == STEP_NEXT)
		st = check_rst(tcp, tcb, s);
	if (st == STEP_NEXT)
		st = check_syn(tcp, tcb, s);
	if (st == STEP_NEXT) {
		tcp_so_parse_hdr(tcp, tcb, s->h, s->len);
		st = check_ack(tcp, tcb, s);
	}
	if (st != STEP_NEXT)
		return st == STEP_STOP;
	if (tcb->state == TCP_SYN_RECEIVED && !tcp_passive_open_done(tcp, tcb, s))
		return false;
	if (!tcp_ack_input(tcp, tcb, s))
		return false;
	tcp_rcv_ecn(tcb, s);
	/* sixth: URG. Urgent data stays in the stream (as with SO_OOBINLINE);
	 * the pointer is not reported. */
	if (!tcp_rcv_text(tcp, tcb, s, wnd))
		return false;
	tcp_rcv_fin(tcp, tcb, s);
	return true;
}

static void input_segment(struct tcp *tcp, const struct tcp_tuple *t, const struct tcp_repr *seg,
			  const uint8_t *payload, uint32_t len, uint8_t ecn,
			  const struct tcp_rx_hdrs *hdrs)
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
			tcp_listen_input(tcp, l, t, seg, len, ecn, hdrs);
			return;
		}
	}
	if (!tcb) {
		tcp->stats.in_no_conn++;
		tcp_reply_rst(tcp, t, seg, len);
		return;
	}
	tcp_count_seg_in(tcb, len);
	struct seg_ctx s = {.h = seg,
			    .seq = seg->seq,
			    .data = payload,
			    .len = len,
			    .flags = seg->flags,
			    .ecn = ecn};
	bool alive;
	if (tcb->state == TCP_SYN_SENT)
		alive = tcp_syn_sent_input(tcp, tcb, seg);
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
		tcp_timer_set_us(tcp, tcb, TCP_T_KEEP,
				 (uint64_t)tcb->opt.keep_idle_s * CLK_US_PER_S);
	tcp_output(tcp, tcb);
}

/* sock_ops effects recorded while the segment was processed are applied on
 * the way out (tcp_effect.c). */
void tcp_input(struct tcp *tcp, uint64_t now, const struct tcp_tuple *t, const struct tcp_repr *seg,
	       const uint8_t *payload, uint32_t len, uint8_t ecn, const struct tcp_rx_hdrs *hdrs)
{
	tcp->now = now;
	tcp_enter(tcp);
	input_segment(tcp, t, seg, payload, len, ecn, hdrs);
	tcp_leave(tcp);
}
