/* A helper writing a variable number of bytes into the stack (bpf_snprintf's
 * output, size umin..umax) surely writes only umin of them: reading beyond is
 * reading what was never initialised. Variants: size 0..31 (C), size 8..16
 * bounded by JMP32 tests on both sides (the 8 sure bytes read fine, then a
 * read past them), size 4..12 bounded by JMP on a u8 read. */
#include "common.h"

static const char fmt[] = "abcdefghijklmnopqrstuvwxyz";

SEC("sockops/c_size_0_31")
int c_size_0_31(struct bpf_sock_ops *skops)
{
	char out[32];
	bpf_snprintf(out, skops->op & 31, fmt, 0, 0);
	skops->reply = *(__u32 *)out;
	return 1;
}

#define IMMS [fmt] "i"(fmt), [snprintf] "i"(BPF_FUNC_snprintf)

SEC("sockops/jmp32_8_16")
NAKED int jmp32_8_16(void)
{
	asm volatile("r2 = *(u32 *)(r1 + 0);"
		     "if w2 < 8 goto 1f;"
		     "if w2 > 16 goto 1f;"
		     "r1 = r10;"
		     "r1 += -32;"
		     "r3 = %[fmt] ll;"
		     "r4 = 0;"
		     "r5 = 0;"
		     "call %[snprintf];"
		     "r6 = *(u64 *)(r10 - 32);"
		     "r7 = *(u32 *)(r10 - 24);"
		     "1: r0 = 1;"
		     "exit;" ::IMMS
		     : "memory");
}

SEC("sockops/jmp_4_12")
NAKED int jmp_4_12(void)
{
	asm volatile("r9 = *(u32 *)(r1 + 4);"
		     "r9 &= 255;"
		     "if r9 > 12 goto 1f;"
		     "if r9 >= 4 goto 2f;"
		     "1: r0 = 1;"
		     "exit;"
		     "2: r1 = r10;"
		     "r1 += -16;"
		     "r2 = r9;"
		     "r3 = %[fmt] ll;"
		     "r4 = 0;"
		     "r5 = 0;"
		     "call %[snprintf];"
		     "r6 = *(u32 *)(r10 - 16);"
		     "r7 = *(u8 *)(r10 - 12);"
		     "r0 = 1;"
		     "exit;" ::IMMS
		     : "memory");
}

char _license[] SEC("license") = "GPL";
