/* tcp_rcvbuf: receive-buffer autotuning (dynamic right-sizing) as Linux's
 * tcp_rcv_space_adjust, tcp_init_buffer_space and the receiver's RTT estimate
 * (tcp_rcv_rtt_measure, tcp_rcv_rtt_measure_ts). Read docs/tcp.md
 * "Receive-buffer autotuning" first. */
#include "tcp_int.h"

/* The window a receive buffer of `space` bytes offers, and back. Linux
 * scales by skb payload/truesize (scaling_ratio); our ring holds payload
 * only, so we keep the kernel's starting ratio, one half, as
 * tcp_rwnd_init_bytes does for the SYN's window: SO_RCVBUF and rcvbuf then
 * read as on Linux, twice the window. */
static uint64_t win_from_space(uint64_t space)
{
	return space / 2;
}

static uint64_t space_from_win(uint64_t win)
{
	return win * 2;
}

uint32_t tcp_rcvbuf_wnd_max(const struct tcb *tcb)
{
	/* A buffer SO_RCVBUF set is offered whole, as before autotuning. */
	if (tcb->flags & TCB_F_RCVBUF_LOCK)
		return tcb->rcvbuf;
	return (uint32_t)win_from_space(tcb->rcvbuf);
}

/* Linux tcp_rcv_rtt_update: a timestamp sample moves the estimate by an
 * eighth; a sample taken over a whole window (win_dep) can only lower it,
 * since the sender may not have filled that window at once. */
static void rtt_update(struct tcp_rcvq_space *q, uint64_t sample_us, bool win_dep)
{
	if (sample_us > UINT32_MAX / 16)
		sample_us = UINT32_MAX / 16;
	uint32_t m8 = (uint32_t)sample_us << 3;
	uint32_t est = q->rtt_us8;
	if (!est)
		est = m8;
	else if (win_dep)
		est = m8 < est ? m8 : est;
	else
		est = est - (est >> 3) + (uint32_t)sample_us;
	q->rtt_us8 = est ? est : 1;
}

void tcp_rcvbuf_init(struct tcp *tcp, struct tcb *tcb)
{
	struct tcp_rcvq_space *q = &tcb->rcvq;
	/* Linux tcp_init_buffer_space: the first measurement must beat what
	 * an initial window could bring. */
	uint32_t space = 10u * tcb->rcv_mss; /* TCP_INIT_CWND * advmss */
	if (tcb->rcv_wnd && tcb->rcv_wnd < space)
		space = tcb->rcv_wnd;
	if (tcb->rcv_ssthresh && tcb->rcv_ssthresh < space)
		space = tcb->rcv_ssthresh;
	q->space = space ? space : 1;
	q->seq = q->copied;
	q->time_ns = tcp->now;
	q->rtt_ns = 0;
}

void tcp_rcvbuf_data(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h, uint32_t len)
{
	struct tcp_rcvq_space *q = &tcb->rcvq;
	/* Over a window (tcp_rcv_rtt_measure): from when we open a window
	 * until data reaches its right edge, one round trip at least. */
	if (q->rtt_ns && SEQ_GEQ(tcb->rcv_nxt, q->rtt_seq))
		rtt_update(q, (tcp->now - q->rtt_ns) / CLK_NS_PER_US, true);
	if (!q->rtt_ns || SEQ_GEQ(tcb->rcv_nxt, q->rtt_seq)) {
		q->rtt_seq = tcb->rcv_nxt + tcb->rcv_wnd;
		q->rtt_ns = tcp->now;
	}
	/* From the echo of our timestamp on a full segment
	 * (tcp_rcv_rtt_measure_ts), once per echoed value: a small one may
	 * have waited for more data at the sender. */
	uint32_t rmss = tcb->rcv_mss - ((tcb->flags & TCB_F_TS) ? 12u : 0u);
	if (!(tcb->flags & TCB_F_TS) || !h->ts || !h->tsecr || len < rmss ||
	    h->tsecr == q->last_tsecr)
		return;
	q->last_tsecr = h->tsecr;
	uint32_t ms = tcp_ts_now(tcp, tcb) - h->tsecr;
	if (ms > INT32_MAX / 1000)
		return;
	rtt_update(q, (uint64_t)(ms ? ms : 1) * 1000u, false);
}

void tcp_rcvbuf_copied(struct tcp *tcp, struct tcb *tcb, uint32_t n)
{
	struct tcp_rcvq_space *q = &tcb->rcvq;
	q->copied += n;
	if (tcb->state < TCP_ESTABLISHED || !q->rtt_us8)
		return;
	if ((tcp->now - q->time_ns) / CLK_NS_PER_US < (q->rtt_us8 >> 3))
		return;
	uint32_t copied = q->copied - q->seq; /* read by the application in one RTT */
	if (copied > q->space) {
		if (!(tcb->flags & TCB_F_RCVBUF_LOCK)) {
			/* Twice what one RTT carried, for a loss round, plus 16
			 * segments of slack; plus twice its growth over the
			 * last RTT, since this ACK is read one RTT later by a
			 * sender that may double each round (slow start). */
			uint64_t win = 2ull * copied + 16ull * tcb->rcv_mss;
			uint64_t grow = win * (copied - q->space) / q->space;
			win += 2 * grow;
			uint64_t buf = space_from_win(win);
			if (buf > tcp->cfg.tcp_rmem_max)
				buf = tcp->cfg.tcp_rmem_max;
			/* The window scale of the SYN bounds the window
			 * (RFC 7323 §2.3); memory beyond it is never offered. */
			uint32_t ws = (tcb->flags & TCB_F_WS) ? tcb->rcv_wscale : 0;
			uint64_t cap = space_from_win((uint64_t)65535u << ws);
			if (buf > cap)
				buf = cap;
			if (buf > tcb->rcvbuf) {
				tcb->rcvbuf = (uint32_t)buf;
				tcp->stats.rcvbuf_grown++;
			}
		}
		q->space = copied;
	}
	q->seq = q->copied;
	q->time_ns = tcp->now;
}
