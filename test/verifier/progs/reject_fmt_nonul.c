/* Issue 11 class 4: a .rodata format is checked for its NUL on the read-only
 * bytes: this object's .rodata is exactly 4 bytes with none. */
#include "common.h"

static const char fmt[4] = "abcd";

SEC("sockops")
int nonul(struct bpf_sock_ops *skops)
{
	char out[8];
	bpf_snprintf(out, sizeof out, fmt, 0, 0);
	skops->reply = out[0];
	return 1;
}

char _license[] SEC("license") = "GPL";
