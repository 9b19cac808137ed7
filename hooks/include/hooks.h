/* hooks: sock_ops for the stack. The only layer that knows both BPF and TCP.
 * stack/ embeds a struct hooks_sock in each socket (and in each request while
 * a SYN is being answered), implements struct hooks_sock_ops, and calls one
 * typed wrapper per call site; the default and clamps live in the wrapper.
 * Read docs/sockops.md §2-§5 and the kernel's tcp_call_bpf() first. */
#ifndef SKOPS_HOOKS_HOOKS_H
#define SKOPS_HOOKS_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cg_tree;
struct cg_node;
struct bpfvm_registry;
struct bpfvm_prog_type;

/* sock_ops callback flags (bpf_sock_ops_cb_flags). */
#define HOOKS_CB_RTO		       (1u << 0)
#define HOOKS_CB_RETRANS	       (1u << 1)
#define HOOKS_CB_STATE		       (1u << 2)
#define HOOKS_CB_RTT		       (1u << 3)
#define HOOKS_CB_PARSE_ALL_HDR_OPT     (1u << 4)
#define HOOKS_CB_PARSE_UNKNOWN_HDR_OPT (1u << 5)
#define HOOKS_CB_WRITE_HDR_OPT	       (1u << 6)
#define HOOKS_CB_ALL		       0x7fu

/* Options only a sock_ops program can set; numbered as Linux's TCP_BPF_*.
 * The stack implements them in its setsockopt next to the standard ones. */
#define HOOKS_TCP_IW		    1001
#define HOOKS_TCP_SNDCWND_CLAMP	    1002
#define HOOKS_TCP_DELACK_MAX	    1003
#define HOOKS_TCP_RTO_MIN	    1004
#define HOOKS_TCP_SYN		    1005
#define HOOKS_TCP_SYN_IP	    1006
#define HOOKS_TCP_SYN_MAC	    1007
#define HOOKS_TCP_SOCK_OPS_CB_FLAGS 1008
/* SOL_SOCKET SK_BPF_CB_FLAGS (Linux 6.14): the socket's BPF flags, today
 * only SK_BPF_CB_TX_TIMESTAMPING, which turns on the TSTAMP_* ops. */
#define HOOKS_SK_BPF_CB_FLAGS	    1009
#define HOOKS_SK_CB_TX_TIMESTAMPING (1u << 0)
#define HOOKS_SK_CB_MASK	    0x1u

/* Linux's address family numbers, as sock_ops programs compare them. */
#define HOOKS_AF_INET  2
#define HOOKS_AF_INET6 10

/* What the stack reports about a socket; field names follow struct bpf_sock_ops.
 * Addresses in network byte order, ports in host order. The stack fills
 * the family's addresses; an AF_INET6 socket connected over IPv4 has
 * v4-mapped ip6 addresses and the IPv4 ones in the ip4 fields as well. */
struct hooks_sk_info {
	uint32_t family; /* AF_INET 2 / AF_INET6 10 */
	uint32_t remote_ip4, local_ip4;
	uint32_t remote_ip6[4], local_ip6[4];
	uint16_t remote_port, local_port;
	uint32_t is_fullsock;
	uint32_t snd_cwnd, srtt_us, state, rtt_min, snd_ssthresh, rcv_nxt, snd_nxt, snd_una;
	uint32_t mss_cache, ecn_flags, rate_delivered, rate_interval_us, packets_out, retrans_out,
	    total_retrans, segs_in, data_segs_in, segs_out, data_segs_out, lost_out, sacked_out,
	    sk_txhash;
	uint64_t bytes_received, bytes_acked;
	/* struct bpf_tcp_sock only (HOOKS_INFO_TCP) */
	uint32_t dsack_dups, delivered, delivered_ce, icsk_retransmits;
	/* struct tcp_sock only (bpf_skc_to_tcp_sock, HOOKS_INFO_TCP), Linux's
	 * meaning: mdev_us is the RTT deviation in µs × 4 */
	uint32_t mdev_us, rcv_wnd, window_clamp, rcv_wup, copied_seq, write_seq, snd_wnd, snd_wl1,
	    rcv_ssthresh;
	/* struct bpf_sock view */
	uint32_t sk_type, sk_protocol, sk_mark, sk_priority;
};

/* Groups of info fields, so the stack fills only what the programs read. */
#define HOOKS_INFO_ADDR (1u << 0) /* family, addresses, ports, is_fullsock */
#define HOOKS_INFO_TCP	(1u << 1) /* the fullsock TCP counters */
#define HOOKS_INFO_SOCK (1u << 2) /* sk_type.. sk_priority, sk_txhash */

struct hooks_sock;

/* Implemented by stack/. Each gets the hooks_sock embedded in the stack's
 * socket (container_of back to it). setsockopt/getsockopt use Linux numbering
 * (SOL_SOCKET/SOL_TCP/SOL_IP/SOL_IPV6 and the HOOKS_TCP_* options) and return
 * 0 or -errno exactly as docs/sockops.md §5 says; hooks has already refused options
 * outside that table and calls on non-full sockets. */
struct hooks_sock_ops {
	void (*info)(const struct hooks_sock *hs, uint32_t groups, struct hooks_sk_info *out);
	int (*setsockopt)(struct hooks_sock *hs, int level, int optname, const void *val,
			  uint32_t len);
	int (*getsockopt)(struct hooks_sock *hs, int level, int optname, void *val, uint32_t *len);
	void (*set_txhash)(struct hooks_sock *hs, uint32_t txhash); /* optional */
};

/* Embedded in the stack's socket. hooks_sock_init() takes a reference on cg. */
struct hooks_sock {
	const struct hooks_sock_ops *ops;
	struct hooks *hk;
	struct cg_node *cg;
	uint64_t cookie; /* get_socket_cookie: unique, never 0 */
	uint32_t cb_flags;
	bool fullsock;
	uint8_t sk_cb_flags; /* SK_BPF_CB_FLAGS (HOOKS_SK_CB_*): Linux's u8 sk_bpf_cb_flags */
};

/* One per stack instance (lcore). Owns nothing of the tree or registry. */
struct hooks;
struct hooks_config {
	struct cg_tree *tree;
	struct bpfvm_registry *reg;
	/* The lcore this instance runs on: its cg_reader slot, the cpu index
	 * of per-CPU maps and get_smp_processor_id(), and its socket cookies'
	 * prefix. < BPFVM_MAX_CPUS, unique among live instances. */
	unsigned lcore;
	uint64_t netns_cookie;
	bool stats; /* time every run into run_cnt/run_time_ns */
};
int hooks_create(const struct hooks_config *cfg, struct hooks **out);
void hooks_destroy(struct hooks *hk);
/* Makes the calling thread run programs as cfg.lcore (per-CPU map slots);
 * the stack calls it on each poll, since the creating thread may differ. */
void hooks_bind_thread(const struct hooks *hk);
/* Once per poll loop: lets old effective arrays be reclaimed. */
void hooks_quiescent(struct hooks *hk);

void hooks_sock_init(struct hooks_sock *hs, struct hooks *hk, const struct hooks_sock_ops *ops,
		     struct cg_node *cg, bool fullsock);
/* Drops the cgroup reference and the socket's sk_storage values. */
void hooks_sock_fini(struct hooks_sock *hs);

/* sock_ops op numbers (the uapi's BPF_SOCK_OPS_*; ABI, never renumbered). */
enum hooks_op {
	HOOKS_OP_VOID = 0,
	HOOKS_OP_TIMEOUT_INIT = 1,
	HOOKS_OP_RWND_INIT = 2,
	HOOKS_OP_TCP_CONNECT_CB = 3,
	HOOKS_OP_ACTIVE_ESTABLISHED_CB = 4,
	HOOKS_OP_PASSIVE_ESTABLISHED_CB = 5,
	HOOKS_OP_NEEDS_ECN = 6,
	HOOKS_OP_BASE_RTT = 7,
	HOOKS_OP_RTO_CB = 8,
	HOOKS_OP_RETRANS_CB = 9,
	HOOKS_OP_STATE_CB = 10,
	HOOKS_OP_TCP_LISTEN_CB = 11,
	HOOKS_OP_RTT_CB = 12,
	HOOKS_OP_PARSE_HDR_OPT_CB = 13,
	HOOKS_OP_HDR_OPT_LEN_CB = 14,
	HOOKS_OP_WRITE_HDR_OPT_CB = 15,
	/* BPF TX timestamping (Linux 6.15), only with SK_BPF_CB_TX_TIMESTAMPING */
	HOOKS_OP_TSTAMP_SCHED_CB = 16,
	HOOKS_OP_TSTAMP_SND_SW_CB = 17,
	HOOKS_OP_TSTAMP_SND_HW_CB = 18,
	HOOKS_OP_TSTAMP_ACK_CB = 19,
	HOOKS_OP_TSTAMP_SENDMSG_CB = 20,
};

/* The segment a header-option callback is about (Linux's bpf_skops_init_skb):
 * hdr is the TCP header (20 bytes and options), hdr_len of it is what the
 * program may read through ctx->skb_data; skb_len the segment's length and
 * flags its TCP flags. syn (may be NULL) is the SYN a SYN-ACK answers, which
 * bpf_load_hdr_opt(BPF_LOAD_HDR_OPT_TCP_SYN) searches. Borrowed for the call. */
struct hooks_skb {
	uint8_t *hdr;
	uint32_t hdr_len;
	uint32_t skb_len;
	uint8_t flags;
	const uint8_t *syn; /* TCP header of the SYN, with its options */
	uint32_t syn_len;
};

/* tcp_call_bpf: run every effective sock_ops program of hs->cg on one context.
 * Returns reply if all returned 1, else -1; -1 with nothing attached. */
int hooks_call(struct hooks_sock *hs, uint32_t op, const uint32_t *args, unsigned nargs);

static inline bool hooks_cb_enabled(const struct hooks_sock *hs, uint32_t flag)
{
	return (hs->cb_flags & flag) != 0;
}

/* Call-site wrappers (docs/sockops.md §3). Raw replies where the stack owns the
 * units: hooks_timeout_init returns jiffies (> 0) or -1 for the default. */
int hooks_timeout_init(struct hooks_sock *hs);
int hooks_rwnd_init(struct hooks_sock *hs); /* segments > 0, or -1 */
bool hooks_needs_ecn(struct hooks_sock *hs);
void hooks_connect_cb(struct hooks_sock *hs);
void hooks_active_established_cb(struct hooks_sock *hs);
void hooks_passive_established_cb(struct hooks_sock *hs);
void hooks_listen_cb(struct hooks_sock *hs);
uint32_t hooks_base_rtt(struct hooks_sock *hs); /* 0 → none */
/* These run only when the matching cb flag is set (checked inside). rto_jiffies:
 * the RTO that expired in ticks of the stack's hz (Linux passes jiffies). */
void hooks_rto_cb(struct hooks_sock *hs, uint32_t retransmits, uint32_t rto_jiffies,
		  uint32_t expired);
void hooks_retrans_cb(struct hooks_sock *hs, uint32_t seq, uint32_t segs, int32_t result);
void hooks_state_cb(struct hooks_sock *hs, uint32_t old_state, uint32_t new_state);
void hooks_rtt_cb(struct hooks_sock *hs);

/* Header options (Linux 5.10+, net/ipv4/tcp_output.c and tcp_input.c):
 * PARSE_HDR_OPT_CB on a received segment when PARSE_ALL_HDR_OPT is set, or
 * PARSE_UNKNOWN_HDR_OPT and the segment carries an option the stack does not
 * know (unknown). */
void hooks_parse_hdr_opt_cb(struct hooks_sock *hs, const struct hooks_skb *skb, bool unknown);
/* With WRITE_HDR_OPT set and option space left: HDR_OPT_LEN_CB, where programs
 * reserve bytes with bpf_reserve_hdr_opt. args0 is BPF_WRITE_HDR_TCP_* (1
 * current MSS, 2 SYN-ACK cookie). Returns the bytes to set aside, rounded up
 * to 4 and at most remaining (itself a multiple of 4); 0: none. */
uint32_t hooks_hdr_opt_len(struct hooks_sock *hs, const struct hooks_skb *skb, uint32_t remaining,
			   uint32_t args0);
/* WRITE_HDR_OPT_CB for a segment that set aside reserved bytes right after
 * skb->hdr_len (skb->hdr holds hdr_len + reserved bytes): programs append
 * options with bpf_store_hdr_opt; what they leave is filled with NOPs. Returns
 * the bytes programs wrote. */
uint32_t hooks_write_hdr_opt(struct hooks_sock *hs, const struct hooks_skb *skb, uint32_t reserved,
			     uint32_t args0);

/* BPF TX timestamping (Linux 6.15, net/ipv4/tcp.c tcp_tx_timestamp and
 * net/core/skbuff.c __skb_tstamp_tx); each runs only when the socket's
 * SK_BPF_CB_FLAGS has SK_BPF_CB_TX_TIMESTAMPING. hooks_tstamp_sendmsg: a
 * send queued data whose last segment is len bytes; true when a program
 * marked it with bpf_sock_ops_enable_tx_tstamp (the stack then tracks its
 * last byte). hooks_tstamp_cb: SCHED / SND_SW / SND_HW / ACK for a marked
 * byte, len the bytes of the segment (or the acked range) it is in. */
bool hooks_tstamp_sendmsg(struct hooks_sock *hs, uint32_t len);
void hooks_tstamp_cb(struct hooks_sock *hs, uint32_t op, uint32_t len);

/* Kernel TCP_* state numbering for STATE_CB and info.state. */
enum hooks_tcp_state {
	HOOKS_TCP_ESTABLISHED = 1,
	HOOKS_TCP_SYN_SENT,
	HOOKS_TCP_SYN_RECV,
	HOOKS_TCP_FIN_WAIT1,
	HOOKS_TCP_FIN_WAIT2,
	HOOKS_TCP_TIME_WAIT,
	HOOKS_TCP_CLOSE,
	HOOKS_TCP_CLOSE_WAIT,
	HOOKS_TCP_LAST_ACK,
	HOOKS_TCP_LISTEN,
	HOOKS_TCP_CLOSING,
	HOOKS_TCP_NEW_SYN_RECV,
};

/* The sock_ops program type for bpfvm loads (ctx rules, helpers, R0 range). */
extern const struct bpfvm_prog_type hooks_sock_ops_type;

/* Handle operations for a cg_tree whose programs are struct bpfvm_prog
 * (get/put/id map to bpfvm_prog_get/put/id). */
struct cg_prog_ops;
extern const struct cg_prog_ops hooks_cg_prog_ops;

/* trace_printk output of programs run through this hooks instance; the daemon
 * drains it. Returns bytes copied (lines end in '\n'), 0 when empty. */
size_t hooks_trace_read(struct hooks *hk, char *buf, size_t size);

#endif
