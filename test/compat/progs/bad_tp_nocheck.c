// SPDX-License-Identifier: GPL-2.0
/* Must not load: reads bpf_tcp_sock()'s result without checking it for NULL
 * (the kernel: "invalid mem access 'tcp_sock_or_null'"). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("sockops")
int bad_tp_nocheck(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;
	struct bpf_tcp_sock *tp;

	if (!sk)
		return 1;
	tp = bpf_tcp_sock(sk);
	skops->reply = tp->snd_cwnd;
	return 1;
}

char _license[] SEC("license") = "GPL";
