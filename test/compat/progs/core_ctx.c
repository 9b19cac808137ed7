// SPDX-License-Identifier: GPL-2.0
/* Written the way a vmlinux.h program reads its context: struct bpf_sock_ops
 * and struct bpf_sock declared with preserve_access_index, so every ctx and
 * ctx->sk field access is a CO-RE relocation. The local layouts below are
 * deliberately not the uapi ones (other order, sk in an anonymous union as
 * vmlinux.h has it), so only a relocation against the sock_ops BTF puts each
 * read at its uapi offset. Each field is also read at its fixed uapi offset;
 * the test checks both agree with the socket. */
typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;

enum bpf_map_type { BPF_MAP_TYPE_ARRAY = 2 };

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)
struct bpf_sock {
	__u32 state;
	__u32 src_port;
	__u32 family;
};

struct bpf_sock_ops {
	__u32 local_port;
	__u32 family;
	union {
		struct bpf_sock *sk;
	};
	__u32 remote_port;
	__u64 bytes_acked;
	__u32 op;
	__u32 is_fullsock;
	union {
		__u32 args[4];
		__u32 reply;
	};
};
#pragma clang attribute pop

#include <bpf/bpf_helpers.h>

enum { OPS_TIMEOUT_INIT = 1, OPS_ACTIVE_ESTABLISHED_CB = 4 };

struct ctx_pair {
	__u32 op, op_raw;
	__u32 family, family_raw;
	__u32 local_port, local_port_raw;
	__u32 remote_port, remote_port_raw;
	__u32 is_fullsock, is_fullsock_raw;
	__u64 bytes_acked, bytes_acked_raw;
	__u32 sk_family, sk_family_raw;
	__u32 sk_src_port, sk_src_port_raw;
	__u32 no_sk;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ctx_pair);
} pairs SEC(".maps");

#define RAW32(p, off) (*(__u32 *)((char *)(p) + (off)))

SEC("sockops")
int core_ctx(struct bpf_sock_ops *skops)
{
	struct ctx_pair *r;
	struct bpf_sock *sk;
	__u32 key = 0;

	r = bpf_map_lookup_elem(&pairs, &key);
	if (!r)
		return 1;
	r->op = skops->op;
	r->op_raw = RAW32(skops, 0);
	r->family = skops->family;
	r->family_raw = RAW32(skops, 20);
	r->local_port = skops->local_port;
	r->local_port_raw = RAW32(skops, 68);
	r->remote_port = skops->remote_port;
	r->remote_port_raw = RAW32(skops, 64);
	r->is_fullsock = skops->is_fullsock;
	r->is_fullsock_raw = RAW32(skops, 72);
	r->bytes_acked = skops->bytes_acked;
	r->bytes_acked_raw = *(__u64 *)((char *)skops + 176);
	sk = skops->sk;
	if (!sk) {
		r->no_sk++;
		return 1;
	}
	r->sk_family = sk->family;
	r->sk_family_raw = RAW32(sk, 4);
	r->sk_src_port = sk->src_port;
	r->sk_src_port_raw = RAW32(sk, 44);
	if (skops->op == OPS_TIMEOUT_INIT)
		skops->reply = 10;
	return 1;
}

char _license[] SEC("license") = "GPL";
