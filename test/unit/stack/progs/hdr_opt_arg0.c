// SPDX-License-Identifier: GPL-2.0
/* Counts, by args[0], the HDR_OPT_LEN_CB and WRITE_HDR_OPT_CB calls made for
 * SYN-ACKs: 0 for a request's, 2 (BPF_WRITE_HDR_TCP_SYNACK_COOKIE) for one
 * answering with a SYN cookie. The listener asks for the callbacks at
 * TCP_LISTEN_CB; 4 bytes are reserved so that WRITE_HDR_OPT_CB runs too. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define TCPHDR_SYN 0x02
#define TCPHDR_ACK 0x10

struct arg0_counts {
	__u32 len_cbs;
	__u32 write_cbs;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4); /* args[0] 0..2, and 3 for anything else */
	__type(key, __u32);
	__type(value, struct arg0_counts);
} synack_arg0 SEC(".maps");

SEC("sockops")
int hdr_opt_arg0(struct bpf_sock_ops *skops)
{
	struct arg0_counts *c;
	__u32 key = skops->args[0];

	if (skops->op == BPF_SOCK_OPS_TCP_LISTEN_CB) {
		bpf_sock_ops_cb_flags_set(skops, BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
		return 1;
	}
	if (skops->op != BPF_SOCK_OPS_HDR_OPT_LEN_CB && skops->op != BPF_SOCK_OPS_WRITE_HDR_OPT_CB)
		return 1;
	if ((skops->skb_tcp_flags & (TCPHDR_SYN | TCPHDR_ACK)) != (TCPHDR_SYN | TCPHDR_ACK))
		return 1;
	if (key > 2)
		key = 3;
	c = bpf_map_lookup_elem(&synack_arg0, &key);
	if (!c)
		return 1;
	if (skops->op == BPF_SOCK_OPS_HDR_OPT_LEN_CB) {
		c->len_cbs++;
		bpf_reserve_hdr_opt(skops, 4, 0);
	} else {
		c->write_cbs++;
	}
	return 1;
}

char _license[] SEC("license") = "GPL";
