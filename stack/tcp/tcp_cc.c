/* tcp_cc: the stack's side of the congestion control interface, and the one
 * place that calls a module's ops (cc/cc.h). Each event fills a struct
 * tcp_cc_view from the tcb, runs the op, and takes back what the module set
 * (cwnd, ssthresh, pacing rate, the ECE echo, the app-limited mark) and the
 * ACKs it asked for, so that a module never touches a tcb nor sends. */
#include "tcp_int.h"

_Static_assert(sizeof(((struct tcb *)0)->cc_priv) == TCP_CC_PRIV_SIZE, "cc_priv size");

static inline void view_of(struct tcb *tcb, struct tcp_cc_view *v)
{
	v->now_ns = tcb->tcp->now;
	v->mss = tcb->mss;
	v->snd_una = tcb->snd_una;
	v->snd_nxt = tcb->snd_nxt;
	v->iss = tcb->iss;
	v->prior_inflight = tcb->prior_inflight;
	v->inflight = 0;
	v->srtt_us8 = tcb->srtt_us8;
	v->min_rtt_us = tcb->rtt_min_us;
	v->initial_cwnd = tcb->initial_cwnd;
	v->cwnd_clamp = tcb->cwnd_clamp;
	v->prior_cwnd = tcb->prior_cwnd;
	v->delivered = tcb->rate.delivered;
	v->max_pacing_rate = tcb->max_pacing_rate;
	v->ca_state = tcb->cc_state;
	v->ecn = (tcb->flags & TCB_F_ECN) != 0;
	v->sack = (tcb->flags & TCB_F_SACK) != 0;
	v->delack = (tcb->flags & TCB_F_DELACK) != 0;
	v->cwnd = tcb->cwnd;
	v->ssthresh = tcb->ssthresh;
	v->cwnd_cnt = tcb->cwnd_cnt;
	v->pacing_rate = tcb->pacing_rate;
	v->app_limited = tcb->rate.app_limited;
	v->ece = (tcb->flags & TCB_F_ECE_PENDING) != 0;
	v->ack_now = false;
	v->flush_ack = false;
	v->flush_ece = false;
	v->fallback = NULL;
	v->priv = tcb->cc_priv;
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
	tcb->cwnd = v->cwnd;
	tcb->ssthresh = v->ssthresh;
	tcb->cwnd_cnt = v->cwnd_cnt;
	tcb->pacing_rate = v->pacing_rate;
	tcb->rate.app_limited = v->app_limited;
	if (v->flush_ack) {
		/* the delayed ACK leaves first, with the mark of what it covers */
		set_ece(tcb, v->flush_ece);
		tcp_send_ack(tcb->tcp, tcb);
	}
	if (v->ack_now)
		tcb->flags |= TCB_F_ACK_NOW;
	set_ece(tcb, v->ece);
}

void tcp_cc_init(struct tcb *tcb)
{
	if (!tcb->cc->init)
		return;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	tcb->cc->init(&v);
	take_back(tcb, &v);
	if (v.fallback)
		tcb->cc = v.fallback;
}

void tcp_cc_release(struct tcb *tcb)
{
	if (!tcb->cc->release)
		return;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	tcb->cc->release(&v);
	take_back(tcb, &v);
}

void tcp_cc_set_state(struct tcb *tcb, uint8_t st)
{
	if (tcb->cc->set_state) {
		struct tcp_cc_view v;
		view_of(tcb, &v);
		tcb->cc->set_state(&v, st);
		take_back(tcb, &v);
	}
	tcb->cc_state = st;
}

void tcp_cc_event(struct tcb *tcb, enum tcp_ca_event ev)
{
	if (!tcb->cc->cwnd_event)
		return;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	tcb->cc->cwnd_event(&v, ev);
	take_back(tcb, &v);
}

void tcp_cc_pkts_acked(struct tcb *tcb, uint32_t acked, int32_t rtt_us)
{
	if (!tcb->cc->pkts_acked)
		return;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	tcb->cc->pkts_acked(&v, acked, rtt_us);
	take_back(tcb, &v);
}

void tcp_cc_in_ack_event(struct tcb *tcb, uint32_t ack, uint32_t flags)
{
	if (!tcb->cc->in_ack_event)
		return;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	tcb->cc->in_ack_event(&v, ack, flags);
	take_back(tcb, &v);
}

void tcp_cc_cong_avoid(struct tcb *tcb, uint32_t ack, uint32_t acked)
{
	if (tcb->cc->cong_control)
		return;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	tcb->cc->cong_avoid(&v, ack, acked);
	take_back(tcb, &v);
}

uint32_t tcp_cc_ssthresh(struct tcb *tcb)
{
	struct tcp_cc_view v;
	view_of(tcb, &v);
	uint32_t s = tcb->cc->ssthresh(&v);
	take_back(tcb, &v);
	return s;
}

uint32_t tcp_cc_undo_cwnd(struct tcb *tcb)
{
	if (!tcb->cc->undo_cwnd)
		return tcb->cwnd > tcb->prior_cwnd ? tcb->cwnd : tcb->prior_cwnd;
	struct tcp_cc_view v;
	view_of(tcb, &v);
	uint32_t w = tcb->cc->undo_cwnd(&v);
	take_back(tcb, &v);
	return w;
}

void tcp_cc_cong_control(struct tcb *tcb, uint32_t ack, const struct tcp_rate_sample *rs)
{
	struct tcp_cc_view v;
	view_of(tcb, &v);
	v.inflight = tcp_inflight(tcb);
	tcb->cc->cong_control(&v, ack, rs);
	take_back(tcb, &v);
}

int32_t cc_dctcp_alpha(const struct tcb *tcb)
{
	return cc_dctcp_alpha_of(tcb->cc, tcb->cc_priv);
}

bool cc_bbr_get_info(const struct tcb *tcb, struct cc_bbr_info *out)
{
	return cc_bbr_info_of(tcb->cc, tcb->cc_priv, out);
}
