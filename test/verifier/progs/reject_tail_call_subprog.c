/* Issue 25 class 5: a taken tail call inside a bpf-to-bpf function ends that
 * function with the target's R0, which its caller receives. The verifier
 * used to give the caller the function's own R0 (here the constant 3), so
 * the caller indexed a map value with a number the target chose. R0 after
 * such a function is any scalar now; accept_tail_call.c checks it. */
#include "common.h"

struct bpf_map_def SEC("maps") jmp = {
    .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 2};
struct bpf_map_def SEC("maps") vals = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 64, .max_entries = 1};

static NOINLINE int pick(struct bpf_sock_ops *skops)
{
	int r;
	bpf_tail_call(skops, &jmp, 0);
	/* hidden from the compiler, a constant to the verifier */
	asm volatile("%0 = 3" : "=r"(r));
	return r;
}

SEC("sockops")
int tail_in_subprog(struct bpf_sock_ops *skops)
{
	__u32 k = 0;
	__u8 *v = bpf_map_lookup_elem(&vals, &k);
	if (!v)
		return 1;
	v[pick(skops) * 16] = 1;
	return 1;
}

char _license[] SEC("license") = "GPL";
