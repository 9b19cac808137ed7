/* skops SDK: see asm/types.h. clang's -target bpf picks bpfel or bpfeb from
 * the host; follow the compiler's byte order. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#include <linux/byteorder/big_endian.h>
#else
#include <linux/byteorder/little_endian.h>
#endif
