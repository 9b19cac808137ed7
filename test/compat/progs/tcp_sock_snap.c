// SPDX-License-Identifier: GPL-2.0
/* Written in the kernel selftests' style (libbpf headers, BTF-defined maps,
 * SEC("sockops")): on every op, snapshot struct bpf_tcp_sock through
 * bpf_tcp_sock() into an array map, and count what bpf_skc_to_tcp_sock()
 * and bpf_skc_to_mptcp_sock() return. The test compares the snapshot with
 * the socket's own counters. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct tcp_snap {
	__u32 calls;
	__u32 no_sk;
	__u32 no_tp;
	__u32 skc_tcp;
	__u32 skc_mptcp;
	__u32 op;
	struct bpf_tcp_sock tp;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tcp_snap);
} snap SEC(".maps");

SEC("sockops")
int tcp_sock_snap(struct bpf_sock_ops *skops)
{
	struct bpf_tcp_sock *tp;
	struct bpf_sock *sk;
	struct tcp_snap *s;
	__u32 key = 0;

	s = bpf_map_lookup_elem(&snap, &key);
	if (!s)
		return 1;
	s->calls++;
	s->op = skops->op;
	sk = skops->sk;
	if (!sk) {
		s->no_sk++;
		return 1;
	}
	if (bpf_skc_to_tcp_sock(sk))
		s->skc_tcp++;
	if (bpf_skc_to_mptcp_sock(sk))
		s->skc_mptcp++;
	tp = bpf_tcp_sock(sk);
	if (!tp) {
		s->no_tp++;
		return 1;
	}
	s->tp.snd_cwnd = tp->snd_cwnd;
	s->tp.srtt_us = tp->srtt_us;
	s->tp.rtt_min = tp->rtt_min;
	s->tp.snd_ssthresh = tp->snd_ssthresh;
	s->tp.rcv_nxt = tp->rcv_nxt;
	s->tp.snd_nxt = tp->snd_nxt;
	s->tp.snd_una = tp->snd_una;
	s->tp.mss_cache = tp->mss_cache;
	s->tp.ecn_flags = tp->ecn_flags;
	s->tp.rate_delivered = tp->rate_delivered;
	s->tp.rate_interval_us = tp->rate_interval_us;
	s->tp.packets_out = tp->packets_out;
	s->tp.retrans_out = tp->retrans_out;
	s->tp.total_retrans = tp->total_retrans;
	s->tp.segs_in = tp->segs_in;
	s->tp.data_segs_in = tp->data_segs_in;
	s->tp.segs_out = tp->segs_out;
	s->tp.data_segs_out = tp->data_segs_out;
	s->tp.lost_out = tp->lost_out;
	s->tp.sacked_out = tp->sacked_out;
	s->tp.bytes_received = tp->bytes_received;
	s->tp.bytes_acked = tp->bytes_acked;
	s->tp.dsack_dups = tp->dsack_dups;
	s->tp.delivered = tp->delivered;
	s->tp.delivered_ce = tp->delivered_ce;
	s->tp.icsk_retransmits = tp->icsk_retransmits;
	return 1;
}

char _license[] SEC("license") = "GPL";
