/* A pointer stored into a ringbuf record: refused for every loader (records
 * are not map values). */
#include "common.h"

struct bpf_map_def SEC("maps") rb = {.type = BPF_MAP_TYPE_RINGBUF, .max_entries = 4096};

SEC("sockops")
int rb_leak(struct bpf_sock_ops *skops)
{
	__u64 *rec = bpf_ringbuf_reserve(&rb, 8, 0);
	if (!rec)
		return 1;
	*rec = (__u64)(long)skops;
	bpf_ringbuf_submit(rec, 0);
	return 1;
}

char _license[] SEC("license") = "GPL";
