/* Issue 11 class 7: the verifier reads a format string's map itself. With a
 * key wider than 4 bytes it must look up through a key buffer of the map's
 * key size (it read 8 bytes of a 4-byte local: ASan stack-buffer-overflow,
 * caught when the verifier suite runs in the ASan build). The writable hash
 * value is refused as a format either way. Variants: 8- and 16-byte keys,
 * other registers, the value pointer moved by a constant. */
#include "common.h"

struct bpf_map_def SEC("maps") fmt8 = {
    .type = BPF_MAP_TYPE_HASH, .key_size = 8, .value_size = 16, .max_entries = 1};
struct bpf_map_def SEC("maps") fmt16 = {
    .type = BPF_MAP_TYPE_HASH, .key_size = 16, .value_size = 32, .max_entries = 1};

SEC("sockops/c_key8")
int c_key8(struct bpf_sock_ops *skops)
{
	__u64 key = 0;
	char out[16];
	const char *fmt = bpf_map_lookup_elem(&fmt8, &key);
	if (!fmt)
		return 1;
	bpf_snprintf(out, sizeof out, fmt, 0, 0);
	skops->reply = out[0];
	return 1;
}

/* a 16-byte key, the format 4 bytes into the value, r8/r9 hold the pointers */
SEC("sockops/key16_off4")
NAKED int key16_off4(void)
{
	asm volatile("r1 = 0;"
		     "*(u64 *)(r10 - 16) = r1;"
		     "*(u64 *)(r10 - 8) = r1;"
		     "r1 = %[fmt16] ll;"
		     "r2 = r10;"
		     "r2 += -16;"
		     "call %[lookup];"
		     "if r0 == 0 goto 1f;"
		     "r9 = r0;"
		     "r9 += 4;"
		     "r8 = r10;"
		     "r8 += -48;"
		     "r1 = r8;"
		     "r2 = 32;"
		     "r3 = r9;"
		     "r4 = 0;"
		     "r5 = 0;"
		     "call %[snprintf];"
		     "1: r0 = 1;"
		     "exit;" ::[fmt16] "i"(&fmt16),
		     [lookup] "i"(BPF_FUNC_map_lookup_elem), [snprintf] "i"(BPF_FUNC_snprintf)
		     : "memory");
}

char _license[] SEC("license") = "GPL";
