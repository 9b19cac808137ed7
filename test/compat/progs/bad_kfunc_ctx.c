// SPDX-License-Identifier: GPL-2.0
/* Refused: the uapi context handed straight to bpf_sock_ops_enable_tx_tstamp,
 * which takes the kernel context bpf_cast_to_kern_ctx gives (Linux 6.15). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_sock_ops_kern {
	void *sk;
};
extern int bpf_sock_ops_enable_tx_tstamp(struct bpf_sock_ops_kern *skops, __u64 flags) __ksym;

SEC("sockops")
int bad_kfunc_ctx(struct bpf_sock_ops *skops)
{
	if (skops->op == 20)
		bpf_sock_ops_enable_tx_tstamp((struct bpf_sock_ops_kern *)skops, 0);
	return 1;
}

char _license[] SEC("license") = "GPL";
