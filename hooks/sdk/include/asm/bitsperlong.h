/* skops SDK: see asm/types.h. BPF is a 64-bit target. */
#ifndef __BITS_PER_LONG
#define __BITS_PER_LONG 64
#endif
#include <asm-generic/bitsperlong.h>
