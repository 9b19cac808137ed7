/* Counts every sock_ops callback per connection: a hash map keyed by the
 * socket cookie holds one counter per op value. User space reads it to see
 * which callbacks a connection went through. */
#include <uapi/linux/bpf.h>
#include "bpf_helpers.h"

#define OP_COUNT_OPS 16

struct op_counts {
	__u64 n[OP_COUNT_OPS];
};

struct bpf_map_def SEC("maps") op_count_map = {
    .type = BPF_MAP_TYPE_HASH,
    .key_size = sizeof(__u64),
    .value_size = sizeof(struct op_counts),
    .max_entries = 1024,
};

SEC("sockops")
int op_count(struct bpf_sock_ops *skops)
{
	__u64 cookie = bpf_get_socket_cookie(skops);
	__u32 op = skops->op;
	struct op_counts *c;

	skops->reply = (__u32)-1;
	if (op >= OP_COUNT_OPS)
		return 1;
	c = bpf_map_lookup_elem(&op_count_map, &cookie);
	if (!c) {
		struct op_counts zero = {};
		bpf_map_update_elem(&op_count_map, &cookie, &zero, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&op_count_map, &cookie);
		if (!c)
			return 1;
	}
	c->n[op] += 1;
	return 1;
}

char _license[] SEC("license") = "GPL";
