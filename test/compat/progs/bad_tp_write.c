// SPDX-License-Identifier: GPL-2.0
/* Must not load: struct bpf_tcp_sock is read-only. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("sockops")
int bad_tp_write(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;
	struct bpf_tcp_sock *tp;

	if (!sk)
		return 1;
	tp = bpf_tcp_sock(sk);
	if (tp)
		tp->snd_cwnd = 1;
	return 1;
}

char _license[] SEC("license") = "GPL";
