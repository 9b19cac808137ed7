/* cc_newreno: RFC 5681 slow start and congestion avoidance with the RFC 6582
 * recovery driven from tcp_input (the algorithm only sizes the window), and
 * the Reno building blocks the other algorithms grow with. "reno" is the
 * kernel's name for the same algorithm. */
#include "cc.h"

bool cc_is_cwnd_limited(const struct tcp_cc_view *v)
{
	/* Linux tcp_is_cwnd_limited: a send in the window being acknowledged
	 * filled cwnd; in slow start also when at least half the window is in
	 * flight; otherwise when the window is full. */
	if (v->cwnd_limited)
		return true;
	uint32_t mss = v->mss ? v->mss : CC_MSS_DEFAULT;
	/* What was in flight when the ACK arrived (Linux keeps the flag
	 * from send time). */
	uint32_t inflight = (v->prior_inflight + mss - 1) / mss;
	if (v->cwnd < v->ssthresh)
		return inflight * 2 >= v->cwnd;
	return inflight >= v->cwnd;
}

uint32_t cc_slow_start(struct tcp_cc_view *v, uint32_t acked)
{
	/* RFC 5681 §3.1 with RFC 3465 (L = acked segments): grow by what was
	 * acked, not past ssthresh; return the rest for congestion avoidance. */
	uint32_t cwnd = v->cwnd + acked;
	if (cwnd > v->ssthresh)
		cwnd = v->ssthresh;
	acked -= cwnd - v->cwnd;
	v->cwnd = cwnd < v->cwnd_clamp ? cwnd : v->cwnd_clamp;
	return acked;
}

void cc_cong_avoid_ai(struct tcp_cc_view *v, uint32_t w, uint32_t acked)
{
	/* RFC 5681 §3.1 congestion avoidance: one segment per window acked. */
	if (v->cwnd_cnt >= w) {
		v->cwnd_cnt = 0;
		v->cwnd++;
	}
	v->cwnd_cnt += acked;
	if (v->cwnd_cnt >= w) {
		uint32_t delta = v->cwnd_cnt / w;
		v->cwnd_cnt -= delta * w;
		v->cwnd += delta;
	}
	if (v->cwnd > v->cwnd_clamp)
		v->cwnd = v->cwnd_clamp;
}

void cc_reno_cong_avoid(struct tcp_cc_view *v, uint32_t ack, uint32_t acked)
{
	(void)ack;
	if (!cc_is_cwnd_limited(v))
		return;
	if (v->cwnd < v->ssthresh) {
		acked = cc_slow_start(v, acked);
		if (!acked)
			return;
	}
	cc_cong_avoid_ai(v, v->cwnd, acked);
}

uint32_t cc_reno_ssthresh(struct tcp_cc_view *v)
{
	/* RFC 5681 (4): max(FlightSize / 2, 2 SMSS), in segments as Linux. */
	uint32_t h = v->cwnd >> 1;
	return h > 2 ? h : 2;
}

uint32_t cc_reno_undo_cwnd(struct tcp_cc_view *v)
{
	return v->cwnd > v->prior_cwnd ? v->cwnd : v->prior_cwnd;
}

const struct tcp_cc_ops cc_reno_ops = {
    .ssthresh = cc_reno_ssthresh,
    .cong_avoid = cc_reno_cong_avoid,
    .undo_cwnd = cc_reno_undo_cwnd,
    .name = "reno",
};

const struct tcp_cc_ops cc_newreno_ops = {
    .ssthresh = cc_reno_ssthresh,
    .cong_avoid = cc_reno_cong_avoid,
    .undo_cwnd = cc_reno_undo_cwnd,
    .name = "newreno",
};
