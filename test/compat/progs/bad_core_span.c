// SPDX-License-Identifier: GPL-2.0
/* Must not load: an 8-byte read at snd_cwnd's relocated offset spans two u32
 * fields of skops's struct tcp_sock; reads stay inside one field. */
#include "vmlinux_tcp.h"
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

SEC("sockops")
int bad_core_span(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;
	struct tcp_sock *tp;

	if (!sk)
		return 1;
	tp = bpf_skc_to_tcp_sock(sk);
	if (tp)
		skops->reply =
		    (__u32) * (__u64 *)((char *)tp + bpf_core_field_offset(tp->snd_cwnd));
	return 1;
}

char _license[] SEC("license") = "GPL";
