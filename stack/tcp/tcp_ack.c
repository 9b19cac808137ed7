/* tcp_ack: the ACK field of an acceptable segment (RFC 9293 §3.10.7.4
 * fifth) in the order Linux's tcp_ack takes it: the send window (SND.WL1/
 * WL2), the CC's ACK event and the ECE response (RFC 3168 §6.1.2), what the
 * ACK acknowledges (RTT, snd_una, the send ring), then loss recovery: SACK
 * connections in tcp_recovery.c, NewReno (RFC 6582) without SACK here, and
 * last a cong_control CC's look at the rate sample. */
#include "tcp_input.h"

static void ecn_ece(struct tcp *tcp, struct tcb *tcb)
{
	(void)tcp;
	tcb->ecn_seen |= 8u; /* SKOPS_ECN_ECE_SEEN */
	/* RFC 3168 §6.1.2: reduce once per window of data. */
	if (tcb->cc.ca_state != TCP_CA_OPEN && tcb->cc.ca_state != TCP_CA_DISORDER)
		return;
	tcp_rec_cwr_begin(tcb);
	tcb->flags |= TCB_F_CWR_PENDING;
}

static uint32_t segs_of(const struct tcb *tcb, uint32_t bytes)
{
	uint32_t mss = tcb->mss ? tcb->mss : TCP_MSS_DEFAULT;
	uint32_t n = (bytes + mss - 1) / mss;
	return n ? n : 1;
}

/* The CC's RTT sample when the send records give none (Linux's fallback in
 * tcp_ack_update_rtt): the timestamp echo (RFC 7323 §4), at the 1 ms
 * resolution of our TSval clock. -1: none. */
static int32_t ack_rtt_us(const struct tcp *tcp, const struct tcb *tcb, const struct tcp_repr *h)
{
	if (!(tcb->flags & TCB_F_TS) || !h->ts || !h->tsecr)
		return -1;
	uint32_t ms = tcp_ts_now(tcp, tcb) - h->tsecr;
	if (ms >= 60000)
		return -1;
	return (int32_t)(ms ? ms * 1000 : 1000); /* a tick at least, as Linux */
}

/* Linux's ca_rtt_us for an ACK of new data (tcp_clean_rtx_queue,
 * tcp_ack_update_rtt): the send records' sample, but the timestamp echo
 * when no segment sent once was cumulatively acknowledged; rtt_us (Karn's
 * timed segment, else the echo) when neither gives one. fed: the records
 * have seen this ACK (on a connection without SACK they see it only for a
 * cong_control CC, after pkts_acked: there they say nothing yet). */
static int32_t ack_ca_rtt_us(const struct tcp *tcp, const struct tcb *tcb, const struct tcp_repr *h,
			     int32_t rtt_us, bool fed)
{
	bool cum;
	int32_t us = tcp_rate_ca_rtt_us(tcp, tcb, &cum);
	int32_t ts = cum || !fed ? -1 : ack_rtt_us(tcp, tcb, h);
	return ts >= 0 ? ts : us >= 0 ? us : rtt_us;
}

/* RFC 5961 §5.2: SND.UNA − MAX.SND.WND <= SEG.ACK <= SND.NXT (snd_max: after
 * a go-back-N rewind snd_nxt may lie left of what was sent). MAX.SND.WND is
 * bounded by the bytes ever acknowledged, as Linux does, so that early in a
 * connection an ACK for something before our first byte is refused too. */
bool tcp_ack_acceptable(const struct tcb *tcb, uint32_t ack)
{
	if (SEQ_GT(ack, tcb->send.max))
		return false;
	uint64_t maxw = tcb->send.max_wnd ? tcb->send.max_wnd : 65535u;
	if (tcb->cnt.bytes_acked < maxw)
		maxw = tcb->cnt.bytes_acked;
	return !SEQ_LT(ack, tcb->send.una - (uint32_t)maxw);
}

/* The send window (RFC 9293 §3.10.7.4 fifth: SND.WL1, SND.WL2). true: the
 * window the peer offers changed. */
static bool ack_window(struct tcp *tcp, struct tcb *tcb, const struct seg_ctx *s, uint32_t wnd)
{
	uint32_t ack = s->h->ack;
	if (!(SEQ_LT(tcb->send.wl1, s->seq) ||
	      (tcb->send.wl1 == s->seq && SEQ_LEQ(tcb->send.wl2, ack))))
		return false;
	bool changed = wnd != tcb->send.wnd;
	bool opened = tcb->send.wnd == 0 && wnd > 0;
	tcp_snd_window_update(tcb, wnd, s->seq, ack);
	if (opened && (tcb->flags & TCB_F_PERSIST)) {
		tcb->flags &= ~TCB_F_PERSIST;
		tcp_timer_clear(tcp, tcb, TCP_T_RTX);
		tcp_rtx_unbackoff(tcb);
	}
	return changed;
}

/* What an ACK of new data changes before recovery looks at it: the send
 * ring, the RTT (timestamps, or Karn's timed segment), snd_una. Returns
 * the RTT sample for the CC when the send records give none, -1: none. */
static int32_t ack_take(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h, bool fin_acked)
{
	uint32_t ack = h->ack;
	uint32_t acked = ack - tcb->send.una;
	tcp_rec_ack_began(tcb, tcb->send.nxt - tcb->send.una);
	uint32_t data = fin_acked ? tcb->fin_seq - tcb->send.una : acked;
	if (data > tcb->snd.len)
		data = tcb->snd.len;
	ring_drop(&tcb->snd, data);
	if (tcb->snd.len == 0)
		ring_release(tcp, &tcb->snd, false);
	tcp_count_acked(tcb, data);
	int32_t rtt_us = ack_rtt_us(tcp, tcb, h);
	if ((tcb->flags & TCB_F_RTT_TIMING) && SEQ_GT(ack, tcb->rtt.timed_seq)) {
		tcb->flags &= ~TCB_F_RTT_TIMING;
		uint32_t r = (uint32_t)((tcp->now - tcb->rtt.timed_ns) / CLK_NS_PER_US);
		tcp_rtt_sample(tcp, tcb, r);
		rtt_us = (int32_t)r;
	}
	tcp_snd_acked(tcb, ack);
	tcp_rtx_acked(tcb);
	return rtt_us;
}

/* The window for an ACK of new data that recovery left alone: while an
 * ECE's reduction (CWR) lasts PRR sizes it, never the CC (Linux's
 * tcp_cong_control); after it, and after an RTO's recovery point, the CC
 * grows it. delivered: bytes ACKed or SACKed that were not before. */
static void ack_cong_avoid(struct tcb *tcb, uint32_t ack, uint32_t delivered)
{
	if (tcb->cc.ca_state == TCP_CA_CWR && tcp_rec_cwr_ack(tcb, delivered, true))
		return;
	if (tcb->cc.ca_state != TCP_CA_OPEN && SEQ_GEQ(ack, tcb->rec.recover))
		tcp_cc_set_state(tcb, TCP_CA_OPEN);
	tcp_cc_cong_avoid(tcb, ack, delivered ? segs_of(tcb, delivered) : 0);
}

/* The window after an ACK of new data: SACK recovery (tcp_recovery.c),
 * NewReno's full or partial acknowledgment (RFC 6582 §3.2 (3), (5)), or
 * the CC's growth. */
static void ack_grow(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h, uint32_t prior_una,
		     const struct tcp_rec_in *in, uint32_t segs)
{
	uint32_t ack = h->ack;
	if (tcb->flags & TCB_F_SACK) {
		/* RFC 6675 with PRR (tcp_recovery.c) */
		if (!tcp_rec_ack(tcp, tcb, h, prior_una, in, false)) {
			/* Linux's acked_sacked: what this ACK delivered, so that
			 * bytes SACKed earlier (when they grew nothing: no data
			 * was ACKed) do not grow the window when the hole below
			 * them fills */
			int64_t d = (int64_t)(ack - prior_una) + (int64_t)tcb->sb.sacked -
				    (int64_t)in->prior_sacked;
			ack_cong_avoid(tcb, ack, d > 0 ? (uint32_t)d : 0);
		}
	} else if (tcb->flags & TCB_F_IN_RECOVERY) {
		if (SEQ_GEQ(ack, tcb->rec.recover)) {
			/* RFC 6582 §3.2 (3): full acknowledgment, deflate. */
			tcb->flags &= ~TCB_F_IN_RECOVERY;
			tcp_cc_set_cwnd(tcb, tcb->cc.ssthresh);
			tcp_cc_set_state(tcb, TCP_CA_OPEN);
		} else {
			/* (5) partial: resend the next hole, deflate by what
			 * was acked, add one segment back. */
			tcp_cc_set_cwnd(tcb, tcb->cc.cwnd > segs ? tcb->cc.cwnd - segs + 1 : 1);
			tcp_retransmit_head(tcp, tcb);
		}
	} else {
		ack_cong_avoid(tcb, ack, ack - prior_una);
	}
	tcp_cc_ack_done(tcb);
}

/* Our FIN is acknowledged (RFC 9293 §3.10.7.4 fifth, the states' extra
 * steps). false: tcb was freed. */
static bool ack_fin(struct tcp *tcp, struct tcb *tcb)
{
	switch (tcb->state) {
	case TCP_FIN_WAIT_1:
		tcp_set_state(tcp, tcb, TCP_FIN_WAIT_2);
		if (tcb->flags & TCB_F_ORPHAN)
			tcp_timer_set_us(tcp, tcb, TCP_T_KEEP, TCP_FIN_TIMEOUT_MS * CLK_US_PER_MS);
		break;
	case TCP_CLOSING:
		tcp_enter_time_wait(tcp, tcb);
		break;
	case TCP_LAST_ACK:
		tcp_done(tcp, tcb, 0);
		return false;
	default:
		break;
	}
	return true;
}

/* An ACK that acknowledges new data. false: tcb was freed. *ca_rtt: the
 * CC's RTT sample. */
static bool ack_new_data(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h,
			 uint32_t prior_sacked, int32_t *ca_rtt)
{
	uint32_t prior_una = tcb->send.una;
	uint32_t acked = h->ack - prior_una;
	bool fin_acked = (tcb->flags & TCB_F_FIN_SENT) && SEQ_GT(h->ack, tcb->fin_seq);
	int32_t rtt_us = ack_take(tcp, tcb, h, fin_acked);
	uint32_t segs = segs_of(tcb, acked);
	struct tcp_rec_in in = {.prior_sacked = prior_sacked};
	if (tcb->flags & TCB_F_SACK)
		tcp_rec_sack(tcp, tcb, h, prior_sacked, &in);
	/* µs since the newest segment delivered left, unless it was resent:
	 * HyStart's delay test reads it, and an echo of 1 ms ticks, or the
	 * oldest segment's time, reads a round late */
	*ca_rtt = ack_ca_rtt_us(tcp, tcb, h, rtt_us, (tcb->flags & TCB_F_SACK) != 0);
	tcp_cc_pkts_acked(tcb, segs, *ca_rtt);
	ack_grow(tcp, tcb, h, prior_una, &in, segs);
	tcp_sndbuf_expand(tcb);
	tcp_rec_dupacks_reset(tcb);
	tcp_rearm_rtx(tcp, tcb);
	tcp_mark_event(tcp, tcb);
	return !fin_acked || ack_fin(tcp, tcb);
}

/* RFC 5681 §2 duplicate ACK on a connection without SACK: NewReno's fast
 * retransmit and window inflation (RFC 6582 §3.2 (2), (4)). */
static void ack_dup_newreno(struct tcp *tcp, struct tcb *tcb, uint32_t ack)
{
	uint8_t dupacks = tcp_rec_dupack(tcb);
	if (tcb->flags & TCB_F_IN_RECOVERY) {
		tcp_cc_set_cwnd(tcb, tcb->cc.cwnd + 1); /* RFC 6582 §3.2 (4): inflate */
	} else if (dupacks == 3 && tcb->cc.ca_state != TCP_CA_LOSS &&
		   SEQ_GT(ack, tcb->rec.recover - 1)) {
		/* RFC 6582 §3.2 (2): fast retransmit, enter recovery; in an
		 * ECE's reduction with its ssthresh and recovery point
		 * (Linux tcp_enter_recovery). */
		tcp->stats.fast_retrans++;
		if (tcb->cc.ca_state != TCP_CA_CWR) {
			tcp_cc_reduce(tcb);
			tcp_rec_set_recover(tcb, tcb->send.max);
		}
		tcb->flags |= TCB_F_IN_RECOVERY;
		tcp_cc_set_state(tcb, TCP_CA_RECOVERY);
		tcp_cc_set_cwnd(tcb, tcb->cc.ssthresh + 3);
		tcp_retransmit_head(tcp, tcb);
	}
}

/* Linux's cong_control: the CC alone sizes the window from this ACK's
 * rate sample; what recovery wrote to cwnd meanwhile is put back first.
 * ca_rtt: the ACK's RTT sample as pkts_acked had it; acked: it moved
 * snd_una. */
static void ack_cong_control(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h,
			     uint32_t cwnd_before, int32_t ca_rtt, bool acked)
{
	if (!(tcb->flags & TCB_F_SACK)) {
		/* the rate records see the cumulative ACK alone, only now:
		 * the sample is theirs from here */
		struct tcp_sb_res none = {0};
		struct tcp_rack_ack ra;
		tcp_rack_ack(tcp, tcb, h, &none, &ra);
		if (acked)
			ca_rtt = ack_ca_rtt_us(tcp, tcb, h, ca_rtt, true);
	}
	struct tcp_rate_sample rs;
	tcp_rate_gen(tcp, tcb, &rs, ca_rtt);
	tcp_cc_cong_control(tcb, h->ack, &rs, cwnd_before);
}

bool tcp_ack_input(struct tcp *tcp, struct tcb *tcb, const struct seg_ctx *s)
{
	const struct tcp_repr *h = s->h;
	uint32_t ack = h->ack;
	uint32_t wnd = (uint32_t)h->window << tcb->snd_wscale;
	/* Linux's FLAG_WIN_UPDATE (tcp_may_update_window), for the CC. */
	bool win_update = SEQ_GT(ack, tcb->send.una) || SEQ_LT(tcb->send.wl1, s->seq) ||
			  (tcb->send.wl1 == s->seq && (wnd > tcb->send.wnd || wnd == 0));
	bool wnd_changed = ack_window(tcp, tcb, s, wnd);
	uint32_t cwnd_before = tcb->cc.cwnd;
	tcp_rate_ack_begin(tcb);
	bool ece = (tcb->flags & TCB_F_ECN) && (h->flags & TCP_ECE);
	/* Linux tcp_in_ack_event: before the reduction an ECE may cause. Linux
	 * takes the handshake's ACK before the CC's init, so it never sees it. */
	if (SEQ_GEQ(ack, tcb->send.una) && !s->handshake)
		tcp_cc_in_ack_event(
		    tcb, ack, (win_update ? CC_ACK_WIN_UPDATE : 0u) | (ece ? CC_ACK_ECE : 0u));
	if (ece)
		ecn_ece(tcp, tcb);
	uint32_t prior_una = tcb->send.una, prior_sacked = tcb->sb.sacked;
	bool sack = (tcb->flags & TCB_F_SACK) != 0;
	int32_t ca_rtt = -1;
	if (SEQ_GT(ack, tcb->send.una)) {
		if (!ack_new_data(tcp, tcb, h, prior_sacked, &ca_rtt))
			return false;
	} else if (sack) {
		/* SACK blocks count on old ACKs too (Linux tcp_ack). */
		bool dup_shape = ack == tcb->send.una && s->len == 0 &&
				 !(s->flags & (TCP_SYN | TCP_FIN)) && !wnd_changed;
		struct tcp_rec_in in;
		tcp_rec_sack(tcp, tcb, h, prior_sacked, &in);
		/* Linux's tcp_clean_rtx_queue calls pkts_acked for an ACK
		 * that moved nothing too, with the newly SACKed segments' RTT */
		ca_rtt = tcp_rate_ca_rtt_us(tcp, tcb, NULL);
		if (ack == tcb->send.una && tcb->send.una != tcb->send.max && !s->handshake)
			tcp_cc_pkts_acked(tcb, 0, ca_rtt);
		/* in an ECE's reduction what it SACKed counts for PRR */
		if (!tcp_rec_ack(tcp, tcb, h, prior_una, &in, dup_shape) &&
		    tcb->cc.ca_state == TCP_CA_CWR && in.res.sacked_delta > 0)
			tcp_rec_cwr_ack(tcb, (uint32_t)in.res.sacked_delta, false);
	} else if (ack == tcb->send.una && s->len == 0 && !(s->flags & (TCP_SYN | TCP_FIN)) &&
		   !wnd_changed && tcb->send.max != tcb->send.una) {
		ack_dup_newreno(tcp, tcb, ack);
	}
	if (tcb->cc.ops->cong_control && SEQ_GEQ(ack, prior_una) && !s->handshake)
		ack_cong_control(tcp, tcb, h, cwnd_before, ca_rtt, SEQ_GT(ack, prior_una));
	tcp_pace_update(tcp, tcb); /* Linux tcp_cong_control, every ACK */
	return true;
}
