/* tcp_timer: the per-stack timer wheel (1 ms slots, one entry per tcb at the
 * earliest of its deadlines) and what happens when a deadline passes: RACK's
 * reordering timer (RFC 8985 §6.3, tcp_rack.c), the tail loss probe (§7,
 * tcp_tlp.c), RFC 6298
 * retransmission with Karn's rule and backoff, SYN/SYN-ACK retransmission at
 * the TIMEOUT_INIT RTO (linear for syn_linear_timeouts retries, as Linux ≥ 6.x
 * tcp_retransmit_timer, then doubling), persist (RFC 9293 §3.8.6.1), delayed
 * ACK (RFC 1122 §4.2.3.2), a paced connection's next departure
 * (tcp_pacing.c), keepalive (RFC 1122 §4.2.3.6), FIN_WAIT_2 and
 * TIME_WAIT (RFC 9293 §3.10.8). */
#include <errno.h>
#include <string.h>

#include "tcp_int.h"

static void wheel_unlink(struct tcp *tcp, struct tcb *tcb)
{
	if (!tcb->tm.pprev)
		return;
	*tcb->tm.pprev = tcb->tm.next;
	if (tcb->tm.next)
		tcb->tm.next->tm.pprev = tcb->tm.pprev;
	tcb->tm.next = NULL;
	tcb->tm.pprev = NULL;
	tcp->timers_armed--;
}

static void wheel_link(struct tcp *tcp, struct tcb *tcb)
{
	uint64_t when = UINT64_MAX;
	for (int i = 0; i < TCP_T_N; i++)
		if (tcb->tm.at[i] && tcb->tm.at[i] < when)
			when = tcb->tm.at[i];
	if (tcb->tm.pprev && when == tcb->tm.when_ns)
		return;
	wheel_unlink(tcp, tcb);
	tcb->tm.when_ns = when;
	if (when == UINT64_MAX)
		return;
	uint64_t tick = (when + TCP_TICK_NS - 1) / TCP_TICK_NS;
	if (tick <= tcp->wheel_tick)
		tick = tcp->wheel_tick + 1; /* already due: the next slot visited */
	struct tcb **slot = &tcp->wheel[tick % TCP_WHEEL_SLOTS];
	tcb->tm.next = *slot;
	if (*slot)
		(*slot)->tm.pprev = &tcb->tm.next;
	*slot = tcb;
	tcb->tm.pprev = slot;
	tcp->timers_armed++;
}

void tcp_timer_set(struct tcp *tcp, struct tcb *tcb, enum tcp_timer which, uint64_t when)
{
	tcb->tm.at[which] = when ? when : 1;
	wheel_link(tcp, tcb);
}

/* Linux's usecs_to_jiffies: rounded up, so that a timeout is never short. */
uint64_t tcp_us_to_jiffies(const struct tcp *tcp, uint64_t us)
{
	return (us * tcp->cfg.hz + CLK_US_PER_S - 1) / CLK_US_PER_S;
}

/* Linux's jiffies_to_usecs: truncated (exact at HZ 100, 250 and 1000). */
uint64_t tcp_jiffies_to_us(const struct tcp *tcp, uint64_t j)
{
	return j * CLK_US_PER_S / tcp->cfg.hz;
}

/* A timer_list armed at now for j jiffies: Linux sets expires = jiffies + j
 * and the timer runs at the tick that starts jiffy expires + 1 (its wheel
 * rounds up so that nothing fires early: calc_index). now lies inside a
 * jiffy except on a boundary, so that tick is the first jiffy boundary at or
 * after now + j jiffies; on a boundary (simulations' round times) it is
 * now + j jiffies exactly, not one later. Boundaries are k / hz s of the
 * stack clock, as cubic's jiffies (cc_cubic.c), rounded up to the ns. */
uint64_t tcp_jiffy_deadline(const struct tcp *tcp, uint64_t now, uint64_t j)
{
	uint64_t hz = tcp->cfg.hz;
	uint64_t part = now % CLK_NS_PER_S * hz;
	uint64_t k = now / CLK_NS_PER_S * hz + part / CLK_NS_PER_S + j;
	if (part % CLK_NS_PER_S)
		k++;
	return k / hz * CLK_NS_PER_S + (k % hz * CLK_NS_PER_S + hz - 1) / hz;
}

void tcp_timer_set_j(struct tcp *tcp, struct tcb *tcb, enum tcp_timer which, uint64_t j)
{
	tcp_timer_set(tcp, tcb, which, tcp_jiffy_deadline(tcp, tcp->now, j));
}

void tcp_timer_set_us(struct tcp *tcp, struct tcb *tcb, enum tcp_timer which, uint64_t us)
{
	tcp_timer_set_j(tcp, tcb, which, tcp_us_to_jiffies(tcp, us));
}

void tcp_timer_clear(struct tcp *tcp, struct tcb *tcb, enum tcp_timer which)
{
	if (!tcb->tm.at[which])
		return;
	tcb->tm.at[which] = 0;
	wheel_link(tcp, tcb);
}

void tcp_timers_clear_all(struct tcp *tcp, struct tcb *tcb)
{
	memset(tcb->tm.at, 0, sizeof(tcb->tm.at));
	wheel_unlink(tcp, tcb);
}

uint64_t tcp_next_deadline(struct tcp *tcp)
{
	if (tcp->outq)
		return tcp->now; /* output turns are due (tcp_output_pending) */
	if (!tcp->timers_armed)
		return UINT64_MAX;
	/* Walk one revolution from the current tick; an entry in a slot may
	 * belong to a later revolution, so keep the minimum seen. */
	uint64_t best = UINT64_MAX;
	for (uint32_t i = 1; i <= TCP_WHEEL_SLOTS; i++) {
		uint64_t tick = tcp->wheel_tick + i;
		for (struct tcb *t = tcp->wheel[tick % TCP_WHEEL_SLOTS]; t; t = t->tm.next)
			if (t->tm.when_ns < best)
				best = t->tm.when_ns;
		if (best <= tick * TCP_TICK_NS)
			break;
	}
	if (best == UINT64_MAX)
		return best;
	/* Slots are whole ticks: a deadline inside one is served at its end. */
	return (best + TCP_TICK_NS - 1) / TCP_TICK_NS * TCP_TICK_NS;
}

void tcp_rtt_time(struct tcp *tcp, struct tcb *tcb, uint32_t seq)
{
	tcb->rtt.timed_seq = seq;
	tcb->rtt.timed_ns = tcp->now;
}

void tcp_rtx_acked(struct tcb *tcb)
{
	tcb->rtx.retransmits = 0;
	tcb->rtx.backoff = 0;
	tcb->rtx.first_ns = 0;
}

void tcp_rtx_established(struct tcb *tcb)
{
	tcb->rtx.retransmits = 0;
	tcb->rtx.backoff = 0;
}

void tcp_rtx_unbackoff(struct tcb *tcb)
{
	tcb->rtx.backoff = 0;
}

void tcp_rto_init(struct tcb *tcb)
{
	tcb->rtt.rto_us = TCP_RTO_INIT_US;
}

void tcp_rtt_sample(struct tcp *tcp, struct tcb *tcb, uint32_t rtt_us)
{
	if (rtt_us == 0)
		rtt_us = 1;
	/* RFC 6298 §2.2/2.3, in Linux's fixed point (srtt << 3, rttvar << 2). */
	if (tcb->rtt.srtt_us8 == 0) {
		tcb->rtt.srtt_us8 = rtt_us << 3;
		tcb->rtt.rttvar_us4 = rtt_us << 1;
	} else {
		int32_t err = (int32_t)rtt_us - (int32_t)(tcb->rtt.srtt_us8 >> 3);
		uint32_t aerr = (uint32_t)(err < 0 ? -err : err);
		tcb->rtt.rttvar_us4 = tcb->rtt.rttvar_us4 - (tcb->rtt.rttvar_us4 >> 2) + aerr;
		tcb->rtt.srtt_us8 = (uint32_t)((int32_t)tcb->rtt.srtt_us8 + err);
	}
	if (tcb->rtt.min_us == 0 || rtt_us < tcb->rtt.min_us)
		tcb->rtt.min_us = rtt_us;
	/* RTO = SRTT + max(G, 4·RTTVAR) with Linux's floor: rto_min replaces G
	 * (tcp_set_rto), since 1 s (RFC 6298 (2.4)) is far above LAN RTTs. */
	/* Linux keeps the RTO in jiffies (__tcp_set_rto: usecs_to_jiffies of
	 * SRTT + RTTVAR) and its floor too (tcp_rto_min_us of the jiffies
	 * TCP_BPF_RTO_MIN was rounded up to): rto_us is that many jiffies. */
	uint64_t var = tcb->rtt.rttvar_us4;
	uint64_t floor = tcp_jiffies_to_us(tcp, tcp_us_to_jiffies(tcp, tcb->opt.rto_min_us));
	if (var < floor)
		var = floor;
	uint64_t rto = tcp_jiffies_to_us(
	    tcp, tcp_us_to_jiffies(tcp, (uint64_t)(tcb->rtt.srtt_us8 >> 3) + var));
	tcb->rtt.rto_us = rto > TCP_RTO_MAX_US ? TCP_RTO_MAX_US : (uint32_t)rto;
	tcb->rtx.backoff = 0;
	tcp_so_rtt(tcp, tcb);
}

/* The backed-off RTO in jiffies, doubled as Linux doubles icsk_rto
 * (inet_csk_rto_backoff), at most TCP_RTO_MAX. */
static uint64_t rto_backed_off_j(const struct tcp *tcp, const struct tcb *tcb)
{
	uint64_t j = tcp_us_to_jiffies(tcp, tcb->rtt.rto_us)
		     << (tcb->rtx.backoff > 16 ? 16 : tcb->rtx.backoff);
	uint64_t max = tcp_us_to_jiffies(tcp, TCP_RTO_MAX_US);
	return j > max ? max : j;
}

static uint64_t rto_backed_off(const struct tcp *tcp, const struct tcb *tcb)
{
	return tcp_jiffies_to_us(tcp, rto_backed_off_j(tcp, tcb));
}

/* Gap before the k-th SYN retransmission (k ≥ 1): the first k ≤ linear
 * gaps are the initial RTO, then it doubles (Linux tcp_retransmit_timer,
 * tcp_syn_linear_timeouts; the measured 42, 44×4, 84, 164 ms at 40 ms). */
uint32_t tcp_syn_gap_us(const struct tcp *tcp, const struct tcb *tcb, uint32_t k)
{
	uint32_t lin = tcb->state == TCP_SYN_SENT ? tcp->cfg.syn_linear_timeouts : 0;
	uint64_t j = tcp_us_to_jiffies(tcp, tcb->syn_rto_us); /* doubled in jiffies, as Linux */
	if (k > lin + 1)
		j <<= (k - lin - 1) > 20 ? 20 : (k - lin - 1);
	uint64_t gap = tcp_jiffies_to_us(tcp, j);
	return gap > TCP_RTO_MAX_US ? TCP_RTO_MAX_US : (uint32_t)gap;
}

/* Arms (or stops) the retransmission timer for what is outstanding. */
void tcp_rearm_rtx(struct tcp *tcp, struct tcb *tcb)
{
	if (tcb->send.una == tcb->send.max) {
		tcp_timer_clear(tcp, tcb, TCP_T_RTX);
		tcp_timer_clear(tcp, tcb, TCP_T_REO);
		tcp_timer_clear(tcp, tcb, TCP_T_TLP);
		tcb->flags &= ~TCB_F_PERSIST;
		return;
	}
	tcb->flags &= ~TCB_F_PERSIST;
	tcp_timer_set_j(tcp, tcb, TCP_T_RTX, rto_backed_off_j(tcp, tcb));
	tcp_tlp_arm(tcp, tcb);
}

static void syn_timeout(struct tcp *tcp, struct tcb *tcb)
{
	uint32_t limit =
	    tcb->state == TCP_SYN_SENT ? tcb->opt.syn_retries : tcp->cfg.synack_retries;
	bool expired = tcb->rtx.retransmits >= limit;
	/* Linux tcp_write_timeout: RTO_CB first, with the count so far and the
	 * gap that just expired, also when it gives up. */
	tcp_so_rto(tcp, tcb, tcp_syn_gap_us(tcp, tcb, tcb->rtx.retransmits + 1), expired);
	if (expired) {
		tcp_done(tcp, tcb, ETIMEDOUT);
		return;
	}
	tcp_rto_rehash(tcp, tcb); /* SO_TXREHASH, as Linux tcp_write_timeout */
	tcb->rtx.retransmits++;
	tcp_count_syn_retrans(tcb);
	tcp->stats.retrans++;
	tcb->flags &= ~TCB_F_RTT_TIMING; /* Karn: no sample from a retransmitted SYN */
	tcp_send_syn(tcp, tcb);
	tcp_timer_set_us(tcp, tcb, TCP_T_RTX, tcp_syn_gap_us(tcp, tcb, tcb->rtx.retransmits + 1));
	/* A full socket's SYN goes through Linux's tcp_retransmit_skb too
	 * (a request's SYN-ACK does not: tcp_so_retrans skips it). */
	tcp_so_retrans(tcp, tcb, tcb->send.iss, 1, 0);
}

/* Linux tcp_enter_loss: a new ssthresh only if none was taken within this
 * window: from Open, once the ACKs passed the last reduction's recovery
 * point, or in Loss after the ACKs made progress since the last timeout
 * (retransmits is this timeout's count: 1 after a reset). A timeout in a
 * recovery or an ECE's reduction keeps the ssthresh that one took. */
static bool rto_reduces(const struct tcb *tcb)
{
	uint8_t st = tcb->cc.ca_state;
	return st == TCP_CA_OPEN || st == TCP_CA_DISORDER ||
	       !SEQ_GT(tcb->rec.recover, tcb->send.una) ||
	       (st == TCP_CA_LOSS && tcb->rtx.retransmits == 1);
}

static void rtx_timeout(struct tcp *tcp, struct tcb *tcb)
{
	if (tcb->state == TCP_SYN_SENT || tcb->state == TCP_SYN_RECEIVED) {
		syn_timeout(tcp, tcb);
		return;
	}
	if (tcb->flags & TCB_F_PERSIST) {
		/* RFC 9293 §3.8.6.1: probe the zero window, backing off. */
		if (tcb->send.wnd == 0 && tcb->snd.len > tcb->send.nxt - tcb->send.una) {
			tcp_send_probe(tcp, tcb);
			if (tcb->rtx.backoff < 16)
				tcb->rtx.backoff++;
			tcp_timer_set_j(tcp, tcb, TCP_T_RTX, rto_backed_off_j(tcp, tcb));
		} else {
			tcb->flags &= ~TCB_F_PERSIST;
			tcp_output(tcp, tcb);
		}
		return;
	}
	if (tcb->send.una == tcb->send.max)
		return;
	/* Linux tcp_write_timeout: give up after tcp_retries2 (15) backoffs or
	 * TCP_USER_TIMEOUT; RTO_CB runs first, before anything changes. */
	bool expired =
	    tcb->rtx.retransmits >= 15 ||
	    (tcb->opt.user_timeout_ms && tcb->rtx.first_ns &&
	     tcp->now - tcb->rtx.first_ns >= (uint64_t)tcb->opt.user_timeout_ms * CLK_NS_PER_MS);
	tcp_so_rto(tcp, tcb, (uint32_t)rto_backed_off(tcp, tcb), expired);
	if (expired) {
		tcp_send_rst(tcp, tcb);
		tcp_done(tcp, tcb, ETIMEDOUT);
		return;
	}
	tcp_rto_rehash(tcp, tcb);
	if (tcb->rtx.retransmits == 0)
		tcb->rtx.first_ns = tcp->now;
	tcb->rtx.retransmits++;
	tcp->stats.rto++;
	bool reduce = rto_reduces(tcb);
	tcp_cc_rto(tcb, reduce);
	tcp_rec_dupacks_reset(tcb);
	tcb->flags &= ~(TCB_F_RTT_TIMING | TCB_F_IN_RECOVERY);
	tcp_rec_set_recover(tcb, tcb->send.max);
	/* With SACK only what the peer has not SACKed is sent again
	 * (tcp_recovery.c); without, go back N: everything beyond snd_una
	 * is sent again as cwnd allows. */
	if (tcb->flags & TCB_F_SACK)
		tcp_rec_rto(tcp, tcb, reduce);
	else
		tcp_snd_rewind(tcb);
	if (tcp_thin_linear(tcb))
		tcb->rtx.backoff = 0; /* TCP_THIN_LINEAR_TIMEOUTS */
	else if (tcb->rtx.backoff < 16)
		tcb->rtx.backoff++;
	tcp_timer_clear(tcp, tcb, TCP_T_RTX);
	tcp_output(tcp, tcb);
	if (!tcb->tm.at[TCP_T_RTX] && tcb->send.una != tcb->send.max)
		tcp_timer_set_j(tcp, tcb, TCP_T_RTX, rto_backed_off_j(tcp, tcb));
}

static void keep_timeout(struct tcp *tcp, struct tcb *tcb)
{
	switch (tcb->state) {
	case TCP_TIME_WAIT:
	case TCP_FIN_WAIT_2: /* orphaned: tcp_fin_timeout */
		tcp_done(tcp, tcb, 0);
		return;
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
		break;
	default:
		return;
	}
	if (!(tcb->flags & TCB_F_KEEPALIVE))
		return;
	if (tcb->keep_probes >= tcb->opt.keep_cnt) {
		tcp_send_rst(tcp, tcb);
		tcp_done(tcp, tcb, ETIMEDOUT);
		return;
	}
	tcb->keep_probes++;
	tcp_send_probe(tcp, tcb);
	tcp_timer_set_us(tcp, tcb, TCP_T_KEEP, (uint64_t)tcb->opt.keep_intvl_s * CLK_US_PER_S);
}

static void fire(struct tcp *tcp, struct tcb *tcb)
{
	uint64_t now = tcp->now;
	if (tcb->tm.at[TCP_T_DELACK] && tcb->tm.at[TCP_T_DELACK] <= now) {
		tcb->tm.at[TCP_T_DELACK] = 0;
		if (tcb->flags & TCB_F_DELACK)
			tcp_send_ack(tcp, tcb);
	}
	if (tcb->state == TCP_CLOSED)
		return;
	if (tcb->tm.at[TCP_T_REO] && tcb->tm.at[TCP_T_REO] <= now) {
		tcb->tm.at[TCP_T_REO] = 0;
		tcp_rack_timeout(tcp, tcb);
		if (tcb->state == TCP_CLOSED)
			return;
	}
	/* A probe due with the RTO goes in its place (it re-arms the RTO):
	 * Linux's PTO replaces the RTO timer. */
	if (tcb->tm.at[TCP_T_TLP] && tcb->tm.at[TCP_T_TLP] <= now) {
		tcb->tm.at[TCP_T_TLP] = 0;
		tcp_tlp_timeout(tcp, tcb);
		if (tcb->state == TCP_CLOSED)
			return;
	}
	if (tcb->tm.at[TCP_T_RTX] && tcb->tm.at[TCP_T_RTX] <= now) {
		tcb->tm.at[TCP_T_RTX] = 0;
		rtx_timeout(tcp, tcb);
	}
	if (tcb->state == TCP_CLOSED)
		return;
	if (tcb->tm.at[TCP_T_PACE] && tcb->tm.at[TCP_T_PACE] <= now) {
		tcb->tm.at[TCP_T_PACE] = 0; /* the paced connection's next slot */
		tcp_output(tcp, tcb);
		if (tcb->state == TCP_CLOSED)
			return;
	}
	tcp_check_tcb(tcp, tcb);
	if (tcb->tm.at[TCP_T_KEEP] && tcb->tm.at[TCP_T_KEEP] <= now) {
		tcb->tm.at[TCP_T_KEEP] = 0;
		keep_timeout(tcp, tcb);
	}
}

int tcp_timers(struct tcp *tcp, uint64_t now)
{
	int fired = 0;
	tcp->now = now;
	uint64_t target = now / TCP_TICK_NS;
	if (target <= tcp->wheel_tick)
		return 0;
	tcp_enter(tcp);
	uint64_t steps = target - tcp->wheel_tick;
	if (steps > TCP_WHEEL_SLOTS)
		steps = TCP_WHEEL_SLOTS; /* one revolution visits every slot */
	for (uint64_t s = 1; s <= steps; s++) {
		uint64_t tick = target - steps + s;
		struct tcb **slot = &tcp->wheel[tick % TCP_WHEEL_SLOTS];
		/* Detach the slot: handlers may re-arm into it. Entries due now
		 * are relinked at tick + 1 at the earliest (wheel_link). */
		tcp->wheel_tick = tick;
		struct tcb *list = *slot;
		*slot = NULL;
		if (list)
			list->tm.pprev = &list;
		while (list) {
			struct tcb *t = list;
			list = t->tm.next;
			if (list)
				list->tm.pprev = &list;
			t->tm.next = NULL;
			t->tm.pprev = NULL;
			tcp->timers_armed--;
			if (t->tm.when_ns <= now) {
				fire(tcp, t);
				fired++;
			}
			if (t->tcp) /* not freed by its handler */
				wheel_link(tcp, t);
		}
	}
	tcp->wheel_tick = target;
	tcp_leave(tcp);
	return fired;
}
