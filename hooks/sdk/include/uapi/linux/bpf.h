/* skops SDK: the user-space view of the BPF ABI that sock_ops programs use,
 * written from the kernel's documented ABI (Documentation/bpf, the numbers of
 * linux-libc-dev's linux/bpf.h for Linux 6.1). Seed-style sources include it
 * as <uapi/linux/bpf.h>. Same guard as the kernel's header, so a source that
 * also pulls in the system's <linux/bpf.h> sees one set of definitions. */
#ifndef _UAPI__LINUX_BPF_H__
#define _UAPI__LINUX_BPF_H__

#include <linux/types.h>
#include <linux/bpf_common.h>

/* Instruction classes beyond classic BPF (linux/bpf_common.h has the rest). */
#define BPF_JMP32  0x06
#define BPF_ALU64  0x07
#define BPF_DW	   0x18
#define BPF_ATOMIC 0xc0
#define BPF_MOV	   0xb0
#define BPF_ARSH   0xc0
#define BPF_END	   0xd0
#define BPF_TO_LE  0x00
#define BPF_TO_BE  0x08
#define BPF_JNE	   0x50
#define BPF_JSGT   0x60
#define BPF_JSGE   0x70
#define BPF_CALL   0x80
#define BPF_EXIT   0x90
#define BPF_JLT	   0xa0
#define BPF_JLE	   0xb0
#define BPF_JSLT   0xc0
#define BPF_JSLE   0xd0

#define BPF_PSEUDO_MAP_FD    1
#define BPF_PSEUDO_MAP_VALUE 2
#define BPF_PSEUDO_CALL	     1
#define BPF_PSEUDO_FUNC	     4

struct bpf_insn {
	__u8 code;
	__u8 dst_reg : 4;
	__u8 src_reg : 4;
	__s16 off;
	__s32 imm;
};

enum bpf_map_type {
	BPF_MAP_TYPE_UNSPEC = 0,
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PROG_ARRAY = 3,
	BPF_MAP_TYPE_PERF_EVENT_ARRAY = 4,
	BPF_MAP_TYPE_PERCPU_HASH = 5,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_STACK_TRACE = 7,
	BPF_MAP_TYPE_CGROUP_ARRAY = 8,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_LRU_PERCPU_HASH = 10,
	BPF_MAP_TYPE_LPM_TRIE = 11,
	BPF_MAP_TYPE_ARRAY_OF_MAPS = 12,
	BPF_MAP_TYPE_HASH_OF_MAPS = 13,
	BPF_MAP_TYPE_DEVMAP = 14,
	BPF_MAP_TYPE_SOCKMAP = 15,
	BPF_MAP_TYPE_CPUMAP = 16,
	BPF_MAP_TYPE_XSKMAP = 17,
	BPF_MAP_TYPE_SOCKHASH = 18,
	BPF_MAP_TYPE_CGROUP_STORAGE = 19,
	BPF_MAP_TYPE_REUSEPORT_SOCKARRAY = 20,
	BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE = 21,
	BPF_MAP_TYPE_QUEUE = 22,
	BPF_MAP_TYPE_STACK = 23,
	BPF_MAP_TYPE_SK_STORAGE = 24,
	BPF_MAP_TYPE_DEVMAP_HASH = 25,
	BPF_MAP_TYPE_STRUCT_OPS = 26,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum bpf_prog_type {
	BPF_PROG_TYPE_UNSPEC = 0,
	BPF_PROG_TYPE_SOCKET_FILTER = 1,
	BPF_PROG_TYPE_KPROBE = 2,
	BPF_PROG_TYPE_SCHED_CLS = 3,
	BPF_PROG_TYPE_SCHED_ACT = 4,
	BPF_PROG_TYPE_TRACEPOINT = 5,
	BPF_PROG_TYPE_XDP = 6,
	BPF_PROG_TYPE_PERF_EVENT = 7,
	BPF_PROG_TYPE_CGROUP_SKB = 8,
	BPF_PROG_TYPE_CGROUP_SOCK = 9,
	BPF_PROG_TYPE_LWT_IN = 10,
	BPF_PROG_TYPE_LWT_OUT = 11,
	BPF_PROG_TYPE_LWT_XMIT = 12,
	BPF_PROG_TYPE_SOCK_OPS = 13,
};

enum bpf_attach_type {
	BPF_CGROUP_INET_INGRESS = 0,
	BPF_CGROUP_INET_EGRESS = 1,
	BPF_CGROUP_INET_SOCK_CREATE = 2,
	BPF_CGROUP_SOCK_OPS = 3,
};

/* Attach flags (BPF_PROG_ATTACH). */
#define BPF_F_ALLOW_OVERRIDE (1U << 0)
#define BPF_F_ALLOW_MULTI    (1U << 1)
#define BPF_F_REPLACE	     (1U << 2)

/* map_update_elem flags. */
#define BPF_ANY	    0
#define BPF_NOEXIST 1
#define BPF_EXIST   2
#define BPF_F_LOCK  4

/* map_flags. */
#define BPF_F_NO_PREALLOC (1U << 0)

/* perf_event_output flags: the cpu index lives in the low 32 bits. */
#define BPF_F_INDEX_MASK  0xffffffffULL
#define BPF_F_CURRENT_CPU BPF_F_INDEX_MASK

/* sk_storage_get flags. */
#define BPF_SK_STORAGE_GET_F_CREATE (1ULL << 0)

/* ringbuf_output/submit/discard flags and ringbuf_query selectors. */
#define BPF_RB_NO_WAKEUP    (1ULL << 0)
#define BPF_RB_FORCE_WAKEUP (1ULL << 1)
#define BPF_RB_AVAIL_DATA   0
#define BPF_RB_RING_SIZE    1
#define BPF_RB_CONS_POS	    2
#define BPF_RB_PROD_POS	    3

/* Helper numbers: positions in the kernel's ___BPF_FUNC_MAPPER list. Only the
 * helpers a sock_ops program may call (docs/sockops.md §5) are listed. */
enum bpf_func_id {
	BPF_FUNC_unspec = 0,
	BPF_FUNC_map_lookup_elem = 1,
	BPF_FUNC_map_update_elem = 2,
	BPF_FUNC_map_delete_elem = 3,
	BPF_FUNC_ktime_get_ns = 5,
	BPF_FUNC_trace_printk = 6,
	BPF_FUNC_get_prandom_u32 = 7,
	BPF_FUNC_get_smp_processor_id = 8,
	BPF_FUNC_tail_call = 12,
	BPF_FUNC_perf_event_output = 25,
	BPF_FUNC_get_socket_cookie = 46,
	BPF_FUNC_setsockopt = 49,
	BPF_FUNC_sock_map_update = 53,
	BPF_FUNC_getsockopt = 57,
	BPF_FUNC_sock_ops_cb_flags_set = 59,
	BPF_FUNC_sock_hash_update = 70,
	BPF_FUNC_spin_lock = 93,
	BPF_FUNC_spin_unlock = 94,
	BPF_FUNC_tcp_sock = 96,
	BPF_FUNC_sk_storage_get = 107,
	BPF_FUNC_sk_storage_delete = 108,
	BPF_FUNC_get_netns_cookie = 122,
	BPF_FUNC_ringbuf_output = 130,
	BPF_FUNC_ringbuf_reserve = 131,
	BPF_FUNC_ringbuf_submit = 132,
	BPF_FUNC_ringbuf_discard = 133,
	BPF_FUNC_ringbuf_query = 134,
	BPF_FUNC_skc_to_tcp_sock = 137,
	BPF_FUNC_load_hdr_opt = 142,
	BPF_FUNC_store_hdr_opt = 143,
	BPF_FUNC_reserve_hdr_opt = 144,
	BPF_FUNC_for_each_map_elem = 164,
	BPF_FUNC_snprintf = 165,
	BPF_FUNC_loop = 181,
	BPF_FUNC_skc_to_mptcp_sock = 196,
};

/* A pointer member that is 8 bytes wide on every target, as the kernel's
 * __bpf_md_ptr: the context layout must not depend on the compiling arch. */
#define __bpf_md_ptr(type, name)                                                                   \
	union {                                                                                    \
		type name;                                                                         \
		__u64 : 64;                                                                        \
	} __attribute__((aligned(8)))

/* What ctx->sk points at (read-only). */
struct bpf_sock {
	__u32 bound_dev_if;
	__u32 family;
	__u32 type;
	__u32 protocol;
	__u32 mark;
	__u32 priority;
	__u32 src_ip4;
	__u32 src_ip6[4];
	__u32 src_port;	 /* host order */
	__be16 dst_port; /* network order */
	__u16 : 16;
	__u32 dst_ip4;
	__u32 dst_ip6[4];
	__u32 state;
	__s32 rx_queue_mapping;
};

/* What bpf_tcp_sock() points at (read-only): 112 bytes, the 6.1 layout. */
struct bpf_tcp_sock {
	__u32 snd_cwnd;
	__u32 srtt_us; /* smoothed RTT << 3, in µs */
	__u32 rtt_min;
	__u32 snd_ssthresh;
	__u32 rcv_nxt;
	__u32 snd_nxt;
	__u32 snd_una;
	__u32 mss_cache;
	__u32 ecn_flags;
	__u32 rate_delivered;
	__u32 rate_interval_us;
	__u32 packets_out;
	__u32 retrans_out;
	__u32 total_retrans;
	__u32 segs_in;
	__u32 data_segs_in;
	__u32 segs_out;
	__u32 data_segs_out;
	__u32 lost_out;
	__u32 sacked_out;
	__u64 bytes_received;
	__u64 bytes_acked;
	__u32 dsack_dups;
	__u32 delivered;
	__u32 delivered_ce;
	__u32 icsk_retransmits;
};

/* The lock bpf_spin_lock takes: a member of a BTF-defined map's value type
 * (the loader finds it by this name, as the kernel does). */
struct bpf_spin_lock {
	__u32 val;
};

/* The sock_ops context: 216 bytes, field for field the Linux 6.1 layout. */
struct bpf_sock_ops {
	__u32 op; /* BPF_SOCK_OPS_* */
	union {
		__u32 args[4];	    /* input of some ops */
		__u32 reply;	    /* the program's answer */
		__u32 replylong[4]; /* longer answers */
	};
	__u32 family;
	__u32 remote_ip4;    /* network order */
	__u32 local_ip4;     /* network order */
	__u32 remote_ip6[4]; /* network order words */
	__u32 local_ip6[4];
	__u32 remote_port; /* network-order port in the upper 16 bits */
	__u32 local_port;  /* host order */
	__u32 is_fullsock; /* 0 on request sockets: the TCP fields below read 0 */
	__u32 snd_cwnd;
	__u32 srtt_us; /* smoothed RTT << 3, microseconds */
	__u32 bpf_sock_ops_cb_flags;
	__u32 state;
	__u32 rtt_min;
	__u32 snd_ssthresh;
	__u32 rcv_nxt;
	__u32 snd_nxt;
	__u32 snd_una;
	__u32 mss_cache;
	__u32 ecn_flags;
	__u32 rate_delivered;
	__u32 rate_interval_us;
	__u32 packets_out;
	__u32 retrans_out;
	__u32 total_retrans;
	__u32 segs_in;
	__u32 data_segs_in;
	__u32 segs_out;
	__u32 data_segs_out;
	__u32 lost_out;
	__u32 sacked_out;
	__u32 sk_txhash;
	__u64 bytes_received;
	__u64 bytes_acked;
	__bpf_md_ptr(struct bpf_sock *, sk);
	__bpf_md_ptr(void *, skb_data); /* header-option callbacks only */
	__bpf_md_ptr(void *, skb_data_end);
	__u32 skb_len;
	__u32 skb_tcp_flags;
};

/* bpf_sock_ops_cb_flags bits (set with bpf_sock_ops_cb_flags_set). */
enum {
	BPF_SOCK_OPS_RTO_CB_FLAG = (1 << 0),
	BPF_SOCK_OPS_RETRANS_CB_FLAG = (1 << 1),
	BPF_SOCK_OPS_STATE_CB_FLAG = (1 << 2),
	BPF_SOCK_OPS_RTT_CB_FLAG = (1 << 3),
	BPF_SOCK_OPS_PARSE_ALL_HDR_OPT_CB_FLAG = (1 << 4),
	BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG = (1 << 5),
	BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG = (1 << 6),
	BPF_SOCK_OPS_ALL_CB_FLAGS = 0x7F,
};

/* ctx->op values: which callback is running (docs/sockops.md §3). */
enum {
	BPF_SOCK_OPS_VOID = 0,
	BPF_SOCK_OPS_TIMEOUT_INIT = 1,		 /* reply: SYN RTO in jiffies */
	BPF_SOCK_OPS_RWND_INIT = 2,		 /* reply: initial rwnd in segments */
	BPF_SOCK_OPS_TCP_CONNECT_CB = 3,	 /* active open starts */
	BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB = 4,	 /* client established */
	BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB = 5, /* server child established */
	BPF_SOCK_OPS_NEEDS_ECN = 6,		 /* reply 1: negotiate ECN */
	BPF_SOCK_OPS_BASE_RTT = 7,		 /* reply: base RTT in us */
	BPF_SOCK_OPS_RTO_CB = 8,		 /* args: retransmits, rto, expired */
	BPF_SOCK_OPS_RETRANS_CB = 9,		 /* args: seq, segs, result */
	BPF_SOCK_OPS_STATE_CB = 10,		 /* args: old state, new state */
	BPF_SOCK_OPS_TCP_LISTEN_CB = 11,	 /* listen() */
	BPF_SOCK_OPS_RTT_CB = 12,		 /* each RTT sample */
	BPF_SOCK_OPS_PARSE_HDR_OPT_CB = 13,
	BPF_SOCK_OPS_HDR_OPT_LEN_CB = 14,
	BPF_SOCK_OPS_WRITE_HDR_OPT_CB = 15,
};

/* Kernel TCP state numbers, as STATE_CB's args and ctx->state carry them. */
enum {
	BPF_TCP_ESTABLISHED = 1,
	BPF_TCP_SYN_SENT,
	BPF_TCP_SYN_RECV,
	BPF_TCP_FIN_WAIT1,
	BPF_TCP_FIN_WAIT2,
	BPF_TCP_TIME_WAIT,
	BPF_TCP_CLOSE,
	BPF_TCP_CLOSE_WAIT,
	BPF_TCP_LAST_ACK,
	BPF_TCP_LISTEN,
	BPF_TCP_CLOSING,
	BPF_TCP_NEW_SYN_RECV,
	BPF_TCP_MAX_STATES
};

/* SOL_TCP options only bpf_setsockopt/bpf_getsockopt know. */
enum {
	TCP_BPF_IW = 1001,	      /* initial cwnd, segments */
	TCP_BPF_SNDCWND_CLAMP = 1002, /* cwnd clamp and ssthresh, segments */
	TCP_BPF_DELACK_MAX = 1003,    /* us */
	TCP_BPF_RTO_MIN = 1004,	      /* us */
	TCP_BPF_SYN = 1005,	      /* getsockopt: saved SYN's TCP header */
	TCP_BPF_SYN_IP = 1006,	      /* ... with the IP header */
	TCP_BPF_SYN_MAC = 1007,	      /* ... with the MAC header */
};

#endif
