/* A pointer as the operand of an atomic add into a map value: refused for
 * every loader (only plain stores are relaxed for a privileged one). */
#include "common.h"

struct bpf_map_def SEC("maps") m = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1};

SEC("sockops")
int atomic_leak(struct bpf_sock_ops *skops)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&m, &k);
	if (v)
		__sync_fetch_and_add(v, (__u64)(long)skops);
	return 1;
}

char _license[] SEC("license") = "GPL";
