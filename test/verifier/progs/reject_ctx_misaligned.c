/* A 4-byte load at offset 2 of the ctx. */
#include "common.h"

SEC("sockops")
int ctx_misaligned(struct bpf_sock_ops *skops)
{
	skops->reply = *(volatile __u32 *)((char *)skops + 2);
	return 1;
}

char _license[] SEC("license") = "GPL";
