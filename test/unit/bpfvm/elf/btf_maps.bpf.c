/* BTF-defined maps in libbpf's convention: typed and sized key/value. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct pair {
	__u64 a;
	__u32 b;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, struct pair);
} typed SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__uint(key_size, 8);
	__uint(value_size, 24);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} sized SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64[3]);
} percpu SEC(".maps");

SEC("sockops")
int use_maps(struct bpf_sock_ops *skops)
{
	__u32 k = 1;
	struct pair *p = bpf_map_lookup_elem(&typed, &k);
	if (p)
		p->b = skops->op;
	__u64 hk = skops->op, hv[3] = {1, 2, 3};
	bpf_map_update_elem(&sized, &hk, hv, BPF_ANY);
	__u64 *pc = bpf_map_lookup_elem(&percpu, &k);
	if (pc)
		pc[2]++;
	return 1;
}

char _license[] SEC("license") = "GPL";
