/* Waits for a ctx field that cannot change: the state repeats. */
#include "common.h"

SEC("sockops")
int spin(struct bpf_sock_ops *skops)
{
	while (*(volatile __u32 *)&skops->op != 99)
		;
	return 1;
}

char _license[] SEC("license") = "GPL";
