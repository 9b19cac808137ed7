// SPDX-License-Identifier: GPL-2.0
/* Must not load: reads a tcp_sock field skops does not publish on a path the
 * verifier reaches; the loader poisons the load and the verifier names it. */
#include "vmlinux_tcp.h"
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("sockops")
int bad_core_missing(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;
	struct tcp_sock *tp;

	if (!sk)
		return 1;
	tp = bpf_skc_to_tcp_sock(sk);
	if (tp)
		skops->reply = tp->app_limited;
	return 1;
}

char _license[] SEC("license") = "GPL";
