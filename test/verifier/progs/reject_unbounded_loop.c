/* A loop whose bound is any u32: the walk runs into the insn limit. */
#include "common.h"

SEC("sockops")
int unbounded(struct bpf_sock_ops *skops)
{
	__u32 n = skops->snd_cwnd, sum = 0;
#pragma clang loop unroll(disable)
	for (__u32 i = 0; i < n; i++)
		sum += skops->args[i & 3];
	skops->reply = sum;
	return 1;
}

char _license[] SEC("license") = "GPL";
