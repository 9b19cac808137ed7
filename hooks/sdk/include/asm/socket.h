/* skops SDK: see asm/types.h. */
#include <asm-generic/socket.h>
