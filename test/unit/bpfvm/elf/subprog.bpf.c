/* bpf-to-bpf calls: static and global functions in .text called from two
 * program sections, a nested call, and a function nobody calls. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

static __attribute__((noinline)) int leaf(int x)
{
	return x * 3;
}

static __attribute__((noinline)) int mid(int x)
{
	return leaf(x) + 1;
}

__attribute__((noinline)) int global_add(int x)
{
	return x + 7;
}

__attribute__((noinline)) int unused_func(int x)
{
	return x - 100;
}

SEC("sockops")
int caller_a(struct bpf_sock_ops *skops)
{
	return mid(skops->op) + global_add(1) > 0;
}

SEC("tc/second")
int caller_b(struct __sk_buff *skb)
{
	return leaf(skb->len);
}

char _license[] SEC("license") = "Dual BSD/GPL";
