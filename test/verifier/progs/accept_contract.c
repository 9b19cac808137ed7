/* Issue 25: what the helper contract and the classes it closed still accept,
 * each the ordinary shape of a refused program: a packet read after a NULL
 * check and a range check (reject_pkt_null.c), trace_printk of numbers
 * (priv_printk_ptr.c), getsockopt and snprintf outputs read in full (their
 * contracts say every byte is written), load_hdr_opt's answer read back from
 * the stack (reject_hdr_opt_write.c). */
#include "common.h"

SEC("sockops/pkt_null_checked")
int pkt_null_checked(struct bpf_sock_ops *skops)
{
	__u8 *data = (__u8 *)(long)skops->skb_data;
	__u8 *end = (__u8 *)(long)skops->skb_data_end;
	if (!data)
		return 1;
	if (data + 20 > end)
		return 1;
	skops->reply = data[13];
	return 1;
}

SEC("sockops/printk_numbers")
int printk_numbers(struct bpf_sock_ops *skops)
{
	char fmt[] = "op %u cwnd %u\n";
	bpf_trace_printk(fmt, sizeof fmt, skops->op, skops->snd_cwnd);
	return 1;
}

SEC("sockops/getsockopt_all")
int getsockopt_all(struct bpf_sock_ops *skops)
{
	char cc[64];
	if (bpf_getsockopt(skops, 6 /* SOL_TCP */, 13 /* TCP_CONGESTION */, cc, sizeof cc))
		return 1;
	skops->reply = cc[0] + cc[63];
	return 1;
}

static const char fmt[] = "%u";

SEC("sockops/snprintf_all")
int snprintf_all(struct bpf_sock_ops *skops)
{
	char out[32];
	__u64 args[1] = {skops->op};
	bpf_snprintf(out, sizeof out, fmt, args, sizeof args);
	skops->reply = out[0] + out[31];
	return 1;
}

SEC("sockops/hdr_opt_stack")
int hdr_opt_stack(struct bpf_sock_ops *skops)
{
	__u8 opt[8] = {254, 4, 0x5c, 0x0b};
	if (bpf_load_hdr_opt(skops, opt, sizeof opt, 0) < 0)
		return 1;
	skops->reply = opt[2] + opt[7];
	return 1;
}

char _license[] SEC("license") = "GPL";
