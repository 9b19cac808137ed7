// SPDX-License-Identifier: GPL-2.0
/* Selftests style, the passive side of hdr_opt_write.c: the listener asks for
 * the header-option callbacks at TCP_LISTEN_CB, so its requests run
 * HDR_OPT_LEN_CB for their SYN-ACK, where the SYN they answer is searched for
 * kind 254 with magic 0xa5c3 (BPF_LOAD_HDR_OPT_TCP_SYN). The accepted side
 * then parses every header and looks for the timestamp option. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct synread_stat {
	__s32 syn_rc;
	__u32 synack_len_cbs;
	__u8 data[2];
	__u8 pad[2];
	__s32 ts_rc;
	__u32 parse_cbs;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct synread_stat);
} synread SEC(".maps");

SEC("sockops")
int hdr_opt_synread(struct bpf_sock_ops *skops)
{
	__u8 opt[6] = {254, 4, 0xa5, 0xc3, 0, 0};
	__u8 ts[10] = {8, 0};
	struct synread_stat *st;
	__u32 key = 0;

	st = bpf_map_lookup_elem(&synread, &key);
	if (!st)
		return 1;
	switch (skops->op) {
	case BPF_SOCK_OPS_TCP_LISTEN_CB:
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
						     BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
		break;
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
		st->synack_len_cbs++;
		st->syn_rc = bpf_load_hdr_opt(skops, opt, sizeof(opt), BPF_LOAD_HDR_OPT_TCP_SYN);
		if (st->syn_rc == 6) {
			st->data[0] = opt[4];
			st->data[1] = opt[5];
		}
		break;
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		bpf_sock_ops_cb_flags_set(skops, BPF_SOCK_OPS_PARSE_ALL_HDR_OPT_CB_FLAG);
		break;
	case BPF_SOCK_OPS_PARSE_HDR_OPT_CB:
		st->parse_cbs++;
		st->ts_rc = bpf_load_hdr_opt(skops, ts, sizeof(ts), 0);
		break;
	}
	return 1;
}

char _license[] SEC("license") = "GPL";
