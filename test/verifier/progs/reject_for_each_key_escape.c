/* Issue 25 class 11: bpf_for_each_map_elem hands its callback a key that
 * lives in the helper's own frame; the pointer may not outlive the callback,
 * so storing it into the caller's stack (through the callback ctx) is
 * refused. accept_callbacks.c reads key and value inside the callback. */
#include "common.h"

struct bpf_map_def SEC("maps") vals = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 4};

struct keep {
	__u32 *key;
};

static long save_key(void *map, __u32 *key, __u64 *val, void *ctx)
{
	struct keep *k = ctx;
	k->key = key;
	return 1;
}

SEC("sockops")
int key_escape(struct bpf_sock_ops *skops)
{
	struct keep k = {0};
	bpf_for_each_map_elem(&vals, save_key, &k, 0);
	if (k.key)
		skops->reply = *k.key;
	return 1;
}

char _license[] SEC("license") = "GPL";
