/* A value with an unset field handed to bpf_map_update_elem. */
#include "common.h"

struct val {
	__u32 a, b;
};

struct bpf_map_def SEC("maps") m = {
    .type = BPF_MAP_TYPE_HASH, .key_size = 4, .value_size = 8, .max_entries = 4};

SEC("sockops")
int uninit_stack(struct bpf_sock_ops *skops)
{
	__u32 k = skops->op;
	struct val v;
	v.a = 1;
	bpf_map_update_elem(&m, &k, &v, 0);
	return 1;
}

char _license[] SEC("license") = "GPL";
