/* skops SDK: the kernel-tree path <uapi/linux/ip.h> that seed sources use;
 * the system's linux-libc-dev header already is that uapi header. */
#include <linux/ip.h>
