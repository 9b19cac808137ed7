/* tcp_recovery: loss recovery of a connection with SACK. RFC 6675 §5 enters
 * recovery on DupThresh duplicate ACKs or when IsLost(HighACK + 1), then
 * resends holes chosen by NextSeg (tcp_sack.c) while Proportional Rate
 * Reduction (RFC 6937, PRR-SSRB) sizes what each ACK lets out; limited
 * transmit (RFC 3042) sends new data on the first two duplicate ACKs; after
 * an RTO (RFC 6675 §5.1, Linux tcp_enter_loss) every un-SACKed byte sent
 * before it is lost and is resent in slow start, SACKed bytes are not. A
 * connection without SACK keeps NewReno in tcp_input.c. */
#include "tcp_int.h"

#define DUPTHRESH 3u

static uint32_t mss_of(const struct tcb *tcb)
{
	return tcb->mss ? tcb->mss : TCP_MSS_DEFAULT;
}

/* PRR (RFC 6937 §3.1) for one ACK that delivered `delivered` bytes, sized
 * as Linux's tcp_cwnd_reduction: the proportional part spreads ssthresh
 * over the window at the reduction's start (prior_cwnd), not the flight
 * (RFC 6937's RecoverFS, larger by what was SACKed before recovery began);
 * below ssthresh each ACK sends what it delivered (or what the reduction
 * is behind), one segment more only when it moved snd_una and marked
 * nothing newly lost; an ACK that delivered nothing changes nothing. */
static void prr_ack(struct tcb *tcb, uint32_t delivered, bool una_advanced, bool newly_lost)
{
	uint32_t mss = mss_of(tcb);
	if (tcb->cc.ops->cong_control) {
		/* The CC sizes the window in recovery too (Linux's
		 * tcp_cong_control skips tcp_cwnd_reduction): cwnd alone limits. */
		tcb->rec.snd_budget = UINT32_MAX;
		return;
	}
	if (delivered == 0) {
		/* Linux leaves cwnd; the fast retransmit still goes */
		if (tcb->rec.prr_out == 0 && tcb->rec.snd_budget < mss)
			tcb->rec.snd_budget = mss;
		return;
	}
	tcb->rec.prr_delivered += delivered;
	uint64_t pipe = tcp_sb_pipe(tcb);
	uint64_t ss = (uint64_t)tcb->cc.ssthresh * mss;
	int64_t sndcnt;
	if (pipe > ss) {
		/* CEIL(prr_delivered · ssthresh / prior_cwnd) − prr_out */
		uint64_t fs = (uint64_t)(tcb->cc.prior_cwnd ? tcb->cc.prior_cwnd : 1u) * mss;
		sndcnt = (int64_t)(((uint64_t)tcb->rec.prr_delivered * ss + fs - 1) / fs) -
			 (int64_t)tcb->rec.prr_out;
	} else {
		int64_t limit = (int64_t)tcb->rec.prr_delivered - (int64_t)tcb->rec.prr_out;
		if (limit < (int64_t)delivered)
			limit = delivered;
		if (una_advanced && !newly_lost)
			limit += mss;
		sndcnt = (int64_t)(ss - pipe) < limit ? (int64_t)(ss - pipe) : limit;
	}
	if (sndcnt < 0)
		sndcnt = 0;
	/* The fast retransmit itself always leaves (Linux tcp_cwnd_reduction). */
	if (tcb->rec.prr_out == 0 && sndcnt == 0)
		sndcnt = mss;
	tcb->rec.snd_budget = (uint32_t)sndcnt;
	uint64_t cw = (pipe + (uint64_t)sndcnt + mss - 1) / mss;
	tcp_cc_set_cwnd(tcb, cw ? (uint32_t)cw : 1);
}

static void leave(struct tcb *tcb)
{
	if (tcb->rec.mode == TCP_SB_RECOVERY)
		tcp_rack_recovery_end(tcb);
	tcb->rec.frto = false;
	tcb->rec.frto_new = false;
	tcb->rec.mode = TCP_SB_OPEN;
	tcb->rec.lost_high = tcb->send.una;
	tcb->rec.high_rxt = tcb->send.una;
	tcb->rec.snd_budget = 0;
	tcb->flags &= ~TCB_F_IN_RECOVERY;
	tcp_cc_set_state(tcb, TCP_CA_OPEN);
}

/* Linux's undo_marker: the reduction that starts now may prove spurious. */
static void arm_undo(struct tcb *tcb)
{
	tcb->rec.undo = true;
	tcb->rec.undo_marker = tcb->send.una;
	tcb->rec.undo_retrans = 0;
}

/* Linux tcp_undo_cwnd_reduction: the window before the reduction comes
 * back through the CC's undo_cwnd, ssthresh too, and nothing stays marked
 * lost. */
static void undo(struct tcb *tcb)
{
	tcb->rec.undo = false;
	tcb->rec.undos++;
	tcp_cc_undo(tcb);
	if (tcb->rec.mode != TCP_SB_OPEN)
		leave(tcb);
	else if (tcb->cc.ca_state != TCP_CA_OPEN)
		tcp_cc_set_state(tcb, TCP_CA_OPEN);
	tcp_rack_unmark(tcb);
}

/* RFC 2883 §5 / Linux tcp_try_undo_dsack: every retransmission of the last
 * reduction came back as a D-SACK, so the peer had all of it and nothing
 * was lost: restore the window the reduction took (tcp_undo_cwnd_reduction
 * through the CC's undo_cwnd). */
static void dsack_undo(struct tcp *tcp, struct tcb *tcb, const struct tcp_sb_res *res)
{
	/* A marker a quarter of the sequence space old would soon compare
	 * the wrong way round: that reduction is history. */
	if (tcb->rec.undo && tcb->send.una - tcb->rec.undo_marker > (1u << 30))
		tcb->rec.undo = false;
	if (!res->dsack || !tcb->rec.undo || SEQ_LT(res->dsack_l, tcb->rec.undo_marker))
		return;
	uint32_t mss = mss_of(tcb);
	uint32_t segs = (res->dsack_r - res->dsack_l + mss - 1) / mss;
	tcb->rec.undo_retrans = tcb->rec.undo_retrans > segs ? tcb->rec.undo_retrans - segs : 0;
	if (tcb->rec.undo_retrans)
		return;
	(void)tcp;
	undo(tcb);
}

void tcp_rec_set_recover(struct tcb *tcb, uint32_t seq)
{
	tcb->rec.recover = seq;
}

void tcp_rec_established(struct tcb *tcb)
{
	tcb->rec.recover = tcb->send.iss;
	/* HighRxt and the lost edge start at the first data byte: left at 0
	 * they lie above SND.UNA for half the ISNs in sequence arithmetic, and
	 * a probe of a first flight nobody ACKed found nothing to resend. */
	tcb->rec.high_rxt = tcb->send.iss + 1;
	tcb->rec.lost_high = tcb->send.iss + 1;
}

/* Linux tcp_init_cwnd_reduction: ssthresh from the CC, and PRR counts
 * anew from the window at this point, up to RecoveryPoint = HighData. */
static void begin_reduction(struct tcb *tcb)
{
	tcp_cc_reduce(tcb);
	tcb->rec.recover = tcb->send.max;
	tcb->rec.prr_delivered = 0;
	tcb->rec.prr_out = 0;
}

static void enter_recovery(struct tcp *tcp, struct tcb *tcb)
{
	tcp->stats.fast_retrans++;
	/* Linux tcp_enter_recovery: a loss found while an ECE's reduction
	 * runs continues that reduction (its ssthresh, PRR counts and
	 * recovery point) and has nothing to undo: the ECE cannot be. */
	bool in_cwr = tcb->cc.ca_state == TCP_CA_CWR;
	if (!in_cwr)
		begin_reduction(tcb);
	tcb->flags |= TCB_F_IN_RECOVERY;
	tcp_cc_set_state(tcb, TCP_CA_RECOVERY);
	tcb->rec.mode = TCP_SB_RECOVERY;
	tcb->rec.high_rxt = tcb->send.una;
	tcb->rec.rescued = false;
	/* §5 (4.2): the first un-SACKed segment is resent however the
	 * recovery was entered: it counts as lost. With RACK only what RACK
	 * marked is (Linux tcp_recovery=1). */
	tcb->rec.lost_high = tcp_rack_on(tcb) ? tcb->send.una : tcb->send.una + 1;
	tcb->rec.rto_tsval = tcp_ts_now(tcp, tcb); /* Linux retrans_stamp */
	if (!in_cwr)
		arm_undo(tcb);
}

/* RFC 3168 §6.1.2 as Linux's tcp_enter_cwr: ssthresh from the CC once a
 * window, never undone, and cwnd brought down to it over the round by
 * the same PRR that recovery runs (tcp_cwnd_reduction), not cut at once. */
void tcp_rec_cwr_begin(struct tcb *tcb)
{
	tcb->rec.undo = false;
	begin_reduction(tcb);
	tcp_cc_set_state(tcb, TCP_CA_CWR);
}

bool tcp_rec_cwr_ack(struct tcb *tcb, uint32_t delivered, bool una_advanced)
{
	/* Linux holds CWR until something above the point is ACKed, so that
	 * the CWR flag reached the receiver; then the window is ssthresh
	 * (tcp_end_cwnd_reduction). */
	if (SEQ_GT(tcb->send.una, tcb->rec.recover)) {
		if (!tcb->cc.ops->cong_control)
			tcp_cc_set_cwnd(tcb, tcb->cc.ssthresh);
		tcp_cc_set_state(tcb, TCP_CA_OPEN);
		return false;
	}
	prr_ack(tcb, delivered, una_advanced, false);
	return true;
}

/* The RTO was spurious: undo its reduction (Linux tcp_try_undo_loss). */
static void rto_spurious(struct tcp *tcp, struct tcb *tcb)
{
	tcp->stats.frto_spurious++;
	tcb->rec.spurious_rtos++;
	undo(tcb);
}

/* An ACK after an RTO (Linux tcp_process_loss). Eifel (RFC 3522, Linux
 * tcp_packet_delayed): an ACK that moves snd_una and echoes a timestamp
 * sent before the first retransmission answers an original, so the
 * timeout was spurious. F-RTO (RFC 5682 §3.1, SACK-enhanced, Linux
 * tcp_frto=2): after the first retransmission, the first ACK that moves
 * snd_una lets new data go instead of more retransmissions (step 2b);
 * then an ACK (or SACK) of data never resent shows the timeout spurious
 * (3b), a duplicate ACK or SACK of the new data that it was not (3a).
 * true: the reduction is undone. */
static bool loss_ack(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h,
		     const struct tcp_sb_res *res, const struct tcp_rack_ack *ra, bool advanced,
		     bool dupack)
{
	bool delayed = advanced && (tcb->flags & TCB_F_TS) && h->ts && h->tsecr &&
		       SEQ_LT(h->tsecr, tcb->rec.rto_tsval);
	if (tcb->rec.undo && (delayed || (tcb->rec.frto && ra->orig_acked))) {
		rto_spurious(tcp, tcb);
		return true;
	}
	if (!tcb->rec.frto)
		return false;
	if (SEQ_GT(tcb->send.nxt, tcb->rec.recover)) {
		if (res->newly_sacked || dupack)
			tcb->rec.frto = false; /* 3a: the loss was real */
	} else if (advanced && SEQ_LT(tcb->send.una, tcb->rec.recover)) {
		tcb->rec.recover = tcb->send.nxt;
		uint32_t out = tcb->send.nxt - tcb->send.una;
		if (tcb->snd.len > out && tcb->send.wnd > out)
			tcb->rec.frto_new = true; /* 2b */
		else
			tcb->rec.frto = false;
	}
	return false;
}

void tcp_rec_sack(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h, uint32_t prior_sacked,
		  struct tcp_rec_in *in)
{
	in->prior_sacked = prior_sacked;
	/* Linux's newly_lost for PRR: RACK's marks, or the DupThresh edge */
	in->edge0 = tcp_sb_lost_edge(tcb);
	in->marked0 = tcp->stats.rack_lost;
	tcp_sb_update(tcb, h, prior_sacked, &in->res);
	tcp_rack_ack(tcp, tcb, h, &in->res, &in->ra);
}

bool tcp_rec_ack(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h, uint32_t prior_una,
		 const struct tcp_rec_in *in, bool dup_shape)
{
	const struct tcp_sb_res *res = &in->res;
	uint32_t acked = tcb->send.una - prior_una;
	uint32_t edge0 = SEQ_LT(in->edge0, tcb->send.una) ? tcb->send.una : in->edge0;
	bool newly_lost = tcp_rack_on(tcb) ? tcp->stats.rack_lost != in->marked0
					   : SEQ_GT(tcp_sb_lost_edge(tcb), edge0);
	/* what this ACK delivered: newly SACKed, or cumulatively ACKed
	 * without having been SACKed before (Linux's acked_sacked) */
	int64_t dv = (int64_t)acked + res->sacked_delta;
	uint32_t delivered = dv > 0 ? (uint32_t)dv : 0;
	tcp_tlp_ack(tcp, tcb, h, res, acked != 0, !acked && dup_shape);
	dsack_undo(tcp, tcb, res);
	if (res->reneged && tcb->rec.mode == TCP_SB_RECOVERY)
		tcb->rec.high_rxt = tcb->send.una; /* the board is gone: holes anew */
	if (SEQ_LT(tcb->rec.high_rxt, tcb->send.una))
		tcb->rec.high_rxt = tcb->send.una;
	switch (tcb->rec.mode) {
	case TCP_SB_RECOVERY:
		if (SEQ_GEQ(tcb->send.una, tcb->rec.recover)) {
			/* RFC 6937: the reduction ends at ssthresh (Linux
			 * tcp_end_cwnd_reduction). */
			tcp_cc_set_cwnd(tcb, tcb->cc.ssthresh);
			leave(tcb);
			return true;
		}
		prr_ack(tcb, delivered, acked != 0, newly_lost);
		return true;
	case TCP_SB_LOSS:
		if (loss_ack(tcp, tcb, h, res, &in->ra, acked != 0, !acked && dup_shape))
			return false;
		if (SEQ_GEQ(tcb->send.una, tcb->rec.recover))
			leave(tcb);
		return false; /* slow start from the loss window */
	default:
		break;
	}
	if (tcb->send.una == tcb->send.max)
		return false;
	/* RFC 6675 §2: a duplicate ACK carries SACK information that is new;
	 * a peer that sends no blocks at all is still heard by the RFC 5681
	 * rule, as NewReno would. A cumulative ACK starts the count anew. */
	if (acked)
		tcb->rec.dupacks = 0;
	else if (res->newly_sacked || (dup_shape && h->nsack == 0))
		tcb->rec.dupacks++;
	/* §5 (3)-(4); RFC 6582's guard: no new recovery for ACKs below the
	 * point of the previous one. */
	bool lost;
	if (tcp_rack_on(tcb))
		/* RFC 8985: RACK's marks; a peer that sends no blocks still
		 * by the count. */
		lost = tcb->rack.nlost || (tcb->rec.dupacks >= DUPTHRESH && !tcb->sb.n);
	else
		lost = SEQ_GEQ(tcb->send.una, tcb->rec.recover) &&
		       (tcb->rec.dupacks >= DUPTHRESH || tcp_sb_is_lost(tcb, tcb->send.una));
	if (tcb->cc.ca_state != TCP_CA_LOSS && lost) {
		enter_recovery(tcp, tcb);
		prr_ack(tcb, delivered, acked != 0, newly_lost);
		return true;
	}
	return false;
}

void tcp_rec_rack_lost(struct tcp *tcp, struct tcb *tcb)
{
	if (tcb->rec.mode != TCP_SB_OPEN || tcb->cc.ca_state == TCP_CA_LOSS)
		return;
	enter_recovery(tcp, tcb);
	/* Linux's RACK reorder timeout counts one segment delivered */
	prr_ack(tcb, mss_of(tcb), false, true);
}

void tcp_rec_rto(struct tcp *tcp, struct tcb *tcb, bool reduced)
{
	/* RFC 2018 §8 asks to forget SACK information on a timeout since the
	 * receiver may have reneged; Linux keeps it unless the head was
	 * SACKed. Reneging shows on ACKs (tcp_sb_update); a third timeout in
	 * a row without progress forgets the board as a last resort. */
	if (tcb->rtx.retransmits >= 3)
		tcp_sb_clear(tcb);
	/* Linux tcp_enter_loss: F-RTO, unless this is the first timeout of a
	 * fast recovery; Eifel compares with the first retransmission. */
	tcb->rec.frto =
	    !tcp->cfg.no_frto && (tcb->rec.mode != TCP_SB_RECOVERY || tcb->rtx.retransmits > 1);
	tcb->rec.frto_new = false;
	if (tcb->rec.mode == TCP_SB_OPEN)
		tcb->rec.rto_tsval = tcp_ts_now(tcp, tcb);
	/* Linux tcp_enter_loss arms the undo with the reduction alone: a
	 * timeout inside a recovery keeps that one's undo, inside an ECE's
	 * reduction has none. */
	if (reduced)
		arm_undo(tcb);
	tcb->rec.mode = TCP_SB_LOSS;
	tcb->rec.lost_high = tcb->send.max;
	tcp_tlp_end(tcp, tcb); /* Linux: an RTO ends the probe episode */
	tcp_rack_mark_all_lost(tcp, tcb);
	tcb->rec.high_rxt = tcb->send.una;
	tcb->rec.rescued = false;
	tcb->rec.snd_budget = 0;
}

uint32_t tcp_rec_lt_bytes(const struct tcb *tcb)
{
	if (tcb->rec.mode != TCP_SB_OPEN || tcb->cc.ca_state == TCP_CA_LOSS || !tcb->rec.dupacks)
		return 0;
	return (tcb->rec.dupacks < 2 ? tcb->rec.dupacks : 2u) * mss_of(tcb);
}

uint32_t tcp_rec_room(struct tcb *tcb)
{
	uint32_t mss = mss_of(tcb);
	/* RFC 6675 §5 (C): cwnd − pipe (slow start after an RTO); in
	 * recovery also what PRR gives this ACK (cwnd is pipe + that, less
	 * when a clamp holds it). */
	uint64_t cw = (uint64_t)tcb->cc.cwnd * mss;
	uint32_t pipe = tcp_sb_pipe(tcb);
	uint32_t room = cw > pipe ? (uint32_t)(cw - pipe) : 0;
	if (tcb->rec.mode == TCP_SB_RECOVERY && tcb->rec.snd_budget < room)
		room = tcb->rec.snd_budget;
	/* Whole segments: a partial segment's worth still sends one. */
	return room ? (room + mss - 1) / mss * mss : 0;
}

void tcp_rec_sent(struct tcb *tcb, uint32_t seglen, bool rtx)
{
	if (rtx && tcb->rec.undo)
		tcb->rec.undo_retrans++;
	if (tcb->rec.mode != TCP_SB_RECOVERY && tcb->cc.ca_state != TCP_CA_CWR)
		return;
	tcb->rec.prr_out += seglen;
	tcb->rec.snd_budget = tcb->rec.snd_budget > seglen ? tcb->rec.snd_budget - seglen : 0;
}

static void send_rtx(struct tcp *tcp, struct tcb *tcb, const struct tcp_sb_seg *g, bool move_hr)
{
	uint32_t end = g->seq + g->len + (g->fin ? 1u : 0u);
	tcp_send_data(tcp, tcb, g->seq, g->len, g->fin);
	if (move_hr && SEQ_GT(end, tcb->rec.high_rxt))
		tcb->rec.high_rxt = end;
}

int tcp_rec_send_lost(struct tcp *tcp, struct tcb *tcb)
{
	int sent = 0;
	struct tcp_sb_seg g;
	for (int guard = 0; guard < 1024 && tcb->rec.mode != TCP_SB_OPEN; guard++) {
		if (!tcp_rec_room(tcb) || !tcp_sb_next_lost(tcb, tcp_seg_room(tcb), &g))
			break;
		send_rtx(tcp, tcb, &g, true);
		sent++;
	}
	return sent;
}

int tcp_rec_send_more(struct tcp *tcp, struct tcb *tcb)
{
	/* With RACK only what it marked lost goes again, as in Linux: a
	 * segment resent on suspicion whose original is merely queued gets
	 * the original's SACK credited to it (RACK's only ambiguity test is
	 * an RTT below min_rtt), and RACK then takes everything sent before
	 * the resend for lost. The tail is the loss probe's (RFC 8985 §7). */
	if (tcp_rack_on(tcb))
		return 0;
	int sent = 0;
	struct tcp_sb_seg g;
	for (int guard = 0; guard < 1024 && tcb->rec.mode != TCP_SB_OPEN; guard++) {
		if (!tcp_rec_room(tcb))
			break;
		if (tcp_sb_next_unsacked(tcb, tcp_seg_room(tcb), &g)) {
			send_rtx(tcp, tcb, &g, true);
		} else if (tcb->rec.mode == TCP_SB_RECOVERY && !tcb->rec.rescued &&
			   tcb->snd.len <= tcb->send.max - tcb->send.una &&
			   tcp_sb_rescue(tcb, tcp_seg_room(tcb), &g)) {
			/* Rule 4 only when nothing is left to send: a window-
			 * limited sender would resend a segment still on its
			 * way (the tail is what the rule is for). */
			tcb->rec.rescued = true;
			send_rtx(tcp, tcb, &g, false);
		} else {
			break;
		}
		sent++;
	}
	return sent;
}

bool tcp_rec_take_frto_new(struct tcb *tcb)
{
	bool v = tcb->rec.frto_new;
	tcb->rec.frto_new = false;
	return v;
}
