// SPDX-License-Identifier: GPL-2.0
/* Refused: bpf_sock_map_update takes a SOCKMAP only, a SOCKHASH goes through
 * bpf_sock_hash_update (Linux: "cannot pass map_type 18 into func
 * bpf_sock_map_update#53"). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_SOCKHASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sock_hash SEC(".maps");

SEC("sockops")
int bad_sockhash_as_map(struct bpf_sock_ops *skops)
{
	__u32 key = 0;

	bpf_sock_map_update(skops, &sock_hash, &key, BPF_ANY);
	return 1;
}

char _license[] SEC("license") = "GPL";
