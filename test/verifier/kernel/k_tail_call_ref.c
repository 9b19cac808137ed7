/* class 6: a tail call with a ringbuf reservation outstanding */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} jmp SEC(".maps");

SEC("sockops")
int tail_call_ref(struct bpf_sock_ops *s)
{
	__u32 *rec = bpf_ringbuf_reserve(&rb, 8, 0);
	if (!rec)
		return 0;
	*rec = s->op;
	bpf_tail_call(s, &jmp, 0);
	bpf_ringbuf_submit(rec, 0);
	return 1;
}
