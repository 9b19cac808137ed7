// SPDX-License-Identifier: GPL-2.0
/* Refused: a relocated store still meets the context rules; family is
 * read-only (Linux: "invalid bpf_context access"). */
typedef unsigned int __u32;

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)
struct bpf_sock_ops {
	__u32 op;
	__u32 family;
};
#pragma clang attribute pop

#define SEC(name) __attribute__((section(name), used))

SEC("sockops")
int bad_core_ctx_write(struct bpf_sock_ops *skops)
{
	skops->family = 2;
	return 1;
}

char _license[] SEC("license") = "GPL";
