// SPDX-License-Identifier: GPL-2.0
/* Selftests style: turns on STATE_CB at TCP_LISTEN_CB and at both
 * ESTABLISHED callbacks, applies the window clamp of cfg[0] at
 * TCP_CONNECT_CB (WINDOW_CLAMP when cfg[0] is 0), and at every transition to CLOSE records the
 * socket's counters from the context and from bpf_tcp_sock() in slot 0 (the side that connected), 1
 * (the accepted side) or 2 (the listener). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#ifndef SOL_TCP
#define SOL_TCP 6
#endif
#define TCP_WINDOW_CLAMP 10
/* The clamp when cfg[0] is 0: the build makes a copy with 9216 for runs that
 * cannot write the map before the connection (the equivalence suite). */
#ifndef WINDOW_CLAMP
#define WINDOW_CLAMP 0
#endif

struct close_counts {
	__u64 bytes_acked;
	__u64 bytes_received;
	__u64 tp_bytes_acked;
	__u64 tp_bytes_received;
	__u32 closes;
	__u32 old_state;
	__u32 data_segs_in;
	__u32 data_segs_out;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, struct close_counts);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u32);
} side SEC(".maps");

static __always_inline void record(struct bpf_sock_ops *skops)
{
	__u64 cookie = bpf_get_socket_cookie(skops);
	struct bpf_sock *sk = skops->sk;
	struct bpf_tcp_sock *tp;
	struct close_counts *c;
	__u32 key = 2, *s;

	if (skops->args[0] != BPF_TCP_LISTEN) {
		s = bpf_map_lookup_elem(&side, &cookie);
		if (!s)
			return;
		key = *s;
	}
	c = bpf_map_lookup_elem(&counts, &key);
	if (!c)
		return;
	c->closes++;
	c->old_state = skops->args[0];
	c->bytes_acked = skops->bytes_acked;
	c->bytes_received = skops->bytes_received;
	c->data_segs_in = skops->data_segs_in;
	c->data_segs_out = skops->data_segs_out;
	if (!sk)
		return;
	tp = bpf_tcp_sock(sk);
	if (!tp)
		return;
	c->tp_bytes_acked = tp->bytes_acked;
	c->tp_bytes_received = tp->bytes_received;
}

SEC("sockops")
int close_counts(struct bpf_sock_ops *skops)
{
	__u64 cookie;
	__u32 key = 0, v, *clamp;

	switch (skops->op) {
	case BPF_SOCK_OPS_TCP_LISTEN_CB:
		bpf_sock_ops_cb_flags_set(skops, BPF_SOCK_OPS_STATE_CB_FLAG);
		break;
	case BPF_SOCK_OPS_TCP_CONNECT_CB:
		clamp = bpf_map_lookup_elem(&cfg, &key);
		v = clamp && *clamp ? *clamp : WINDOW_CLAMP;
		if (v)
			bpf_setsockopt(skops, SOL_TCP, TCP_WINDOW_CLAMP, &v, sizeof(v));
		break;
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		cookie = bpf_get_socket_cookie(skops);
		v = skops->op == BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB;
		bpf_map_update_elem(&side, &cookie, &v, BPF_ANY);
		bpf_sock_ops_cb_flags_set(skops, BPF_SOCK_OPS_STATE_CB_FLAG);
		break;
	case BPF_SOCK_OPS_STATE_CB:
		if (skops->args[1] == BPF_TCP_CLOSE)
			record(skops);
		break;
	}
	return 1;
}

char _license[] SEC("license") = "GPL";
