/* shim_exec: exec keeps the skops sockets that are not close-on-exec, as the
 * kernel keeps its sockets. Before the exec the control connection (and the
 * kick eventfd) lose FD_CLOEXEC and SKOPS_EXEC describes them and each kept
 * socket ("ctl,kick;fd,id,family,nonblock,listening,type;..."); the socket's fd is
 * its eventfd and survives by itself. The shim in the new image (same pid,
 * same connection) asks skopsd for each socket's memfd again (MEMFD), maps
 * it, and ends with EXEC_DONE: skopsd then lets go of the sockets the new
 * image did not ask for (they were close-on-exec). A failed exec puts the
 * flags back and nothing else changed. */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

#define EXPORT	 __attribute__((visibility("default")))
#define ENV_NAME "SKOPS_EXEC="
#define EXEC_MAX 256 /* sockets carried across one exec */

extern char **environ;

/* envp without any SKOPS_EXEC, plus var; NULL when there is nothing to carry */
static char **exec_env(char *const envp[], char *var)
{
	size_t n = 0;
	while (envp && envp[n])
		n++;
	char **out = malloc((n + 2) * sizeof(*out));
	if (!out)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], ENV_NAME, sizeof(ENV_NAME) - 1))
			out[k++] = envp[i];
	out[k++] = var;
	out[k] = NULL;
	return out;
}

/* SKOPS_EXEC's value, and the control fds made inheritable */
static char *exec_state(int *ctl, int *kick)
{
	*ctl = shim_ctl_get(kick);
	if (*ctl < 0)
		return NULL;
	int hi = shim_fd_hi();
	if (hi < 0)
		return NULL;
	size_t room = sizeof(ENV_NAME) + 32 + (size_t)EXEC_MAX * 64, len;
	char *v = malloc(room);
	if (!v)
		return NULL;
	len = (size_t)snprintf(v, room, "%s%d,%d", ENV_NAME, *ctl, *kick);
	unsigned n = 0;
	for (int fd = 0; fd <= hi && n < EXEC_MAX; fd++) {
		struct ssock *s = shim_sock(fd);
		int fl = s ? shim_real.fcntl(fd, F_GETFD) : -1;
		if (fl < 0 || (fl & FD_CLOEXEC))
			continue;
		len += (size_t)snprintf(v + len, room - len, ";%d,%u,%d,%d,%d,%d", fd, s->id,
					s->family, (int)s->nonblock, (int)s->listening, s->type);
		n++;
	}
	shim_real.fcntl(*ctl, F_SETFD, 0);
	shim_real.fcntl(*kick, F_SETFD, 0);
	return v;
}

static int do_exec(const char *path, char *const argv[], char *const envp[], bool search)
{
	shim_init();
	int ctl, kick;
	char *var = exec_state(&ctl, &kick);
	char **env = var ? exec_env(envp, var) : NULL;
	char *const *use = env ? env : envp;
	int rc = search ? shim_real.execvpe(path, argv, use) : shim_real.execve(path, argv, use);
	int e = errno;
	if (var) {
		shim_real.fcntl(ctl, F_SETFD, FD_CLOEXEC);
		shim_real.fcntl(kick, F_SETFD, FD_CLOEXEC);
	}
	free(env);
	free(var);
	errno = e;
	return rc;
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

/* the execl family: the arguments (and execle's envp) into an array */
static char **va_argv(const char *arg0, va_list ap, char ***envp)
{
	va_list c;
	va_copy(c, ap);
	size_t n = 1;
	while (va_arg(c, char *))
		n++;
	va_end(c);
	char **v = malloc((n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	v[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++)
		v[i] = va_arg(ap, char *);
	if (envp)
		*envp = va_arg(ap, char **);
	return v;
}

#define EXECL(name, search, with_env)                                                              \
	EXPORT int name(const char *path, const char *arg, ...)                                    \
	{                                                                                          \
		va_list ap;                                                                        \
		char **envp = environ;                                                             \
		va_start(ap, arg);                                                                 \
		char **v = va_argv(arg, ap, with_env ? &envp : NULL);                              \
		va_end(ap);                                                                        \
		if (!v) {                                                                          \
			errno = ENOMEM;                                                            \
			return -1;                                                                 \
		}                                                                                  \
		int rc = do_exec(path, v, envp, search);                                           \
		int e = errno;                                                                     \
		free(v);                                                                           \
		errno = e;                                                                         \
		return rc;                                                                         \
	}
EXECL(execl, false, false)
EXECL(execlp, true, false)
EXECL(execle, false, true)

/* In the new image, from the constructor: the sockets again. */
void shim_exec_adopt(void)
{
	const char *v = getenv("SKOPS_EXEC");
	int ctl, kick, off = 0;
	if (!v || sscanf(v, "%d,%d%n", &ctl, &kick, &off) != 2)
		return;
	shim_real.fcntl(ctl, F_SETFD, FD_CLOEXEC);
	shim_real.fcntl(kick, F_SETFD, FD_CLOEXEC);
	shim_ctl_set(ctl, kick);
	struct ssock *seen[EXEC_MAX];
	unsigned nseen = 0;
	for (const char *p = v + off; *p == ';';) {
		int fd, family, nb, lis, type, k = 0;
		unsigned id;
		if (sscanf(p, ";%d,%u,%d,%d,%d,%d%n", &fd, &id, &family, &nb, &lis, &type, &k) !=
			6 ||
		    !k)
			break;
		p += k;
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
		s->nonblock = nb;
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
