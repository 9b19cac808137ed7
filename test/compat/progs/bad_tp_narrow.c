// SPDX-License-Identifier: GPL-2.0
/* Must not load: bytes_acked is read as its 8 bytes only (the kernel's
 * bpf_tcp_sock_is_valid_access); a 4-byte read of it is refused. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("sockops")
int bad_tp_narrow(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;
	struct bpf_tcp_sock *tp;

	if (!sk)
		return 1;
	tp = bpf_tcp_sock(sk);
	if (tp)
		skops->reply = *(volatile __u32 *)&tp->bytes_acked;
	return 1;
}

char _license[] SEC("license") = "GPL";
