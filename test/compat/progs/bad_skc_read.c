// SPDX-License-Identifier: GPL-2.0
/* Must not load here (yet): bpf_skc_to_tcp_sock() gives a kernel-typed
 * tcp_sock whose fields need CO-RE relocations; without vmlinux.h this
 * program reads one at a raw offset, which the loader cannot relocate. */
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
		skops->reply = *(__u32 *)tp;
	return 1;
}

char _license[] SEC("license") = "GPL";
