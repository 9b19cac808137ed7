/* peer: who a client is, in the kernel's words, and what it may do. The
 * process is held by a pidfd (SO_PEERPIDFD, the connecting process itself;
 * on a kernel without it pidfd_open of the SO_PEERCRED pid), and whatever
 * /proc/PID says of it counts only if the pidfd still names a live process
 * after the read: a pid that exited (and may be another process by now)
 * tells nothing, and such a client is refused. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "skopsd.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5 */
#endif

static bool alive(int pidfd)
{
	/* signal 0 checks only; EPERM (another user's, for an unprivileged
	 * daemon) still means the process is there */
	return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0 || errno == EPERM;
}

int peer_identify(int fd, struct ucred *cr, int *pidfd, char *cg, size_t cglen)
{
	socklen_t l = sizeof(*cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cr, &l))
		return -errno;
	int pfd = -1;
	l = sizeof(pfd);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pfd, &l) || pfd < 0)
		pfd = (int)syscall(SYS_pidfd_open, cr->pid, 0);
	if (pfd < 0)
		return -ESRCH;
	fcntl(pfd, F_SETFD, FD_CLOEXEC);
	char p[64], line[512];
	snprintf(p, sizeof(p), "/proc/%d/cgroup", (int)cr->pid);
	FILE *f = fopen(p, "re");
	int rc = -ENOENT;
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = 0;
		if (strlen(line + 3) < cglen && line[3] == '/') {
			snprintf(cg, cglen, "%s", line + 3);
			rc = 0;
		}
		break;
	}
	if (f)
		fclose(f);
	if (!alive(pfd)) /* whatever was read, it may be another process's */
		rc = -ESRCH;
	if (rc) {
		close(pfd);
		return rc;
	}
	*pidfd = pfd;
	return 0;
}

int peer_status(const struct client *cl, struct peer_st *st)
{
	if (cl->pidfd < 0)
		return -ESRCH;
	char p[64], line[256];
	snprintf(p, sizeof(p), "/proc/%d/status", (int)cl->pid);
	FILE *f = fopen(p, "re");
	if (!f)
		return -ESRCH;
	int got = 0;
	while (fgets(line, sizeof(line), f) && got != 3) {
		unsigned r, e, s, fs;
		unsigned long long cap;
		if (sscanf(line, "Uid: %u %u %u %u", &r, &e, &s, &fs) == 4) {
			st->euid = e;
			st->fsuid = fs;
			got |= 1;
		} else if (sscanf(line, "CapEff: %llx", &cap) == 1) {
			st->cap_eff = cap;
			got |= 2;
		}
	}
	fclose(f);
	return got == 3 && alive(cl->pidfd) ? 0 : -ESRCH;
}

bool peer_capable(const struct client *cl, int cap)
{
	struct peer_st st;
	return !peer_status(cl, &st) && ((st.cap_eff >> cap) & 1);
}

unsigned peer_port_min(void)
{
	/* net.ipv4.ip_unprivileged_port_start (Linux 4.11; 1024 before it) */
	FILE *f = fopen("/proc/sys/net/ipv4/ip_unprivileged_port_start", "re");
	unsigned v = 1024;
	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 1024;
		fclose(f);
	}
	return v;
}
