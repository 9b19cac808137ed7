/* Bounded loops: a variable trip count proven below 16 by a mask, and a
 * loop over the args words; the walk must prove both terminate. */
#include "common.h"

SEC("sockops")
int loops(struct bpf_sock_ops *skops)
{
	__u32 n = skops->op & 15, sum = 0;
#pragma clang loop unroll(disable)
	for (__u32 i = 0; i < n; i++)
		sum += i * 3;
#pragma clang loop unroll(disable)
	for (int i = 0; i < 4; i++)
		sum ^= skops->args[i];
	skops->reply = sum;
	return 1;
}

char _license[] SEC("license") = "GPL";
