/* bpf_loop with a callback writing through its ctx pointer into the
 * caller's stack, and bpf_for_each_map_elem over an array. */
#include "common.h"

struct bpf_map_def SEC("maps") vals = {
    .type = BPF_MAP_TYPE_ARRAY,
    .key_size = sizeof(__u32),
    .value_size = sizeof(__u64),
    .max_entries = 8,
};

struct acc {
	__u64 sum;
	__u32 calls;
};

static long step(__u32 i, void *ctx)
{
	struct acc *a = ctx;
	a->sum += i;
	a->calls = 1;
	return 0;
}

static long visit(void *map, __u32 *key, __u64 *val, void *ctx)
{
	struct acc *a = ctx;
	a->sum += *val + *key;
	return 0;
}

SEC("sockops")
int callbacks(struct bpf_sock_ops *skops)
{
	struct acc a = {0, 0};
	bpf_loop(skops->op & 7, step, &a, 0);
	bpf_for_each_map_elem(&vals, visit, &a, 0);
	skops->reply = (__u32)a.sum + a.calls;
	return 1;
}

char _license[] SEC("license") = "GPL";
