/* snd_cwnd is read-only: only reply (replylong[0]) and sk_txhash take stores. */
#include "common.h"

SEC("sockops")
int ctx_write(struct bpf_sock_ops *skops)
{
	skops->snd_cwnd = 10;
	return 1;
}

char _license[] SEC("license") = "GPL";
