/* tcp_output: building segments. The send queue (a ring from snd_una),
 * effective MSS (RFC 9293 §3.7.1, RFC 6691), window advertisement with
 * scaling (RFC 7323 §2) and receiver SWS avoidance (RFC 9293 §3.8.6.2.2),
 * Nagle (RFC 896 / RFC 9293 §3.7.4) unless TCP_NODELAY, cwnd (RFC 5681; in
 * SACK recovery what tcp_recovery.c allows, holes first), ECN
 * marks (RFC 3168 §6.1), SACK blocks for out-of-order data (RFC 2018 §4),
 * resets (RFC 9293 §3.10.7.1). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "tcp_int.h"

uint32_t tcp_rcv_space(const struct tcb *tcb)
{
	return tcb->rcvbuf > tcb->rcv.len ? tcb->rcvbuf - tcb->rcv.len : 0;
}

uint32_t tcp_pick_wscale(const struct tcp *tcp, const struct tcb *tcb)
{
	if (tcp->cfg.no_wscale)
		return 0;
	/* Linux tcp_select_initial_window: scale for the largest buffer the
	 * socket could grow to, max(tcp_rmem[2], rmem_max), locked or not, so
	 * that autotuning can open the window later (tcp_rcvbuf.c). */
	uint32_t space = tcp->cfg.tcp_rmem_max;
	if (tcb->rcvbuf > space)
		space = tcb->rcvbuf;
	if (tcp->cfg.rmem_max > space)
		space = tcp->cfg.rmem_max;
	uint32_t ws = 0;
	while (space > 65535u && ws < TCP_MAX_WSCALE) {
		space >>= 1;
		ws++;
	}
	return ws;
}

uint16_t tcp_adv_window(struct tcp *tcp, struct tcb *tcb)
{
	(void)tcp;
	uint32_t want = tcp_rcv_space(tcb);
	if (want > tcb->recv.ssthresh)
		want = tcb->recv.ssthresh;
	if (want > tcp_rcvbuf_wnd_max(tcb))
		want = tcp_rcvbuf_wnd_max(tcb);
	if (tcb->opt.window_clamp && want > tcb->opt.window_clamp)
		want = tcb->opt.window_clamp;
	uint32_t old = SEQ_GT(tcb->recv.adv, tcb->recv.nxt) ? tcb->recv.adv - tcb->recv.nxt : 0;
	/* Receiver SWS avoidance: move the right edge only by a useful amount
	 * (min(buffer/2, MSS)); and never shrink it (RFC 9293 §3.8.6.2.2). */
	uint32_t step = tcb->rcvbuf / 2 < tcb->rcv_mss ? tcb->rcvbuf / 2 : tcb->rcv_mss;
	if (want < old || (want - old < step && want < tcp_rcv_space(tcb) && old))
		want = old;
	uint32_t ws = (tcb->flags & TCB_F_WS) ? tcb->rcv_wscale : 0;
	uint32_t field = want >> ws;
	if ((field << ws) < old)
		field++;
	if (field > 65535u)
		field = 65535u;
	tcp_rcv_advertised(tcb, field << ws);
	return (uint16_t)field;
}

void tcp_update_mss(struct tcp *tcp, struct tcb *tcb, uint32_t mtu)
{
	if (mtu)
		tcb->pmtu = mtu;
	uint32_t hdrs = tcp_hdrs_len(tcb->t.family);
	uint32_t mss = tcb->pmtu > hdrs + 8 ? tcb->pmtu - hdrs : TCP_MSS_DEFAULT;
	if (tcb->peer_mss && mss > tcb->peer_mss)
		mss = tcb->peer_mss;
	if (tcb->opt.user_mss && mss > tcb->opt.user_mss)
		mss = tcb->opt.user_mss;
	/* Linux tcp_min_snd_mss: a peer cannot make us send tiny segments;
	 * the floor applies before the timestamp option is taken off. */
	if (mss < tcp->cfg.min_snd_mss)
		mss = tcp->cfg.min_snd_mss;
	if (tcb->flags & TCB_F_TS)
		mss -= 12; /* Linux mss_cache: payload after the timestamp option */
	tcb->mss = (uint16_t)mss;
}

static unsigned sack_blocks(struct tcb *tcb, struct tcp_repr *r)
{
	if (!(tcb->flags & TCB_F_SACK) ||
	    (tcb->ooo.n == 0 && !tcb->recv.dsack && !tcb->recv.ooo_fin))
		return 0;
	unsigned n = 0;
	if (tcb->recv.dsack) {
		/* RFC 2883 §4: a duplicate first, reported once. */
		r->sack[n].l = tcb->recv.dsack_l;
		r->sack[n].r = tcb->recv.dsack_r;
		n++;
		tcp_rcv_dsack_sent(tcb);
	}
	/* SACK blocks take 8 bytes each; with timestamps 3 fit (RFC 2018 §3). */
	uint32_t max = (tcb->flags & TCB_F_TS) ? 3u : TCP_SACK_MAX;
	if (n < max) {
		struct tcp_seq_range b[TCP_SACK_MAX];
		uint32_t nb = tcp_ooo_blocks(tcb, b, max - n);
		for (uint32_t i = 0; i < nb; i++) {
			r->sack[n].l = b[i].l;
			r->sack[n].r = b[i].r;
			n++;
		}
	}
	if ((tcb->flags & TCB_F_TS) && n > 3)
		n = 3;
	r->nsack = (uint8_t)n;
	return n;
}

/* Fills what every segment of an established-side tcb carries and hands it
 * to the owner. */
static int xmit(struct tcp *tcp, struct tcb *tcb, struct tcp_repr *r, const struct tcp_iov *d,
		bool new_data)
{
	r->sport = tcb->t.lport;
	r->dport = tcb->t.rport;
	if (!(r->flags & TCP_SYN)) {
		r->wscale = -1;
		if (r->flags & TCP_ACK)
			r->window = tcp_adv_window(tcp, tcb);
		if (tcb->flags & TCB_F_TS) {
			r->ts = true;
			r->tsval = tcp_ts_now(tcp, tcb);
			r->tsecr = tcb->recv.ts_recent;
		}
	}
	uint8_t tos = tcb->opt.tos & 0xfc;
	if (tcb->flags & TCB_F_ECN) {
		if (tcb->flags & TCB_F_ECE_PENDING && !(r->flags & TCP_SYN))
			r->flags |= TCP_ECE;
		uint32_t len = d ? d->n[0] + d->n[1] : 0;
		/* RFC 3168 §6.1.5: ECT only on new data, not on retransmissions
		 * or pure ACKs (Linux tcp_ecn_send). */
		if (len && new_data) {
			tos |= 2; /* ECT(0) */
			if (tcb->flags & TCB_F_CWR_PENDING) {
				r->flags |= TCP_CWR;
				tcb->flags &= ~TCB_F_CWR_PENDING;
			}
		}
	}
	if (r->flags & TCP_ACK) {
		tcp_rcv_acked_all(tcb, r->ack);
		tcb->flags &= ~(TCB_F_DELACK | TCB_F_ACK_NOW);
		if (tcb->tm.at[TCP_T_DELACK])
			tcp_timer_clear(tcp, tcb, TCP_T_DELACK);
	}
	if (!tcp_dev_ok(tcp, tcb))
		return -ENETUNREACH; /* bound to a port that is not ours */
	tcp_so_hdr_opt(tcp, tcb, r, d ? d->n[0] + d->n[1] : 0);
	r->ip6_flow = tcp_flowlabel(tcb);
	tcp_count_seg_out(tcb);
	tcp->stats.out_segs++;
	static const struct tcp_iov none;
	int rc = tcp->cfg.xmit(tcp->cfg.arg, &tcb->t, tos, r, d ? d : &none);
	if (rc < 0)
		tcp->stats.out_err++;
	else if (d && d->n[0] + d->n[1])
		tcp_so_tstamp_xmit(tcb, r->seq, d->n[0] + d->n[1]);
	/* Larger than the path MTU: another connection's ICMP lowered it
	 * (Linux's tcp_current_mss notices a changed route MTU). The segment
	 * is lost; what follows, retransmissions too, fits. */
	uint32_t mtu;
	if (rc == -EMSGSIZE && tcp->cfg.route &&
	    !tcp->cfg.route(tcp->cfg.arg, tcb->t.family, &tcb->t.raddr, NULL, &mtu) &&
	    mtu < tcb->pmtu)
		tcp_update_mss(tcp, tcb, mtu);
	return rc;
}

static void base_repr(struct tcb *tcb, struct tcp_repr *r, uint32_t seq, uint8_t flags)
{
	memset(r, 0, sizeof(*r));
	r->wscale = -1;
	r->seq = seq;
	r->flags = flags;
	if (flags & TCP_ACK)
		r->ack = tcb->recv.nxt;
}

void tcp_send_ack(struct tcp *tcp, struct tcb *tcb)
{
	/* snd_max, not snd_nxt: after a go-back-N rewind snd_nxt may lie left
	 * of what the peer already has and the ACK would be unacceptable
	 * there (Linux tcp_acceptable_seq). */
	struct tcp_repr r;
	base_repr(tcb, &r, tcb->send.max, TCP_ACK);
	sack_blocks(tcb, &r);
	xmit(tcp, tcb, &r, NULL, false);
}

void tcp_send_probe(struct tcp *tcp, struct tcb *tcb)
{
	/* Linux tcp_xmit_probe_skb: an old sequence number elicits an ACK
	 * carrying the current window without consuming sequence space. */
	struct tcp_repr r;
	base_repr(tcb, &r, tcb->send.una - 1, TCP_ACK);
	xmit(tcp, tcb, &r, NULL, false);
}

void tcp_send_rst(struct tcp *tcp, struct tcb *tcb)
{
	struct tcp_repr r;
	if (tcb->state == TCP_SYN_SENT)
		base_repr(tcb, &r, tcb->send.nxt, TCP_RST);
	else
		base_repr(tcb, &r, tcb->send.max, TCP_RST | TCP_ACK);
	tcp->stats.out_rst++;
	xmit(tcp, tcb, &r, NULL, false);
}

void tcp_send_syn(struct tcp *tcp, struct tcb *tcb)
{
	struct tcp_repr r;
	bool synack = tcb->state == TCP_SYN_RECEIVED;
	base_repr(tcb, &r, tcb->send.iss, synack ? TCP_SYN | TCP_ACK : TCP_SYN);
	r.sport = tcb->t.lport;
	r.dport = tcb->t.rport;
	r.mss = tcb->rcv_mss;
	r.window = (uint16_t)(tcb->syn_wnd > 65535u ? 65535u : tcb->syn_wnd); /* RFC 7323 §2.2 */
	if (!synack || (tcb->flags & TCB_F_WS))
		r.wscale = tcp->cfg.no_wscale ? -1 : (int8_t)tcb->rcv_wscale;
	r.sack_perm = synack ? (tcb->flags & TCB_F_SACK) != 0 : !tcp->cfg.no_sack;
	if (synack ? (tcb->flags & TCB_F_TS) != 0 : !tcp->cfg.no_timestamps) {
		r.ts = true;
		r.tsval = tcp_ts_now(tcp, tcb);
		r.tsecr = synack ? tcb->recv.ts_recent : 0;
	}
	/* RFC 3168 §6.1.1: ECE|CWR in the SYN asks, ECE in the SYN-ACK agrees. */
	if (!synack && (tcb->flags & TCB_F_ECN_WANT))
		r.flags |= TCP_ECE | TCP_CWR;
	if (synack && (tcb->flags & TCB_F_ECN))
		r.flags |= TCP_ECE;
	/* Linux marks the SYN ECT(0) when BPF or the CC wants ECN
	 * (tcp_ecn_send_syn → INET_ECN_xmit); a SYN-ACK when NEEDS_ECN, asked
	 * again per SYN-ACK, says so. */
	uint8_t tos = tcb->opt.tos & 0xfc;
	if (synack ? tcp_so_synack_ect(tcp, tcb) : (tcb->flags & TCB_F_SYN_ECT) != 0)
		tos |= 2; /* ECT(0) */
	if (tcb->syn_tx && tcb->syn_tx <= TCP_MAX_SYN_GAPS) {
		uint64_t ms = (tcp->now - tcb->syn_last_ns) / CLK_NS_PER_MS;
		tcb->syn_gaps_ms[tcb->syn_tx - 1] = (uint16_t)(ms < 65535 ? ms : 65535);
	}
	tcb->syn_tx++;
	tcb->syn_last_ns = tcp->now;
	if (tcb->send.max == tcb->send.iss)
		tcb->send.max = tcb->send.iss + 1;
	tcb->send.nxt = tcb->send.iss + 1;
	tcp_count_seg_out(tcb);
	tcp->stats.out_segs++;
	static const struct tcp_iov none;
	if (r.flags & TCP_ACK)
		tcp_rcv_ack_sent(tcb, r.ack);
	tcp_so_hdr_opt(tcp, tcb, &r, 0);
	r.ip6_flow = tcp_flowlabel(tcb);
	if (!tcp_dev_ok(tcp, tcb) || tcp->cfg.xmit(tcp->cfg.arg, &tcb->t, tos, &r, &none) < 0)
		tcp->stats.out_err++;
}

void tcp_reply_rst(struct tcp *tcp, const struct tcp_tuple *t, const struct tcp_repr *seg,
		   uint32_t len)
{
	if (seg->flags & TCP_RST)
		return;
	struct tcp_repr r;
	memset(&r, 0, sizeof(r));
	r.wscale = -1;
	r.sport = t->lport;
	r.dport = t->rport;
	if (seg->flags & TCP_ACK) {
		r.seq = seg->ack;
		r.flags = TCP_RST;
	} else {
		r.seq = 0;
		r.ack = seg->seq + len + !!(seg->flags & TCP_SYN) + !!(seg->flags & TCP_FIN);
		r.flags = TCP_RST | TCP_ACK;
	}
	static const struct tcp_iov none;
	tcp->stats.out_rst++;
	tcp->stats.out_segs++;
	if (tcp->cfg.xmit(tcp->cfg.arg, t, 0, &r, &none) < 0)
		tcp->stats.out_err++;
}

/* One data (and/or FIN) segment at seq of len bytes from the send ring. */
static int send_segment(struct tcp *tcp, struct tcb *tcb, uint32_t seq, uint32_t len, bool fin)
{
	TCP_INV(SEQ_GEQ(seq, tcb->send.una) && SEQ_LEQ(seq + len, tcb->send.una + tcb->snd.len));
	struct tcp_repr r;
	base_repr(tcb, &r, seq, TCP_ACK);
	if (fin)
		r.flags |= TCP_FIN;
	struct tcp_iov iov;
	ring_iov(&tcb->snd, seq - tcb->send.una, len, &iov);
	if (len && seq + len == tcb->send.una + tcb->snd.len)
		r.flags |= TCP_PSH;
	bool rtx = SEQ_LT(seq, tcb->send.max);
	/* Linux tcp_event_data_sent: data after an idle period (cubic shifts
	 * its epoch over it). */
	if (!rtx && len && tcb->send.una == tcb->send.max)
		tcp_cc_event(tcb, CA_EVENT_TX_START);
	sack_blocks(tcb, &r);
	int rc = xmit(tcp, tcb, &r, &iov, !rtx);
	tcp_rack_sent(tcp, tcb, seq, seq + len + (fin ? 1u : 0u));
	if (len) {
		/* after TX_START, which measures the idle time up to here */
		tcb->send.lsnd_ns = tcp->now;
		tcp_count_data_seg_out(tcb);
		tcb->flags |= TCB_F_DATA_SENT;
		tcp_pace_sent(tcp, tcb, len);
	}
	tcp_rec_sent(tcb, len + (fin ? 1u : 0u), rtx);
	tcp_count_sent(tcb, len, rtx);
	if (rtx)
		tcp->stats.retrans++;
	uint32_t end = seq + len + (fin ? 1 : 0);
	if (SEQ_GT(end, tcb->send.nxt))
		tcb->send.nxt = end;
	if (SEQ_GT(end, tcb->send.max))
		tcb->send.max = end;
	/* Karn (RFC 6298 §3): time one new segment per round trip (in µs,
	 * finer than the 1 ms timestamps); a retransmission stops the timing. */
	if (rtx)
		tcb->flags &= ~TCB_F_RTT_TIMING;
	else if (!(tcb->flags & TCB_F_RTT_TIMING) && len) {
		tcb->flags |= TCB_F_RTT_TIMING;
		tcp_rtt_time(tcp, tcb, seq);
	}
	if (!tcb->tm.at[TCP_T_RTX] || (tcb->flags & TCB_F_PERSIST))
		tcp_rearm_rtx(tcp, tcb);
	else if (!rtx)
		tcp_tlp_arm(tcp, tcb); /* RFC 8985 §7.2: the PTO restarts on new data */
	tcp_check_tcb(tcp, tcb);
	/* Linux __tcp_retransmit_skb: after the segment left and was counted. */
	if (rtx)
		tcp_so_retrans(tcp, tcb, seq, 1, rc < 0 ? rc : 0);
	return rc;
}

int tcp_send_data(struct tcp *tcp, struct tcb *tcb, uint32_t seq, uint32_t len, bool fin)
{
	return send_segment(tcp, tcb, seq, len, fin);
}

/* Payload that fits one segment: SACK blocks ride on data segments too, and
 * so do the programs' header options (tcp_so_current_mss). */
uint32_t tcp_seg_room(const struct tcb *tcb)
{
	uint32_t opts = tcb->so_opt_mss;
	if ((tcb->flags & TCB_F_SACK) && (tcb->ooo.n || tcb->recv.dsack)) {
		uint32_t max = (tcb->flags & TCB_F_TS) ? 3u : 4u;
		uint32_t nb =
		    tcb->ooo.n + tcb->recv.dsack < max ? tcb->ooo.n + tcb->recv.dsack : max;
		opts += 4 + 8 * nb;
	}
	/* RFC 6691 §2: options come off the MSS; tcp_min_snd_mss (48 at
	 * least) leaves payload under 40 option bytes. 0 before an MSS is
	 * known (a connection closed before it was established). */
	return tcb->mss > opts ? tcb->mss - opts : 0;
}

void tcp_retransmit_head(struct tcp *tcp, struct tcb *tcb)
{
	tcp_so_current_mss(tcp, tcb);
	uint32_t out = tcb->send.max - tcb->send.una;
	uint32_t data = tcb->snd.len;
	uint32_t len = data < out ? data : out;
	if (len > tcp_seg_room(tcb))
		len = tcp_seg_room(tcb);
	bool fin = (tcb->flags & TCB_F_FIN_SENT) && tcb->send.una + len == tcb->fin_seq &&
		   SEQ_GT(tcb->send.max, tcb->fin_seq);
	if (len == 0 && !fin)
		return;
	/* send_segment moves snd_nxt only forward: the data after this
	 * segment that went out before stays sent. */
	send_segment(tcp, tcb, tcb->send.una, len, fin);
}

static bool can_send_data(uint8_t st)
{
	return st == TCP_ESTABLISHED || st == TCP_CLOSE_WAIT || st == TCP_FIN_WAIT_1 ||
	       st == TCP_CLOSING || st == TCP_LAST_ACK;
}

/* Linux's tcp_cwnd_validate after a send: whether the window was the limit,
 * kept until the window then in flight is acknowledged (or the window is
 * the limit again), so that the ACKs of a window the sender filled grow
 * cwnd although the flight shrinks between sends (an output turn
 * deferred, a sender that ran dry), as tcp_is_cwnd_limited. */
static void cwnd_validate(struct tcb *tcb, bool sent)
{
	bool limited = (uint64_t)tcp_inflight(tcb) >= (uint64_t)tcb->cc.cwnd * tcb->mss;
	if (!sent && !limited)
		return;
	if (SEQ_GEQ(tcb->send.una, tcb->cwnd_usage_seq) || limited) {
		tcb->cwnd_limited = limited;
		tcb->cwnd_usage_seq = tcb->send.nxt;
	}
}

/* What cwnd lets out outside recovery: the window less what is in the network,
 * which for a SACK connection with SACKed or lost data is pipe (RFC 6675),
 * as Linux's tcp_cwnd_test counts tcp_packets_in_flight in every state.
 * Counting the bytes past snd_una instead, a connection whose recovery
 * ended with new holes below SACKed data sent nothing until the next
 * recovery began, and began it at the flight it had drained to (BBR sets
 * cwnd to that flight). Without SACK, two segments more on the first
 * duplicate ACKs (RFC 3042); a rewound snd_nxt (go-back-N after a path MTU
 * drop) has only what lies below it in flight. */
static uint32_t cwnd_room(struct tcb *tcb, uint32_t inflight)
{
	uint64_t cw = (uint64_t)tcb->cc.cwnd * tcb->mss;
	uint32_t flight = inflight;
	if ((tcb->flags & TCB_F_SACK) && (tcb->sb.n || tcb->rack.nlost)) {
		uint32_t pipe = tcp_sb_pipe(tcb);
		if (pipe < flight)
			flight = pipe;
	} else {
		cw += tcp_rec_lt_bytes(tcb);
	}
	uint64_t room = cw > flight ? cw - flight : 0;
	return room < UINT32_MAX ? (uint32_t)room : UINT32_MAX;
}

int tcp_output(struct tcp *tcp, struct tcb *tcb)
{
	int sent = 0;
	if (!can_send_data(tcb->state))
		goto ack;
	/* Linux tcp_push_pending_frames / tcp_xmit_retransmit_queue ask
	 * tcp_current_mss when there is something to send. */
	if (tcb->snd.len || (tcb->flags & TCB_F_FIN_QUEUED))
		tcp_so_current_mss(tcp, tcb);
	/* In SACK recovery the holes deemed lost go first (RFC 6675 NextSeg
	 * rule 1), then new data (rule 2), then the rest (rules 3 and 4). */
	bool rec = tcb->rec.mode != TCP_SB_OPEN;
	/* F-RTO step 2b (RFC 5682 §3.1): new data, not the holes, this time. */
	bool frto_new = tcp_rec_take_frto_new(tcb);
	/* A paced connection waits for its slot (tcp_pacing.c), holes too. */
	if (rec && !frto_new && !tcp_pace_hold(tcp, tcb))
		sent += tcp_rec_send_lost(tcp, tcb);
	int new_sent = 0;
	uint32_t cap = tcp_out_cap(tcp, tcb); /* a turn's worth (tcp_outq.c) */
	bool pending =
	    tcb->snd.len > tcb->send.nxt - tcb->send.una || (tcb->flags & TCB_F_FIN_QUEUED);
	for (int guard = 0; guard < 4096; guard++) {
		uint32_t off = tcb->send.nxt - tcb->send.una;
		uint32_t avail = tcb->snd.len > off ? tcb->snd.len - off : 0;
		bool fin_q = (tcb->flags & TCB_F_FIN_QUEUED) != 0;
		bool fin_due = fin_q && SEQ_LEQ(tcb->send.nxt, tcb->fin_seq);
		if (!avail && !fin_due)
			break;
		uint32_t inflight = tcb->send.nxt - tcb->send.una;
		uint32_t rw = tcb->send.wnd > inflight ? tcb->send.wnd - inflight : 0;
		/* the receive window as always, the congestion window as
		 * recovery counts it (pipe, PRR) in recovery */
		uint32_t cr = rec ? tcp_rec_room(tcb) : cwnd_room(tcb, inflight);
		uint32_t usable = rw < cr ? rw : cr;
		uint32_t room = tcp_seg_room(tcb);
		uint32_t len = avail < room ? avail : room;
		if (len > usable)
			len = usable;
		if (avail && len == 0) {
			/* RFC 9293 §3.8.6.1: a zero window with nothing in flight
			 * needs the persist timer to learn when it opens. */
			if (tcb->send.wnd == 0 && tcb->send.max == tcb->send.una &&
			    !tcb->tm.at[TCP_T_RTX]) {
				tcb->flags |= TCB_F_PERSIST;
				tcp_timer_set_us(tcp, tcb, TCP_T_RTX, tcb->rtt.rto_us);
			}
			break;
		}
		bool last = len == avail;
		if (len && len < room && !last) {
			/* window-limited runt: wait unless nothing is in flight */
			if (inflight)
				break;
		}
		/* Nagle, in Minshall's form as Linux (tcp_minshall_check): hold
		 * a small final segment only while a small segment sent
		 * earlier is unacknowledged, so the tail of a write of full
		 * segments leaves at once. */
		bool sml_out = tcb->sml_sent && SEQ_GT(tcb->snd_sml, tcb->send.una) &&
			       SEQ_LEQ(tcb->snd_sml, tcb->send.nxt);
		if (len && len < room && last && inflight && sml_out &&
		    !(tcb->flags & TCB_F_NODELAY) && !fin_q)
			break;
		bool fin = fin_due && last && tcb->send.nxt + len == tcb->fin_seq;
		if (!len && !fin)
			break;
		if ((uint32_t)new_sent >= cap) {
			tcp_out_queue(tcp, tcb); /* more to send: the next turn */
			break;
		}
		if (tcp_pace_hold(tcp, tcb))
			break;
		if (fin)
			tcb->flags |= TCB_F_FIN_SENT;
		if (len && len < room && SEQ_GEQ(tcb->send.nxt, tcb->send.max)) {
			tcb->snd_sml = tcb->send.nxt + len;
			tcb->sml_sent = true;
		}
		send_segment(tcp, tcb, tcb->send.nxt, len, fin);
		sent++;
		new_sent++;
		if (fin)
			break;
	}
	if (rec && !new_sent && !tcb->out_q && !frto_new && !tcp_pace_hold(tcp, tcb))
		sent += tcp_rec_send_more(tcp, tcb);
	if (pending)
		cwnd_validate(tcb, sent != 0);
ack:
	if (!sent && (tcb->flags & TCB_F_ACK_NOW) && tcb->state != TCP_CLOSED &&
	    tcb->state != TCP_LISTEN && tcb->state != TCP_SYN_SENT)
		tcp_send_ack(tcp, tcb);
	return sent;
}

/* ---- the send sequence space (struct tcp_sndseq), which only this file writes ---- */

void tcp_snd_init(struct tcb *tcb, uint32_t iss)
{
	tcb->send.iss = iss;
	tcb->send.una = tcb->send.nxt = tcb->send.max = iss;
	tcb->cwnd_usage_seq = iss;
	tcb->cwnd_limited = false;
}

void tcp_snd_set_una(struct tcb *tcb, uint32_t una)
{
	tcb->send.una = una;
}

void tcp_snd_set_window(struct tcb *tcb, uint32_t wnd, uint32_t wl1, uint32_t wl2)
{
	tcb->send.wnd = wnd;
	tcb->send.wl1 = wl1;
	tcb->send.wl2 = wl2;
}

void tcp_snd_set_max_wnd(struct tcb *tcb, uint32_t wnd)
{
	tcb->send.max_wnd = wnd;
}

void tcp_snd_window_update(struct tcb *tcb, uint32_t wnd, uint32_t wl1, uint32_t wl2)
{
	tcp_snd_set_window(tcb, wnd, wl1, wl2);
	if (wnd > tcb->send.max_wnd)
		tcb->send.max_wnd = wnd;
}

void tcp_snd_acked(struct tcb *tcb, uint32_t ack)
{
	uint32_t prior = tcb->send.una;
	tcb->send.una = ack;
	tcp_so_tstamp_acked(tcb, prior, ack);
	if (SEQ_LT(tcb->send.nxt, ack))
		tcb->send.nxt = ack;
}

void tcp_snd_rewind(struct tcb *tcb)
{
	tcb->send.nxt = tcb->send.una;
}

void tcp_snd_syn_sent(struct tcb *tcb)
{
	tcb->send.nxt = tcb->send.max = tcb->send.iss + 1;
}
