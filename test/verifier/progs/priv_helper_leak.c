/* A pointer spilled to the stack and handed to a helper as the value to
 * store: refused for every loader (only direct stores into map values are
 * relaxed for a privileged one). */
#include "common.h"

struct bpf_map_def SEC("maps") m = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1};

SEC("sockops")
int helper_leak(struct bpf_sock_ops *skops)
{
	__u32 k = 0;
	__u64 val = (__u64)(long)skops;
	bpf_map_update_elem(&m, &k, &val, BPF_ANY);
	return 1;
}

char _license[] SEC("license") = "GPL";
