// SPDX-License-Identifier: GPL-2.0
/* Must not load: ctx->sk may be NULL and bpf_tcp_sock() wants a socket. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("sockops")
int bad_sk_nocheck(struct bpf_sock_ops *skops)
{
	struct bpf_tcp_sock *tp = bpf_tcp_sock(skops->sk);

	if (tp)
		skops->reply = tp->snd_cwnd;
	return 1;
}

char _license[] SEC("license") = "GPL";
