/* tcp_cc: the stack's side of the congestion control interface, and the one
 * place that calls a module's ops (cc/cc.h). Each event fills a struct
 * tcp_cc_view from the tcb, runs the op, and takes back what the module set
 * (cwnd, ssthresh, pacing rate, the ECE echo, the app-limited mark) and the
 * ACKs it asked for, so that a module never touches a tcb nor sends. */
#include <string.h>

#include "tcp_int.h"

_Static_assert(sizeof(((struct tcb *)0)->cc.priv) == TCP_CC_PRIV_SIZE, "cc_priv size");

static inline void view_of(struct tcb *tcb, struct tcp_cc_view *v)
{
	v->now_ns = tcb->tcp->now;
	v->lsndtime_ns = tcb->send.lsnd_ns;
	v->hz = tcb->tcp->cfg.hz;
	v->mss = tcb->mss;
	v->snd_una = tcb->send.una;
	v->snd_nxt = tcb->send.nxt;
	v->iss = tcb->send.iss;
	v->prior_inflight = tcb->rec.prior_inflight;
	v->cwnd_limited = tcb->cwnd_limited;
	v->inflight = 0;
	v->srtt_us8 = tcb->rtt.srtt_us8;
	v->min_rtt_us = tcb->rtt.min_us;
	v->initial_cwnd = tcb->cc.initial_cwnd;
	v->cwnd_clamp = tcb->cc.cwnd_clamp;
	v->prior_cwnd = tcb->cc.prior_cwnd;
	v->delivered = tcb->rate.delivered;
	v->delivered_ns = tcb->rate.delivered_ns;
	v->lost = tcb->rack.lost;
	v->max_pacing_rate = tcb->pace.max_rate;
	v->ca_state = tcb->cc.ca_state;
	v->ecn = (tcb->flags & TCB_F_ECN) != 0;
	v->sack = (tcb->flags & TCB_F_SACK) != 0;
	v->delack = (tcb->flags & TCB_F_DELACK) != 0;
	v->paced = tcp_pace_on(tcb->tcp, tcb);
	v->cwnd = tcb->cc.cwnd;
	v->ssthresh = tcb->cc.ssthresh;
	v->cwnd_cnt = tcb->cc.cwnd_cnt;
	v->pacing_rate = tcb->pace.rate;
	v->app_limited = tcb->rate.app_limited;
	v->ece = (tcb->flags & TCB_F_ECE_PENDING) != 0;
	v->ack_now = false;
	v->flush_ack = false;
	v->flush_ece = false;
	v->fallback = NULL;
	v->priv = tcb->cc.priv;
}

static inline void set_ece(struct tcb *tcb, bool on)
{
	if (on)
		tcb->flags |= TCB_F_ECE_PENDING;
	else
		tcb->flags &= ~TCB_F_ECE_PENDING;
}

static inline void take_back(struct tcb *tcb, const struct tcp_cc_view *v)
{
	tcb->cc.cwnd = v->cwnd;
	tcb->cc.ssthresh = v->ssthresh;
	tcb->cc.cwnd_cnt = v->cwnd_cnt;
	if (v->pacing_rate != tcb->pace.rate)
		tcp_pace_cc_rate(tcb, v->pacing_rate);
	if (v->app_limited != tcb->rate.app_limited)
		tcp_rate_set_app_limited(tcb, v->app_limited);
	if (v->flush_ack) {
		/* the delayed ACK leaves first, with the mark of what it covers */
		set_ece(tcb, v->flush_ece);
		tcp_send_ack(tcb->tcp, tcb);
	}
	if (v->ack_now)
		tcb->flags |= TCB_F_ACK_NOW;
	set_ece(tcb, v->ece);
}

void tcp_cc_attach(struct tcb *tcb, const struct tcp_cc_ops *ops)
{
	tcb->cc.ops = ops;
	memset(tcb->cc.priv, 0, sizeof(tcb->cc.priv));
}

void tcp_init_cwnd(struct tcp *tcp, struct tcb *tcb)
{
	(void)tcp;
	if (!tcb->cc.cwnd_clamp)
		tcb->cc.cwnd_clamp = UINT32_MAX / 2;
	/* A program may have set TCP_BPF_IW before the handshake finished. */
	if (!tcb->cc.initial_cwnd)
		tcb->cc.initial_cwnd = TCP_INIT_CWND;
	tcb->cc.cwnd =
	    tcb->cc.initial_cwnd < tcb->cc.cwnd_clamp ? tcb->cc.initial_cwnd : tcb->cc.cwnd_clamp;
	if (!tcb->cc.ssthresh)
		tcb->cc.ssthresh = 0x7fffffff; /* TCP_INFINITE_SSTHRESH */
}

void tcp_cc_set_cwnd(struct tcb *tcb, uint32_t cwnd)
{
	tcb->cc.cwnd = cwnd;
}

void tcp_cc_set_iw(struct tcb *tcb, uint32_t iw)
{
	tcb->cc.cwnd = iw;
	tcb->cc.initial_cwnd = iw;
	if (tcb->cc.cwnd_clamp && tcb->cc.cwnd > tcb->cc.cwnd_clamp)
		tcb->cc.cwnd = tcb->cc.cwnd_clamp;
}

void tcp_cc_set_clamp(struct tcb *tcb, uint32_t clamp)
{
	tcb->cc.cwnd_clamp = clamp;
	tcb->cc.ssthresh = clamp;
	/* Linux leaves cwnd to shrink on its own; we apply the clamp at
	 * once so cwnd is never above it. */
	if (tcb->cc.cwnd > tcb->cc.cwnd_clamp)
		tcb->cc.cwnd = tcb->cc.cwnd_clamp;
}

/* ssthresh from the CC, within the clamp. */
static void new_ssthresh(struct tcb *tcb)
{
	tcb->cc.ssthresh = tcp_cc_ssthresh(tcb);
	if (tcb->cc.ssthresh > tcb->cc.cwnd_clamp)
		tcb->cc.ssthresh = tcb->cc.cwnd_clamp;
}

/* Linux tcp_init_cwnd_reduction: the growth counted towards the next
 * segment of window is dropped with the window it would have grown. */
void tcp_cc_reduce(struct tcb *tcb)
{
	tcb->cc.cwnd_cnt = 0;
	tcb->cc.prior_cwnd = tcb->cc.cwnd;
	tcb->cc.prior_ssthresh = tcb->cc.ssthresh;
	new_ssthresh(tcb);
}

void tcp_cc_rto(struct tcb *tcb, bool reduce)
{
	/* RFC 5681 §3.1 (4)-(5): ssthresh from the CC, loss window of one. */
	if (reduce) {
		tcp_cc_reduce(tcb);
		tcp_cc_event(tcb, CA_EVENT_LOSS);
	}
	tcp_cc_set_state(tcb, TCP_CA_LOSS);
	tcb->cc.cwnd = 1;
	tcb->cc.cwnd_cnt = 0;
}

void tcp_cc_undo(struct tcb *tcb)
{
	tcb->cc.cwnd = tcp_cc_undo_cwnd(tcb);
	if (tcb->cc.prior_ssthresh > tcb->cc.ssthresh)
		tcb->cc.ssthresh = tcb->cc.prior_ssthresh;
}

void tcp_cc_ack_done(struct tcb *tcb)
{
	if (tcb->cc.cwnd > tcb->cc.cwnd_clamp)
		tcb->cc.cwnd = tcb->cc.cwnd_clamp;
	/* (cong_control: the window is the CC's, later) */
	if (tcb->cc.cwnd > tcb->cc.max_cwnd && !tcb->cc.ops->cong_control)
		tcb->cc.max_cwnd = tcb->cc.cwnd;
}

void tcp_cc_init(struct tcb *tcb)
{
	if (!tcb->cc.ops->init)
		return;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	tcb->cc.ops->init(&v);
	take_back(tcb, &v);
	if (v.fallback)
		tcb->cc.ops = v.fallback;
}

void tcp_cc_release(struct tcb *tcb)
{
	if (!tcb->cc.ops->release)
		return;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	tcb->cc.ops->release(&v);
	take_back(tcb, &v);
}

void tcp_cc_set_state(struct tcb *tcb, uint8_t st)
{
	if (tcb->cc.ops->set_state) {
		struct tcp_cc_view v;
		view_of(tcb, &v);
		tcb->cc.ops->set_state(&v, st);
		take_back(tcb, &v);
	}
	tcb->cc.ca_state = st;
}

void tcp_cc_event(struct tcb *tcb, enum tcp_ca_event ev)
{
	if (!tcb->cc.ops->cwnd_event)
		return;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	tcb->cc.ops->cwnd_event(&v, ev);
	take_back(tcb, &v);
}

void tcp_cc_pkts_acked(struct tcb *tcb, uint32_t acked, int32_t rtt_us)
{
	if (!tcb->cc.ops->pkts_acked)
		return;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	tcb->cc.ops->pkts_acked(&v, acked, rtt_us);
	take_back(tcb, &v);
}

void tcp_cc_in_ack_event(struct tcb *tcb, uint32_t ack, uint32_t flags)
{
	if (!tcb->cc.ops->in_ack_event)
		return;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	tcb->cc.ops->in_ack_event(&v, ack, flags);
	take_back(tcb, &v);
}

void tcp_cc_cong_avoid(struct tcb *tcb, uint32_t ack, uint32_t acked)
{
	if (tcb->cc.ops->cong_control)
		return;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	tcb->cc.ops->cong_avoid(&v, ack, acked);
	take_back(tcb, &v);
}

uint32_t tcp_cc_ssthresh(struct tcb *tcb)
{
	struct tcp_cc_view v;
	view_of(tcb, &v);
	uint32_t s = tcb->cc.ops->ssthresh(&v);
	take_back(tcb, &v);
	return s;
}

uint32_t tcp_cc_undo_cwnd(struct tcb *tcb)
{
	if (!tcb->cc.ops->undo_cwnd)
		return tcb->cc.cwnd > tcb->cc.prior_cwnd ? tcb->cc.cwnd : tcb->cc.prior_cwnd;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	uint32_t w = tcb->cc.ops->undo_cwnd(&v);
	take_back(tcb, &v);
	return w;
}

void tcp_cc_cong_control(struct tcb *tcb, uint32_t ack, const struct tcp_rate_sample *rs,
			 uint32_t cwnd_before)
{
	tcb->cc.cwnd = cwnd_before;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	v.inflight = tcp_inflight(tcb);
	tcb->cc.ops->cong_control(&v, ack, rs);
	take_back(tcb, &v);
	if (tcb->cc.cwnd > tcb->cc.max_cwnd)
		tcb->cc.max_cwnd = tcb->cc.cwnd;
}

int32_t cc_dctcp_alpha(const struct tcb *tcb)
{
	return cc_dctcp_alpha_of(tcb->cc.ops, tcb->cc.priv);
}

bool cc_bbr_get_info(const struct tcb *tcb, struct cc_bbr_info *out)
{
	return cc_bbr_info_of(tcb->cc.ops, tcb->cc.priv, out);
}
