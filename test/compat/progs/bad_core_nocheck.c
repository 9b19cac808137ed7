// SPDX-License-Identifier: GPL-2.0
/* Must not load: bpf_skc_to_tcp_sock() may return NULL, and this program
 * reads through the result without checking. */
#include "vmlinux_tcp.h"
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("sockops")
int bad_core_nocheck(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;
	struct tcp_sock *tp;

	if (!sk)
		return 1;
	tp = bpf_skc_to_tcp_sock(sk);
	skops->reply = tp->snd_cwnd;
	return 1;
}

char _license[] SEC("license") = "GPL";
