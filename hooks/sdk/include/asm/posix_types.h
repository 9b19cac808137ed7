/* skops SDK: see asm/types.h. */
#include <asm-generic/posix_types.h>
