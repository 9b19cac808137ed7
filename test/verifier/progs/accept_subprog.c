/* bpf-to-bpf calls: a stack pointer passed down two frames, a value
 * returned up, and the ctx passed to a subprogram. */
#include "common.h"

static NOINLINE int add_into(__u32 *acc, __u32 v)
{
	*acc += v;
	return *acc > 100;
}

static NOINLINE int sum_ports(struct bpf_sock_ops *skops, __u32 *acc)
{
	add_into(acc, skops->local_port);
	return add_into(acc, skops->remote_port >> 16);
}

SEC("sockops")
int subprogs(struct bpf_sock_ops *skops)
{
	__u32 acc = 0;
	int big = sum_ports(skops, &acc);
	skops->reply = big ? acc : 0;
	return 1;
}

char _license[] SEC("license") = "GPL";
