/* hooks internals: the per-call context (the user view of struct bpf_sock_ops,
 * laid out exactly as Linux 6.1's, inside a wrapper that also points at the
 * socket so helpers reach it from r1), ctx field numbering, the trace log.
 * Never included outside hooks/ (and its unit tests). */
#ifndef SKOPS_HOOKS_HOOKS_INT_H
#define SKOPS_HOOKS_HOOKS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "bpfvm.h"
#include "hooks.h"

/* struct bpf_sock_ops as a BPF program sees it (216 bytes). */
struct hooks_sock_ops_view {
	uint32_t op;
	union {
		uint32_t args[4];
		uint32_t reply;
		uint32_t replylong[4];
	};
	uint32_t family;
	uint32_t remote_ip4, local_ip4;
	uint32_t remote_ip6[4], local_ip6[4];
	uint32_t remote_port; /* network-order port in the upper 16 bits */
	uint32_t local_port;  /* host order */
	uint32_t is_fullsock;
	uint32_t snd_cwnd, srtt_us, bpf_sock_ops_cb_flags, state, rtt_min, snd_ssthresh;
	uint32_t rcv_nxt, snd_nxt, snd_una, mss_cache, ecn_flags, rate_delivered;
	uint32_t rate_interval_us, packets_out, retrans_out, total_retrans, segs_in;
	uint32_t data_segs_in, segs_out, data_segs_out, lost_out, sacked_out;
	uint32_t sk_txhash;
	uint64_t bytes_received, bytes_acked;
	uint64_t sk;
	uint64_t skb_data, skb_data_end;
	uint32_t skb_len, skb_tcp_flags;
};

#define HOOKS_CTX_SIZE 216u

_Static_assert(sizeof(struct hooks_sock_ops_view) == HOOKS_CTX_SIZE, "bpf_sock_ops is 216 bytes");
_Static_assert(offsetof(struct hooks_sock_ops_view, remote_port) == 64, "remote_port at 64");
_Static_assert(offsetof(struct hooks_sock_ops_view, snd_cwnd) == 76, "snd_cwnd at 76");
_Static_assert(offsetof(struct hooks_sock_ops_view, sk_txhash) == 164, "sk_txhash at 164");
_Static_assert(offsetof(struct hooks_sock_ops_view, bytes_received) == 168, "bytes_received");
_Static_assert(offsetof(struct hooks_sock_ops_view, sk) == 184, "sk at 184");
_Static_assert(offsetof(struct hooks_sock_ops_view, skb_len) == 208, "skb_len at 208");

/* struct bpf_sock, what ctx->sk points at (80 bytes, read-only). */
struct hooks_bpf_sock_view {
	uint32_t bound_dev_if, family, type, protocol, mark, priority;
	uint32_t src_ip4, src_ip6[4];
	uint32_t src_port; /* host order */
	uint16_t dst_port; /* network order */
	uint16_t pad;
	uint32_t dst_ip4, dst_ip6[4];
	uint32_t state;
	int32_t rx_queue_mapping;
};
_Static_assert(sizeof(struct hooks_bpf_sock_view) == 80, "bpf_sock is 80 bytes");

/* struct bpf_tcp_sock, what bpf_tcp_sock() and bpf_skc_to_tcp_sock() point
 * at (112 bytes, read-only): a snapshot taken when the helper is called. */
struct hooks_tcp_sock_view {
	uint32_t snd_cwnd, srtt_us, rtt_min, snd_ssthresh, rcv_nxt, snd_nxt, snd_una;
	uint32_t mss_cache, ecn_flags, rate_delivered, rate_interval_us, packets_out;
	uint32_t retrans_out, total_retrans, segs_in, data_segs_in, segs_out, data_segs_out;
	uint32_t lost_out, sacked_out;
	uint64_t bytes_received, bytes_acked;
	uint32_t dsack_dups, delivered, delivered_ce, icsk_retransmits;
};
_Static_assert(sizeof(struct hooks_tcp_sock_view) == BPFVM_TCP_SOCK_VIEW_SIZE,
	       "bpf_tcp_sock is 112 bytes");
_Static_assert(offsetof(struct hooks_tcp_sock_view, bytes_received) == BPFVM_TCP_SOCK_U64_A,
	       "bytes_received at 80");
_Static_assert(offsetof(struct hooks_tcp_sock_view, bytes_acked) == BPFVM_TCP_SOCK_U64_B,
	       "bytes_acked at 88");

/* What bpf_skc_to_tcp_sock() points at: skops's own struct tcp_sock, read by
 * programs through CO-RE relocations against the BTF hooks_btf.c publishes
 * for exactly this layout (docs/sockops.md §5 "Kernel-typed sockets"). The
 * nesting and field names are Linux's (include/linux/tcp.h and the structs it
 * embeds); offsets are ours. A snapshot taken when the helper is called;
 * padding is not in the BTF, so programs cannot read it. */
struct hooks_k_in6_addr {
	union {
		uint8_t u6_addr8[16];
		uint16_t u6_addr16[8];
		uint32_t u6_addr32[4];
	} in6_u;
};

struct hooks_k_sock_common {
	uint32_t skc_daddr;	/* remote IPv4, network order */
	uint32_t skc_rcv_saddr; /* local IPv4, network order */
	uint16_t skc_dport;	/* network order */
	uint16_t skc_num;	/* local port, host order */
	uint16_t skc_family;
	uint8_t skc_state; /* TCP_* (enum hooks_tcp_state) */
	uint8_t pad0;
	struct hooks_k_in6_addr skc_v6_daddr;
	struct hooks_k_in6_addr skc_v6_rcv_saddr;
};

struct hooks_k_sock {
	struct hooks_k_sock_common __sk_common;
	uint32_t sk_mark;
	uint32_t sk_priority;
	uint32_t sk_txhash;
	uint16_t sk_type;
	uint16_t sk_protocol;
};

struct hooks_k_inet_sock {
	struct hooks_k_sock sk;
	uint32_t inet_saddr; /* network order */
	uint16_t inet_sport; /* network order */
	uint16_t pad1;
};

struct hooks_k_inet_connection_sock {
	struct hooks_k_inet_sock icsk_inet;
	uint8_t icsk_retransmits;
	uint8_t pad2[3];
};

/* Linux's windowed min filter (include/linux/win_minmax.h): s[0] is the
 * minimum tcp_min_rtt() returns; skops keeps one value, so all three samples
 * hold it, as minmax_reset leaves them. */
struct hooks_k_minmax_sample {
	uint32_t t;
	uint32_t v;
};
struct hooks_k_minmax {
	struct hooks_k_minmax_sample s[3];
};

struct hooks_k_tcp_sock {
	struct hooks_k_inet_connection_sock inet_conn;
	uint32_t snd_cwnd, snd_ssthresh, srtt_us, mss_cache;
	uint32_t rcv_nxt, snd_nxt, snd_una;
	uint32_t packets_out, retrans_out, lost_out, sacked_out, total_retrans;
	uint32_t segs_in, segs_out, data_segs_in, data_segs_out;
	uint32_t delivered, delivered_ce, dsack_dups;
	uint32_t rate_delivered, rate_interval_us;
	uint32_t mdev_us, rcv_wnd, window_clamp, rcv_wup, copied_seq, write_seq, snd_wnd, snd_wl1;
	uint32_t rcv_ssthresh;
	uint8_t ecn_flags;
	uint8_t pad3[3];
	struct hooks_k_minmax rtt_min;
	uint64_t bytes_received, bytes_acked;
};

/* The BTF of the structs above (hooks_btf.c, checked to be HOOKS_BTF_SIZE
 * bytes) and the id of struct tcp_sock in it. */
#define HOOKS_BTF_SIZE	      2876u
#define HOOKS_BTF_TCP_SOCK_ID 17
struct hooks_btf_blob;
extern const struct hooks_btf_blob hooks_btf_blob;

/* One context per hooks_call; r1 points at view (offset 0 of the wrapper), so
 * a helper given ctx, or ctx->sk, finds the socket behind it. Every socket
 * pointer a program holds names this call's socket, so helpers taking one
 * find it through the run's ctx. A run whose programs call no helper builds
 * only view and bsk, side by side as here (hooks_run_leaves). */
/* One socket option as it was before a running program first changed it. */
#define HOOKS_UNDO_MAX 32 /* more than the options a program can set */
#define HOOKS_UNDO_VAL 16 /* the longest value: a congestion control or device name */
struct hooks_undo {
	int level, optname;
	uint32_t len;
	uint8_t val[HOOKS_UNDO_VAL];
};

struct hooks_ctx {
	struct hooks_sock_ops_view view;
	struct hooks_bpf_sock_view bsk;
	struct hooks_tcp_sock_view tsk;
	struct hooks_k_tcp_sock ktp;
	uint8_t ktp_set; /* ktp was filled in this call (not a bool: tests fill ctx randomly) */
	struct hooks_sock *hs;
	/* header-option callbacks (NULL skb otherwise): the segment, and the
	 * option space the programs may still reserve or fill */
	const struct hooks_skb *skb;
	uint32_t remaining_opt_len;
	/* TSTAMP_SENDMSG_CB: bpf_sock_ops_enable_tx_tstamp marked the data;
	 * hooks_run hands it out through *remaining in that op */
	uint8_t tx_marked;
	/* The old values of the options the programs of this call set, so a
	 * program the run-time budget stopped leaves its socket as it was
	 * (hooks_undo_note, hooks_call.c). Entries past nundo are garbage. */
	uint8_t nundo;
	uint8_t undo_mark; /* the running program's first entry */
	struct hooks_undo undo[HOOKS_UNDO_MAX];
};

/* Before a program's setsockopt changes (level, optname): keep the value it
 * has now, unless the running program kept it already. Options the stack cannot read
 * back are not kept (docs/verifier-diff.md "Run-time budget"). */
void hooks_undo_note(struct hooks_ctx *ctx, int level, int optname);
/* The op gate of a helper's contract (bpfvm_helper.ops, bit = sock_ops op):
 * the helper acts only when this holds, else returns -EPERM. */
static inline bool hooks_helper_op_ok(const struct bpfvm_helper *h, const struct hooks_ctx *ctx)
{
	uint32_t op = ctx->view.op;
	return !h->ops || (op < 64 && ((h->ops >> op) & 1));
}

/* One sock_ops run over the effective programs (hooks_call.c), with the
 * segment of a header-option callback when skb is set; *remaining is the
 * option space in and what the programs left of it out. */
int hooks_run(struct hooks_sock *hs, uint32_t op, const uint32_t *args, unsigned nargs,
	      const struct hooks_skb *skb, uint32_t *remaining);
/* The header-option helpers (hooks_hdr_opt.c), or NULL. */
const struct bpfvm_helper *hooks_hdr_opt_helper(uint32_t id);
/* bpf_sock_map_update / bpf_sock_hash_update (hooks_sockmap.c), or NULL. */
const struct bpfvm_helper *hooks_sockmap_helper(uint32_t id);

/* ctx field index = offset / 4 of the field's first word: one bit per 32-bit
 * slot of the view, 54 slots. */
#define HOOKS_FIELD(member) ((int)(offsetof(struct hooks_sock_ops_view, member) / 4))
#define HOOKS_NR_FIELDS	    (HOOKS_CTX_SIZE / 4)

/* Which hooks_sk_info groups a set of read fields needs. */
uint32_t hooks_fields_groups(uint64_t fields);

/* trace_printk log: a byte ring of complete lines. */
#define HOOKS_TRACE_SIZE 16384u
struct hooks_trace {
	char buf[HOOKS_TRACE_SIZE];
	size_t head;	  /* next byte to read */
	size_t len;	  /* bytes held */
	uint64_t dropped; /* lines that did not fit */
};
void hooks_trace_append(struct hooks_trace *tr, const char *line, size_t n);

/* What a run needs to know of an effective array, worked out once per array
 * (hooks_plan_of, hooks_call.c) rather than on every call. */
#define HOOKS_PLAN_LEAVES 8
struct hooks_plan {
	const void *arr; /* the array it describes; NULL: none */
	uint32_t groups; /* the hooks_sk_info groups its programs read */
	/* nleaf = the array's length when every program is a JIT leaf
	 * (bpfvm_prog_leaf_fn) and there are at most HOOKS_PLAN_LEAVES, with
	 * their images in leaf[]; 0 otherwise */
	uint32_t nleaf;
	bpfvm_leaf_fn leaf[HOOKS_PLAN_LEAVES];
};

struct hooks {
	struct hooks_config cfg;
	uint64_t next_cookie;
	/* The plan of the last effective array seen. An array (and the
	 * programs it holds) stays allocated until this reader's next
	 * quiescent state, so its address cannot name another array before
	 * hooks_quiescent clears the cache. */
	struct hooks_plan plan;
	struct hooks_trace trace;
};

/* The helper table of the sock_ops type (hooks_helpers.c). */
const struct bpfvm_helper *hooks_sock_ops_helper(uint32_t id);
/* trace_printk into the running socket's hooks log (hooks_trace.c). */
const struct bpfvm_helper *hooks_trace_printk_helper(void);

#endif
