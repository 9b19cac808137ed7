// SPDX-License-Identifier: GPL-2.0
/* Must not load: a variable offset on the kernel-typed tcp_sock pointer (the
 * kernel wants constant offsets into a BTF object too). */
#include "vmlinux_tcp.h"
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("sockops")
int bad_core_varoff(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;
	struct tcp_sock *tp;

	if (!sk)
		return 1;
	tp = bpf_skc_to_tcp_sock(sk);
	if (tp)
		skops->reply = *(__u32 *)((char *)tp + (skops->op & 4));
	return 1;
}

char _license[] SEC("license") = "GPL";
