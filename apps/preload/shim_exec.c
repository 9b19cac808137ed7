/* shim_exec: exec keeps the skops sockets that are not close-on-exec, as the
 * kernel keeps its sockets. Before the exec the control connection (and the
 * kick eventfd) lose FD_CLOEXEC and SKOPS_EXEC describes them, HELLO's flags
 * and each kept socket ("ctl,kick,flags;fd,id,family,listening,type;...";
 * O_NONBLOCK is in the socket's shared memory); the socket's fd is its
 * eventfd and survives by itself. The shim in the new image (same pid, same
 * connection) asks skopsd for each socket's memfd again (MEMFD), maps it,
 * and ends with EXEC_DONE: skopsd then lets go of the sockets the new image
 * did not ask for (they were close-on-exec). A failed exec puts the flags
 * back and nothing else changed.
 * A vfork child shares its parent's memory and connection until it execs,
 * and posix_spawn's child execs inside libc: there a fork ticket
 * ("Ttoken;fd,...") holds the sockets, and the new image claims it on a
 * connection of its own before asking for the memfds. */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim_entry.h"

#define EXPORT	 __attribute__((visibility("default")))
#define ENV_NAME "SKOPS_EXEC="
#define EXEC_MAX 256 /* sockets carried across one exec */

extern char **environ;

#define EXEC_ROOM (sizeof(ENV_NAME) + 40 + (size_t)EXEC_MAX * 64)

/* envp without any SKOPS_EXEC, plus var, into out (room for envp's count + 2) */
static void exec_env(char *const envp[], char *var, char **out)
{
	size_t k = 0;
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], ENV_NAME, sizeof(ENV_NAME) - 1))
			out[k++] = envp[i];
	out[k++] = var;
	out[k] = NULL;
}

static size_t env_count(char *const envp[])
{
	size_t n = 0;
	while (envp && envp[n])
		n++;
	return n;
}

/* The sockets this process hands to a new image: fds naming a skops socket
 * without FD_CLOEXEC (a vfork child's own dups and closes counted). */
static unsigned exec_socks(char *v, size_t room)
{
	int hi = shim_fd_hi(), vfd;
	struct ssock *s;
	for (unsigned i = 0; (vfd = shim_vf_fd(i, &s)) >= 0; i++)
		hi = vfd > hi ? vfd : hi;
	size_t len = 0;
	unsigned n = 0;
	for (int fd = 0; fd <= hi && n < EXEC_MAX; fd++) {
		s = shim_vf_sock(fd);
		int fl = s ? shim_real.fcntl(fd, F_GETFD) : -1;
		if (fl < 0 || (fl & FD_CLOEXEC))
			continue;
		len += (size_t)snprintf(v + len, room - len, ";%d,%u,%d,%d,%d", fd, s->id,
					s->family, (int)s->listening, s->type);
		n++;
	}
	return n;
}

/* SKOPS_EXEC=... into v (EXEC_ROOM bytes); false when nothing is carried.
 * In the process that owns the control connection, the connection itself
 * goes to the new image (made inheritable: *ctl, *kick). A vfork child
 * (and posix_spawn, which gives its child no chance to run the shim) asks
 * for a fork ticket instead, which the new image claims on a connection
 * of its own: the parent's connection stays the parent's alone. *token:
 * the ticket, 0 when none. Uses no heap: a vfork child's malloc would take
 * its parent's memory for good. */
static bool exec_state(char *v, bool ticket, int *ctl, int *kick, uint64_t *token)
{
	char list[EXEC_ROOM - sizeof(ENV_NAME) - 40];
	uint32_t flags;
	*token = 0;
	*ctl = shim_ctl_get(kick, &flags);
	if (*ctl < 0 || shim_fd_hi() < 0 || !exec_socks(list, sizeof(list)))
		return false;
	if (ticket) {
		struct skp_req req = {.op = SKP_FORK};
		struct skp_rep rep;
		if (shim_rpc(&req, &rep, NULL, NULL) || !rep.token)
			return false;
		*token = rep.token;
		snprintf(v, EXEC_ROOM, "%sT%llx%s", ENV_NAME, (unsigned long long)*token, list);
		return true;
	}
	snprintf(v, EXEC_ROOM, "%s%d,%d,%u%s", ENV_NAME, *ctl, *kick, flags, list);
	shim_real.fcntl(*ctl, F_SETFD, 0);
	shim_real.fcntl(*kick, F_SETFD, 0);
	return true;
}

/* A carry that did not happen (the exec or spawn failed): the connection
 * is close-on-exec again, or the ticket's holds come back to us. */
static void exec_undo(int ctl, int kick, uint64_t token)
{
	if (token) {
		struct skp_req claim = {.op = SKP_CLAIM, .token = token};
		struct skp_rep rep;
		shim_rpc(&claim, &rep, NULL, NULL);
		return;
	}
	shim_real.fcntl(ctl, F_SETFD, FD_CLOEXEC);
	shim_real.fcntl(kick, F_SETFD, FD_CLOEXEC);
}

static int do_exec(const char *path, char *const argv[], char *const envp[], bool search)
{
	shim_init();
	int ctl, kick;
	uint64_t token;
	char var[EXEC_ROOM];
	bool carry = exec_state(var, shim_foreign(), &ctl, &kick, &token);
	char *env[carry ? env_count(envp) + 2 : 1];
	if (carry)
		exec_env(envp, var, env);
	char *const *use = carry ? env : envp;
	int rc = search ? shim_real.execvpe(path, argv, use) : shim_real.execve(path, argv, use);
	int e = errno;
	if (carry)
		exec_undo(ctl, kick, token);
	errno = e;
	return rc;
}

/* posix_spawn (and so its child's exec) runs inside libc, out of the
 * shim's reach: the sockets go by a ticket in the child's environment. */
static int do_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		    const posix_spawnattr_t *attr, char *const argv[], char *const envp[],
		    bool search)
{
	shim_init();
	int ctl, kick;
	uint64_t token;
	char var[EXEC_ROOM];
	bool carry = exec_state(var, true, &ctl, &kick, &token);
	char *env[carry ? env_count(envp) + 2 : 1];
	if (carry)
		exec_env(envp, var, env);
	char *const *use = carry ? env : envp;
	int rc = (search ? shim_real.posix_spawnp : shim_real.posix_spawn)(pid, path, fa, attr,
									   argv, use);
	if (rc && carry)
		exec_undo(ctl, kick, token);
	return rc;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return do_spawn(pid, path, fa, attr, argv, envp, false);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return do_spawn(pid, file, fa, attr, argv, envp, true);
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return do_exec(path, argv, envp, false);
}

EXPORT int execv(const char *path, char *const argv[])
{
	return do_exec(path, argv, environ, false);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return do_exec(file, argv, envp, true);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return do_exec(file, argv, environ, true);
}

/* the execl family: the arguments (and execle's envp) into an array on
 * the stack (execl is what a vfork child calls: no heap, see exec_state).
 * A call's arguments are written out in its source, so a few thousand is
 * plenty; the array (32 KiB) is on a stack a vfork child shares with its
 * parent. */
#define EXECL_MAX_ARGS 4096

/* arguments after arg0 up to and including the NULL; 0: more than the cap */
static size_t va_count(va_list ap)
{
	va_list c;
	va_copy(c, ap);
	size_t n = 1;
	while (va_arg(c, char *) && n <= EXECL_MAX_ARGS)
		n++;
	va_end(c);
	return n > EXECL_MAX_ARGS ? 0 : n;
}

static void va_argv(const char *arg0, va_list ap, size_t n, char **v, char ***envp)
{
	v[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++)
		v[i] = va_arg(ap, char *);
	if (envp)
		*envp = va_arg(ap, char **);
}

#define EXECL(name, search, with_env)                                                              \
	EXPORT int name(const char *path, const char *arg, ...)                                    \
	{                                                                                          \
		va_list ap;                                                                        \
		char **envp = environ;                                                             \
		va_start(ap, arg);                                                                 \
		size_t n = va_count(ap);                                                           \
		if (n == 0) {                                                                      \
			va_end(ap);                                                                \
			errno = E2BIG;                                                             \
			return -1;                                                                 \
		}                                                                                  \
		char *v[EXECL_MAX_ARGS + 1];                                                       \
		va_argv(arg, ap, n, v, with_env ? &envp : NULL);                                   \
		va_end(ap);                                                                        \
		return do_exec(path, v, envp, search);                                             \
	}
EXECL(execl, false, false)
EXECL(execlp, true, false)
EXECL(execle, false, true)

/* The new image's connection: the one exec kept ("ctl,kick"), or a new one
 * that claims the ticket ("Ttoken") of a vfork child or a spawn. */
static int adopt_conn(const char *v)
{
	int ctl, kick, off = 0;
	unsigned flags;
	unsigned long long token;
	if (sscanf(v, "T%llx%n", &token, &off) == 1 && off) {
		struct skp_req claim = {.op = SKP_CLAIM, .token = token};
		struct skp_rep rep;
		int rc = shim_daemon() ? shim_rpc(&claim, &rep, NULL, NULL) : -ECONNREFUSED;
		if (rc) {
			fprintf(stderr,
				"skops: exec: pid %d does not get its parent's sockets (%s)\n",
				(int)getpid(), strerror(-rc));
			return -1;
		}
		return off;
	}
	if (sscanf(v, "%d,%d,%u%n", &ctl, &kick, &flags, &off) != 3 || !off)
		return -1;
	shim_real.fcntl(ctl, F_SETFD, FD_CLOEXEC);
	shim_real.fcntl(kick, F_SETFD, FD_CLOEXEC);
	shim_ctl_set(ctl, kick, flags);
	return off;
}

/* In the new image, from the constructor: the sockets again. */
void shim_exec_adopt(void)
{
	const char *v = getenv("SKOPS_EXEC");
	if (!v)
		return;
	int off = adopt_conn(v);
	if (off < 0) {
		unsetenv("SKOPS_EXEC");
		return;
	}
	struct ssock *seen[EXEC_MAX];
	unsigned nseen = 0;
	for (const char *p = v + off; *p == ';';) {
		int fd, family, lis, type, k = 0;
		unsigned id;
		if (sscanf(p, ";%d,%u,%d,%d,%d%n", &fd, &id, &family, &lis, &type, &k) != 5 || !k)
			break;
		p += k;
		/* a spawn's file actions may have closed or replaced what the
		 * parent described */
		if (!shim_is_eventfd(fd))
			continue;
		struct ssock *s = NULL;
		for (unsigned i = 0; i < nseen && !s; i++)
			if (seen[i]->id == id)
				s = seen[i];
		if (s) { /* another fd (a dup) of a socket already mapped */
			atomic_fetch_add(&s->refs, 1);
			shim_fd_set(fd, s);
			continue;
		}
		struct skp_req req = {.op = SKP_MEMFD, .id = id};
		struct skp_rep rep;
		int fds[2], nfds;
		if (shim_rpc(&req, &rep, fds, &nfds) || nfds != 1) {
			for (int i = 0; i < nfds; i++)
				shim_real.close(fds[i]);
			fprintf(stderr, "skops: exec: fd %d: socket %u is gone\n", fd, id);
			continue;
		}
		rep.id = id;
		s = shim_sock_new(&rep, family, fds[0]);
		if (!s)
			continue;
		s->listening = lis;
		s->type = type;
		shim_fd_set(fd, s);
		if (nseen < EXEC_MAX)
			seen[nseen++] = s;
	}
	struct skp_req done = {.op = SKP_EXEC_DONE};
	struct skp_rep rep;
	shim_rpc(&done, &rep, NULL, NULL);
	unsetenv("SKOPS_EXEC");
}
