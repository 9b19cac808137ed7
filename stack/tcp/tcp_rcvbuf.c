/* tcp_rcvbuf: receive-buffer autotuning (dynamic right-sizing) as Linux
 * 6.18's tcp_rcv_space_adjust, tcp_rcvbuf_grow, tcp_init_buffer_space and
 * the receiver's RTT estimate (tcp_rcv_rtt_measure, tcp_rcv_rtt_measure_ts),
 * with the 6.16 changes to all of them. Read docs/tcp.md "Receive-buffer
 * autotuning" first. */
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

/* The receiver's RTT (Linux 6.16+ tcp_rcv_rtt_update): a sample below the
 * estimate replaces it at once, so the estimate seeks the path's minimum
 * and the queue a large window builds at a bottleneck does not feed back
 * into a larger window. A larger sample taken over a whole window
 * (win_dep) is dropped: the sender may not have filled that window at
 * once. A larger timestamp sample is dropped too while the application
 * has unread data (`unread`): a slow reader delays our echoes, and a
 * longer RTT would read as a reason to grow; otherwise it moves the
 * estimate by an eighth. */
static void rtt_update(struct tcp_rcvq_space *q, uint64_t sample_us, bool win_dep, uint32_t unread)
{
	if (sample_us > UINT32_MAX / 16)
		sample_us = UINT32_MAX / 16;
	uint32_t m8 = (uint32_t)sample_us << 3;
	uint32_t est = q->rtt_us8;
	if (!est || m8 < est)
		est = m8;
	else if (win_dep || unread)
		return;
	else
		est = est - (est >> 3) + (uint32_t)sample_us;
	q->rtt_us8 = est ? est : 1;
}

void tcp_rcvbuf_init(struct tcp *tcp, struct tcb *tcb)
{
	struct tcp_rcvq_space *q = &tcb->rcvq;
	/* Linux tcp_init_buffer_space: the first measurement must beat what
	 * an initial window could bring, in segments without the timestamp
	 * option's 12 bytes when it was agreed (6.16 counts them so for
	 * passive opens too, as it always did for active ones). */
	uint32_t advmss = tcb->rcv_mss - ((tcb->flags & TCB_F_TS) ? 12u : 0u);
	uint32_t space = 10u * advmss; /* TCP_INIT_CWND * advmss */
	if (tcb->recv.wnd && tcb->recv.wnd < space)
		space = tcb->recv.wnd;
	if (tcb->recv.ssthresh && tcb->recv.ssthresh < space)
		space = tcb->recv.ssthresh;
	q->space = space ? space : 1;
	q->seq = q->copied;
	q->time_ns = tcp->now;
	q->rtt_ns = 0;
}

void tcp_rcvbuf_data(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h, uint32_t len,
		     uint32_t unread)
{
	struct tcp_rcvq_space *q = &tcb->rcvq;
	/* Over a window (tcp_rcv_rtt_measure): from when we open a window
	 * until data reaches its right edge, one round trip at least. */
	if (q->rtt_ns && SEQ_GEQ(tcb->recv.nxt, q->rtt_seq)) {
		uint64_t us = (tcp->now - q->rtt_ns) / CLK_NS_PER_US;
		rtt_update(q, us ? us : 1, true, unread);
	}
	if (!q->rtt_ns || SEQ_GEQ(tcb->recv.nxt, q->rtt_seq)) {
		q->rtt_seq = tcb->recv.nxt + tcb->recv.wnd;
		q->rtt_ns = tcp->now;
	}
	/* From the echo of our timestamp on a full segment
	 * (tcp_rcv_rtt_measure_ts), once per echoed value: a small one may
	 * have waited for more data at the sender. A zero sample (under our
	 * 1 ms resolution) says nothing and is dropped, as since Linux 6.16. */
	uint32_t rmss = tcb->rcv_mss - ((tcb->flags & TCB_F_TS) ? 12u : 0u);
	if (!(tcb->flags & TCB_F_TS) || !h->ts || !h->tsecr || h->tsecr == q->last_tsecr)
		return;
	q->last_tsecr = h->tsecr;
	if (len < rmss)
		return;
	uint32_t ms = tcp_ts_now(tcp, tcb) - h->tsecr;
	if (ms == 0 || ms > INT32_MAX / 1000)
		return;
	rtt_update(q, (uint64_t)ms * 1000u, false, unread);
}

/* Linux tcp_rcvbuf_grow: record `copied` as the bytes one RTT carries and
 * size the buffer for it, unless SO_RCVBUF locked the buffer. */
static void grow(struct tcp *tcp, struct tcb *tcb, uint32_t copied)
{
	struct tcp_rcvq_space *q = &tcb->rcvq;
	uint32_t old = q->space ? q->space : 1;
	q->space = copied;
	if (tcb->flags & TCB_F_RCVBUF_LOCK)
		return;
	/* Twice what one RTT carried: this count is one RTT late. Plus
	 * twice its growth over the last RTT, since the sender may double
	 * its rate each round (slow start). Since Linux 6.16 no fixed
	 * 16-segment slack on top, which made small flows' buffers
	 * overshoot. */
	uint64_t win = 2ull * copied;
	if (copied > old)
		win += 2 * (win * (copied - old) / old);
	/* Room for what already waits beyond a hole (6.16): the hole's
	 * repair then does not find the window full. */
	if (tcb->ooo.n && SEQ_GT(tcb->ooo.r[tcb->ooo.n - 1].r, tcb->recv.nxt))
		win += tcb->ooo.r[tcb->ooo.n - 1].r - tcb->recv.nxt;
	uint64_t buf = space_from_win(win);
	if (buf > tcp->cfg.tcp_rmem_max)
		buf = tcp->cfg.tcp_rmem_max;
	/* The window scale of the SYN bounds the window (RFC 7323 §2.3);
	 * memory beyond it is never offered. */
	uint32_t ws = (tcb->flags & TCB_F_WS) ? tcb->rcv_wscale : 0;
	uint64_t cap = space_from_win((uint64_t)65535u << ws);
	if (buf > cap)
		buf = cap;
	if (buf > tcb->rcvbuf) {
		tcb->rcvbuf = (uint32_t)buf;
		tcp->stats.rcvbuf_grown++;
	}
}

void tcp_rcvbuf_ooo(struct tcp *tcp, struct tcb *tcb)
{
	if (tcb->state >= TCP_ESTABLISHED)
		grow(tcp, tcb, tcb->rcvq.space);
}

void tcp_rcvbuf_copied(struct tcp *tcp, struct tcb *tcb, uint32_t n)
{
	struct tcp_rcvq_space *q = &tcb->rcvq;
	q->copied += n;
	if (tcb->state < TCP_ESTABLISHED || !q->rtt_us8)
		return;
	if ((tcp->now - q->time_ns) / CLK_NS_PER_US < (q->rtt_us8 >> 3))
		return;
	/* Read by the application in one RTT, less what it left unread
	 * (Linux 6.16): a reader that keeps a backlog is not asking for a
	 * larger window, and counting its reads would inflate the buffer. */
	int64_t copied = (int64_t)(uint32_t)(q->copied - q->seq) - (int64_t)tcb->rcv.len;
	if (copied > (int64_t)q->space)
		grow(tcp, tcb, (uint32_t)copied);
	q->seq = q->copied;
	q->time_ns = tcp->now;
}
