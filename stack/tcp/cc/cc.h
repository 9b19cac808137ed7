/* cc: congestion control behind an ops table shaped like Linux's
 * tcp_congestion_ops (include/net/tcp.h), and a registry by name for
 * TCP_CONGESTION. cwnd and ssthresh are in segments, as Linux keeps them.
 * Modules: reno/newreno (RFC 5681, RFC 6582), cubic (RFC 9438 with HyStart++,
 * RFC 9406; the default, as Linux's), dctcp (RFC 8257), bbr (BBR v1 as
 * Linux's tcp_bbr, driven by delivery-rate samples). An algorithm keeps
 * its state in tcb->cc_priv (Linux's ICSK_CA_PRIV_SIZE, 104 bytes). */
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

/* Linux's tcp_ca_ack_event_flags, for in_ack_event. */
#define CC_ACK_WIN_UPDATE (1u << 1) /* the ACK updated the send window */
#define CC_ACK_ECE	  (1u << 2) /* ECE set on an ECN connection */

#define TCP_CC_NEEDS_ECN (1u << 0) /* TCP_CONG_NEEDS_ECN */
/* The algorithm's sockets pace (Linux's BBR sets sk_pacing_status itself). */
#define TCP_CC_NEEDS_PACING (1u << 1)
#define TCP_CC_NAME_MAX	    16
#define TCP_CC_PRIV_SIZE    104 /* bytes of tcb->cc_priv */

/* One ACK's delivery-rate sample (tcp_rate.c; Linux's struct rate_sample),
 * in bytes. delivered over interval_us is the delivery rate of the
 * window the most recently sent segment this ACK delivered belonged to;
 * both -1 when the ACK gives no sample. */
struct tcp_rate_sample {
	int64_t delivered, interval_us;
	uint64_t prior_delivered; /* the connection's delivered when that segment left */
	uint32_t acked_sacked;	  /* bytes this ACK newly delivered */
	uint32_t losses;	  /* bytes this ACK newly marked lost */
	uint32_t prior_in_flight; /* bytes in flight before the ACK */
	int32_t rtt_us;		  /* of that segment when not resent; -1: none */
	bool is_app_limited;	  /* the window was application-limited */
	bool is_retrans;	  /* that segment was resent */
};

struct tcp_cc_ops {
	/* required: ssthresh and one of cong_avoid and cong_control */
	uint32_t (*ssthresh)(struct tcb *tcb);
	void (*cong_avoid)(struct tcb *tcb, uint32_t ack, uint32_t acked);
	/* optional */
	void (*set_state)(struct tcb *tcb, uint8_t new_state);
	void (*cwnd_event)(struct tcb *tcb, enum tcp_ca_event ev);
	/* rtt_us: this ACK's RTT sample, -1 when it has none. */
	void (*pkts_acked)(struct tcb *tcb, uint32_t acked, int32_t rtt_us);
	/* Every ACK that is not older than snd_una, before any window
	 * reduction it causes; ack is its cumulative acknowledgment (the new
	 * snd_una) and flags CC_ACK_*. */
	void (*in_ack_event)(struct tcb *tcb, uint32_t ack, uint32_t flags);
	uint32_t (*undo_cwnd)(struct tcb *tcb);
	/* Linux's cong_control: when present it runs after every ACK not older
	 * than snd_una, once loss recovery took it, instead of cong_avoid and
	 * of the recovery's own window sizing (PRR, deflation), which it
	 * replaces entirely; it sets cwnd and tcb->pacing_rate itself. */
	void (*cong_control)(struct tcb *tcb, uint32_t ack, const struct tcp_rate_sample *rs);
	uint32_t flags;
	char name[TCP_CC_NAME_MAX];
	void (*init)(struct tcb *tcb);
	void (*release)(struct tcb *tcb);
};

/* The built-in algorithms; NULL for an unknown name (TCP_CONGESTION -ENOENT). */
const struct tcp_cc_ops *cc_find(const char *name);
/* What a socket starts with when the stack names none (Linux's
 * tcp_congestion_control default): cubic. */
const struct tcp_cc_ops *cc_default(void);
/* Names of the built-in algorithms separated by spaces
 * (tcp_available_congestion_control). */
const char *cc_available(void);

/* DCTCP's alpha in 1024ths (Linux's tcp_dctcp_info), -1 unless tcb runs dctcp. */
int32_t cc_dctcp_alpha(const struct tcb *tcb);

extern const struct tcp_cc_ops cc_reno_ops, cc_newreno_ops, cc_cubic_ops, cc_dctcp_ops, cc_bbr_ops;
/* Checks the required ops of a table: 0 or -EINVAL. */
int cc_validate(const struct tcp_cc_ops *ops);

/* Reno building blocks (Linux's tcp_slow_start / tcp_cong_avoid_ai). */
uint32_t cc_slow_start(struct tcb *tcb, uint32_t acked);
void cc_cong_avoid_ai(struct tcb *tcb, uint32_t w, uint32_t acked);
bool cc_is_cwnd_limited(const struct tcb *tcb);
/* Reno's ops, for algorithms that fall back to it (dctcp without ECN). */
uint32_t cc_reno_ssthresh(struct tcb *tcb);
void cc_reno_cong_avoid(struct tcb *tcb, uint32_t ack, uint32_t acked);
uint32_t cc_reno_undo_cwnd(struct tcb *tcb);

/* NULL-checking wrappers for the optional ops. */
void cc_init(struct tcb *tcb);
void cc_release(struct tcb *tcb);
void cc_set_state(struct tcb *tcb, uint8_t st);
void cc_event(struct tcb *tcb, enum tcp_ca_event ev);
void cc_pkts_acked(struct tcb *tcb, uint32_t acked, int32_t rtt_us);
void cc_in_ack_event(struct tcb *tcb, uint32_t ack, uint32_t flags);
/* cong_avoid, unless cong_control sizes the window. */
void cc_cong_avoid(struct tcb *tcb, uint32_t ack, uint32_t acked);

/* BBR's state for tcp_info (Linux's tcp_bbr_info): false unless tcb runs bbr. */
struct cc_bbr_info {
	uint64_t bw;			 /* bytes a second */
	uint32_t min_rtt_us;		 /* UINT32_MAX: none yet */
	uint32_t min_rtt_stamp_ms;	 /* when it was taken (stack clock) */
	uint32_t pacing_gain, cwnd_gain; /* in 256ths */
	uint8_t mode;			 /* 0 startup, 1 drain, 2 probe_bw, 3 probe_rtt */
};
bool cc_bbr_get_info(const struct tcb *tcb, struct cc_bbr_info *out);

/* The algorithm's private state in tcb->cc_priv. */
#define CC_PRIV(tcb, type) ((type *)(void *)(tcb)->cc_priv)

#endif
