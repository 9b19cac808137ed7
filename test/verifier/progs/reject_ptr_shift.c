/* Bit arithmetic on a pointer. */
#include "common.h"

SEC("sockops")
int ptr_shift(struct bpf_sock_ops *skops)
{
	long p = (long)skops;
	asm volatile("%0 <<= 1" : "+r"(p));
	return *(volatile int *)p;
}

char _license[] SEC("license") = "GPL";
