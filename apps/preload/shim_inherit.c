/* shim_inherit: skops sockets a process got past the shim's fork and exec
 * hooks. glibc's system() and popen() start /bin/sh by a clone inside
 * libc, and a raw clone or fork (syscall(SYS_fork), _Fork) runs no
 * pthread_atfork handler: the child, or the image it execs, inherits the
 * sockets' fds (the daemon's eventfds) but no ticket. Each such fd goes to
 * skopsd with ADOPT (SCM_RIGHTS): sending it shows that this process holds
 * that open file, which is how the kernel decides who holds a socket, and
 * skopsd compares it with its own eventfds (kcmp), so no fd a process could
 * make or guess names a socket it does not hold. */
#undef _FILE_OFFSET_BITS
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim_fdtab.h"

#define EXPORT	    __attribute__((visibility("default")))
#define INHERIT_MAX 1024 /* eventfds looked at in one new image */

bool shim_is_eventfd(int fd)
{
	char path[32], link[32];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	return n == 20 && !memcmp(link, "anon_inode:[eventfd]", 20);
}

/* One ADOPT: 0 and the socket's id, memfd and description, or -errno. */
static int adopt_rpc(int fd, uint32_t *id, int *memfd, struct skp_sockinfo *in)
{
	struct skp_req req = {.op = SKP_ADOPT};
	struct skp_rep rep;
	int fds[2], nfds = 0;
	int rc = shim_rpc_fds(&req, &fd, 1, &rep, fds, &nfds);
	if ((!rc || rc == -EBADF) && rep.len == sizeof(*in))
		memcpy(in, rep.data, sizeof(*in));
	if (!rc && (nfds != 1 || rep.len != sizeof(*in)))
		rc = -EPROTO;
	if (rc) {
		for (int i = 0; i < nfds; i++)
			shim_real.close(fds[i]);
		return rc;
	}
	*id = rep.id;
	*memfd = fds[0];
	return 0;
}

/* A socket closed before this process could take its hold (its parent
 * closed it first): the fd becomes an unconnected kernel socket of the same
 * kind, so reads fail with ENOTCONN and writes with EPIPE instead of
 * touching an eventfd the program does not know it has. */
static void adopt_dead(int fd, const struct skp_sockinfo *in)
{
	int fl = shim_real.fcntl(fd, F_GETFD);
	int k = shim_real.socket(in->family, in->type | SOCK_CLOEXEC, 0);
	if (k < 0 || fl < 0 || shim_real.dup3(k, fd, fl & FD_CLOEXEC ? O_CLOEXEC : 0) < 0)
		fprintf(stderr, "skops: pid %d: fd %d: its socket is gone (%s)\n", (int)getpid(),
			fd, strerror(errno));
	if (k >= 0)
		shim_real.close(k);
}

/* fd, an eventfd the new image found open: a skops socket or not */
static void adopt_one(int fd, struct ssock **seen, unsigned *nseen)
{
	uint32_t id;
	int memfd;
	struct skp_sockinfo in = {.family = AF_INET, .type = SOCK_STREAM};
	int rc = adopt_rpc(fd, &id, &memfd, &in);
	if (rc == -EBADF)
		adopt_dead(fd, &in);
	/* -ENOTSOCK: the program's own eventfd; with skopsd gone (or no
	 * kcmp) nothing can be told and the fd stays as it is */
	if (rc)
		return;
	for (unsigned i = 0; i < *nseen; i++) {
		if (seen[i]->id == id) { /* a dup of a socket already mapped */
			shim_real.close(memfd);
			atomic_fetch_add(&seen[i]->refs, 1);
			shim_fd_set(fd, seen[i]);
			return;
		}
	}
	struct skp_rep rep = {.id = id};
	struct ssock *s = shim_sock_new(&rep, in.family, memfd);
	if (!s)
		return;
	s->type = in.type;
	s->listening = in.listening;
	shim_fd_set(fd, s);
	if (*nseen < INHERIT_MAX)
		seen[(*nseen)++] = s;
}

void shim_inherit_scan(void)
{
	static int fds[INHERIT_MAX];
	static struct ssock *seen[INHERIT_MAX];
	unsigned n = 0, nseen = 0;
	DIR *dir = opendir("/proc/self/fd");
	if (!dir)
		return;
	int kick;
	uint32_t flags;
	shim_ctl_get(&kick, &flags);
	struct dirent *de;
	while ((de = readdir(dir)) && n < INHERIT_MAX) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		if (*end || end == de->d_name || fd == dirfd(dir) || fd == kick ||
		    shim_sock((int)fd) || !shim_is_eventfd((int)fd))
			continue;
		fds[n++] = (int)fd;
	}
	closedir(dir);
	bool had = kick >= 0;
	if (!n || !shim_daemon())
		return;
	for (unsigned i = 0; i < n; i++)
		adopt_one(fds[i], seen, &nseen);
	/* eventfds of the program's own only: a process that may never make
	 * a socket does not keep one of skopsd's client slots */
	if (!had && !nseen)
		shim_ctl_drop();
}

void shim_inherit_rehold(void)
{
	bool up = shim_daemon();
	for (int fd = 0, hi = shim_fd_hi(); fd <= hi; fd++) {
		struct ssock *s = shim_sock(fd);
		uint32_t id;
		int memfd, rc = -ECONNREFUSED;
		if (!s)
			continue;
		struct skp_sockinfo in = {.family = s->family, .type = s->type};
		/* the copied memory maps the socket already */
		if (up && !(rc = adopt_rpc(fd, &id, &memfd, &in))) {
			shim_real.close(memfd);
			continue;
		}
		/* not this process's at skopsd: no request may name it (the
		 * entry goes silently), and the fd fails as a dead socket */
		fprintf(stderr, "skops: pid %d: fd %d: not shared with its parent (%s)\n",
			(int)getpid(), fd, strerror(-rc));
		shim_fd_forget(fd);
		adopt_dead(fd, &in);
	}
}

/* system() and popen() clone their shell inside libc, past the fork hook:
 * a ticket holds the sockets the shell inherits (not close-on-exec) while
 * its shim starts, so a close here meanwhile (popen's caller goes on) does
 * not close them under it; each ADOPT of the shell's moves a hold from the
 * ticket to the shell. 0: nothing held. */
static uint64_t spawn_hold(void)
{
	struct skp_req req = {.op = SKP_FORK, .a = SKP_FORK_SPAWN | SKP_FORK_LISTED};
	uint32_t n = 0, max = sizeof(req.data) / sizeof(uint32_t);
	if (shim_foreign())
		return 0;
	for (int fd = 0, hi = shim_fd_hi(); fd <= hi; fd++) {
		struct ssock *s = shim_sock(fd);
		int fl = s ? shim_real.fcntl(fd, F_GETFD) : -1;
		if (fl < 0 || (fl & FD_CLOEXEC))
			continue;
		if (n == max) { /* more than a request lists: every socket */
			req.a = SKP_FORK_SPAWN;
			break;
		}
		memcpy(req.data + n++ * sizeof(uint32_t), &s->id, sizeof(uint32_t));
	}
	req.len = n * sizeof(uint32_t);
	struct skp_rep rep;
	return n && !shim_rpc(&req, &rep, NULL, NULL) ? rep.token : 0;
}

/* the ticket's holds come back to us (we hold the sockets still) and it goes */
static void spawn_unhold(uint64_t token)
{
	struct skp_req req = {.op = SKP_CLAIM, .token = token};
	struct skp_rep rep;
	if (token)
		shim_rpc(&req, &rep, NULL, NULL);
}

EXPORT int system(const char *cmd)
{
	shim_init();
	uint64_t t = cmd ? spawn_hold() : 0;
	int rc = shim_real.system(cmd);
	int e = errno;
	spawn_unhold(t); /* the shell is done */
	errno = e;
	return rc;
}

/* The ticket stays with a started shell: its ADOPTs end it, or it lapses
 * (SKOPSD_TICKET_NS) if the shell never runs the shim. */
EXPORT FILE *popen(const char *cmd, const char *mode)
{
	shim_init();
	uint64_t t = spawn_hold();
	FILE *f = shim_real.popen(cmd, mode);
	int e = errno;
	if (!f)
		spawn_unhold(t);
	errno = e;
	return f;
}
