/* The kernel decides per load from the caller's credentials, not its uid:
 * a root process that dropped CAP_PERFMON and CAP_SYS_ADMIN is unprivileged,
 * a non-root one holding CAP_PERFMON is privileged. capget(2) reads the
 * effective set without libcap. */
#include "loadpriv.h"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38 /* Linux 5.8; older headers lack it */
#endif

static bool cap_effective(const struct __user_cap_data_struct d[2], unsigned cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

bool loadpriv_allow_ptr_leaks(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[2] = {{0}};
	if (syscall(SYS_capget, &h, d) != 0)
		return false;
	return cap_effective(d, CAP_PERFMON) || cap_effective(d, CAP_SYS_ADMIN);
}
