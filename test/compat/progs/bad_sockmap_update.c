// SPDX-License-Identifier: GPL-2.0
/* Refused: sock_ops may not update a sockmap with bpf_map_update_elem (only
 * through bpf_sock_map_update); Linux: "cannot update sockmap in this context". */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sock_map SEC(".maps");

SEC("sockops")
int bad_sockmap_update(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;
	__u32 key = 0;

	if (sk)
		bpf_map_update_elem(&sock_map, &key, sk, BPF_ANY);
	return 1;
}

char _license[] SEC("license") = "GPL";
