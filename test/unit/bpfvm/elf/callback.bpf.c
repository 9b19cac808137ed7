/* Callbacks: bpf_loop with a static callback (ld_imm64 BPF_PSEUDO_FUNC). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct loop_ctx {
	__u64 sum;
};

static long add_one(__u32 i, void *data)
{
	struct loop_ctx *c = data;
	c->sum += i;
	return 0;
}

SEC("sockops")
int looper(struct bpf_sock_ops *skops)
{
	struct loop_ctx c = {0};
	bpf_loop(8, add_one, &c, 0);
	return c.sum == 28;
}

char _license[] SEC("license") = "GPL";
