/* A read past the end of struct bpf_sock_ops. */
#include "common.h"

SEC("sockops")
int ctx_oob(struct bpf_sock_ops *skops)
{
	skops->reply = ((volatile __u32 *)skops)[100];
	return 1;
}

char _license[] SEC("license") = "GPL";
