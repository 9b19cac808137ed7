/* Map lookups with NULL checks: an array indexed by a bounded op, a hash
 * map created on first use, an atomic counter. */
#include "common.h"

struct counters {
	__u64 per_op[16];
	__u64 total;
};

struct bpf_map_def SEC("maps") op_stats = {
    .type = BPF_MAP_TYPE_ARRAY,
    .key_size = sizeof(__u32),
    .value_size = sizeof(struct counters),
    .max_entries = 1,
};

struct bpf_map_def SEC("maps") by_port = {
    .type = BPF_MAP_TYPE_HASH,
    .key_size = sizeof(__u32),
    .value_size = sizeof(__u64),
    .max_entries = 256,
};

SEC("sockops")
int map_use(struct bpf_sock_ops *skops)
{
	__u32 zero = 0, op = skops->op, port = skops->local_port;
	struct counters *c = bpf_map_lookup_elem(&op_stats, &zero);
	if (c) {
		if (op < 16)
			c->per_op[op]++;
		__sync_fetch_and_add(&c->total, 1);
	}
	__u64 *n = bpf_map_lookup_elem(&by_port, &port);
	if (!n) {
		__u64 one = 1;
		bpf_map_update_elem(&by_port, &port, &one, BPF_NOEXIST);
	} else {
		*n += 1;
	}
	return 1;
}

char _license[] SEC("license") = "GPL";
