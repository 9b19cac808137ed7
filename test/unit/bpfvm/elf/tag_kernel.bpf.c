/* The program test_tag_kernel.sh loads into the kernel and into bpfvm: a map
 * reference (so the tag's zeroing matters) and a return of 1, which the
 * kernel's sock_ops return range accepts. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} tag_counts SEC(".maps");

SEC("sockops")
int tag_prog(struct bpf_sock_ops *skops)
{
	__u32 k = skops->op & 3;
	__u64 *v = bpf_map_lookup_elem(&tag_counts, &k);
	if (v)
		*v += 1;
	return 1;
}

char _license[] SEC("license") = "GPL";
