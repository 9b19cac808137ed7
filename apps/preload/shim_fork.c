/* shim_fork: the process's life as the shim sees it, at the top with the
 * other interposed entry points: the library's load (the layers below get
 * their callbacks, an exec'd image maps its sockets again), fork and
 * _Fork (a fork ticket keeps the sockets for the child), and exit. */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shim_entry.h"

__attribute__((constructor)) static void shim_ctor(void)
{
	/* the layers below call up only through these */
	struct shim_up up = {.raw_fork_child = shim_inherit_rehold,
			     .sig_clear = shim_sig_clear,
			     .sig_restart = shim_sig_restart};
	shim_transport_up(&up);
	shim_wait_up(&up);
	shim_fd_up(shim_epoll_forget);
	shim_fd_init();
	shim_exec_adopt();
	shim_inherit_scan();
}

/* exit() closes a process's fds and the kernel FINs their connections
 * gracefully; skopsd sees only the control connection drop, which it must
 * take for a SIGKILL and answer with resets. So a normal exit (the
 * destructors run; not on _exit, exec or a signal) closes every skops
 * socket as close() does: this process's hold goes, and a socket no other
 * process holds is flushed and FINed by the daemon. */
__attribute__((destructor)) static void shim_dtor(void)
{
	if (shim_foreign()) /* a vfork child's exit(): the sockets are its parent's */
		return;
	for (int fd = 0, hi = shim_fd_hi(); fd <= hi; fd++)
		if (shim_sock(fd))
			shim_fd_release(fd);
}

/* fork: the daemon's ticket keeps every socket of ours open until the child
 * has claimed its share (a close here right after fork, as servers do with
 * the connection they hand to a child, must not close the child's). */
static pid_t fork_by(pid_t (*real)(void), bool atfork_runs)
{
	struct skp_req req = {.op = SKP_FORK};
	struct skp_rep rep;
	uint64_t ticket = shim_fd_any() && !shim_rpc(&req, &rep, NULL, NULL) ? rep.token : 0;
	pid_t pid = real();
	if (pid == 0 && !atfork_runs)
		shim_fork_child();
	if (pid > 0 || !ticket)
		return pid;
	int e = errno;
	/* the child (shim_fork_child dropped the parent's connection), or the
	 * parent taking the ticket back when fork failed */
	struct skp_req claim = {.op = SKP_CLAIM, .token = ticket};
	int rc = pid < 0 || shim_daemon() ? shim_rpc(&claim, &rep, NULL, NULL) : -ECONNREFUSED;
	if (rc && pid == 0)
		fprintf(stderr, "skops: fork: pid %d does not share its parent's sockets (%s)\n",
			(int)getpid(), strerror(-rc));
	errno = e;
	return pid;
}

__attribute__((visibility("default"))) pid_t fork(void)
{
	shim_init();
	return fork_by(shim_real.fork, true);
}

/* glibc's fork without the atfork handlers (2.34 on): the same ticket, and
 * the child's part of shim_fork_child here */
__attribute__((visibility("default"))) pid_t _Fork(void)
{
	shim_init();
	if (!shim_real._Fork) {
		errno = ENOSYS;
		return -1;
	}
	return fork_by(shim_real._Fork, false);
}
