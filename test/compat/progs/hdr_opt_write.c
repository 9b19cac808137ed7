// SPDX-License-Identifier: GPL-2.0
/* Selftests style: asks for the header-option callbacks at TCP_CONNECT_CB and
 * puts an RFC 6994 experimental option (kind 254, magic 0xa5c3, two data
 * bytes 0x1234) in the SYN: 12 bytes reserved at HDR_OPT_LEN_CB, the option
 * stored at WRITE_HDR_OPT_CB, then stored again to see the duplicate refused.
 * The helpers' answers go to the "stat" map. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define TCPHDR_SYN 0x02
#define TCPHDR_ACK 0x10

struct hdr_stat {
	__s32 reserve_rc;
	__s32 store_rc;
	__s32 dup_rc;
	__u32 len_cbs;
	__u32 write_cbs;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hdr_stat);
} stat SEC(".maps");

SEC("sockops")
int hdr_opt_write(struct bpf_sock_ops *skops)
{
	__u8 opt[6] = {254, 6, 0xa5, 0xc3, 0x12, 0x34};
	struct hdr_stat *st;
	__u32 key = 0;

	st = bpf_map_lookup_elem(&stat, &key);
	if (!st)
		return 1;
	switch (skops->op) {
	case BPF_SOCK_OPS_TCP_CONNECT_CB:
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
						     BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
		break;
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
		st->len_cbs++;
		if ((skops->skb_tcp_flags & (TCPHDR_SYN | TCPHDR_ACK)) == TCPHDR_SYN)
			st->reserve_rc = bpf_reserve_hdr_opt(skops, 12, 0);
		break;
	case BPF_SOCK_OPS_WRITE_HDR_OPT_CB:
		st->write_cbs++;
		if ((skops->skb_tcp_flags & (TCPHDR_SYN | TCPHDR_ACK)) == TCPHDR_SYN) {
			st->store_rc = bpf_store_hdr_opt(skops, opt, sizeof(opt), 0);
			st->dup_rc = bpf_store_hdr_opt(skops, opt, sizeof(opt), 0);
		}
		break;
	}
	return 1;
}

char _license[] SEC("license") = "GPL";
