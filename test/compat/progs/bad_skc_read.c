// SPDX-License-Identifier: GPL-2.0
/* Must not load: reads the kernel-typed tcp_sock at a raw offset past the
 * struct skops publishes, where no field lies (without CO-RE nothing moves
 * the offset onto one). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("sockops")
int bad_skc_read(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;
	void *tp;

	if (!sk)
		return 1;
	tp = bpf_skc_to_tcp_sock(sk);
	if (tp)
		skops->reply = *(__u32 *)((char *)tp + 4096);
	return 1;
}

char _license[] SEC("license") = "GPL";
