/* skops SDK: the kernel-tree path <uapi/linux/ipv6.h> that samples use (struct
 * ipv6hdr); the system's linux-libc-dev header already is that uapi header. */
#include <linux/ipv6.h>
