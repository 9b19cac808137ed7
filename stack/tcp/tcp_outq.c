/* tcp_outq: output turns. tcp_output used to send all a connection's
 * windows allowed in one call, so the connection served first in a poll
 * round filled the transmit queue and the device ring; the segments of the
 * others that found no room were dropped at the queue (tx_dev_full) and
 * came back as losses: four flows moved less than one, and with --bidir
 * the direction whose ACKs and data came second starved. Linux bounds what
 * one flow may queue below the device (TCP small queues) and fq serves the
 * flows in turn; here a connection sends at most TCP_OUT_BURST new segments
 * a turn and never into the last TCP_TX_RESERVE frames of the queue, and
 * one that has more waits at the tail of a FIFO the owner serves with
 * tcp_output_pending once the device took frames. ACKs, handshakes and
 * retransmissions are not held. */
#include "tcp_int.h"

uint32_t tcp_out_cap(struct tcp *tcp, const struct tcb *tcb)
{
	if (!tcp->cfg.tx_room)
		return UINT32_MAX;
	if (tcb->out_q)
		return 0; /* the others that waited before it go first */
	uint32_t room = tcp->cfg.tx_room(tcp->cfg.arg);
	if (room <= TCP_TX_RESERVE)
		return 0;
	room -= TCP_TX_RESERVE;
	return room < TCP_OUT_BURST ? room : TCP_OUT_BURST;
}

void tcp_out_queue(struct tcp *tcp, struct tcb *tcb)
{
	if (tcb->out_q)
		return;
	tcb->out_q = true;
	tcb->out_next = NULL;
	if (tcp->outq_tail)
		tcp->outq_tail->out_next = tcb;
	else
		tcp->outq = tcb;
	tcp->outq_tail = tcb;
}

static struct tcb *out_pop(struct tcp *tcp)
{
	struct tcb *t = tcp->outq;
	tcp->outq = t->out_next;
	if (!tcp->outq)
		tcp->outq_tail = NULL;
	t->out_next = NULL;
	t->out_q = false;
	return t;
}

void tcp_outq_forget(struct tcp *tcp, struct tcb *tcb)
{
	if (!tcb->out_q)
		return;
	struct tcb *prev = NULL;
	for (struct tcb *t = tcp->outq; t; prev = t, t = t->out_next) {
		if (t != tcb)
			continue;
		if (prev)
			prev->out_next = t->out_next;
		else
			tcp->outq = t->out_next;
		if (tcp->outq_tail == t)
			tcp->outq_tail = prev;
		break;
	}
	tcb->out_next = NULL;
	tcb->out_q = false;
}

int tcp_output_pending(struct tcp *tcp, uint64_t now)
{
	if (!tcp->outq)
		return 0;
	tcp->now = now;
	tcp_enter(tcp);
	int sent = 0;
	/* A round gives each waiting connection one turn; one that still has
	 * more goes to the tail again. Rounds end when the queue is full or a
	 * round sent nothing. */
	for (int round = 0; round < 64 && tcp->outq; round++) {
		int before = sent;
		for (struct tcb *end = tcp->outq_tail; tcp->outq;) {
			if (tcp->cfg.tx_room(tcp->cfg.arg) <= TCP_TX_RESERVE)
				goto full;
			struct tcb *t = out_pop(tcp);
			sent += tcp_output(tcp, t);
			if (t == end)
				break;
		}
		if (sent == before)
			break;
	}
full:
	tcp_leave(tcp);
	return sent;
}
