/* Issue 11 class 8: sock_ops stores go to reply (replylong[0]) and sk_txhash
 * only, as Linux's sock_ops_is_valid_access. replylong[1..3] share their
 * words with args[1..3], which the next program of a MULTI array reads as the
 * callback's arguments: every store there is refused, from any register, as
 * an immediate, at each of the three words. */
#include "common.h"

SEC("sockops/c_replylong1")
int c_replylong1(struct bpf_sock_ops *skops)
{
	skops->replylong[1] = skops->op + 1;
	return 1;
}

SEC("sockops/stx_r2_rl1")
NAKED int stx_r2_rl1(void)
{
	asm volatile("r2 = 7;"
		     "*(u32 *)(r1 + 8) = r2;"
		     "r0 = 1;"
		     "exit;" ::
			 : "memory");
}

SEC("sockops/st_imm_rl2")
NAKED int st_imm_rl2(void)
{
	/* *(u32 *)(r1 + 12) = 5: BPF_ST, which clang 14's assembler lacks */
	asm volatile(".byte 0x62, 0x01, 0x0c, 0x00, 0x05, 0x00, 0x00, 0x00;"
		     "r0 = 1;"
		     "exit;" ::
			 : "memory");
}

/* through a copy of the ctx pointer, after a legal store to reply */
SEC("sockops/stx_r9_rl3")
NAKED int stx_r9_rl3(void)
{
	asm volatile("r6 = r1;"
		     "r9 = *(u32 *)(r6 + 0);"
		     "*(u32 *)(r6 + 4) = r9;"
		     "*(u32 *)(r6 + 16) = r9;"
		     "r0 = 1;"
		     "exit;" ::
			 : "memory");
}

/* a pointer moved to replylong[1] by arithmetic, stored at +0 */
SEC("sockops/ptr_add_rl1")
NAKED int ptr_add_rl1(void)
{
	asm volatile("r1 += 8;"
		     "r3 = 1;"
		     "*(u32 *)(r1 + 0) = r3;"
		     "r0 = 1;"
		     "exit;" ::
			 : "memory");
}

/* two bytes of replylong[2] */
SEC("sockops/stx_h_rl2")
NAKED int stx_h_rl2(void)
{
	asm volatile("r4 = 1;"
		     "*(u16 *)(r1 + 12) = r4;"
		     "r0 = 1;"
		     "exit;" ::
			 : "memory");
}

char _license[] SEC("license") = "GPL";
