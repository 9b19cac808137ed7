/* A pointer compared with a number other than NULL. */
#include "common.h"

SEC("sockops")
int ptr_cmp(struct bpf_sock_ops *skops)
{
	if ((long)skops == 4096)
		return 0;
	return 1;
}

char _license[] SEC("license") = "GPL";
