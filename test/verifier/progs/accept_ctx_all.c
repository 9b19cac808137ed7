/* Reads every field of struct bpf_sock_ops a 4.13-6.1 program can see and
 * writes the two writable ones (reply, sk_txhash). */
#include "common.h"

SEC("sockops")
int ctx_all(struct bpf_sock_ops *s)
{
	__u64 x = s->op;
	for (int i = 0; i < 4; i++)
		x += s->args[i];
	x += s->family + s->remote_ip4 + s->local_ip4 + s->remote_port + s->local_port;
	for (int i = 0; i < 4; i++)
		x += s->remote_ip6[i] + s->local_ip6[i];
	x += s->is_fullsock + s->snd_cwnd + s->srtt_us + s->bpf_sock_ops_cb_flags + s->state;
	x += s->rtt_min + s->snd_ssthresh + s->rcv_nxt + s->snd_nxt + s->snd_una;
	x += s->mss_cache + s->ecn_flags + s->rate_delivered + s->rate_interval_us;
	x += s->packets_out + s->retrans_out + s->total_retrans + s->segs_in;
	x += s->data_segs_in + s->segs_out + s->data_segs_out + s->lost_out + s->sacked_out;
	x += s->sk_txhash + s->bytes_received + s->bytes_acked + s->skb_len + s->skb_tcp_flags;
	s->sk_txhash = (__u32)x;
	s->reply = (__u32)(x >> 32);
	return 1;
}

char _license[] SEC("license") = "GPL";
