// SPDX-License-Identifier: GPL-2.0
/* Selftests style, the passive side of hdr_opt_write.c: the listener asks for
 * the header-option callbacks at TCP_LISTEN_CB, so its requests run
 * HDR_OPT_LEN_CB for their SYN-ACK, where the SYN they answer is searched for
 * kind 254 with magic 0xa5c3 (BPF_LOAD_HDR_OPT_TCP_SYN). The accepted side
 * then parses every header and looks for the timestamp option. The listener
 * also sets TCP_SAVE_SYN, so the accepted side reads its SYN back at
 * PASSIVE_ESTABLISHED: TCP_BPF_SYN, _IP and _MAC, TCP_SAVED_SYN and the
 * option through BPF_LOAD_HDR_OPT_TCP_SYN. */
#include <linux/bpf.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>

struct synread_stat {
	__s32 syn_rc;
	__u32 synack_len_cbs;
	__u8 data[2];
	__u8 pad[2];
	__s32 ts_rc;
	__u32 parse_cbs;
	__s32 save_rc, save_get;	       /* set and read back at TCP_LISTEN_CB */
	__s32 syn_len, syn_ip_len, syn_mac_rc; /* TCP_BPF_SYN, _IP, _MAC */
	__s32 short_rc;			       /* TCP_BPF_SYN_IP into 8 bytes */
	__s32 saved_rc, saved_big_rc;	       /* TCP_SAVED_SYN, 20 and 4096... bytes */
	__u8 ip0, short0, pad2[2];	       /* the IP header's first byte, twice */
	__s32 estab_opt_rc;		       /* the SYN's option from the saved SYN */
	__u16 syn_dport, pad3;
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
	case BPF_SOCK_OPS_TCP_LISTEN_CB: {
		int one = 1;

		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
						     BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
		st->save_rc = bpf_setsockopt(skops, SOL_TCP, TCP_SAVE_SYN, &one, sizeof(one));
		one = 0;
		bpf_getsockopt(skops, SOL_TCP, TCP_SAVE_SYN, &one, sizeof(one));
		st->save_get = one;
		break;
	}
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
		st->synack_len_cbs++;
		st->syn_rc = bpf_load_hdr_opt(skops, opt, sizeof(opt), BPF_LOAD_HDR_OPT_TCP_SYN);
		if (st->syn_rc == 6) {
			st->data[0] = opt[4];
			st->data[1] = opt[5];
		}
		break;
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB: {
		__u8 hdr[80] = {0}, small[8] = {0};

		bpf_sock_ops_cb_flags_set(skops, BPF_SOCK_OPS_PARSE_ALL_HDR_OPT_CB_FLAG);
		st->syn_len = bpf_getsockopt(skops, SOL_TCP, TCP_BPF_SYN, hdr, sizeof(hdr));
		if (st->syn_len >= 4)
			st->syn_dport = (__u16)(hdr[2] << 8 | hdr[3]);
		st->syn_ip_len = bpf_getsockopt(skops, SOL_TCP, TCP_BPF_SYN_IP, hdr, sizeof(hdr));
		st->ip0 = hdr[0];
		st->syn_mac_rc = bpf_getsockopt(skops, SOL_TCP, TCP_BPF_SYN_MAC, hdr, sizeof(hdr));
		st->short_rc = bpf_getsockopt(skops, SOL_TCP, TCP_BPF_SYN_IP, small, sizeof(small));
		st->short0 = small[0];
		st->saved_rc = bpf_getsockopt(skops, SOL_TCP, TCP_SAVED_SYN, hdr, 20);
		st->saved_big_rc = bpf_getsockopt(skops, SOL_TCP, TCP_SAVED_SYN, hdr, sizeof(hdr));
		st->estab_opt_rc =
		    bpf_load_hdr_opt(skops, opt, sizeof(opt), BPF_LOAD_HDR_OPT_TCP_SYN);
		break;
	}
	case BPF_SOCK_OPS_PARSE_HDR_OPT_CB:
		st->parse_cbs++;
		st->ts_rc = bpf_load_hdr_opt(skops, ts, sizeof(ts), 0);
		break;
	}
	return 1;
}

char _license[] SEC("license") = "GPL";
