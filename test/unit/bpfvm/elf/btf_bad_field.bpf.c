/* A BTF map with a member libbpf's convention does not define. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
	__uint(colour, 3);
} odd SEC(".maps");

SEC("sockops")
int bad_field(struct bpf_sock_ops *skops)
{
	__u32 k = 0;
	return bpf_map_lookup_elem(&odd, &k) ? 1 : 0;
}

char _license[] SEC("license") = "GPL";
