/* class 4 twin: a string literal (.rodata) as the format */
#include "common.h"

SEC("sockops")
int fmt_rodata_ok(struct bpf_sock_ops *s)
{
	__u64 args[1] = {s->op};
	char out[16];
	bpf_snprintf(out, sizeof out, "op=%d", args, sizeof args);
	s->reply = out[0];
	return 1;
}
