/* A large program in the style clang -O2 makes of real policy code: an
 * unrolled table of per-port rules, each a few branches, lookups and
 * stores. Thousands of insns that must verify in milliseconds. */
#include "common.h"

#define SOL_SOCKET 1
#define SO_SNDBUF  7

struct rule {
	__u32 hits, bytes;
	__u64 last;
};

struct bpf_map_def SEC("maps") rules = {.type = BPF_MAP_TYPE_ARRAY,
					.key_size = 4,
					.value_size = sizeof(struct rule),
					.max_entries = 128};

SEC("sockops")
int large(struct bpf_sock_ops *skops)
{
	__u32 op = skops->op, acc = 0;
#pragma clang loop unroll(full)
	for (__u32 k = 0; k < 96; k++) {
		__u32 key = k;
		struct rule *r = bpf_map_lookup_elem(&rules, &key);
		if (r && r->hits < 1000000 && (r->last & (1ull << (k & 63)))) {
			r->hits++;
			r->bytes += skops->snd_cwnd;
			r->last = skops->bytes_acked ^ op;
			acc += r->hits & 0xff;
		}
	}
	if (acc > 4096) {
		int buf = acc;
		bpf_setsockopt(skops, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	}
	skops->reply = acc;
	return 1;
}

char _license[] SEC("license") = "GPL";
