/* tcp_tlp: the tail loss probe of RFC 8985 §7, as Linux's
 * tcp_early_retrans=3: when the ACKs of a flight stop coming, one segment
 * (new data if the peer's window allows, else the last one sent) goes out
 * after about two round trips, well before the RTO, so that a lost tail
 * gets an ACK with SACK blocks and RACK (tcp_rack.c) repairs it. */
#include "tcp_int.h"

static bool can_send_data(uint8_t st)
{
	return st == TCP_ESTABLISHED || st == TCP_CLOSE_WAIT || st == TCP_FIN_WAIT_1 ||
	       st == TCP_CLOSING || st == TCP_LAST_ACK;
}

/* §7.2 (Linux tcp_schedule_loss_probe): open or CWR state only, one probe
 * per tail episode. */
void tcp_tlp_arm(struct tcp *tcp, struct tcb *tcb)
{
	if (!(tcb->flags & TCB_F_SACK) || tcp->cfg.no_tlp || tcb->tlp.out ||
	    tcb->rec.mode != TCP_SB_OPEN || tcb->send.una == tcb->send.max ||
	    !can_send_data(tcb->state) || (tcb->flags & TCB_F_PERSIST) ||
	    (tcb->cc.ca_state != TCP_CA_OPEN && tcb->cc.ca_state != TCP_CA_CWR)) {
		tcp_timer_clear(tcp, tcb, TCP_T_TLP);
		return;
	}
	/* PTO = 2·SRTT, and the RTO floor more when one segment is in flight
	 * (a delayed ACK's worth: the peer may be waiting for a second), else
	 * TCP_TIMEOUT_MIN_US (on a LAN 2·SRTT is less than an odd segment's
	 * delayed ACK); 1 s without an RTT sample. In jiffies rounded up, as
	 * Linux ≥ 6.7's tcp_schedule_loss_probe (tcp_rto_min_us: the floor in
	 * whole jiffies). */
	uint64_t pto_us = TCP_RTO_INIT_US;
	if (tcb->rtt.srtt_us8) {
		pto_us = (uint64_t)(tcb->rtt.srtt_us8 >> 2);
		uint32_t mss = tcb->mss ? tcb->mss : TCP_MSS_DEFAULT;
		pto_us += tcb->send.max - tcb->send.una <= mss
			      ? tcp_jiffies_to_us(tcp, tcp_us_to_jiffies(tcp, tcb->opt.rto_min_us))
			      : TCP_TIMEOUT_MIN_US;
	}
	uint64_t when = tcp_jiffy_deadline(tcp, tcp->now, tcp_us_to_jiffies(tcp, pto_us));
	/* No later than the RTO: then the probe goes in its place. */
	if (tcb->tm.at[TCP_T_RTX] && when > tcb->tm.at[TCP_T_RTX])
		when = tcb->tm.at[TCP_T_RTX];
	tcp_timer_set(tcp, tcb, TCP_T_TLP, when);
}

/* §7.3: the probe. */
void tcp_tlp_timeout(struct tcp *tcp, struct tcb *tcb)
{
	if (!(tcb->flags & TCB_F_SACK) || tcp->cfg.no_tlp || tcb->tlp.out ||
	    tcb->rec.mode != TCP_SB_OPEN || tcb->send.una == tcb->send.max ||
	    !can_send_data(tcb->state))
		return;
	/* New data still waits for its output turn (tcp_outq.c): the flight
	 * is not a tail the peer went silent on but one this process sent late
	 * (descheduled between turns). The turn sends it and re-arms the PTO;
	 * a probe now would be spent on data cwnd sends anyway. */
	if (tcb->out_q)
		return;
	uint32_t inflight = tcb->send.nxt - tcb->send.una;
	uint32_t avail = tcb->snd.len > inflight ? tcb->snd.len - inflight : 0;
	uint32_t wnd = tcb->send.wnd > inflight ? tcb->send.wnd - inflight : 0;
	tcp_so_current_mss(tcp, tcb);
	uint32_t room = tcp_seg_room(tcb);
	struct tcp_sb_seg g;
	bool rtx = !(avail && wnd);
	if (!rtx) {
		/* New data, whatever cwnd says (Linux tcp_send_loss_probe). */
		g.seq = tcb->send.nxt;
		g.len = avail < room ? avail : room;
		if (g.len > wnd)
			g.len = wnd;
		g.fin = (tcb->flags & TCB_F_FIN_QUEUED) && g.len == avail &&
			tcb->send.nxt + g.len == tcb->fin_seq;
		if (g.fin)
			tcb->flags |= TCB_F_FIN_SENT;
	} else if (!tcp_sb_last_unsacked(tcb, room, &g)) {
		return;
	}
	/* Marked before it leaves: a probe of new data starts at tlp_high
	 * (what lets an observer tell it from data cwnd sent); after, as
	 * RFC 8985's TLPRxtOut, the highest sequence number sent. */
	tcb->tlp.out = true;
	tcb->tlp.rtx = rtx;
	tcb->tlp.high = tcb->send.nxt;
	tcp_send_data(tcp, tcb, g.seq, g.len, g.fin);
	tcb->tlp.high = tcb->send.max;
	tcb->tlp.probes++;
	tcp->stats.tlp_probes++;
	tcp_rearm_rtx(tcp, tcb); /* the RTO counts from the probe */
	tcp_timer_clear(tcp, tcb, TCP_T_TLP);
}

/* §7.4 (Linux tcp_process_tlp_ack): did the probe repair a loss? A
 * retransmitted probe whose original arrived too comes back as a D-SACK;
 * an ACK beyond the probe without one says the probe carried the only copy
 * that arrived, and the loss gets its congestion response (a reduction, as
 * Linux's CWR). */
void tcp_tlp_ack(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h,
		 const struct tcp_sb_res *res, bool advanced, bool dup)
{
	struct tcp_tlp *r = &tcb->tlp;
	if (!r->out || SEQ_LT(h->ack, r->high))
		return;
	if (!r->rtx || (res->dsack && res->dsack_r == r->high)) {
		r->out = false;
	} else if (SEQ_GT(h->ack, r->high)) {
		r->out = false;
		r->recovered++;
		tcp->stats.tlp_recovered++;
		tcp_cc_reduce(tcb);
		if (tcb->cc.cwnd > tcb->cc.ssthresh)
			tcp_cc_set_cwnd(tcb, tcb->cc.ssthresh);
		/* the cut is whole at once: an ECE's reduction running is
		 * over too (Linux ends it with tcp_try_keep_open) */
		if (tcb->cc.ca_state == TCP_CA_CWR)
			tcp_cc_set_state(tcb, TCP_CA_OPEN);
	} else if (!advanced && !res->newly_sacked && dup) {
		/* a pure duplicate: both copies arrived, nothing was lost */
		r->out = false;
	}
}

void tcp_tlp_end(struct tcp *tcp, struct tcb *tcb)
{
	tcb->tlp.out = false;
	tcp_timer_clear(tcp, tcb, TCP_T_TLP);
}
