/* Issue 25 class 10: the struct bpf_spin_lock of a map value belongs to
 * bpf_spin_lock/unlock alone: an ordinary load or store of its word is
 * refused, and so is a lock in a map whose value has none (a legacy map
 * without BTF: skops, as the kernel, knows the lock only from the value's
 * BTF) or that programs may only read (.rodata). accept_calls.c's lock_pair
 * is the correct use. */
#include "common.h"

struct val {
	struct bpf_spin_lock lock;
	__u32 count;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct val);
} locks SEC(".maps");

struct bpf_map_def SEC("maps") plain = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1};

static const __u32 frozen[2] = {0, 0};

SEC("sockops/load_lock_word")
int load_lock_word(struct bpf_sock_ops *skops)
{
	__u32 k = 0;
	struct val *v = bpf_map_lookup_elem(&locks, &k);
	if (!v)
		return 1;
	skops->reply = *(volatile __u32 *)&v->lock;
	return 1;
}

SEC("sockops/store_lock_word")
int store_lock_word(struct bpf_sock_ops *skops)
{
	__u32 k = 0;
	struct val *v = bpf_map_lookup_elem(&locks, &k);
	if (!v)
		return 1;
	*(volatile __u32 *)&v->lock = 0;
	return 1;
}

SEC("sockops/no_btf_lock")
int no_btf_lock(struct bpf_sock_ops *skops)
{
	__u32 k = 0;
	__u32 *v = bpf_map_lookup_elem(&plain, &k);
	if (!v)
		return 1;
	bpf_spin_lock(v);
	bpf_spin_unlock(v);
	return 1;
}

SEC("sockops/rodata_lock")
NAKED int rodata_lock(void)
{
	asm volatile("r1 = %[frozen] ll;"
		     "call %[lock];"
		     "r0 = 1;"
		     "exit;" ::[frozen] "i"(frozen),
		     [lock] "i"(BPF_FUNC_spin_lock)
		     : "memory");
}

char _license[] SEC("license") = "GPL";
