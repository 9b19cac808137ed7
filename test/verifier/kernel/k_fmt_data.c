/* class 4: a writable global as bpf_snprintf's format */
#include "common.h"

char wfmt[] = "op=%d";

SEC("sockops")
int fmt_data(struct bpf_sock_ops *s)
{
	__u64 args[1] = {s->op};
	char out[16];
	bpf_snprintf(out, sizeof out, wfmt, args, sizeof args);
	s->reply = out[0];
	return 1;
}
