/* Issue 25 class 1: outside the header-option ops skb_data and skb_data_end
 * are 0 (docs/sockops.md §2), so a packet pointer compared with 0 leaves both
 * sides live: the side where it is NULL is walked and checked, never taken
 * for dead. Variants: JNE and JEQ on skb_data, JEQ on skb_data_end; each
 * side that reads without a range check is refused. accept_contract.c's
 * pkt_null_checked is the same shape done right. */
#include "common.h"

/* if (data != 0) return; *(u8 *)data: the read runs exactly when data is 0 */
SEC("sockops/jne_data")
NAKED int jne_data(void)
{
	asm volatile("r2 = *(u64 *)(r1 + 192);"
		     "if r2 != 0 goto 1f;"
		     "r0 = *(u8 *)(r2 + 0);"
		     "exit;"
		     "1: r0 = 1;"
		     "exit;" ::
			 : "memory");
}

/* the NULL side jumps to an unchecked read */
SEC("sockops/jeq_data")
NAKED int jeq_data(void)
{
	asm volatile("r2 = *(u64 *)(r1 + 192);"
		     "if r2 == 0 goto 1f;"
		     "r0 = 1;"
		     "exit;"
		     "1: r0 = *(u32 *)(r2 + 8);"
		     "exit;" ::
			 : "memory");
}

/* data_end == 0 is no proof about data either */
SEC("sockops/jeq_end")
NAKED int jeq_end(void)
{
	asm volatile("r2 = *(u64 *)(r1 + 192);"
		     "r3 = *(u64 *)(r1 + 200);"
		     "if r3 == 0 goto 1f;"
		     "r0 = 1;"
		     "exit;"
		     "1: r0 = *(u8 *)(r2 + 0);"
		     "exit;" ::
			 : "memory");
}

char _license[] SEC("license") = "GPL";
