/* A pointer stored into the context (reply): refused for every loader; the
 * privileged relaxation covers map values only. */
#include "common.h"

SEC("sockops")
int ctx_leak(struct bpf_sock_ops *skops)
{
	skops->reply = (__u32)(long)skops;
	return 1;
}

char _license[] SEC("license") = "GPL";
