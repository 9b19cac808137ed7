/* Nine nested frames: one more than the kernel's MAX_CALL_FRAMES. */
#include "common.h"

#define LEVEL(n, next)                                                                             \
	static NOINLINE int f##n(int x)                                                            \
	{                                                                                          \
		return next(x + 1) + 1;                                                            \
	}
static NOINLINE int f8(int x)
{
	return x * 2;
}
LEVEL(7, f8)
LEVEL(6, f7)
LEVEL(5, f6)
LEVEL(4, f5)
LEVEL(3, f4)
LEVEL(2, f3)
LEVEL(1, f2)

SEC("sockops")
int deep(struct bpf_sock_ops *skops)
{
	skops->reply = f1(skops->op);
	return 1;
}

char _license[] SEC("license") = "GPL";
