/* tcp_count: the owner of struct tcp_conn_counts. Each counter is bumped
 * where its event happens (input, ACK, receive, output, timer), so the
 * owner is this header of static inline functions rather than a file of
 * calls on the per-segment path. */
#ifndef SKOPS_STACK_TCP_TCP_COUNT_H
#define SKOPS_STACK_TCP_TCP_COUNT_H

#include "tcb.h"

static inline void tcp_count_seg_in(struct tcb *tcb, uint32_t len)
{
	tcb->cnt.segs_in++;
	if (len)
		tcb->cnt.data_segs_in++;
}

static inline void tcp_count_seg_out(struct tcb *tcb)
{
	tcb->cnt.segs_out++;
}

static inline void tcp_count_data_seg_out(struct tcb *tcb)
{
	tcb->cnt.data_segs_out++;
}

/* A data segment of len bytes left; rtx: it was sent before. */
static inline void tcp_count_sent(struct tcb *tcb, uint32_t len, bool rtx)
{
	if (rtx) {
		tcb->cnt.total_retrans++;
		tcb->cnt.bytes_retrans += len;
	} else {
		tcb->cnt.bytes_sent += len;
	}
}

static inline void tcp_count_syn_retrans(struct tcb *tcb)
{
	tcb->cnt.total_retrans++;
}

static inline void tcp_count_acked(struct tcb *tcb, uint32_t n)
{
	tcb->cnt.bytes_acked += n;
}

static inline void tcp_count_received(struct tcb *tcb, uint32_t n)
{
	tcb->cnt.bytes_received += n;
}

#endif
