/* tcp_rate: delivery-rate estimation for congestion controls that model
 * the path (BBR), the method of Linux's tcp_rate.c and of the IETF draft
 * "Delivery Rate Estimation" (draft-cheng-iccrg-delivery-rate-estimation).
 *
 * Each segment remembers, when it leaves, how many bytes the connection had
 * delivered then and when that count last grew, and when the send phase of
 * its window began (the send time of the latest segment delivered then).
 * When an ACK delivers segments, the one sent last among them gives the
 * sample: the bytes delivered since it left, over the longer of the time
 * its window took to send and the time its deliveries took to come back
 * (ACK compression shortens the one, a burst from the sender the other).
 * A window sent while the application had nothing more to send is marked
 * app-limited: its rate says little about the path.
 *
 * The state lives in the RACK records (struct tcp_rack_seg), which every
 * SACK connection keeps and which a connection whose CC has cong_control
 * keeps without SACK too (RACK itself stays off there). */
#include "tcp_int.h"

bool tcp_rate_on(const struct tcp *tcp, const struct tcb *tcb)
{
	return ((tcb->flags & TCB_F_SACK) && !tcp->cfg.no_rack) ||
	       (tcb->cc.ops && tcb->cc.ops->cong_control);
}

uint32_t tcp_inflight(struct tcb *tcb)
{
	return (tcb->flags & TCB_F_SACK) ? tcp_sb_pipe(tcb) : tcb->send.nxt - tcb->send.una;
}

void tcp_rate_idle(struct tcb *tcb, uint64_t now)
{
	/* Nothing in flight: a new window's send phase starts now, and the
	 * idle time before it is no part of any ACK phase. */
	tcb->rate.first_tx_ns = now;
	tcb->rate.delivered_ns = now;
}

void tcp_rate_sent(struct tcb *tcb, struct tcp_rack_seg *g)
{
	const struct tcp_rate *r = &tcb->rate;
	g->delivered = r->delivered;
	g->delivered_ns = r->delivered_ns;
	g->first_tx_ns = r->first_tx_ns;
	g->flags = r->app_limited ? g->flags | TCP_RS_APPLIM : g->flags & ~TCP_RS_APPLIM;
}

/* The stack's one per-ACK sample, begun for tcb when it is another's (a
 * delivery outside tcb's ACK processing, or a sample asked for with no ACK
 * begun: then an empty one). */
static struct tcp_rate_ack *ack_of(struct tcb *tcb)
{
	if (tcb->tcp->rate_ack.tcb != tcb)
		tcp_rate_ack_begin(tcb);
	return &tcb->tcp->rate_ack;
}

void tcp_rate_delivered(struct tcb *tcb, const struct tcp_rack_seg *g)
{
	struct tcp_rate *r = &tcb->rate;
	struct tcp_rate_ack *a = ack_of(tcb);
	r->delivered += g->end - g->seq;
	/* Linux's ca_rtt_us takes the newest never-resent segment delivered,
	 * a newly SACKed one before a cumulatively acknowledged one; a resent
	 * one cumulatively acknowledged voids the latter (Karn). */
	if (!(g->flags & TCP_RS_RTX)) {
		uint64_t *t = (g->flags & TCP_RS_SACKED) ? &a->ca_sack_ns : &a->ca_cum_ns;
		if (g->xmit_ns > *t)
			*t = g->xmit_ns;
	} else if (!(g->flags & TCP_RS_SACKED)) {
		a->cum_rtx = true;
	}
	/* The segment sent last that this ACK delivers (the send order of
	 * RACK's stamps, sequence numbers breaking ties) decides the sample. */
	if (a->have && !(g->xmit_ns > r->first_tx_ns ||
			 (g->xmit_ns == r->first_tx_ns && SEQ_GT(g->end, a->end))))
		return;
	a->have = true;
	a->prior_delivered = g->delivered;
	a->prior_ns = g->delivered_ns;
	a->app_limited = (g->flags & TCP_RS_APPLIM) != 0;
	a->retrans = (g->flags & TCP_RS_RTX) != 0;
	a->end = g->end;
	a->send_us = (int64_t)((g->xmit_ns - g->first_tx_ns) / CLK_NS_PER_US);
	r->first_tx_ns = g->xmit_ns;
}

void tcp_rate_rtx_acked(struct tcb *tcb)
{
	ack_of(tcb)->cum_rtx = true;
}

int32_t tcp_rate_ca_rtt_us(const struct tcp *tcp, const struct tcb *tcb, bool *cum)
{
	const struct tcp_rate_ack *a = &tcp->rate_ack;
	bool mine = a->tcb == tcb;
	if (cum)
		*cum = mine && a->ca_cum_ns && !a->cum_rtx;
	if (!mine)
		return -1;
	uint64_t sent = a->ca_sack_ns ? a->ca_sack_ns : a->cum_rtx ? 0 : a->ca_cum_ns;
	if (!sent)
		return -1;
	/* in whole µs of either clock, as Linux's stamps; a stamp may lie a
	 * few ns past the clock (tcp_rack_sent) */
	uint64_t now_us = tcp->now / CLK_NS_PER_US, sent_us = sent / CLK_NS_PER_US;
	uint64_t us = now_us > sent_us ? now_us - sent_us : 0;
	return us < INT32_MAX ? (int32_t)us : INT32_MAX;
}

void tcp_rate_ack_begin(struct tcb *tcb)
{
	struct tcp_rate_ack *a = &tcb->tcp->rate_ack;
	a->tcb = tcb;
	a->have = false;
	a->ca_cum_ns = a->ca_sack_ns = 0;
	a->cum_rtx = false;
	a->delivered = tcb->rate.delivered;
	a->lost = tcb->rack.lost;
	/* the pipe costs a walk of the scoreboard: only for its consumer */
	a->inflight = tcb->cc.ops->cong_control ? tcp_inflight(tcb) : 0;
}

void tcp_rate_gen(struct tcp *tcp, struct tcb *tcb, struct tcp_rate_sample *rs, int32_t rtt_us)
{
	struct tcp_rate *r = &tcb->rate;
	struct tcp_rate_ack *a = ack_of(tcb);
	uint32_t mss = tcb->mss ? tcb->mss : TCP_MSS_DEFAULT;
	/* The bubble the application left has been delivered. */
	if (r->app_limited && r->delivered > r->app_limited)
		r->app_limited = 0;
	uint64_t d = r->delivered - a->delivered;
	if (d)
		r->delivered_ns = tcp->now;
	*rs = (struct tcp_rate_sample){
	    .delivered = -1,
	    .interval_us = -1,
	    .acked_sacked = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d,
	    .losses = (tcb->rack.lost - a->lost) * mss,
	    .prior_in_flight = a->inflight,
	    .rtt_us = rtt_us,
	};
	bool have = a->have;
	a->tcb = NULL;
	if (!have)
		return;
	rs->prior_delivered = a->prior_delivered;
	rs->is_app_limited = a->app_limited;
	rs->is_retrans = a->retrans;
	rs->delivered = (int64_t)(r->delivered - a->prior_delivered);
	int64_t ack_us = (int64_t)((tcp->now - a->prior_ns) / CLK_NS_PER_US);
	rs->interval_us = a->send_us > ack_us ? a->send_us : ack_us;
	/* Shorter than any round trip: a resent segment's delivery credited
	 * to the retransmission, or a clock step; no rate can be trusted. */
	if (rs->interval_us < (int64_t)tcb->rtt.min_us)
		rs->interval_us = -1;
}

void tcp_rate_check_app_limited(struct tcb *tcb)
{
	struct tcp_rate *r = &tcb->rate;
	if (!tcb->cc.ops || !tcb->cc.ops->cong_control)
		return; /* only a cong_control CC reads the mark */
	uint32_t mss = tcb->mss ? tcb->mss : TCP_MSS_DEFAULT;
	uint32_t out = tcb->send.nxt - tcb->send.una;
	uint32_t unsent = tcb->snd.len > out ? tcb->snd.len - out : 0;
	uint32_t pipe = tcp_inflight(tcb);
	/* Less than a segment to send, room in the window, no loss waiting
	 * for its retransmission: the sender, not the path, is the limit. */
	if (unsent < mss && pipe < (uint64_t)tcb->cc.cwnd * mss && !tcb->rack.nlost)
		r->app_limited = r->delivered + pipe ? r->delivered + pipe : 1;
}

void tcp_rate_set_app_limited(struct tcb *tcb, uint64_t mark)
{
	tcb->rate.app_limited = mark;
}
