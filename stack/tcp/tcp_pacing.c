/* tcp_pacing: spreading a connection's segments over time instead of sending
 * a window back to back, as Linux's TCP does without the fq qdisc
 * (tcp_internal_pacing) when a socket asks for it: SO_MAX_PACING_RATE, a
 * congestion control that needs it (TCP_CC_NEEDS_PACING, Linux's BBR), or
 * tcp_config.pacing for every connection.
 *
 * The rate follows the congestion control on every ACK, as Linux's
 * tcp_update_pacing_rate: cwnd × MSS / SRTT (with the segments in flight if
 * they exceed cwnd), scaled by tcp_pacing_ss_ratio (200 %) while cwnd is
 * below half of ssthresh, so that slow start can still double per round
 * trip, and by tcp_pacing_ca_ratio (120 %) after; never above
 * max_pacing_rate. It is kept (and reported in tcp_info) whether or not the
 * connection paces.
 *
 * Departures are earliest-departure times (Linux's tcp_wstamp_ns): a
 * segment of len payload bytes moves the next one's slot len / rate later.
 * A connection whose next slot is in the future sends nothing: it arms
 * TCP_T_PACE on the timer wheel and sleeps like any other timer, and the
 * timer's tcp_output sends on. The wheel has 1 ms slots, so the timer
 * fires up to a tick after the slot; a slot may therefore lie up to one
 * tick in the past (no further: an idle connection builds no burst), and a
 * wake sends every segment whose slot has come. At rates below one
 * segment a tick that is one segment, two when a late wake meets the next
 * slot; above, about rate × 1 ms, which is the burst Linux's own pacing
 * quantum allows (tcp_tso_autosize: rate >> sk_pacing_shift 10 bytes, at
 * least tcp_min_tso_segs 2 segments) with TSO. As Linux, the first 10 data
 * segments of a connection leave unpaced (the initial window). A wake later
 * than that tick (the process was not running) is owed and caught up at up
 * to twice the rate (tcp_pace_sent). */
#include "tcp_int.h"

/* data segments sent before pacing delays any (Linux tcp_update_skb_after_send) */
#define PACE_FREE_SEGS 10u
/* The most late wakes may owe (tcp_pace_sent): catching up at twice the
 * rate, a connection sends at most this much time's worth early. */
#define PACE_DEBT_MAX_NS (8 * TCP_TICK_NS)

bool tcp_pace_on(const struct tcp *tcp, const struct tcb *tcb)
{
	/* A CC that sets its own rate from delivery-rate samples (BBR) is
	 * paced only with SACK: without, the samples see a round's
	 * deliveries land on the ACK that fills a hole (Linux counts each
	 * duplicate ACK as delivered, tcp_add_reno_sack; tcp_rate.c does not),
	 * overestimate, and paced at that rate the connection overflowed a
	 * drop-tail queue in the simulation (11.8 Mbit/s of 95.6 at 0.5 %
	 * loss, 49.6 unpaced). */
	bool cc_wants = tcb->cc.ops && (tcb->cc.ops->flags & TCP_CC_NEEDS_PACING) &&
			(!tcb->cc.ops->cong_control || (tcb->flags & TCB_F_SACK));
	return tcb->pace.req || tcp->cfg.pacing || cc_wants;
}

void tcp_pace_update(struct tcp *tcp, struct tcb *tcb)
{
	if (tcb->cc.ops && tcb->cc.ops->cong_control) {
		/* the algorithm sets its own rate (Linux's BBR); the cap holds */
		if (tcb->pace.rate > tcb->pace.max_rate)
			tcb->pace.rate = tcb->pace.max_rate;
		return;
	}
	uint64_t rate = UINT64_MAX; /* no RTT yet: no estimate to pace at */
	if (tcb->rtt.srtt_us8 && tcb->mss) {
		uint32_t segs = tcb->cc.cwnd;
		uint32_t out = (tcb->send.nxt - tcb->send.una + tcb->mss - 1u) / tcb->mss;
		if (out > segs)
			segs = out;
		uint32_t ratio = tcb->cc.cwnd < tcb->cc.ssthresh / 2 ? tcp->cfg.pacing_ss_ratio
								     : tcp->cfg.pacing_ca_ratio;
		/* bytes a second = mss · segs · ratio/100 · 10^6 / srtt_us, with
		 * srtt in eighths of µs: q · 80000 / srtt_us8, split so that the
		 * product cannot overflow (q < 2^58) and saturating. */
		uint64_t q = (uint64_t)tcb->mss * segs * ratio;
		uint64_t hi = q / tcb->rtt.srtt_us8, lo = q % tcb->rtt.srtt_us8;
		if (hi <= (UINT64_MAX - 80000u) / 80000u)
			rate = hi * 80000u + lo * 80000u / tcb->rtt.srtt_us8;
	}
	tcb->pace.rate = rate < tcb->pace.max_rate ? rate : tcb->pace.max_rate;
}

void tcp_pace_set_max(struct tcb *tcb, uint64_t rate)
{
	/* Linux sk_setsockopt: any finite cap turns pacing on for good. */
	if (rate != UINT64_MAX)
		tcb->pace.req = true;
	tcb->pace.max_rate = rate;
	if (tcb->pace.rate > rate)
		tcb->pace.rate = rate;
}

bool tcp_pace_hold(struct tcp *tcp, struct tcb *tcb)
{
	if (tcb->pace.next_ns <= tcp->now || !tcp_pace_on(tcp, tcb))
		return false;
	if (tcb->tm.at[TCP_T_PACE] != tcb->pace.next_ns)
		tcp_timer_set(tcp, tcb, TCP_T_PACE, tcb->pace.next_ns);
	tcb->pace.held = true;
	return true;
}

void tcp_pace_sent(struct tcp *tcp, struct tcb *tcb, uint32_t len)
{
	uint64_t rate = tcb->pace.rate;
	/* rate 0 (SO_MAX_PACING_RATE 0) paces nothing, as in Linux */
	if (!len || rate == UINT64_MAX || rate == 0 || tcb->cnt.data_segs_out < PACE_FREE_SEGS ||
	    !tcp_pace_on(tcp, tcb))
		return;
	uint64_t len_ns = (uint64_t)len * CLK_NS_PER_S / rate;
	uint64_t floor = tcp->now > TCP_TICK_NS ? tcp->now - TCP_TICK_NS : 0;
	if (tcb->pace.next_ns < floor) {
		/* Behind by more than the tick the slot may lag. If pacing
		 * held the connection, its timer's wake came late (the process
		 * was not running: OS jitter on a loaded host) and that time
		 * is owed; lost for good, it cut the rate to 85 % of
		 * SO_MAX_PACING_RATE against the kernel. Otherwise the
		 * connection had nothing to send (or no window): it earns no
		 * burst. */
		if (tcb->pace.held) {
			uint64_t lost = floor - tcb->pace.next_ns;
			tcb->pace.debt_ns += lost;
			if (tcb->pace.debt_ns > PACE_DEBT_MAX_NS)
				tcb->pace.debt_ns = PACE_DEBT_MAX_NS;
		} else {
			tcb->pace.debt_ns = 0;
		}
		tcb->pace.next_ns = floor;
	}
	tcb->pace.held = false;
	/* Repaid as Linux's tcp_update_skb_after_send takes OS jitter into
	 * account: a segment gives back at most half its slot, so the rate
	 * catching up is at most twice the pacing rate. */
	uint64_t repay = tcb->pace.debt_ns < len_ns / 2 ? tcb->pace.debt_ns : len_ns / 2;
	tcb->pace.debt_ns -= repay;
	len_ns -= repay;
	tcb->pace.next_ns += len_ns;
}

void tcp_pace_init(struct tcb *tcb)
{
	tcb->pace.rate = tcb->pace.max_rate = UINT64_MAX; /* Linux's ~0UL: no limit */
}

void tcp_pace_inherit(struct tcb *c, const struct tcb *l)
{
	c->pace.max_rate = c->pace.rate = l->pace.max_rate;
	c->pace.req = l->pace.req;
}

void tcp_pace_cc_rate(struct tcb *tcb, uint64_t rate)
{
	tcb->pace.rate = rate;
}
