// SPDX-License-Identifier: GPL-2.0
/* Written in the kernel selftests' style (vmlinux.h types, libbpf's
 * <bpf/bpf_core_read.h>, BTF-defined maps, SEC("sockops")): on every op, read
 * struct tcp_sock through bpf_skc_to_tcp_sock() with direct CO-RE loads and
 * BPF_CORE_READ, and the CO-RE queries (field exists/size, type exists/size),
 * into an array map the test compares with the socket's own counters. */
#include "vmlinux_tcp.h"
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

struct core_snap {
	__u32 calls, no_tp;
	__u32 snd_cwnd, snd_ssthresh, srtt_us, mss_cache, rcv_nxt, snd_nxt, snd_una;
	__u32 segs_in, segs_out, data_segs_in, data_segs_out, total_retrans, min_rtt;
	__u64 bytes_received, bytes_acked, delivered;
	__u32 ecn_flags, state, family, dport, num, retransmits, mark;
	__u32 daddr, v6_daddr3, flavor_una;
	__u32 has_snd_cwnd, has_app_limited, app_limited, cwnd_size, cwnd_off_nonzero;
	__u32 tp_size, has_flavor, has_udp_sock, delivered_signed, cwnd_rshift, cwnd_lshift;
	__s32 probe_sk;
	__u32 probe_sk_val;
	__u32 has_mdev_us, mdev_us, rcv_wnd, window_clamp, rcv_wup, copied_seq, write_seq;
	__u32 snd_wnd, snd_wl1, rcv_ssthresh;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct core_snap);
} snap SEC(".maps");

SEC("sockops")
int core_tcp_sock(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;
	struct core_snap *s;
	struct tcp_sock *tp;
	__u32 key = 0;

	s = bpf_map_lookup_elem(&snap, &key);
	if (!s || !sk)
		return 1;
	s->calls++;
	tp = bpf_skc_to_tcp_sock(sk);
	if (!tp) {
		s->no_tp++;
		return 1;
	}
	/* direct loads through the typed pointer */
	s->snd_cwnd = tp->snd_cwnd;
	s->snd_ssthresh = tp->snd_ssthresh;
	s->mss_cache = tp->mss_cache;
	s->rcv_nxt = tp->rcv_nxt;
	s->snd_nxt = tp->snd_nxt;
	s->segs_in = tp->segs_in;
	s->segs_out = tp->segs_out;
	s->bytes_acked = tp->bytes_acked;
	s->delivered = tp->delivered;
	s->ecn_flags = tp->ecn_flags;
	s->min_rtt = tp->rtt_min.s[0].v;
	s->state = tp->inet_conn.icsk_inet.sk.__sk_common.skc_state;
	s->family = tp->inet_conn.icsk_inet.sk.__sk_common.skc_family;
	s->dport = tp->inet_conn.icsk_inet.sk.__sk_common.skc_dport;
	s->num = tp->inet_conn.icsk_inet.sk.__sk_common.skc_num;
	s->daddr = tp->inet_conn.icsk_inet.sk.__sk_common.skc_daddr;
	s->v6_daddr3 = tp->inet_conn.icsk_inet.sk.__sk_common.skc_v6_daddr.in6_u.u6_addr32[3];
	s->retransmits = tp->inet_conn.icsk_retransmits;
	s->flavor_una = ((struct tcp_sock___flavor *)tp)->snd_una;
	/* through bpf_probe_read_kernel, as most CO-RE programs read */
	s->srtt_us = BPF_CORE_READ(tp, srtt_us);
	s->snd_una = BPF_CORE_READ(tp, snd_una);
	s->data_segs_in = BPF_CORE_READ(tp, data_segs_in);
	s->data_segs_out = BPF_CORE_READ(tp, data_segs_out);
	s->total_retrans = BPF_CORE_READ(tp, total_retrans);
	s->bytes_received = BPF_CORE_READ(tp, bytes_received);
	s->mark = BPF_CORE_READ(tp, inet_conn.icsk_inet.sk.sk_mark);
	/* the queries */
	s->has_snd_cwnd = bpf_core_field_exists(tp->snd_cwnd);
	s->has_app_limited = bpf_core_field_exists(tp->app_limited);
	if (bpf_core_field_exists(tp->app_limited))
		s->app_limited = tp->app_limited; /* poisoned, and never reached on skops */
	/* fields the kernel's own programs read, guarded as they guard them */
	s->has_mdev_us = bpf_core_field_exists(tp->mdev_us);
	if (bpf_core_field_exists(tp->mdev_us))
		s->mdev_us = tp->mdev_us;
	s->rcv_wnd = tp->rcv_wnd;
	s->window_clamp = BPF_CORE_READ(tp, window_clamp);
	s->rcv_wup = tp->rcv_wup;
	s->copied_seq = tp->copied_seq;
	s->write_seq = BPF_CORE_READ(tp, write_seq);
	s->snd_wnd = tp->snd_wnd;
	s->snd_wl1 = tp->snd_wl1;
	s->rcv_ssthresh = tp->rcv_ssthresh;
	s->cwnd_size = bpf_core_field_size(tp->snd_cwnd);
	s->cwnd_off_nonzero = bpf_core_field_offset(tp->snd_cwnd) != 0;
	s->delivered_signed = __builtin_preserve_field_info(tp->delivered, BPF_FIELD_SIGNED);
	s->cwnd_rshift = __builtin_preserve_field_info(tp->snd_cwnd, BPF_FIELD_RSHIFT_U64);
	s->cwnd_lshift = __builtin_preserve_field_info(tp->snd_cwnd, BPF_FIELD_LSHIFT_U64);
	s->tp_size = bpf_core_type_size(struct tcp_sock);
	s->has_flavor = bpf_core_type_exists(struct tcp_sock___flavor);
	s->has_udp_sock = bpf_core_type_exists(struct udp_sock);
	/* bpf_probe_read_kernel reads inside the tcp_sock only: ctx->sk is
	 * not kernel memory here */
	__u32 x = 0xffffffff;
	s->probe_sk = bpf_probe_read_kernel(&x, sizeof(x), sk);
	s->probe_sk_val = x;
	return 1;
}

char _license[] SEC("license") = "GPL";
