// SPDX-License-Identifier: GPL-2.0
/* Refused at load: an extern function that is no kfunc of sock_ops. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern int bpf_no_such_kfunc(void *ctx) __ksym;

SEC("sockops")
int bad_kfunc_unknown(struct bpf_sock_ops *skops)
{
	return bpf_no_such_kfunc(skops) == 0;
}

char _license[] SEC("license") = "GPL";
