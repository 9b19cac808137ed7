// SPDX-License-Identifier: GPL-2.0
/* Selftests style: the other side of hdr_opt_write.c. At
 * PASSIVE_ESTABLISHED_CB it asks to parse every header's options; at
 * PARSE_HDR_OPT_CB it looks up kind 254 with magic 0xa5c3 and keeps what
 * bpf_load_hdr_opt() answered and the option's data bytes; a lookup in "the
 * SYN" there has no SYN to search. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct parse_stat {
	__s32 load_rc;
	__s32 syn_rc;
	__u32 parse_cbs;
	__u8 data[2];
	__u8 pad[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct parse_stat);
} seen SEC(".maps");

SEC("sockops")
int hdr_opt_parse(struct bpf_sock_ops *skops)
{
	__u8 opt[6] = {254, 4, 0xa5, 0xc3, 0, 0};
	struct parse_stat *st;
	__u32 key = 0;

	st = bpf_map_lookup_elem(&seen, &key);
	if (!st)
		return 1;
	switch (skops->op) {
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
						     BPF_SOCK_OPS_PARSE_ALL_HDR_OPT_CB_FLAG);
		break;
	case BPF_SOCK_OPS_PARSE_HDR_OPT_CB:
		st->parse_cbs++;
		st->load_rc = bpf_load_hdr_opt(skops, opt, sizeof(opt), 0);
		if (st->load_rc == 6) {
			st->data[0] = opt[4];
			st->data[1] = opt[5];
		}
		opt[1] = 4;
		st->syn_rc = bpf_load_hdr_opt(skops, opt, sizeof(opt), BPF_LOAD_HDR_OPT_TCP_SYN);
		break;
	}
	return 1;
}

char _license[] SEC("license") = "GPL";
