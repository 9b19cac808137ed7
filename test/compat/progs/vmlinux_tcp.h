/* A vmlinux.h-style header for the compat programs: the kernel's socket
 * structs as a program written against some kernel's BTF declares them, with
 * preserve_access_index so every field access is a CO-RE relocation. Written
 * for these tests: a few fields, in an order and with types chosen to differ
 * from what skops publishes (fields skops lacks, a u64 where skops has u32,
 * anonymous unions around the address and port pairs), so the loader must
 * really relocate every access. */
#ifndef SKOPS_COMPAT_VMLINUX_TCP_H
#define SKOPS_COMPAT_VMLINUX_TCP_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef __u16 __be16;
typedef __u32 __be32;

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct in6_addr {
	union {
		__u8 u6_addr8[16];
		__be16 u6_addr16[8];
		__be32 u6_addr32[4];
	} in6_u;
};

struct sock_common {
	union {
		__u64 skc_addrpair;
		struct {
			__be32 skc_daddr;
			__be32 skc_rcv_saddr;
		};
	};
	unsigned int skc_hash;
	union {
		__u32 skc_portpair;
		struct {
			__be16 skc_dport;
			__u16 skc_num;
		};
	};
	unsigned short skc_family;
	volatile unsigned char skc_state;
	unsigned char skc_reuse;
	int skc_bound_dev_if;
	struct in6_addr skc_v6_daddr;
	struct in6_addr skc_v6_rcv_saddr;
};

struct sock {
	struct sock_common __sk_common;
	int sk_rcvbuf;
	__u32 sk_txhash;
	__u32 sk_priority;
	__u32 sk_mark;
	__u16 sk_type;
	__u16 sk_protocol;
};

struct inet_sock {
	struct sock sk;
	__be32 inet_saddr;
	__be16 inet_sport;
};

struct inet_connection_sock {
	struct inet_sock icsk_inet;
	__u32 icsk_rto;
	__u8 icsk_retransmits;
};

struct minmax_sample {
	__u32 t;
	__u32 v;
};

struct minmax {
	struct minmax_sample s[3];
};

struct tcp_sock {
	struct inet_connection_sock inet_conn;
	__u64 bytes_received;
	__u32 segs_in;
	__u32 data_segs_in;
	__u32 rcv_nxt;
	__u64 bytes_acked;
	__u32 segs_out;
	__u32 data_segs_out;
	__u32 snd_una;
	__u32 snd_nxt;
	__u32 mss_cache;
	__u32 srtt_us;
	__u32 mdev_us;
	struct minmax rtt_min;
	__u32 rcv_wnd;
	__u32 rcv_wup;
	__u32 copied_seq;
	__u32 write_seq;
	__u32 snd_wl1;
	__u32 snd_wnd;
	__u32 window_clamp;
	__u32 rcv_ssthresh;
	__u32 app_limited; /* not published by skops */
	__u8 ecn_flags;
	__u64 delivered; /* u32 in skops: the loader narrows the load */
	__u32 total_retrans;
	__u32 snd_ssthresh;
	__u32 snd_cwnd;
};

/* a flavor: the same kernel struct under a local name (libbpf's ___ rule) */
struct tcp_sock___flavor {
	__u32 snd_una;
	__u32 snd_cwnd;
};

struct udp_sock {
	struct inet_sock inet;
	int pending;
};

#pragma clang attribute pop

#endif
