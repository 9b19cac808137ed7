/* class 5: unlock through another lookup's value */
#include "common.h"

struct val {
	struct bpf_spin_lock lock;
	__u32 count;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct val);
} locks SEC(".maps");

SEC("sockops")
int spin_lock(struct bpf_sock_ops *s)
{
	__u32 k0 = 0, k1 = 1;
	struct val *a = bpf_map_lookup_elem(&locks, &k0);
	struct val *b = bpf_map_lookup_elem(&locks, &k1);
	if (!a || !b)
		return 1;
	bpf_spin_lock(&a->lock);
	a->count++;
	bpf_spin_unlock(&b->lock);
	return 1;
}
