/* shim_entry: the top layer of the shim (shim_transport.h says which file
 * is in which layer): the interposed libc entry points, and what they
 * share among themselves. */
#ifndef SKOPS_APPS_SHIM_ENTRY_H
#define SKOPS_APPS_SHIM_ENTRY_H

#include "shim_fdtab.h"

/* shim_exec.c: exec and spawn. The control connection and the sockets
 * without FD_CLOEXEC go to the new image, which maps them again at its
 * start (this, from the constructor). */
void shim_exec_adopt(void);
/* shim_sig.c: a signal handler that interrupted a wait asked for
 * SA_RESTART: blocking calls without a timeout then go on waiting, as the
 * kernel's (the transport's waits ask through struct shim_up). */
bool shim_sig_restart(void);
void shim_sig_clear(void);
/* shim_sock.c: a datagram candidate sending first: to decides where it
 * goes, as a connect to it would; false when that failed (errno set). */
bool shim_dg_decide(int fd, const struct sockaddr *to, socklen_t tolen);
/* shim_poll.c: epoll registrations of fd go away with it */
void shim_epoll_forget(int fd);

#endif
