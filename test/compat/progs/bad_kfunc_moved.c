// SPDX-License-Identifier: GPL-2.0
/* Refused: the kernel context moved before it reaches the kfunc (Linux
 * wants a trusted pointer at offset 0). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_sock_ops_kern {
	void *sk;
};
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;
extern int bpf_sock_ops_enable_tx_tstamp(struct bpf_sock_ops_kern *skops, __u64 flags) __ksym;

SEC("sockops")
int bad_kfunc_moved(struct bpf_sock_ops *skops)
{
	char *k = bpf_cast_to_kern_ctx(skops);

	if (skops->op == 20)
		bpf_sock_ops_enable_tx_tstamp((struct bpf_sock_ops_kern *)(k + 8), 0);
	return 1;
}

char _license[] SEC("license") = "GPL";
