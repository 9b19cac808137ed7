/* cc: congestion control behind an ops table shaped like Linux's
 * tcp_congestion_ops (include/net/tcp.h), and a registry by name for
 * TCP_CONGESTION. cwnd and ssthresh are in segments, as Linux keeps them.
 * Read RFC 5681 and RFC 6582 (NewReno). */
#ifndef SKOPS_STACK_TCP_CC_CC_H
#define SKOPS_STACK_TCP_CC_CC_H

#include <stdbool.h>
#include <stdint.h>

struct tcb;

/* Linux's tcp_ca_state. */
enum tcp_ca_state { TCP_CA_OPEN = 0, TCP_CA_DISORDER, TCP_CA_CWR, TCP_CA_RECOVERY, TCP_CA_LOSS };

/* Linux's tcp_ca_event. */
enum tcp_ca_event {
	CA_EVENT_TX_START = 0,
	CA_EVENT_CWND_RESTART,
	CA_EVENT_COMPLETE_CWR,
	CA_EVENT_LOSS,
	CA_EVENT_ECN_NO_CE,
	CA_EVENT_ECN_IS_CE,
};

#define TCP_CC_NEEDS_ECN (1u << 0) /* TCP_CONG_NEEDS_ECN */
#define TCP_CC_NAME_MAX	 16

struct tcp_cc_ops {
	/* required */
	uint32_t (*ssthresh)(struct tcb *tcb);
	void (*cong_avoid)(struct tcb *tcb, uint32_t ack, uint32_t acked);
	/* optional */
	void (*set_state)(struct tcb *tcb, uint8_t new_state);
	void (*cwnd_event)(struct tcb *tcb, enum tcp_ca_event ev);
	void (*pkts_acked)(struct tcb *tcb, uint32_t acked, int32_t rtt_us);
	uint32_t (*undo_cwnd)(struct tcb *tcb);
	uint32_t flags;
	char name[TCP_CC_NAME_MAX];
	void (*init)(struct tcb *tcb);
	void (*release)(struct tcb *tcb);
};

/* The built-in algorithms; NULL for an unknown name (TCP_CONGESTION -ENOENT). */
const struct tcp_cc_ops *cc_find(const char *name);
const struct tcp_cc_ops *cc_default(void);
/* Checks the required ops of a table: 0 or -EINVAL. */
int cc_validate(const struct tcp_cc_ops *ops);

/* Reno building blocks (Linux's tcp_slow_start / tcp_cong_avoid_ai). */
uint32_t cc_slow_start(struct tcb *tcb, uint32_t acked);
void cc_cong_avoid_ai(struct tcb *tcb, uint32_t w, uint32_t acked);
bool cc_is_cwnd_limited(const struct tcb *tcb);

/* NULL-checking wrappers for the optional ops. */
void cc_init(struct tcb *tcb);
void cc_release(struct tcb *tcb);
void cc_set_state(struct tcb *tcb, uint8_t st);
void cc_event(struct tcb *tcb, enum tcp_ca_event ev);
void cc_pkts_acked(struct tcb *tcb, uint32_t acked, int32_t rtt_us);

#endif
