// SPDX-License-Identifier: GPL-2.0
/* Refused: a program's lookup in a sockmap acquires a socket reference that
 * sock_ops has no helper to release (Linux: "Unreleased reference"). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sock_map SEC(".maps");

SEC("sockops")
int bad_sockmap_lookup(struct bpf_sock_ops *skops)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(&sock_map, &key) ? 1 : 0;
}

char _license[] SEC("license") = "GPL";
