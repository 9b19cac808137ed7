/* bpf_get_current_pid_tgid (14) exists, but not for sock_ops. */
#include "common.h"

static __u64 (*get_pid_tgid)(void) = (void *)14;

SEC("sockops")
int disallowed(struct bpf_sock_ops *skops)
{
	skops->reply = (__u32)get_pid_tgid();
	return 1;
}

char _license[] SEC("license") = "GPL";
