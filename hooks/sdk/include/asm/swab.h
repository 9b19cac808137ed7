/* skops SDK: see asm/types.h. No arch-specific byte swaps on BPF: the generic
 * ones in linux/swab.h apply (clang turns them into BPF_END). */
