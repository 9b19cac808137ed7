/* tcp_effect: the boundary between TCP and the sock_ops programs it runs.
 * A program runs in the middle of TCP's own work (a retransmission being
 * accounted, an ACK being processed, a state change), so anything it asks
 * for through bpf_setsockopt that would send a segment, re-arm a timer or
 * reallocate a ring is only recorded on the tcb here. The outermost entry
 * point (tcp_input, tcp_timers, tcp_icmp, a user call) applies it once on
 * its way out, when no frame below holds the tcb half-updated. Applying may
 * run programs again (tcp_output → RETRANS_CB); their effects join the list
 * and are applied in the next round, a bounded number of rounds. */
#include <stdio.h>
#include <stdlib.h>

#include "tcp_int.h"

/* tcp_output sends all it can in one round; a second round only follows
 * effects recorded by the first. More than a few means a program keeps
 * asking for the same thing, and what is left waits for the next event. */
#define TCP_EFFECT_ROUNDS 8

void tcp_enter(struct tcp *tcp)
{
	tcp->depth++;
}

void tcp_defer(struct tcp *tcp, struct tcb *tcb, uint8_t what)
{
	TCP_INV(tcb->tcp == tcp);
	tcb->pend |= what;
	if (tcb->flags & TCB_F_PENDQ)
		return;
	tcb->flags |= TCB_F_PENDQ;
	tcb->pend_next = tcp->pend;
	tcp->pend = tcb;
}

void tcp_pend_forget(struct tcp *tcp, struct tcb *tcb)
{
	if (!(tcb->flags & TCB_F_PENDQ))
		return;
	for (struct tcb **pp = &tcp->pend; *pp; pp = &(*pp)->pend_next) {
		if (*pp == tcb) {
			*pp = tcb->pend_next;
			break;
		}
	}
	tcb->pend_next = NULL;
	tcb->pend = 0;
	tcb->flags &= ~TCB_F_PENDQ;
}

static bool keep_states(uint8_t st)
{
	return st == TCP_ESTABLISHED || st == TCP_CLOSE_WAIT;
}

static bool output_states(uint8_t st)
{
	return st == TCP_ESTABLISHED || st == TCP_CLOSE_WAIT || st == TCP_FIN_WAIT_1 ||
	       st == TCP_CLOSING || st == TCP_LAST_ACK;
}

static void apply(struct tcp *tcp, struct tcb *tcb, uint8_t what)
{
	if (what & TCB_P_RCVBUF) {
		/* A failure leaves the ring as it is: data_input grows it (or
		 * drops the segment) when data comes. */
		if (tcb->rcv.cap && tcb->rcv.cap < tcb->rcvbuf)
			(void)ring_reserve(tcp, &tcb->rcv, tcb->rcvbuf);
	}
	if ((what & TCB_P_MSS) && tcb->state >= TCP_ESTABLISHED && tcb->state != TCP_TIME_WAIT)
		tcp_update_mss(tcp, tcb, 0);
	if ((what & TCB_P_KEEP) && keep_states(tcb->state)) {
		if (tcb->flags & TCB_F_KEEPALIVE)
			tcp_timer_set_us(tcp, tcb, TCP_T_KEEP,
					 (uint64_t)tcb->opt.keep_idle_s * CLK_US_PER_S);
		else
			tcp_timer_clear(tcp, tcb, TCP_T_KEEP);
	}
	if ((what & TCB_P_OUTPUT) && output_states(tcb->state))
		tcp_output(tcp, tcb);
}

void tcp_leave(struct tcp *tcp)
{
	TCP_INV(tcp->depth > 0);
	if (tcp->depth > 1) {
		tcp->depth--;
		return;
	}
	/* Still inside while applying, so that programs run by the effects
	 * only record theirs. */
	for (int round = 0; round < TCP_EFFECT_ROUNDS && tcp->pend; round++) {
		struct tcb *list = tcp->pend;
		tcp->pend = NULL;
		while (list) {
			struct tcb *t = list;
			list = t->pend_next;
			uint8_t what = t->pend;
			t->pend_next = NULL;
			t->pend = 0;
			t->flags &= ~TCB_F_PENDQ;
			apply(tcp, t, what);
			tcp_check_tcb(tcp, t);
		}
	}
	/* Whatever a program asked for in the last round is dropped: every
	 * effect is also taken up by the next segment, timer or user call. */
	while (tcp->pend)
		tcp_pend_forget(tcp, tcp->pend);
	tcp->depth = 0;
}

#ifdef SKOPS_INVARIANTS
void tcp_inv_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "tcp: invariant violated at %s:%d: %s\n", file, line, what);
	abort();
}

void tcp_check_ring(const struct tcp_ring *r)
{
	TCP_INV(r->len <= r->cap);
	TCP_INV(r->cap == 0 ? r->head == 0 : r->head < r->cap);
	TCP_INV((r->cap == 0) == (r->buf == NULL));
}

/* A live tcb of this tcp with its sequence space in order: what every
 * caller may assume after a callee reported the connection alive. */
void tcp_check_tcb(const struct tcp *tcp, const struct tcb *tcb)
{
	TCP_INV(tcb->tcp == tcp);
	TCP_INV(tcb->state <= TCP_TIME_WAIT);
	tcp_check_ring(&tcb->snd);
	tcp_check_ring(&tcb->rcv);
	TCP_INV(tcb->ooo.n <= tcb->ooo.cap && tcb->ooo.cap <= TCP_OOO_MAX);
	if (tcb->state == TCP_CLOSED || tcb->state == TCP_LISTEN)
		return;
	TCP_INV(SEQ_LEQ(tcb->send.una, tcb->send.nxt));
	TCP_INV(SEQ_LEQ(tcb->send.nxt, tcb->send.max));
	tcp_sb_check(tcb);
	tcp_rack_check(tcb);
	if (tcb->state == TCP_SYN_SENT || tcb->state == TCP_SYN_RECEIVED ||
	    tcb->state == TCP_TIME_WAIT)
		return;
	/* In flight: at most the queued bytes, our FIN, and our SYN while it
	 * is unacknowledged (a simultaneous open closed in SYN-RECEIVED goes
	 * to FIN-WAIT-1 with it, RFC 9293 §3.10.4). */
	uint32_t fin = (tcb->flags & TCB_F_FIN_SENT) ? 1u : 0u;
	uint32_t syn = tcb->send.una == tcb->send.iss ? 1u : 0u;
	TCP_INV(tcb->send.max - tcb->send.una <= tcb->snd.len + fin + syn);
	if (fin)
		TCP_INV(SEQ_LEQ(tcb->send.una, tcb->fin_seq + 1) &&
			SEQ_LEQ(tcb->fin_seq + 1, tcb->send.max));
	/* Out-of-order ranges: sorted, disjoint, inside the ring. */
	for (uint32_t i = 0; i < tcb->ooo.n; i++) {
		TCP_INV(SEQ_LT(tcb->ooo.r[i].l, tcb->ooo.r[i].r));
		TCP_INV(SEQ_GT(tcb->ooo.r[i].r, tcb->recv.nxt));
		TCP_INV(tcb->rcv.len + (tcb->ooo.r[i].r - tcb->recv.nxt) <= tcb->rcv.cap);
		if (i)
			TCP_INV(SEQ_GT(tcb->ooo.r[i].l, tcb->ooo.r[i - 1].r));
	}
}
#endif
