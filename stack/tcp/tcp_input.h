/* tcp_input.h: what the files that process an arriving segment share and
 * nothing else uses. tcp_input.c finds the connection and runs RFC 9293
 * §3.10.7's checks in order; tcp_handshake.c holds LISTEN, SYN-SENT and the
 * end of a handshake; tcp_ack.c the ACK field; tcp_rcv.c the text, ECN
 * marks and FIN. */
#ifndef SKOPS_STACK_TCP_TCP_INPUT_H
#define SKOPS_STACK_TCP_TCP_INPUT_H

#include "tcp_int.h"

/* One arriving segment as the checks trim it. */
struct seg_ctx {
	const struct tcp_repr *h;
	uint32_t seq;
	const uint8_t *data;
	uint32_t len;
	uint8_t flags;
	uint8_t ecn;
	bool handshake; /* the ACK completed a passive open */
};

/* tcp_handshake.c */
void tcp_listen_input(struct tcp *tcp, struct tcb *l, const struct tcp_tuple *t,
		      const struct tcp_repr *h, uint32_t len, uint8_t ecn,
		      const struct tcp_rx_hdrs *hdrs);
/* RFC 9293 §3.10.7.3. false: tcb was freed. */
bool tcp_syn_sent_input(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h);
/* The ACK that completes a passive open (SYN-RECEIVED): the connection is
 * established and moves to its listener's accept queue. false: tcb closed. */
bool tcp_passive_open_done(struct tcp *tcp, struct tcb *tcb, struct seg_ctx *s);

/* tcp_ack.c: the ACK field of a segment that passed the checks (RFC 9293
 * §3.10.7.4 fifth). false: tcb was freed. */
bool tcp_ack_acceptable(const struct tcb *tcb, uint32_t ack); /* RFC 5961 §5.2 */
bool tcp_ack_input(struct tcp *tcp, struct tcb *tcb, const struct seg_ctx *s);

/* tcp_rcv.c: the receiving side. */
/* RFC 2883: [l, r) arrived twice: report it in the next ACK. */
void tcp_dsack_set(struct tcb *tcb, uint32_t l, uint32_t r);
/* RFC 3168 §6.1.3: the IP ECN field of an accepted segment. */
void tcp_rcv_ecn(struct tcb *tcb, const struct seg_ctx *s);
/* §3.10.7.4 seventh: the text, trimmed to [rcv_nxt, rcv_nxt + wnd). false:
 * tcb was freed. */
bool tcp_rcv_text(struct tcp *tcp, struct tcb *tcb, struct seg_ctx *s, uint32_t wnd);
/* §3.10.7.4 eighth: the FIN, once the sequence space before it is complete. */
void tcp_rcv_fin(struct tcp *tcp, struct tcb *tcb, const struct seg_ctx *s);

#endif
