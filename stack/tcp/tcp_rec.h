/* tcp_rec: the writes to loss recovery's state (struct tcp_recovery,
 * tcb->rec; owner tcp_recovery.c) that tcp_ack.c makes on every ACK, as
 * static inline functions so that they make no call there (as
 * tcp_count.h does for the counters). */
#ifndef SKOPS_STACK_TCP_TCP_REC_H
#define SKOPS_STACK_TCP_TCP_REC_H

#include "tcb.h"

/* An ACK of new data found inflight bytes in flight (the CC's view). */
static inline void tcp_rec_ack_began(struct tcb *tcb, uint32_t inflight)
{
	tcb->rec.prior_inflight = inflight;
}

/* snd_una moved (or an RTO went off): the duplicate-ACK count starts anew. */
static inline void tcp_rec_dupacks_reset(struct tcb *tcb)
{
	tcb->rec.dupacks = 0;
}

/* One more duplicate ACK; returns the count. */
static inline uint8_t tcp_rec_dupack(struct tcb *tcb)
{
	return ++tcb->rec.dupacks;
}

#endif
