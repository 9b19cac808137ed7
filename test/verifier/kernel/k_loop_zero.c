/* class 2: the offset is small only if the callback ran */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[16]);
} vals SEC(".maps");

static long set_four(__u32 i, void *ctx)
{
	*(volatile __u64 *)ctx = 4;
	return 1;
}

SEC("sockops")
int loop_zero(struct bpf_sock_ops *s)
{
	__u32 k = 0;
	char *v = bpf_map_lookup_elem(&vals, &k);
	if (!v)
		return 1;
	volatile __u64 off = 0x10000;
	bpf_loop(s->op, set_four, (void *)&off, 0);
	s->reply = v[off];
	return 1;
}
