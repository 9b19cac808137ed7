/* One BTF map of every other type the loader creates: lru_hash, percpu_hash,
 * sk_storage, ringbuf, perf event array and prog array. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 128);
	__type(key, __u64);
	__type(value, __u32);
} lru SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} pcpu_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sk_store SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
	__uint(max_entries, 4);
} perf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u32);
} jumps SEC(".maps");

SEC("sockops")
int kinds(struct bpf_sock_ops *skops)
{
	__u64 k = skops->op;
	__u32 v = 1;
	bpf_map_update_elem(&lru, &k, &v, BPF_ANY);
	bpf_map_lookup_elem(&pcpu_hash, &v);
	bpf_ringbuf_output(&events, &k, sizeof(k), 0);
	bpf_perf_event_output(skops, &perf, BPF_F_CURRENT_CPU, &k, sizeof(k));
	bpf_tail_call(skops, &jumps, 0);
	if (skops->sk)
		bpf_sk_storage_get(&sk_store, skops->sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	return 1;
}

char _license[] SEC("license") = "GPL";
