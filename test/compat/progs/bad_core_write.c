// SPDX-License-Identifier: GPL-2.0
/* Must not load: stores into the kernel-typed tcp_sock, read-only as in Linux. */
#include "vmlinux_tcp.h"
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("sockops")
int bad_core_write(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;
	struct tcp_sock *tp;

	if (!sk)
		return 1;
	tp = bpf_skc_to_tcp_sock(sk);
	if (tp)
		tp->snd_cwnd = 10;
	return 1;
}

char _license[] SEC("license") = "GPL";
