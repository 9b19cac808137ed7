/* ctx->sk after a NULL check; header bytes through skb_data after a
 * skb_data_end check. */
#include "common.h"

SEC("sockops")
int sk_pkt(struct bpf_sock_ops *skops)
{
	__u32 v = 0;
	struct bpf_sock *sk = skops->sk;
	if (sk)
		v = sk->family + sk->protocol;
	unsigned char *data = (unsigned char *)(long)skops->skb_data;
	unsigned char *end = (unsigned char *)(long)skops->skb_data_end;
	if (data + 20 <= end)
		v += data[12] >> 4;
	skops->reply = v;
	return 1;
}

char _license[] SEC("license") = "GPL";
