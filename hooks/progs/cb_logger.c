/* Turns on the RTO, retransmit and state-change callbacks for every
 * established connection and logs each such event twice: a trace_printk line
 * for people and a ringbuf record for programs. */
#include <uapi/linux/bpf.h>
#include "bpf_helpers.h"

struct cb_event {
	__u64 cookie;
	__u32 op;
	__u32 args[3];
};

struct bpf_map_def SEC("maps") cb_events = {
    .type = BPF_MAP_TYPE_RINGBUF,
    .max_entries = 4096,
};

SEC("sockops")
int cb_logger(struct bpf_sock_ops *skops)
{
	__u32 op = skops->op;
	struct cb_event ev;

	/* args share their words with reply: read them before answering */
	ev.args[0] = skops->args[0];
	ev.args[1] = skops->args[1];
	ev.args[2] = skops->args[2];
	skops->reply = (__u32)-1;
	switch (op) {
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		bpf_sock_ops_cb_flags_set(skops, BPF_SOCK_OPS_RTO_CB_FLAG |
						     BPF_SOCK_OPS_RETRANS_CB_FLAG |
						     BPF_SOCK_OPS_STATE_CB_FLAG);
		return 1;
	case BPF_SOCK_OPS_RTO_CB:
	case BPF_SOCK_OPS_RETRANS_CB:
	case BPF_SOCK_OPS_STATE_CB:
		break;
	default:
		return 1;
	}
	ev.cookie = bpf_get_socket_cookie(skops);
	ev.op = op;
	{
		char fmt[] = "cb op %u args %u %u\n";
		bpf_trace_printk(fmt, sizeof(fmt), op, ev.args[0], ev.args[1]);
	}
	bpf_ringbuf_output(&cb_events, &ev, sizeof(ev), 0);
	return 1;
}

char _license[] SEC("license") = "GPL";
