/* As the 6.1 selftest mptcp_sock: the socket pointer kept in the socket's
 * own sk_storage value, and what is read back used as a number. Only a
 * privileged loader may store it; the value read back is a scalar. */
#include "common.h"

struct store {
	__u32 invoked;
	__u32 pad;
	struct bpf_sock *sk;
};

struct bpf_map_def SEC("maps") st = {.type = BPF_MAP_TYPE_SK_STORAGE,
				     .key_size = 4,
				     .value_size = sizeof(struct store),
				     .map_flags = BPF_F_NO_PREALLOC};

SEC("sockops")
int keep_sk(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;
	if (!sk)
		return 1;
	struct store *s = bpf_sk_storage_get(&st, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!s)
		return 1;
	__u64 before = (__u64)(long)s->sk;
	s->sk = sk;
	s->invoked++;
	skops->reply = (__u32)(before >> 3);
	return 1;
}

char _license[] SEC("license") = "GPL";
