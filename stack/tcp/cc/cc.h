/* cc: congestion control behind an ops table shaped like Linux's
 * tcp_congestion_ops (include/net/tcp.h), and a registry by name for
 * TCP_CONGESTION. cwnd and ssthresh are in segments, as Linux keeps them.
 * Modules: reno/newreno (RFC 5681, RFC 6582), cubic (Linux's tcp_cubic with
 * its HyStart; the default, as Linux's), cubic_rfc (RFC 9438 with HyStart++,
 * RFC 9406), dctcp (RFC 8257), bbr (BBR v1 as Linux's tcp_bbr, driven by
 * delivery-rate samples).
 *
 * A module sees a connection only through struct tcp_cc_view (FreeBSD's
 * struct cc_var): the stack (tcp_cc.c) fills it from the tcb before each
 * event, the module reads it and sets the window, ssthresh and pacing rate
 * in it, and the stack takes them back after the call. A module never
 * sends: it asks for ACKs through the view. It includes this header and
 * standard headers only; its state lives in view->priv (Linux's
 * ICSK_CA_PRIV_SIZE is 104 bytes; 72 here, the largest module's
 * state, because every idle connection carries it). */
#ifndef SKOPS_STACK_TCP_CC_CC_H
#define SKOPS_STACK_TCP_CC_CC_H

#include <stdbool.h>
#include <stdint.h>

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
#define TCP_CC_PRIV_SIZE    80	 /* bytes of view->priv */
#define CC_MSS_DEFAULT	    536u /* RFC 9293 §3.7.1, the stack's TCP_MSS_DEFAULT */
#define CC_INIT_CWND	    10u	 /* RFC 6928, the stack's TCP_INIT_CWND */
#define CC_NS_PER_US	    1000ull
#define CC_NS_PER_MS	    1000000ull
/* Sequence arithmetic modulo 2^32 (RFC 9293 §3.4), as the stack's SEQ_*. */
#define CC_SEQ_LT(a, b)	 ((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define CC_SEQ_GEQ(a, b) (!CC_SEQ_LT(a, b))

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

struct tcp_cc_ops;

/* The stack's tick rate, Linux's HZ, when tcp_config.hz is 0: 250, the
 * CONFIG_HZ of Debian's and most distributions' kernels, so that timers
 * and cubic's clock tick as a Linux peer's do (docs/tcp.md "Timers and
 * HZ"). The one place the default is set. */
#define TCP_HZ_DEFAULT 250u

/* One connection as an algorithm sees it for one event. */
struct tcp_cc_view {
	/* read only: what the stack knows */
	uint64_t now_ns;	   /* the stack's clock */
	uint64_t lsndtime_ns;	   /* the last data segment sent (Linux's lsndtime); 0: none */
	uint32_t hz;		   /* the stack's tick rate (tcp_config.hz), Linux's HZ */
	uint32_t mss;		   /* send MSS in bytes; 0 before it is known */
	uint32_t snd_una, snd_nxt; /* sequence space */
	uint32_t iss;		   /* our initial sequence number */
	uint32_t prior_inflight;   /* bytes in flight before the ACK being processed */
	bool cwnd_limited;	   /* a send in the window now acknowledged filled cwnd (Linux's) */
	uint32_t inflight;	   /* bytes in flight now: set for cong_control only */
	uint32_t srtt_us8;	   /* smoothed RTT × 8 in µs; 0: no sample yet */
	uint32_t min_rtt_us;	   /* the connection's minimum RTT; 0: none yet */
	uint32_t initial_cwnd;	   /* TCP_BPF_IW's window; 0: CC_INIT_CWND */
	uint32_t cwnd_clamp;	   /* cwnd never exceeds it (TCP_BPF_SNDCWND_CLAMP) */
	uint32_t prior_cwnd;	   /* cwnd before the last reduction (undo) */
	uint64_t delivered;	   /* bytes ever delivered (tcp_rate.c) */
	uint64_t delivered_ns;	   /* when delivered last grew */
	uint32_t lost;		   /* segments ever deemed lost (Linux's tp->lost) */
	uint64_t max_pacing_rate;  /* SO_MAX_PACING_RATE, bytes a second */
	uint8_t ca_state;	   /* TCP_CA_* before this event */
	bool ecn;		   /* ECN negotiated */
	bool sack;   /* SACK negotiated (the stack paces a cong_control CC only then) */
	bool delack; /* an ACK for received data is being delayed */
	bool paced;  /* the connection paces (Linux's sk_pacing_status not NONE) */
	/* read and set: the stack takes them back after the call */
	uint32_t cwnd, ssthresh; /* segments */
	uint32_t cwnd_cnt;	 /* segments ACKed towards the next increment */
	uint64_t pacing_rate;	 /* bytes a second */
	/* delivered + in flight when the sender ran dry, 0: not limited;
	 * BBR marks PROBE_RTT's bubble with it */
	uint64_t app_limited;
	bool ece; /* our ACKs echo ECE */
	/* requests, false before each call */
	bool ack_now;	/* ACK the segment being processed at once */
	bool flush_ack; /* send the delayed ACK now, echoing flush_ece, before ece applies */
	bool flush_ece;
	/* init only: run this algorithm instead (DCTCP without ECN) */
	const struct tcp_cc_ops *fallback;
	void *priv; /* TCP_CC_PRIV_SIZE bytes, zero when the algorithm is attached */
};

struct tcp_cc_ops {
	/* required: ssthresh and one of cong_avoid and cong_control */
	uint32_t (*ssthresh)(struct tcp_cc_view *v);
	void (*cong_avoid)(struct tcp_cc_view *v, uint32_t ack, uint32_t acked);
	/* optional */
	void (*set_state)(struct tcp_cc_view *v, uint8_t new_state);
	void (*cwnd_event)(struct tcp_cc_view *v, enum tcp_ca_event ev);
	/* rtt_us: this ACK's RTT sample, -1 when it has none. */
	void (*pkts_acked)(struct tcp_cc_view *v, uint32_t acked, int32_t rtt_us);
	/* Every ACK that is not older than snd_una, before any window
	 * reduction it causes; ack is its cumulative acknowledgment (the new
	 * snd_una) and flags CC_ACK_*. */
	void (*in_ack_event)(struct tcp_cc_view *v, uint32_t ack, uint32_t flags);
	uint32_t (*undo_cwnd)(struct tcp_cc_view *v);
	/* Linux's cong_control: when present it runs after every ACK not older
	 * than snd_una, once loss recovery took it, instead of cong_avoid and
	 * of the recovery's own window sizing (PRR, deflation), which it
	 * replaces entirely; it sets cwnd and pacing_rate itself. */
	void (*cong_control)(struct tcp_cc_view *v, uint32_t ack, const struct tcp_rate_sample *rs);
	uint32_t flags;
	char name[TCP_CC_NAME_MAX];
	void (*init)(struct tcp_cc_view *v);
	void (*release)(struct tcp_cc_view *v);
};

/* The built-in algorithms; NULL for an unknown name (TCP_CONGESTION -ENOENT). */
const struct tcp_cc_ops *cc_find(const char *name);
/* What a socket starts with when the stack names none (Linux's
 * tcp_congestion_control default): cubic. */
const struct tcp_cc_ops *cc_default(void);
/* Names of the built-in algorithms separated by spaces
 * (tcp_available_congestion_control). */
const char *cc_available(void);

extern const struct tcp_cc_ops cc_reno_ops, cc_newreno_ops, cc_cubic_ops, cc_cubic_rfc_ops,
    cc_dctcp_ops, cc_bbr_ops;
/* Checks the required ops of a table: 0 or -EINVAL. */
int cc_validate(const struct tcp_cc_ops *ops);

/* Reno building blocks (Linux's tcp_slow_start / tcp_cong_avoid_ai). */
uint32_t cc_slow_start(struct tcp_cc_view *v, uint32_t acked);
void cc_cong_avoid_ai(struct tcp_cc_view *v, uint32_t w, uint32_t acked);
bool cc_is_cwnd_limited(const struct tcp_cc_view *v);
/* Reno's ops, for algorithms that fall back to it (dctcp without ECN). */
uint32_t cc_reno_ssthresh(struct tcp_cc_view *v);
void cc_reno_cong_avoid(struct tcp_cc_view *v, uint32_t ack, uint32_t acked);
uint32_t cc_reno_undo_cwnd(struct tcp_cc_view *v);

/* CUBIC's multiplicative decrease with fast convergence, both variants':
 * updates W_max and returns ssthresh max(cwnd·717/1024, 2). */
uint32_t cc_cubic_md(uint32_t cwnd, uint32_t *w_max);
/* Linux's cubic_root: the cube root of a within about 0.2 %, integer. */
uint32_t cc_cubic_root(uint64_t a);

/* Linux CUBIC's state (struct bictcp), for tests and diagnostics. */
struct cc_cubic_info {
	uint32_t cnt, last_max_cwnd, origin;
	uint32_t k; /* 1/1024 s */
	uint32_t delay_min_us;
	uint32_t epoch_start; /* jiffies (Linux's tcp_jiffies32); 0: none */
	uint32_t tcp_cwnd;    /* the Reno estimate */
	bool found;	      /* HyStart ended slow start */
};
/* false unless ops is cubic. */
bool cc_cubic_info_of(const struct tcp_cc_ops *ops, const void *priv, struct cc_cubic_info *out);

/* DCTCP's alpha in 1024ths (Linux's tcp_dctcp_info) from the state of a
 * connection running ops; -1 unless ops is dctcp. */
int32_t cc_dctcp_alpha_of(const struct tcp_cc_ops *ops, const void *priv);

/* BBR's state for tcp_info (Linux's tcp_bbr_info). */
struct cc_bbr_info {
	uint64_t bw;			 /* bytes a second */
	uint32_t min_rtt_us;		 /* UINT32_MAX: none yet */
	uint32_t min_rtt_stamp_ms;	 /* when it was taken (stack clock) */
	uint32_t pacing_gain, cwnd_gain; /* in 256ths */
	uint8_t mode;			 /* 0 startup, 1 drain, 2 probe_bw, 3 probe_rtt */
	bool lt_use_bw;			 /* bw is the long-term (policer) rate */
};
/* false unless ops is bbr (or a table wrapping it). */
bool cc_bbr_info_of(const struct tcp_cc_ops *ops, const void *priv, struct cc_bbr_info *out);

/* The algorithm's private state. */
#define CC_PRIV(v, type) ((type *)(v)->priv)

#endif
