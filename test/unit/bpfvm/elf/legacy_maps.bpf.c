/* Legacy "maps" section as samples/bpf of Linux 4.13 declared maps. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_map_def_legacy {
	unsigned int type;
	unsigned int key_size;
	unsigned int value_size;
	unsigned int max_entries;
	unsigned int map_flags;
};

struct bpf_map_def_legacy SEC("maps") op_hash = {
    .type = BPF_MAP_TYPE_HASH,
    .key_size = sizeof(__u32),
    .value_size = sizeof(__u64),
    .max_entries = 32,
};

struct bpf_map_def_legacy SEC("maps") op_array = {
    .type = BPF_MAP_TYPE_ARRAY,
    .key_size = sizeof(__u32),
    .value_size = sizeof(__u64),
    .max_entries = 16,
};

SEC("sockops")
int count_ops(struct bpf_sock_ops *skops)
{
	__u32 op = skops->op;
	__u64 *v = bpf_map_lookup_elem(&op_array, &op);
	if (v)
		__sync_fetch_and_add(v, 1);
	v = bpf_map_lookup_elem(&op_hash, &op);
	if (v)
		__sync_fetch_and_add(v, 1);
	return 1;
}

char _license[] SEC("license") = "GPL";
__u32 _version SEC("version") = 0x040d00;
