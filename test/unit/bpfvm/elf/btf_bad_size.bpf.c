/* key_size contradicting the key's type. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__uint(key_size, 8);
	__type(key, __u32);
	__type(value, __u32);
} clash SEC(".maps");

SEC("sockops")
int bad_size(struct bpf_sock_ops *skops)
{
	__u32 k = 0;
	return bpf_map_lookup_elem(&clash, &k) ? 1 : 0;
}

char _license[] SEC("license") = "GPL";
