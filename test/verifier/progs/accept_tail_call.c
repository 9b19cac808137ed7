/* Tail calls the verifier keeps accepting (issue 25 class 5's ordinary
 * shapes): one at the top level, falling through when the slot is empty,
 * and one in a bpf-to-bpf function whose result the caller bounds
 * before use. */
#include "common.h"

struct bpf_map_def SEC("maps") jmp = {
    .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 2};
struct bpf_map_def SEC("maps") vals = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 64, .max_entries = 1};

SEC("sockops/top")
int top(struct bpf_sock_ops *skops)
{
	bpf_tail_call(skops, &jmp, skops->op & 1);
	skops->reply = 5;
	return 1;
}

static NOINLINE int pick(struct bpf_sock_ops *skops)
{
	int r;
	bpf_tail_call(skops, &jmp, 0);
	asm volatile("%0 = 3" : "=r"(r));
	return r;
}

SEC("sockops/checked")
int checked(struct bpf_sock_ops *skops)
{
	__u32 k = 0;
	__u8 *v = bpf_map_lookup_elem(&vals, &k);
	if (!v)
		return 1;
	v[(pick(skops) & 3) * 16] = 1;
	return 1;
}

char _license[] SEC("license") = "GPL";
