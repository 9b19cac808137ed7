/* cc_newreno: RFC 5681 slow start and congestion avoidance with the RFC 6582
 * recovery driven from tcp_input (the algorithm only sizes the window), and
 * the Reno building blocks the other algorithms grow with. "reno" is the
 * kernel's name for the same algorithm. */
#include "cc.h"

#include "../tcp.h"

bool cc_is_cwnd_limited(const struct tcb *tcb)
{
	/* Linux tcp_is_cwnd_limited: in slow start, limited if at least half
	 * the window is in flight; otherwise when the window is full. */
	uint32_t mss = tcb->mss ? tcb->mss : TCP_MSS_DEFAULT;
	/* What was in flight when the ACK arrived (Linux keeps the flag
	 * from send time). */
	uint32_t inflight = (tcb->prior_inflight + mss - 1) / mss;
	if (tcb->cwnd < tcb->ssthresh)
		return inflight * 2 >= tcb->cwnd;
	return inflight >= tcb->cwnd;
}

uint32_t cc_slow_start(struct tcb *tcb, uint32_t acked)
{
	/* RFC 5681 §3.1 with RFC 3465 (L = acked segments): grow by what was
	 * acked, not past ssthresh; return the rest for congestion avoidance. */
	uint32_t cwnd = tcb->cwnd + acked;
	if (cwnd > tcb->ssthresh)
		cwnd = tcb->ssthresh;
	acked -= cwnd - tcb->cwnd;
	tcb->cwnd = cwnd < tcb->cwnd_clamp ? cwnd : tcb->cwnd_clamp;
	return acked;
}

void cc_cong_avoid_ai(struct tcb *tcb, uint32_t w, uint32_t acked)
{
	/* RFC 5681 §3.1 congestion avoidance: one segment per window acked. */
	if (tcb->cwnd_cnt >= w) {
		tcb->cwnd_cnt = 0;
		tcb->cwnd++;
	}
	tcb->cwnd_cnt += acked;
	if (tcb->cwnd_cnt >= w) {
		uint32_t delta = tcb->cwnd_cnt / w;
		tcb->cwnd_cnt -= delta * w;
		tcb->cwnd += delta;
	}
	if (tcb->cwnd > tcb->cwnd_clamp)
		tcb->cwnd = tcb->cwnd_clamp;
}

void cc_reno_cong_avoid(struct tcb *tcb, uint32_t ack, uint32_t acked)
{
	(void)ack;
	if (!cc_is_cwnd_limited(tcb))
		return;
	if (tcb->cwnd < tcb->ssthresh) {
		acked = cc_slow_start(tcb, acked);
		if (!acked)
			return;
	}
	cc_cong_avoid_ai(tcb, tcb->cwnd, acked);
}

uint32_t cc_reno_ssthresh(struct tcb *tcb)
{
	/* RFC 5681 (4): max(FlightSize / 2, 2 SMSS), in segments as Linux. */
	uint32_t h = tcb->cwnd >> 1;
	return h > 2 ? h : 2;
}

uint32_t cc_reno_undo_cwnd(struct tcb *tcb)
{
	return tcb->cwnd > tcb->prior_cwnd ? tcb->cwnd : tcb->prior_cwnd;
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
