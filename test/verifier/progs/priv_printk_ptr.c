/* Issue 25 class 2: bpf_trace_printk prints its value arguments, so an
 * address there is a leak: a pointer (here ctx) is refused for an
 * unprivileged loader, as every ANYTHING argument of every helper's contract
 * (the kernel's ARG_ANYTHING); a privileged one (allow_ptr_leaks) may.
 * accept_contract.c's printk_numbers prints numbers, from any loader. */
#include "common.h"

SEC("sockops")
int printk_ptr(struct bpf_sock_ops *skops)
{
	char fmt[] = "ctx %lx\n";
	bpf_trace_printk(fmt, sizeof fmt, skops);
	return 1;
}

char _license[] SEC("license") = "GPL";
