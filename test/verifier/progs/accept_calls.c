/* What users write around the calls issue 11 tightened, still accepted: a
 * tail call once the reservation is submitted. */
#include "common.h"

struct bpf_map_def SEC("maps") rb = {
    .type = BPF_MAP_TYPE_RINGBUF, .key_size = 0, .value_size = 0, .max_entries = 4096};
struct bpf_map_def SEC("maps") jmp = {
    .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4, .value_size = 4, .max_entries = 2};

SEC("sockops/tail_after_submit")
int tail_after_submit(struct bpf_sock_ops *skops)
{
	__u32 *rec = bpf_ringbuf_reserve(&rb, 8, 0);
	if (rec) {
		*rec = skops->op;
		bpf_ringbuf_submit(rec, 0);
	}
	bpf_tail_call(skops, &jmp, 0);
	return 1;
}

char _license[] SEC("license") = "GPL";
