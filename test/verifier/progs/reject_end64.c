/* Byte swaps of 64 bits keep 64 bits: be64 and le64 are encoded in the
 * BPF_ALU (32-bit) class, bswap64 in BPF_ALU64, and the interpreter and the
 * JIT compute all 64 bits for each. A verifier that bounds the ALU-class
 * ones to 32 bits believes (v >> 24) <= 255 and lets it index a 256-byte map
 * value; the real index reaches 2^40. Variants: be64 and le64, other
 * registers, u8 and u64 sources, the shift done as a JMP32-checked copy. */
#include "common.h"

struct bpf_map_def SEC("maps") big = {
    .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 256, .max_entries = 1};

/* r0 = big[0] or exit */
#define VALUE                                                                                      \
	"r1 = 0;"                                                                                  \
	"*(u32 *)(r10 - 4) = r1;"                                                                  \
	"r1 = %[big] ll;"                                                                          \
	"r2 = r10;"                                                                                \
	"r2 += -4;"                                                                                \
	"call %[lookup];"                                                                          \
	"if r0 == 0 goto 9f;"
#define OUT                                                                                        \
	"9: r0 = 1;"                                                                               \
	"exit;"
#define IMMS [big] "i"(&big), [lookup] "i"(BPF_FUNC_map_lookup_elem)

/* a u8 (op) swapped into the top byte by be64 */
SEC("sockops/be64_u8")
NAKED int be64_u8(void)
{
	asm volatile("r6 = *(u32 *)(r1 + 0);"
		     "r6 &= 255;" VALUE "r6 = be64 r6;"
		     "r6 >>= 24;"
		     "r0 += r6;"
		     "r1 = *(u8 *)(r0 + 0);" OUT ::IMMS
		     : "memory");
}

/* le64 of a u64 (bytes_received) is the value itself */
SEC("sockops/le64_u64")
NAKED int le64_u64(void)
{
	asm volatile("r7 = *(u64 *)(r1 + 168);" VALUE "r7 = le64 r7;"
		     "r7 >>= 24;"
		     "r0 += r7;"
		     "*(u8 *)(r0 + 0) = r7;" OUT ::IMMS
		     : "memory");
}

/* the 32-bit half checked by JMP32 says nothing of the upper half */
SEC("sockops/be64_jmp32")
NAKED int be64_jmp32(void)
{
	asm volatile("r8 = *(u32 *)(r1 + 4);" VALUE "r8 = be64 r8;"
		     "if w8 > 255 goto 9f;"
		     "r0 += r8;"
		     "r1 = *(u8 *)(r0 + 0);" OUT ::IMMS
		     : "memory");
}

char _license[] SEC("license") = "GPL";
