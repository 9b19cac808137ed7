/* tcb: the connection's state, private to stack/tcp (tcp_int.h includes
 * it; outside, a struct tcb is opaque and read through tcp.h's functions).
 * docs/tcp.md "Who owns what in a tcb" says which file writes what. */
#ifndef SKOPS_STACK_TCP_TCB_H
#define SKOPS_STACK_TCP_TCB_H

#include "tcp.h"

/* A byte ring used for both send and receive buffers; memory on demand. */
struct tcp_ring {
	uint8_t *buf;
	uint32_t cap;  /* allocated bytes (0 when idle) */
	uint32_t head; /* offset of the first byte */
	uint32_t len;  /* bytes held from head */
};

#define TCP_MSS_DEFAULT	 536u /* RFC 9293 §3.7.1: the send MSS without an MSS option */
#define TCP_MAX_SYN_GAPS 8    /* SYN retransmission gaps a tcb records (tcp_get_info) */
/* The receiver's out-of-order ranges (tcp_ooo.c): sorted, disjoint, in an
 * array taken on the first segment beyond a hole and grown with the holes
 * (as Linux's out-of-order queue holds any number of segments within the
 * receive buffer), freed when the last hole fills. The bytes themselves sit
 * in the receive ring, so the receive buffer bounds them; TCP_OOO_MAX bounds
 * the ranges whatever the peer sends (a segment that would need one more is
 * dropped and counted in ooo_drop). */
#define TCP_OOO_MAX  4096
#define TCP_OOO_MIN  8 /* ranges in the first array */
#define TCP_OOO_HIST 3 /* earlier arrivals whose blocks are repeated (RFC 2018 §4) */

/* Output turns (tcp_outq.c, with tcp_config.tx_room): new data segments a
 * connection sends per turn, and transmit-queue frames left to ACKs,
 * handshakes and retransmissions. */
#define TCP_OUT_BURST  16
#define TCP_TX_RESERVE 64

enum tcp_timer {
	TCP_T_RTX = 0, /* retransmission (SYN, SYN-ACK, data, FIN) and persist */
	TCP_T_DELACK,
	TCP_T_KEEP, /* keepalive, FIN_WAIT_2 and TIME_WAIT */
	TCP_T_REO,  /* RACK reordering timer (RFC 8985 §6.3) */
	TCP_T_TLP,  /* tail loss probe (RFC 8985 §7.2) */
	TCP_T_PACE, /* the next paced segment's departure (tcp_pacing.c) */
	TCP_T_N,
};

/* [l, r) in sequence space: the SACK board's and the out-of-order queue's
 * entries, kept sorted and disjoint (tcp_ranges.c). */
struct tcp_seq_range {
	uint32_t l, r;
};

/* A request's SYN options as they came (tcb.syn_opt). */
struct tcp_syn_opt {
	uint8_t len;
	uint8_t b[TCP_OPT_SPACE];
};

/* A SYN's headers kept by TCP_SAVE_SYN (Linux struct saved_syn): Ethernet
 * (only for TCP_SAVE_SYN 2), IP, TCP, in that order in data. */
struct tcp_saved_syn {
	uint16_t mac_len, net_len, tcp_len;
	uint8_t data[];
};

/* The sender's SACK scoreboard (RFC 6675 §2-4; owner: tcp_sack.c): SACKed
 * ranges above snd_una, sorted and disjoint, in an array taken on the first
 * SACK block and grown as holes multiply (a 5 % loss across a megabyte
 * flight leaves hundreds), up to TCP_SB_MAX ranges whatever the peer sends;
 * a block that would need more is ignored: the data it covers counts as
 * un-SACKed, which is safe. */
#define TCP_SB_MAX 4096
#define TCP_SB_MIN 16 /* ranges in the first array */
struct tcp_sack_sb {
	uint32_t n;	 /* ranges in b */
	uint32_t cap;	 /* ranges b has room for (0: none taken) */
	uint32_t sacked; /* bytes in b */
	uint32_t dsacks; /* D-SACK blocks received (RFC 2883) */
	struct tcp_seq_range *b;
};

/* Loss recovery (owner: tcp_recovery.c, with tcp_rec.h's inlines for the
 * writes every ACK makes from tcp_ack.c): RFC 6582's recovery point and
 * the duplicate-ACK count (NewReno's and RFC 6675's), the flight the ACK
 * being processed found (the CC's view), and for SACK connections RFC 6675
 * with PRR (RFC 6937), RTO recovery, undo (Linux's undo_marker) and F-RTO. */
enum tcp_sb_mode { TCP_SB_OPEN = 0, TCP_SB_RECOVERY, TCP_SB_LOSS };
struct tcp_recovery {
	uint8_t mode; /* TCP_SB_*: who drives retransmission */
	bool rescued; /* RFC 6675 rule 4 used in this recovery */
	bool undo;    /* undo_marker is set: a reduction may still be undone */
	/* F-RTO (RFC 5682 §3, SACK-enhanced) after an RTO */
	bool frto;		 /* the timeout may still prove spurious */
	bool frto_new;		 /* step 2b: this ACK sends new data, not holes */
	uint8_t dupacks;	 /* duplicate ACKs since snd_una last moved */
	uint32_t recover;	 /* RFC 6582's recovery point (RFC 6675's RecoveryPoint) */
	uint32_t prior_inflight; /* bytes in flight before the ACK being processed */
	uint32_t high_rxt;	 /* HighRxt: end of the highest retransmitted hole */
	uint32_t lost_high;	 /* after an RTO: all un-SACKed data below is lost */
	uint32_t prr_delivered;	 /* RFC 6937, bytes */
	uint32_t prr_out;
	uint32_t snd_budget;	/* bytes PRR allows this ACK (RECOVERY) */
	uint32_t undo_marker;	/* snd_una when the last reduction began (undo armed) */
	uint32_t undo_retrans;	/* its retransmissions not yet D-SACKed */
	uint32_t undos;		/* reductions undone */
	uint32_t spurious_rtos; /* RTOs undone as spurious (tcp_info) */
	uint32_t rto_tsval;	/* F-RTO: our TSval when the head was first resent (Eifel) */
};

/* RACK-TLP (RFC 8985, tcp_rack.c, tcp_tlp.c): when each segment in flight
 * was last sent. Records are sorted and disjoint by sequence and cover
 * [snd_una, snd_max) while `whole` holds; a retransmission splits the
 * record it resends. The array is taken when data leaves an idle
 * connection, grows up to TCP_RACK_MAX records and is freed when all is
 * acknowledged; past the bound (or short of memory) the records are not
 * whole and loss detection falls back to DupThresh until idle. */
#define TCP_RACK_MAX  16384
#define TCP_RACK_MIN  64
#define TCP_RS_RTX    1u /* retransmitted at least once */
#define TCP_RS_LOST   2u /* deemed lost and not resent since */
#define TCP_RS_SACKED 4u /* delivered (SACKed) */
#define TCP_RS_APPLIM 8u /* sent while the sender was application-limited (tcp_rate.c) */
struct tcp_rack_seg {
	uint64_t xmit_ns;
	uint32_t seq, end;
	uint32_t flags; /* TCP_RS_* */
	/* delivery-rate state when it was sent (tcp_rate.c): the
	 * connection's delivered bytes, when they last grew, and when the
	 * send phase of the window it belongs to began */
	uint64_t delivered, delivered_ns, first_tx_ns;
};
struct tcp_rack {
	struct tcp_rack_seg *s;
	uint32_t head, n, cap; /* records s[head, head + n) */
	uint32_t nlost;	       /* records with TCP_RS_LOST */
	uint32_t lost;	       /* segments ever deemed lost (Linux's tp->lost) */
	bool whole;	       /* the records cover what is in flight */
	bool reord;	       /* reordering seen (RFC 8985 §6.2 step 3) */
	uint8_t reo_steps;     /* reo_wnd in min_rtt/4 steps, grown by D-SACKs */
	uint8_t reo_persist;   /* recoveries left before the steps reset */
	uint64_t xmit_ns;      /* RACK.xmit_ts: latest send delivered */
	uint32_t end_seq;      /* RACK.end_seq */
	uint32_t rtt_us;       /* RACK.rtt */
	uint32_t fack;	       /* highest end delivered */
	uint32_t rtx_hi;       /* records from here on were sent once, in order */
	uint64_t dsack_ns;     /* when reo_steps last grew */
	uint64_t last_ns;      /* the last send's stamp: stamps only grow */
};

/* The tail loss probe (RFC 8985 §7; owner: tcp_tlp.c). */
struct tcp_tlp {
	uint32_t high;		    /* TLPRxtOut: snd_max when the probe left */
	bool out;		    /* a probe is outstanding for this tail episode */
	bool rtx;		    /* the probe was a retransmission */
	uint32_t probes, recovered; /* probes sent, losses one repaired (tcp_info) */
};

/* Delivery-rate estimation (tcp_rate.c, Linux's tcp_rate.c) over the RACK
 * records; bytes and ns. The sample one ACK builds lives in the stack
 * (struct tcp_rate_ack, tcp_int.h), not in every idle connection. */
struct tcp_rate {
	uint64_t delivered;    /* bytes cumulatively acked or SACKed, ever */
	uint64_t delivered_ns; /* when delivered last grew */
	uint64_t first_tx_ns;  /* send time of the latest segment delivered */
	uint64_t app_limited;  /* delivered + in flight when the sender ran dry; 0: not */
};

/* Receive-buffer autotuning (tcp_rcvbuf.c; Linux's rcvq_space and
 * rcv_rtt_est): what the application read in the last measured RTT. */
struct tcp_rcvq_space {
	uint32_t copied;     /* bytes the application has read, mod 2^32 (copied_seq) */
	uint32_t seq;	     /* copied when this measurement began */
	uint32_t space;	     /* bytes read in the last RTT measured */
	uint32_t last_tsecr; /* one timestamp sample per echoed value */
	uint64_t time_ns;    /* when this measurement began */
	uint32_t rtt_us8;    /* the receiver's RTT estimate × 8; 0: none yet */
	uint32_t rtt_seq;    /* a window sample ends when rcv_nxt reaches it */
	uint64_t rtt_ns;     /* when that window was opened; 0: none */
};

/* What went through the connection, for tcp_info and the sock_ops context
 * (owner: tcp_count.h, whose inline functions each file calls where the
 * event happens). */
struct tcp_conn_counts {
	uint64_t bytes_acked;	 /* data bytes the peer acknowledged */
	uint64_t bytes_received; /* data bytes taken in order */
	uint64_t bytes_sent;	 /* new data bytes sent */
	uint64_t bytes_retrans;	 /* data bytes sent again */
	uint32_t segs_in, segs_out, data_segs_in, data_segs_out;
	uint32_t total_retrans; /* retransmitted segments, SYNs included */
};

/* The send sequence space (RFC 9293 §3.3.1; owner: tcp_output.c). */
struct tcp_sndseq {
	uint32_t una, nxt; /* SND.UNA, SND.NXT (nxt moves back for go-back-N) */
	uint32_t max;	   /* the highest sequence number sent, plus one */
	uint32_t wnd;	   /* SND.WND, bytes (scaled) */
	uint32_t wl1, wl2; /* SND.WL1, SND.WL2: the segment that last set wnd */
	uint32_t iss;	   /* ISS */
	uint32_t max_wnd;  /* largest window the peer offered */
	uint64_t lsnd_ns;  /* the last data segment sent, new or resent (Linux's lsndtime) */
};

/* The receive sequence space (RFC 9293 §3.3.1; owner: tcp_rcv.c, with
 * tcp_rcvseq.h's inlines for the writes the output and input paths make):
 * RCV.NXT and the window we offered, the FIN held beyond a hole, the
 * D-SACK to report, and RFC 7323 §4.3's TS.Recent with Last.ACK.sent (the
 * receiver's record of the peer's clock and of the ACK it checks against). */
struct tcp_rcvseq {
	uint32_t nxt;		   /* RCV.NXT */
	uint32_t wnd;		   /* RCV.WND: the window last advertised, bytes */
	uint32_t adv;		   /* its right edge, nxt + wnd when it was sent */
	uint32_t irs;		   /* IRS */
	uint32_t ssthresh;	   /* advertised window cap, grows with data (Linux) */
	uint32_t unacked;	   /* bytes received since our last ACK */
	uint32_t ts_recent;	   /* TS.Recent */
	uint32_t ts_last_ack_sent; /* Last.ACK.sent */
	uint64_t ts_recent_ns;	   /* when TS.Recent was taken */
	uint32_t ooo_fin_seq;	   /* a FIN held beyond a hole, when ooo_fin */
	uint32_t dsack_l, dsack_r; /* the D-SACK block to report, when dsack */
	bool ooo_fin;
	bool dsack; /* [dsack_l, dsack_r) to report (RFC 2883) */
};

/* The receiver's out-of-order ranges (owner: tcp_ooo.c; the limits above). */
struct tcp_ooo_q {
	struct tcp_seq_range *r;
	uint32_t n, cap;	     /* ranges held in r, room (0: none taken) */
	uint32_t recent;	     /* a byte of the most recently received out-of-order segment */
	uint32_t hist[TCP_OOO_HIST]; /* bytes of the arrivals before it, newest first */
	uint8_t hist_n;
};

/* What the socket options set (owner: tcp_sockopt.c, where setsockopt and
 * a sock_ops program's bpf_setsockopt write them; a new socket's defaults
 * and a listener's child's inheritance go through it too). */
struct tcp_opts {
	uint32_t keep_idle_s, keep_intvl_s, keep_cnt; /* TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT */
	uint32_t syn_retries;			      /* TCP_SYNCNT */
	uint32_t user_timeout_ms;		      /* TCP_USER_TIMEOUT */
	uint32_t notsent_lowat, rcvlowat;	      /* TCP_NOTSENT_LOWAT, SO_RCVLOWAT */
	uint32_t mark, priority;		      /* SO_MARK, SO_PRIORITY */
	uint32_t rto_min_us, delack_max_us;	      /* TCP_BPF_RTO_MIN, TCP_BPF_DELACK_MAX */
	uint32_t window_clamp;			      /* TCP_WINDOW_CLAMP */
	uint16_t user_mss;			      /* TCP_MAXSEG */
	uint8_t tos; /* DSCP bits of IP_TOS / IPV6_TCLASS (ECN bits are ours) */
	/* TCP_SAVE_SYN: 0 off, 1 IP and TCP headers, 2 from the Ethernet header */
	uint8_t save_syn;
};

/* The connection's timers (owner: tcp_timer.c, through tcp_timer_set and
 * tcp_timer_clear): each one's deadline, and the wheel slot that holds the
 * earliest. */
struct tcp_timers {
	uint64_t at[TCP_T_N];	   /* deadline in ns of the stack clock; 0: not armed */
	struct tcb *next, **pprev; /* the wheel slot's list; pprev NULL: on no slot */
	uint64_t when_ns;	   /* the deadline the slot was chosen for */
};

/* Pacing (owner: tcp_pacing.c), bytes a second; UINT64_MAX is no limit. */
struct tcp_pacing {
	uint64_t rate;	   /* the CC-driven rate (or the CC's own, BBR), capped by max_rate */
	uint64_t max_rate; /* SO_MAX_PACING_RATE */
	uint64_t next_ns;  /* the next segment's departure */
	uint64_t debt_ns;  /* the time late wakes lost while it waited, earned back */
	bool req;  /* SO_MAX_PACING_RATE asked for pacing (sticky, Linux's sk_pacing_status) */
	bool held; /* pacing made it wait (TCP_T_PACE armed) */
};

/* The RTT estimator (owner: tcp_timer.c; RFC 6298), in µs. */
struct tcp_rtt_est {
	uint32_t srtt_us8;   /* smoothed RTT × 8; 0: no sample yet */
	uint32_t rttvar_us4; /* RTT variation × 4 */
	uint32_t rto_us;     /* the retransmission timeout, before backoff */
	uint32_t min_us;     /* the smallest sample; 0: none yet */
	/* Karn (RFC 6298 §3): the segment being timed, while TCB_F_RTT_TIMING */
	uint32_t timed_seq;
	uint64_t timed_ns; /* when it left */
};

/* The retransmission timer's state (owner: tcp_timer.c). */
struct tcp_rtx_state {
	uint32_t backoff;     /* doublings of the RTO (RFC 6298 §5.5) */
	uint32_t retransmits; /* timeouts since the head was last acknowledged */
	uint64_t first_ns;    /* first retransmission of the head (TCP_USER_TIMEOUT); 0: none */
};

/* Congestion control (owner: tcp_cc.c, which alone writes it; the
 * algorithm's decisions come back through struct tcp_cc_view). Windows in
 * segments, as Linux keeps them. */
struct tcp_cc_state {
	const struct tcp_cc_ops *ops;
	uint32_t cwnd, ssthresh;
	uint32_t cwnd_cnt;		     /* segments ACKed towards the next increment */
	uint32_t cwnd_clamp;		     /* TCP_BPF_SNDCWND_CLAMP; 0 until established */
	uint32_t prior_cwnd, prior_ssthresh; /* before the last reduction (undo) */
	uint32_t max_cwnd;		     /* largest cwnd after any ACK, for tcp_info */
	uint32_t initial_cwnd;		     /* TCP_BPF_IW; 0 until established: TCP_INIT_CWND */
	uint8_t ca_state;		     /* TCP_CA_* */
	uint64_t priv[10];		     /* TCP_CC_PRIV_SIZE: the algorithm's state */
};

/* marked sends a connection follows at once (Linux: one per skb) */
#define TCP_TSTAMP_KEYS 4

struct tcb {
	/* ---- hot ---- */
	struct tcp_tuple t;
	uint8_t state;
	uint8_t snd_wscale, rcv_wscale;
	bool sml_sent;
	uint32_t flags; /* TCB_F_* */
	struct tcp_sndseq send;
	struct tcp_rcvseq recv;
	uint32_t ts_off;
	uint32_t snd_sml;      /* end of the last small segment sent, if sml_sent */
	uint64_t last_oow_ns;  /* last ACK for a refused segment (0: none) */
	uint16_t mss, rcv_mss; /* send payload per segment, advertised MSS */
	uint16_t peer_mss;     /* the peer's MSS option (TCP_MSS_DEFAULT without) */
	bool out_q;	       /* on the output queue (tcp_outq.c) */
	uint8_t pend;	       /* TCB_P_*: what a sock_ops call asked for */
	uint32_t pmtu;
	/* Linux's is_cwnd_limited and cwnd_usage_seq (tcp_cwnd_validate,
	 * tcp_output.c): a send since the window ending at cwnd_usage_seq
	 * left cwnd full (cwnd_limited sits below, where a byte packs) */
	uint32_t cwnd_usage_seq;
	struct tcp_cc_state cc;
	struct tcp_rtt_est rtt;
	struct tcp_rtx_state rtx;
	struct tcp_ring snd, rcv;
	uint32_t sndbuf, rcvbuf;
	struct tcp_ooo_q ooo;
	struct tcp_timers tm;
	/* hash table slot owner, list linkage */
	struct tcb *next, *prev; /* the tcp's all-connections list, or a listener's queues */
	struct tcb *parent;	 /* listener of a child not yet accepted */
	struct tcb *dirty_next;	 /* events pending delivery */
	struct tcb *pend_next;	 /* effects pending application (tcp_effect.c) */
	struct tcb *out_next;	 /* waiting for its output turn (tcp_outq.c) */
	struct tcb *bind_next;	 /* the port table's chain, while TCB_F_BOUND */
	/* ---- cold ---- */
	struct hooks_sock hs;
	struct tcp *tcp;
	int sd; /* socket descriptor, -1 when orphaned */
	/* The socket's family. An IPv4 connection of an AF_INET6 socket (an
	 * IPv4 peer of a dual-stack listener, a connect to ::ffff:a.b.c.d)
	 * has an AF_INET tuple and sk_family AF_INET6, as Linux keeps
	 * sk_family while the connection runs on IPv4 (v4-mapped). */
	uint8_t sk_family;
	bool v6only; /* IPV6_V6ONLY, or bound to a specific IPv6 address */
	/* option bytes the programs reserved when asked for the current MSS
	 * (HDR_OPT_LEN_CB without a segment); data segments carry that much
	 * less payload (Linux tcp_current_mss) */
	uint8_t so_opt_mss;
	uint8_t txrehash; /* SO_TXREHASH (tcp_pathopt.c, below) */
	int err;	  /* pending SO_ERROR (positive errno) */
	uint32_t ev_seen; /* events last reported to the callback */
	uint16_t backlog, nq_syn, nq_acc;
	bool reuseport, thin_lto;	 /* tcp_pathopt.c, below */
	uint64_t cookie_ns;		 /* listener: the last SYN cookie sent (0: none) */
	struct tcb *acc_head, *acc_tail; /* listener: established children */
	struct tcb *syn_head;		 /* listener: children in SYN_RECEIVED */
	struct tcp_opts opt;
	uint32_t keep_probes;
	uint32_t txhash;
	uint32_t syn_rto_us, syn_tx, syn_wnd;
	uint64_t syn_last_ns;
	uint16_t syn_gaps_ms[TCP_MAX_SYN_GAPS]; /* saturating at 65535 */
	/* a request's SYN options, for the programs writing its SYN-ACK's
	 * (bpf_load_hdr_opt with BPF_LOAD_HDR_OPT_TCP_SYN): taken only when
	 * they write header options, freed once established (tcp_sockops.c) */
	struct tcp_syn_opt *syn_opt;
	/* on a listener's child, the SYN's headers it kept (opt.save_syn) */
	struct tcp_saved_syn *saved_syn;
	/* tcp_pathopt.c: SO_BINDTOIFINDEX (0: any port), SO_REUSEPORT and the
	 * owner it shares with, SO_TXREHASH, TCP_THIN_LINEAR_TIMEOUTS (those
	 * three above, where they pack), IPV6_AUTOFLOWLABEL (-1: not set, the
	 * default applies) */
	uint32_t bound_if, uid;
	int8_t autoflowlabel;
	bool cwnd_limited; /* with cwnd_usage_seq above */
	uint32_t ecn_seen;
	struct tcp_conn_counts cnt;
	struct tcp_sack_sb sb;
	struct tcp_recovery rec;
	struct tcp_rack rack;
	struct tcp_tlp tlp;
	struct tcp_rcvq_space rcvq;
	struct tcp_pacing pace;
	struct tcp_rate rate;
	/* BPF TX timestamping: the last bytes of sends a program marked
	 * (bpf_sock_ops_enable_tx_tstamp; Linux's skb tskey), oldest first,
	 * and which were sent at least once; owned by tcp_sockops.c */
	struct tcp_tstamp_keys {
		uint32_t key[TCP_TSTAMP_KEYS];
		uint8_t n, sent;
	} tsk;
	/* read only once our FIN is out; here it fills tsk's tail */
	uint32_t fin_seq; /* sequence number of our FIN when TCB_F_FIN_SENT */
};
/* Its size with the sub-states grouped; grow it knowingly: an idle
 * connection (tcb, socket slot, hash slots) is held to 1.3 KiB (issue 28;
 * test/bench/stack_bench). 1336 before the per-ACK rate sample moved to the
 * stack, the CC's private area shrank to 72 bytes, the SYN's options
 * went to the heap and the SYN gaps to 16-bit milliseconds. */
_Static_assert(sizeof(struct tcb) <= 1168, "struct tcb grew past 1168 bytes");

#define TCB_F_TS	   (1u << 0) /* timestamps negotiated */
#define TCB_F_SACK	   (1u << 1) /* SACK permitted both ways */
#define TCB_F_WS	   (1u << 2) /* window scaling both ways */
#define TCB_F_ECN	   (1u << 3) /* ECN negotiated */
#define TCB_F_ECN_WANT	   (1u << 4) /* NEEDS_ECN replied 1 / the SYN asked */
#define TCB_F_NODELAY	   (1u << 5)
#define TCB_F_KEEPALIVE	   (1u << 6)
#define TCB_F_FIN_QUEUED   (1u << 7) /* shutdown(SHUT_WR): FIN after the data */
#define TCB_F_FIN_SENT	   (1u << 8)
#define TCB_F_FIN_RCVD	   (1u << 9)
#define TCB_F_RD_SHUT	   (1u << 10)
#define TCB_F_ACK_NOW	   (1u << 11)
#define TCB_F_DELACK	   (1u << 12) /* an ACK is owed, delayed */
#define TCB_F_RTT_TIMING   (1u << 13)
#define TCB_F_SNDBUF_LOCK  (1u << 14)
#define TCB_F_RCVBUF_LOCK  (1u << 15)
#define TCB_F_ECE_PENDING  (1u << 16) /* CE received: echo ECE until CWR */
#define TCB_F_CWR_PENDING  (1u << 17) /* window reduced: set CWR on next data */
#define TCB_F_DATA_SENT	   (1u << 18) /* a data segment went out (TCP_BPF_IW) */
#define TCB_F_PERSIST	   (1u << 19) /* the RTX timer is the persist timer */
#define TCB_F_ORPHAN	   (1u << 20) /* closed by the user, finishing */
#define TCB_F_LISTEN_CHILD (1u << 21)
#define TCB_F_CC_INIT	   (1u << 22)
#define TCB_F_INQ	   (1u << 23) /* on the dirty list */
#define TCB_F_REUSEADDR	   (1u << 24)
#define TCB_F_BOUND	   (1u << 25)
#define TCB_F_HASHED	   (1u << 26)
#define TCB_F_SYN_ECN	   (1u << 27) /* the SYN we got asked for ECN */
#define TCB_F_IN_RECOVERY  (1u << 28)
#define TCB_F_ACCQ	   (1u << 29) /* on the listener's accept queue */
#define TCB_F_PENDQ	   (1u << 30) /* on the pending-effects list */
#define TCB_F_SYN_ECT	   (1u << 31) /* our SYN goes out ECT(0): a program or the CC wants ECN */

/* Effects a setsockopt recorded for the outermost caller to apply on its way
 * out of tcp (tcp_effect.c): nothing under a sock_ops call sends, changes
 * state, frees or reallocates memory another frame may be using. */
#define TCB_P_OUTPUT (1u << 0) /* run tcp_output (TCP_NODELAY on, TCP_BPF_IW) */
#define TCB_P_MSS    (1u << 1) /* recompute the send MSS (TCP_MAXSEG) */
#define TCB_P_KEEP   (1u << 2) /* re-arm or stop keepalive (SO_KEEPALIVE, TCP_KEEPIDLE) */
#define TCB_P_RCVBUF (1u << 3) /* grow the receive ring to rcvbuf (SO_RCVBUF) */

#endif
