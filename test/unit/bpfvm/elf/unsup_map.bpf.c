/* A map type skops lacks (a QUEUE) used by one program only, next to a
 * PERF_EVENT_ARRAY declared with max_entries 0 (libbpf sizes it to the CPUs)
 * and a program that uses neither. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 4);
	__type(value, __u32);
} q SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} events SEC(".maps");

SEC("generic")
int plain(void *ctx)
{
	return 7;
}

SEC("generic/q")
int uses_q(void *ctx)
{
	__u32 v = 1;

	return bpf_map_push_elem(&q, &v, 0);
}

char _license[] SEC("license") = "GPL";
