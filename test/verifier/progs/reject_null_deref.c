/* A map value used without its NULL check. */
#include "common.h"

struct bpf_map_def SEC("maps") m = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1};

SEC("sockops")
int null_deref(struct bpf_sock_ops *skops)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&m, &k);
	skops->reply = (__u32)*v;
	return 1;
}

char _license[] SEC("license") = "GPL";
