/* A pointer a privileged program stored in a map value comes back as a
 * number: dereferencing it is refused for every loader. */
#include "common.h"

struct bpf_map_def SEC("maps") m = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1};

SEC("sockops")
int deref(struct bpf_sock_ops *skops)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&m, &k);
	if (!v)
		return 1;
	*v = (__u64)(long)skops;
	struct bpf_sock_ops *back = (struct bpf_sock_ops *)(long)*(volatile __u64 *)v;
	return back->op == 0;
}

char _license[] SEC("license") = "GPL";
