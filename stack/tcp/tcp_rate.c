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

void tcp_rate_delivered(struct tcb *tcb, const struct tcp_rack_seg *g)
{
	struct tcp_rate *r = &tcb->rate;
	r->delivered += g->end - g->seq;
	/* The segment sent last that this ACK delivers (the send order of
	 * RACK's stamps, sequence numbers breaking ties) decides the sample. */
	if (r->rs_have && !(g->xmit_ns > r->first_tx_ns ||
			    (g->xmit_ns == r->first_tx_ns && SEQ_GT(g->end, r->rs_end))))
		return;
	r->rs_have = true;
	r->rs_prior_delivered = g->delivered;
	r->rs_prior_ns = g->delivered_ns;
	r->rs_app_limited = (g->flags & TCP_RS_APPLIM) != 0;
	r->rs_retrans = (g->flags & TCP_RS_RTX) != 0;
	r->rs_end = g->end;
	r->rs_xmit_ns = g->xmit_ns;
	r->rs_send_us = (int64_t)((g->xmit_ns - g->first_tx_ns) / CLK_NS_PER_US);
	r->first_tx_ns = g->xmit_ns;
}

void tcp_rate_ack_begin(struct tcb *tcb)
{
	struct tcp_rate *r = &tcb->rate;
	r->rs_have = false;
	r->ack_delivered = r->delivered;
	r->ack_lost = tcb->rack.lost;
	/* the pipe costs a walk of the scoreboard: only for its consumer */
	r->ack_inflight = tcb->cc.ops->cong_control ? tcp_inflight(tcb) : 0;
}

void tcp_rate_gen(struct tcp *tcp, struct tcb *tcb, struct tcp_rate_sample *rs)
{
	struct tcp_rate *r = &tcb->rate;
	uint32_t mss = tcb->mss ? tcb->mss : TCP_MSS_DEFAULT;
	/* The bubble the application left has been delivered. */
	if (r->app_limited && r->delivered > r->app_limited)
		r->app_limited = 0;
	uint64_t d = r->delivered - r->ack_delivered;
	if (d)
		r->delivered_ns = tcp->now;
	*rs = (struct tcp_rate_sample){
	    .delivered = -1,
	    .interval_us = -1,
	    .acked_sacked = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d,
	    .losses = (tcb->rack.lost - r->ack_lost) * mss,
	    .prior_in_flight = r->ack_inflight,
	    .rtt_us = -1,
	};
	if (!r->rs_have)
		return;
	rs->prior_delivered = r->rs_prior_delivered;
	rs->is_app_limited = r->rs_app_limited;
	rs->is_retrans = r->rs_retrans;
	rs->delivered = (int64_t)(r->delivered - r->rs_prior_delivered);
	int64_t ack_us = (int64_t)((tcp->now - r->rs_prior_ns) / CLK_NS_PER_US);
	rs->interval_us = r->rs_send_us > ack_us ? r->rs_send_us : ack_us;
	if (!r->rs_retrans)
		rs->rtt_us = (int32_t)((tcp->now - r->rs_xmit_ns) / CLK_NS_PER_US);
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
