/* Global data: .data, .rodata (const volatile), .bss and a string constant. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

int counter = 5;	       /* .data */
const volatile int limit = 42; /* .rodata */
const volatile __u64 scale[2] = {3, 4};
__u64 hits;    /* .bss */
__u32 last_op; /* .bss */

SEC("sockops")
int globals(struct bpf_sock_ops *skops)
{
	hits++;
	last_op = skops->op;
	counter += (int)scale[1];
	if (counter > limit)
		bpf_printk("over %d", counter);
	return 1;
}

char _license[] SEC("license") = "GPL";
