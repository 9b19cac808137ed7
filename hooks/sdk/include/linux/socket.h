/* skops SDK: in the kernel tree <linux/socket.h> is the internal header that
 * also defines the address families and socket levels; seed sources rely on
 * that. Take the uapi part from linux-libc-dev, then add those numbers (the
 * Linux values, which glibc's <sys/socket.h> also uses). */
#ifndef SKOPS_SDK_LINUX_SOCKET_H
#define SKOPS_SDK_LINUX_SOCKET_H

#include_next <linux/socket.h>
#include <asm/socket.h> /* SOL_SOCKET, SO_* */

#ifndef AF_UNSPEC
#define AF_UNSPEC 0
#define AF_UNIX	  1
#define AF_INET	  2
#define AF_INET6  10
#define AF_PACKET 17
#endif
#ifndef PF_INET
#define PF_UNSPEC AF_UNSPEC
#define PF_INET	  AF_INET
#define PF_INET6  AF_INET6
#endif

#ifndef SOL_IP
#define SOL_IP	 0
#define SOL_TCP	 6
#define SOL_UDP	 17
#define SOL_IPV6 41
#endif

#endif
