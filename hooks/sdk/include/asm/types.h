/* skops SDK: clang -target bpf has no multiarch include dir, so the asm/
 * headers linux-libc-dev keeps under the host triplet are mapped here onto
 * their asm-generic versions, which describe the BPF target (LP64). */
#include <asm-generic/types.h>
