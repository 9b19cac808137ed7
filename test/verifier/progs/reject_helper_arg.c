/* bpf_setsockopt needs the ctx in R1, not a stack pointer. */
#include "common.h"

SEC("sockops")
int helper_arg(struct bpf_sock_ops *skops)
{
	int v = 1;
	char fake[16] = {};
	return bpf_setsockopt((void *)fake, 6, 1, &v, sizeof(v));
}

char _license[] SEC("license") = "GPL";
