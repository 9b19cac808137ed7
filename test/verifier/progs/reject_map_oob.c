/* An index only bounded by 32 into a 16-entry array value. */
#include "common.h"

struct bpf_map_def SEC("maps") m = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 64, .max_entries = 1};

SEC("sockops")
int map_oob(struct bpf_sock_ops *skops)
{
	__u32 k = 0, i = skops->op & 31;
	__u32 *v = bpf_map_lookup_elem(&m, &k);
	if (!v)
		return 1;
	skops->reply = v[i];
	return 1;
}

char _license[] SEC("license") = "GPL";
