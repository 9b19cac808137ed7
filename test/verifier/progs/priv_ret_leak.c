/* The ctx pointer returned: refused for every loader. */
#include "common.h"

SEC("sockops")
NAKED int ret_leak(struct bpf_sock_ops *skops)
{
	asm volatile("r0 = r1\n"
		     "exit\n");
}

char _license[] SEC("license") = "GPL";
