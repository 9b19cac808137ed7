/* Issue 25 class 8: a bpf_loop callback running bpf_loop, both at the
 * maximum count: 2^46 callbacks. Accepted, as the kernel does; the run-time
 * budget stops it (test/verifier/run_budget.c runs it). */
#include "common.h"

static long inner(__u32 i, void *ctx)
{
	return 0;
}

static long outer(__u32 i, void *ctx)
{
	bpf_loop(1 << 23, inner, ctx, 0);
	return 0;
}

SEC("sockops")
int nested_loop(struct bpf_sock_ops *skops)
{
	bpf_loop(1 << 23, outer, 0, 0);
	skops->reply = 7;
	return 1;
}

char _license[] SEC("license") = "GPL";
