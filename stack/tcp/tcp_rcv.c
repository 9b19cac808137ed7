/* tcp_rcv: the receiving side of a synchronised connection, RFC 9293
 * §3.10.7.4 seventh and eighth: the text trimmed to the window, in order
 * into the receive ring or held beyond a hole (tcp_ooo.c keeps the ranges,
 * RFC 2018 SACK blocks and RFC 2883 D-SACK reports come from here), the
 * delayed-ACK decision (RFC 1122 §4.2.3.2, RFC 5681 §4.2), the CE echo
 * (RFC 3168 §6.1.3) and the FIN. */
#include <errno.h>

#include "tcp_input.h"

void tcp_rcv_init(struct tcb *tcb, uint32_t irs)
{
	tcb->recv.irs = irs;
	tcb->recv.nxt = irs + 1;
}

void tcp_rcv_offer(struct tcb *tcb, uint32_t wnd)
{
	tcb->recv.ssthresh = wnd;
	tcb->recv.wnd = wnd;
	tcb->recv.adv = tcb->recv.nxt + wnd;
}

void tcp_rcv_set_adv(struct tcb *tcb, uint32_t wnd)
{
	tcb->recv.adv = tcb->recv.nxt + wnd;
}

void tcp_rcv_clamp(struct tcb *tcb, uint32_t max)
{
	if (tcb->recv.ssthresh > max)
		tcb->recv.ssthresh = max;
}

/* RFC 2883: [l, r) arrived twice; the next ACK reports it in its first SACK
 * block (Linux tcp_dsack_set: a newer duplicate replaces an unsent one). */
void tcp_dsack_set(struct tcb *tcb, uint32_t l, uint32_t r)
{
	if (!(tcb->flags & TCB_F_SACK) || !SEQ_LT(l, r))
		return;
	tcb->recv.dsack = true;
	tcb->recv.dsack_l = l;
	tcb->recv.dsack_r = r;
}

/* Linux tcp_dsack_extend: grow a pending report when [l, r) touches it,
 * else keep it (the duplicate found first in a segment is reported). */
static void dsack_extend(struct tcb *tcb, uint32_t l, uint32_t r)
{
	if (!tcb->recv.dsack) {
		tcp_dsack_set(tcb, l, r);
		return;
	}
	if (SEQ_GT(l, tcb->recv.dsack_r) || SEQ_GT(tcb->recv.dsack_l, r))
		return;
	if (SEQ_LT(l, tcb->recv.dsack_l))
		tcb->recv.dsack_l = l;
	if (SEQ_GT(r, tcb->recv.dsack_r))
		tcb->recv.dsack_r = r;
}

/* Places an out-of-order segment's bytes in the receive ring where no
 * segment that starts before it (or at the same place and reaches as far)
 * holds them. This is the order in which Linux reads overlapping segments
 * from its out-of-order queue, so a monitor built on Linux sees the same
 * stream. Held ranges are merged, so a held range counts as one segment.
 * Returns how many bytes from s->seq on are now held (less when the ring is
 * full). */
static uint32_t ooo_write(struct tcb *tcb, const struct seg_ctx *s)
{
	uint32_t l = s->seq, r = s->seq + s->len;
	uint32_t keep_end = l;			  /* [l, keep_end) stays as it is */
	uint32_t i = tcp_ooo_first_after(tcb, l); /* ranges are sorted and disjoint */
	if (i < tcb->ooo.n && SEQ_LT(tcb->ooo.r[i].l, r)) {
		uint32_t L = tcb->ooo.r[i].l, R = tcb->ooo.r[i].r;
		/* the first held range it overlaps is the duplicate reported */
		tcp_dsack_set(tcb, SEQ_GT(L, l) ? L : l, SEQ_LT(R, r) ? R : r);
		if (SEQ_LEQ(L, l) && !(L == l && SEQ_GT(r, R)))
			keep_end = SEQ_LT(R, r) ? R : r;
	}
	uint32_t skip = keep_end - l;
	uint32_t off = tcb->rcv.len + (keep_end - tcb->recv.nxt);
	uint32_t n = ring_write_at(&tcb->rcv, off, s->data + skip, s->len - skip);
	return skip + n;
}

static void data_input(struct tcp *tcp, struct tcb *tcb, struct seg_ctx *s)
{
	if (s->len == 0)
		return;
	if (ring_reserve(tcp, &tcb->rcv, tcb->rcvbuf) < 0) {
		s->len = 0;
		s->flags &= (uint8_t)~TCP_FIN;
		return;
	}
	if (s->seq == tcb->recv.nxt) {
		uint32_t unread = tcb->rcv.len; /* before this segment */
		uint32_t n = ring_write_at(&tcb->rcv, tcb->rcv.len, s->data, s->len);
		if (n < s->len)
			s->flags &= (uint8_t)~TCP_FIN; /* buffer full: the rest comes again */
		if (tcb->ooo.n && SEQ_GT(s->seq + n, tcb->ooo.r[0].l))
			dsack_extend(tcb, tcb->ooo.r[0].l,
				     SEQ_LT(s->seq + n, tcb->ooo.r[0].r) ? s->seq + n
									 : tcb->ooo.r[0].r);
		tcb->recv.nxt += n;
		tcp_count_received(tcb, n);
		tcb->recv.unacked += n;
		bool filled = false;
		uint32_t more = tcp_ooo_pull(tcb, &filled);
		tcb->rcv.len += more;
		tcb->recv.nxt += more;
		tcp_count_received(tcb, more);
		tcp_rcvbuf_data(tcp, tcb, s->h, s->len, unread);
		/* Linux tcp_grow_window, simplified: the offered window grows
		 * with the data that arrives, up to the largest window the
		 * buffer offers (Linux: window_clamp), so that a buffer
		 * autotuning grew is opened two segments per segment, not at
		 * once. */
		tcb->recv.ssthresh += 2u * tcb->rcv_mss;
		if (tcb->recv.ssthresh > tcp_rcvbuf_wnd_max(tcb))
			tcb->recv.ssthresh = tcp_rcvbuf_wnd_max(tcb);
		/* RFC 1122 §4.2.3.2 / RFC 5681 §4.2: ACK at least every second
		 * full segment, at once when a hole was filled. */
		uint32_t rmss = tcb->rcv_mss - ((tcb->flags & TCB_F_TS) ? 12u : 0u);
		if (filled || tcb->recv.unacked >= 2u * rmss || tcb->ooo.n)
			tcb->flags |= TCB_F_ACK_NOW;
		else if (!(tcb->flags & TCB_F_DELACK)) {
			tcb->flags |= TCB_F_DELACK;
			/* Linux tcp_send_delayed_ack with the ATO at its floor
			 * (TCP_ATO_MIN): HZ/25 jiffies, at most
			 * TCP_BPF_DELACK_MAX in jiffies rounded up. */
			uint64_t j = TCP_DELACK_MIN_J(tcp->cfg.hz);
			uint64_t max = tcp_us_to_jiffies(tcp, tcb->opt.delack_max_us);
			tcp_timer_set_j(tcp, tcb, TCP_T_DELACK, j < max ? j : max);
		}
		tcp_mark_event(tcp, tcb);
		return;
	}
	/* Out of order (seq > rcv_nxt after trimming): place it, remember the
	 * range, ACK at once (the duplicate ACK with SACK blocks). */
	if (!tcp_ooo_fits(tcb, s->seq, s->seq + s->len)) {
		tcp->stats.ooo_drop++; /* TCP_OOO_MAX holes, or no memory */
		s->len = 0;
		s->flags &= (uint8_t)~TCP_FIN;
		tcb->flags |= TCB_F_ACK_NOW;
		return;
	}
	uint32_t n = ooo_write(tcb, s);
	if (n) {
		if (tcp_ooo_insert(tcb, s->seq, s->seq + n)) {
			tcp_ooo_arrived(tcb, s->seq);
			tcp_rcvbuf_ooo(tcp, tcb);
		} else
			tcp->stats.ooo_drop++;
	}
	if (n < s->len)
		s->flags &= (uint8_t)~TCP_FIN; /* not all kept: the rest comes again */
	tcb->flags |= TCB_F_ACK_NOW;
}

static void fin_input(struct tcp *tcp, struct tcb *tcb)
{
	tcb->recv.nxt++;
	tcb->flags |= TCB_F_FIN_RCVD | TCB_F_ACK_NOW;
	tcp_mark_event(tcp, tcb);
	switch (tcb->state) {
	case TCP_SYN_RECEIVED:
	case TCP_ESTABLISHED:
		tcp_set_state(tcp, tcb, TCP_CLOSE_WAIT);
		break;
	case TCP_FIN_WAIT_1:
		/* Linux tcp_fin: a simultaneous close ACKs the FIN at once, from
		 * FIN_WAIT_1. Left to the end of the burst, the ACK could leave
		 * after the ACK of our FIN moved the connection to TIME_WAIT,
		 * without what a full socket's programs write. */
		tcp_send_ack(tcp, tcb);
		if (tcb->send.una == tcb->send.max && (tcb->flags & TCB_F_FIN_SENT))
			tcp_enter_time_wait(tcp, tcb);
		else
			tcp_set_state(tcp, tcb, TCP_CLOSING);
		break;
	case TCP_FIN_WAIT_2:
		tcp_send_ack(tcp, tcb);
		tcp_enter_time_wait(tcp, tcb);
		break;
	default:
		break;
	}
}

void tcp_rcv_ecn(struct tcb *tcb, const struct seg_ctx *s)
{
	if (!s->ecn || !(tcb->flags & TCB_F_ECN))
		return;
	/* RFC 3168 §6.1.3: echo CE with ECE until the peer's CWR. An
	 * algorithm that needs ECN (DCTCP) sets the echo per segment
	 * itself (Linux __tcp_ecn_check_ce → CA_EVENT_ECN_*). */
	bool ce = (s->ecn & 3) == 3;
	bool own_echo = (tcb->cc.ops->flags & TCP_CC_NEEDS_ECN) != 0;
	if (s->flags & TCP_CWR)
		tcb->flags &= ~TCB_F_ECE_PENDING;
	if (own_echo)
		tcp_cc_event(tcb, ce ? CA_EVENT_ECN_IS_CE : CA_EVENT_ECN_NO_CE);
	if (ce) {
		if (!own_echo)
			tcb->flags |= TCB_F_ECE_PENDING | TCB_F_ACK_NOW;
		tcb->ecn_seen |= 4u; /* SKOPS_ECN_CE_SEEN */
	} else {
		tcb->ecn_seen |= 2u; /* SKOPS_ECN_ECT_SEEN */
	}
}

/* What we already have on the left goes (a D-SACK), what does not fit
 * on the right too. */
static void trim(struct tcb *tcb, struct seg_ctx *s, uint32_t wnd)
{
	if (SEQ_LT(s->seq, tcb->recv.nxt)) {
		uint32_t skip = tcb->recv.nxt - s->seq;
		tcp_dsack_set(tcb, s->seq, skip < s->len ? tcb->recv.nxt : s->seq + s->len);
		if (skip >= s->len) {
			if (skip > s->len)
				s->flags &= (uint8_t)~TCP_FIN;
			s->seq += s->len;
			s->len = 0;
		} else {
			s->data += skip;
			s->len -= skip;
			s->seq += skip;
		}
		tcb->flags |= TCB_F_ACK_NOW; /* a duplicate: tell the peer where we are */
	}
	if (s->len && SEQ_GT(s->seq + s->len, tcb->recv.nxt + wnd)) {
		s->len = tcb->recv.nxt + wnd - s->seq;
		s->flags &= (uint8_t)~TCP_FIN;
	}
}

bool tcp_rcv_text(struct tcp *tcp, struct tcb *tcb, struct seg_ctx *s, uint32_t wnd)
{
	trim(tcb, s, wnd);
	switch (tcb->state) {
	case TCP_ESTABLISHED:
	case TCP_FIN_WAIT_1:
	case TCP_FIN_WAIT_2:
		if (s->len && (tcb->flags & TCB_F_ORPHAN) && (tcb->flags & TCB_F_RD_SHUT)) {
			/* Data for a closed socket: nobody will read it (Linux,
			 * RFC 9293 §3.10.4 "reset"). */
			tcp_send_rst(tcp, tcb);
			tcp_done(tcp, tcb, ECONNRESET);
			return false;
		}
		data_input(tcp, tcb, s);
		break;
	default:
		s->len = 0;
		break;
	}
	return true;
}

/* A FIN beyond a hole is held like the data it came with (RFC 9293
 * §3.10.7.4 seventh: segments beyond RCV.NXT are kept for later). */
void tcp_rcv_fin(struct tcp *tcp, struct tcb *tcb, const struct seg_ctx *s)
{
	bool fin = false;
	if ((s->flags & TCP_FIN) && !(tcb->flags & TCB_F_FIN_RCVD)) {
		uint32_t at = s->seq + s->len;
		if (at == tcb->recv.nxt) {
			fin = true;
		} else if (SEQ_GT(at, tcb->recv.nxt) &&
			   (tcb->state == TCP_ESTABLISHED || tcb->state == TCP_FIN_WAIT_1 ||
			    tcb->state == TCP_FIN_WAIT_2)) {
			tcb->recv.ooo_fin = true;
			tcb->recv.ooo_fin_seq = at;
			tcp_ooo_arrived(tcb, s->len ? s->seq : at);
			tcb->flags |= TCB_F_ACK_NOW;
		}
	}
	if (tcb->recv.ooo_fin && tcb->recv.nxt == tcb->recv.ooo_fin_seq &&
	    !(tcb->flags & TCB_F_FIN_RCVD))
		fin = true;
	if (fin) {
		tcb->recv.ooo_fin = false;
		fin_input(tcp, tcb);
	}
}
