/* The ctx pointer stored into a map value: an address leak, which only a
 * privileged loader may make (the kernel's allow_ptr_leaks). */
#include "common.h"

struct bpf_map_def SEC("maps") m = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1};

SEC("sockops")
int leak(struct bpf_sock_ops *skops)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&m, &k);
	if (v)
		*v = (__u64)(long)skops;
	return 1;
}

char _license[] SEC("license") = "GPL";
