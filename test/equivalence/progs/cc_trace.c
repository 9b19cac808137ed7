/* cc_trace: the congestion window after every ACK that gives an RTT sample
 * (RTT_CB), on the active side, into an array the harness reads back
 * (bpftool map dump on Linux, skcat --dump-maps on skops). The same object
 * samples both stacks, so the trajectories come from one definition. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define CC_TRACE_MAX 16384

struct cc_sample {
	__u64 t_ns;
	__u32 cwnd, ssthresh, srtt_us, total_retrans;
	__u32 packets_out, state;
	__u64 bytes_acked;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CC_TRACE_MAX);
	__type(key, __u32);
	__type(value, struct cc_sample);
} cc_samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} cc_count SEC(".maps");

SEC("sockops")
int cc_trace(struct bpf_sock_ops *skops)
{
	__u32 key = 0;
	__u64 *count;
	struct cc_sample *s;

	switch (skops->op) {
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
		bpf_sock_ops_cb_flags_set(skops, BPF_SOCK_OPS_RTT_CB_FLAG);
		return 1;
	case BPF_SOCK_OPS_RTT_CB:
		break;
	default:
		return 1;
	}
	count = bpf_map_lookup_elem(&cc_count, &key);
	if (!count)
		return 1;
	key = (__u32)__sync_fetch_and_add(count, 1);
	if (key >= CC_TRACE_MAX)
		return 1;
	s = bpf_map_lookup_elem(&cc_samples, &key);
	if (!s)
		return 1;
	s->t_ns = bpf_ktime_get_ns();
	s->cwnd = skops->snd_cwnd;
	s->ssthresh = skops->snd_ssthresh;
	s->srtt_us = skops->srtt_us;
	s->total_retrans = skops->total_retrans;
	s->packets_out = skops->packets_out;
	s->state = skops->state;
	s->bytes_acked = skops->bytes_acked;
	return 1;
}

char _license[] SEC("license") = "GPL";
