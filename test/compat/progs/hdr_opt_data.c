// SPDX-License-Identifier: GPL-2.0
/* Selftests style: an RFC 6994 experimental option (kind 254, magic 0x5c0b)
 * on every segment after the handshake, with a 4-byte count of the options
 * this socket sent before it. Both ends may run it: at the ESTABLISHED
 * callbacks a socket asks to write header options and to parse unknown ones;
 * 8 bytes are reserved when the stack asks for the current MSS and for each
 * segment; the option is stored on every segment that is not a SYN; a peer's
 * option is looked up in every header that carries one and counted by the
 * kind of segment (data, FIN, pure ACK), its count checked against the next
 * one expected. Slot 0 of "optcnt" is the connecting side, slot 1 the
 * accepting side. */
#include <linux/bpf.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define TCPHDR_FIN 0x01
#define TCPHDR_SYN 0x02

#define OPT_KIND  254
#define OPT_LEN	  8
#define OPT_MAGIC 0x5c0b

struct opt_count {
	__u32 mss_len_cbs;  /* HDR_OPT_LEN_CB for the current MSS */
	__u32 seg_len_cbs;  /* HDR_OPT_LEN_CB for a segment */
	__u32 reserve_fail; /* bpf_reserve_hdr_opt refused */
	__u32 data_out, fin_out, ack_out;
	__s32 store_rc; /* the last failed bpf_store_hdr_opt, 0 if none */
	__u32 data_in, fin_in, ack_in;
	__u32 in_order, out_of_order;
	__u32 parse_cbs, parse_miss;
	__u32 max_seg_len; /* the longest segment written (skb_len at WRITE) */
};

struct opt_stg {
	__u32 slot;
	__u32 sent;
	__u32 next_in;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct opt_count);
} optcnt SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct opt_stg);
} opt_stg_map SEC(".maps");

/* The segment's class from its header: a FIN, data beyond the header, or a
 * pure ACK. -1 when the header cannot be read. */
static int seg_class(struct bpf_sock_ops *skops)
{
	struct tcphdr *th = (void *)(long)skops->skb_data;

	if ((void *)(th + 1) > (void *)(long)skops->skb_data_end)
		return -1;
	if (skops->skb_tcp_flags & TCPHDR_FIN)
		return 1;
	return skops->skb_len > th->doff * 4 ? 0 : 2;
}

static void count_out(struct opt_count *c, int cls)
{
	if (cls == 0)
		c->data_out++;
	else if (cls == 1)
		c->fin_out++;
	else if (cls == 2)
		c->ack_out++;
}

static void count_in(struct opt_count *c, int cls)
{
	if (cls == 0)
		c->data_in++;
	else if (cls == 1)
		c->fin_in++;
	else if (cls == 2)
		c->ack_in++;
}

SEC("sockops")
int hdr_opt_data(struct bpf_sock_ops *skops)
{
	__u8 opt[OPT_LEN] = {OPT_KIND, OPT_LEN, OPT_MAGIC >> 8, OPT_MAGIC & 0xff};
	struct opt_count *c;
	struct opt_stg *stg;
	struct bpf_sock *sk;
	__u32 key, seq;
	int rc;

	sk = skops->sk;
	if (!sk)
		return 1;
	switch (skops->op) {
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		stg = bpf_sk_storage_get(&opt_stg_map, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
		if (!stg)
			return 1;
		stg->slot = skops->op == BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB;
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
						     BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG |
						     BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG);
		return 1;
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
	case BPF_SOCK_OPS_WRITE_HDR_OPT_CB:
	case BPF_SOCK_OPS_PARSE_HDR_OPT_CB:
		break;
	default:
		return 1;
	}
	if (skops->skb_tcp_flags & TCPHDR_SYN)
		return 1;
	stg = bpf_sk_storage_get(&opt_stg_map, sk, 0, 0);
	if (!stg)
		return 1;
	key = stg->slot;
	c = bpf_map_lookup_elem(&optcnt, &key);
	if (!c)
		return 1;

	switch (skops->op) {
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
		if (skops->args[0] == BPF_WRITE_HDR_TCP_CURRENT_MSS)
			c->mss_len_cbs++;
		else
			c->seg_len_cbs++;
		if (bpf_reserve_hdr_opt(skops, OPT_LEN, 0))
			c->reserve_fail++;
		break;
	case BPF_SOCK_OPS_WRITE_HDR_OPT_CB:
		seq = bpf_htonl(stg->sent);
		__builtin_memcpy(&opt[4], &seq, 4);
		rc = bpf_store_hdr_opt(skops, opt, sizeof(opt), 0);
		if (rc) {
			c->store_rc = rc;
			break;
		}
		stg->sent++;
		count_out(c, seg_class(skops));
		if (skops->skb_len > c->max_seg_len)
			c->max_seg_len = skops->skb_len;
		break;
	case BPF_SOCK_OPS_PARSE_HDR_OPT_CB:
		c->parse_cbs++;
		opt[1] = 4; /* search by kind and 2-byte magic */
		if (bpf_load_hdr_opt(skops, opt, sizeof(opt), 0) != OPT_LEN) {
			c->parse_miss++;
			break;
		}
		__builtin_memcpy(&seq, &opt[4], 4);
		seq = bpf_ntohl(seq);
		if (seq == stg->next_in)
			c->in_order++;
		else
			c->out_of_order++;
		stg->next_in = seq + 1;
		count_in(c, seg_class(skops));
		break;
	}
	return 1;
}

char _license[] SEC("license") = "GPL";
