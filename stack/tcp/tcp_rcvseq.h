/* tcp_rcvseq: the writes to the receive sequence space (struct tcp_rcvseq,
 * tcb->recv; owner tcp_rcv.c) that the output and input paths make on
 * every segment, as static inline functions so that they make no call
 * there (as tcp_count.h does for the counters). */
#ifndef SKOPS_STACK_TCP_TCP_RCVSEQ_H
#define SKOPS_STACK_TCP_TCP_RCVSEQ_H

#include "tcb.h"

/* A window of wnd bytes was advertised from RCV.NXT. */
static inline void tcp_rcv_advertised(struct tcb *tcb, uint32_t wnd)
{
	tcb->recv.adv = tcb->recv.nxt + wnd;
	tcb->recv.wnd = wnd;
}

/* A segment acknowledging ack left: Last.ACK.sent (RFC 7323 §4.3). */
static inline void tcp_rcv_ack_sent(struct tcb *tcb, uint32_t ack)
{
	tcb->recv.ts_last_ack_sent = ack;
}

/* An ACK left: what had arrived is acknowledged. */
static inline void tcp_rcv_acked_all(struct tcb *tcb, uint32_t ack)
{
	tcb->recv.ts_last_ack_sent = ack;
	tcb->recv.unacked = 0;
}

/* The pending D-SACK block went out in a segment. */
static inline void tcp_rcv_dsack_sent(struct tcb *tcb)
{
	tcb->recv.dsack = false;
}

/* TS.Recent takes the peer's TSval, at now (RFC 7323 §4.3). */
static inline void tcp_rcv_ts_recent(struct tcb *tcb, uint32_t tsval, uint64_t now)
{
	tcb->recv.ts_recent = tsval;
	tcb->recv.ts_recent_ns = now;
}

#endif
