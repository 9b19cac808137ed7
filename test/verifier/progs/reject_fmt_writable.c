/* Issue 11 class 4: bpf_snprintf's format is checked once, at load time, so
 * it must live where nothing can change it: a read-only (to programs) and
 * frozen map, .rodata. A writable global, a map element, a variable offset
 * into .rodata are refused; so is any write into .rodata (a store, a helper's
 * output), since the verifier trusts those bytes. */
#include "common.h"

char wfmt[] = "op=%d";
static const char rfmt[] = "op=%d cwnd=%u";

struct bpf_map_def SEC("maps") fmts = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 16, .max_entries = 1};

SEC("sockops/c_data_fmt")
int c_data_fmt(struct bpf_sock_ops *skops)
{
	__u64 args[1] = {skops->op};
	char out[16];
	bpf_snprintf(out, sizeof out, wfmt, args, sizeof args);
	skops->reply = out[0];
	return 1;
}

/* a map element a program or a later update may rewrite */
SEC("sockops/c_map_fmt")
int c_map_fmt(struct bpf_sock_ops *skops)
{
	__u32 k = 0;
	char out[16];
	const char *fmt = bpf_map_lookup_elem(&fmts, &k);
	if (!fmt)
		return 1;
	bpf_snprintf(out, sizeof out, fmt, 0, 0);
	skops->reply = out[0];
	return 1;
}

/* .rodata, but where in it depends on op: not one checked string */
SEC("sockops/rodata_var_off")
NAKED int rodata_var_off(void)
{
	asm volatile("r6 = *(u32 *)(r1 + 0);"
		     "r6 &= 3;"
		     "r3 = %[rfmt] ll;"
		     "r3 += r6;"
		     "r1 = r10;"
		     "r1 += -16;"
		     "r2 = 16;"
		     "r4 = 0;"
		     "r5 = 0;"
		     "call %[snprintf];"
		     "r0 = 1;"
		     "exit;" ::[rfmt] "i"(rfmt),
		     [snprintf] "i"(BPF_FUNC_snprintf)
		     : "memory");
}

/* a store over the format's NUL: then it would read past the value */
SEC("sockops/rodata_store")
NAKED int rodata_store(void)
{
	asm volatile("r7 = %[rfmt] ll;"
		     "r2 = 0x41;"
		     "*(u8 *)(r7 + 13) = r2;"
		     "r0 = 1;"
		     "exit;" ::[rfmt] "i"(rfmt)
		     : "memory");
}

/* bpf_snprintf's output into .rodata */
SEC("sockops/rodata_helper_out")
NAKED int rodata_helper_out(void)
{
	asm volatile("r1 = %[rfmt] ll;"
		     "r2 = 8;"
		     "r3 = %[rfmt] ll;"
		     "r4 = 0;"
		     "r5 = 0;"
		     "call %[snprintf];"
		     "r0 = 1;"
		     "exit;" ::[rfmt] "i"(rfmt),
		     [snprintf] "i"(BPF_FUNC_snprintf)
		     : "memory");
}

char _license[] SEC("license") = "GPL";
