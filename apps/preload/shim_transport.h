/* shim_transport: the bottom layer of libskops_preload.so, which puts the
 * AF_INET/AF_INET6 stream and datagram sockets of an unmodified program on
 * skopsd (apps/skp/skp_proto.h, docs/skopsd.md "Layers"). Three layers, each
 * with its header, each calling only the ones below it:
 *   top, the interposed libc entry points (shim_entry.h): shim_sock.c,
 *     shim_io.c, shim_poll.c, shim_sig.c, shim_exec.c, shim_fork.c;
 *   middle, the fd table and socket objects (shim_fdtab.h): shim_fd.c,
 *     shim_dgram.c, shim_loop.c, shim_inherit.c;
 *   bottom, the transport (this header): shim_ctl.c (libc's functions, the
 *     process's identity, the daemon connection and its requests) and
 *     shim_wait.c (readiness from the rings, eventfd waits).
 * A lower layer that needs the one above gets a callback at load
 * (shim_fork.c's constructor). */
#ifndef SKOPS_APPS_SHIM_TRANSPORT_H
#define SKOPS_APPS_SHIM_TRANSPORT_H

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include "skp_proto.h"

/* libc's own functions (dlsym RTLD_NEXT) */
struct shim_real {
	int (*socket)(int, int, int);
	int (*bind)(int, const struct sockaddr *, socklen_t);
	int (*listen)(int, int);
	int (*accept4)(int, struct sockaddr *, socklen_t *, int);
	int (*connect)(int, const struct sockaddr *, socklen_t);
	int (*close)(int);
	int (*shutdown)(int, int);
	int (*setsockopt)(int, int, int, const void *, socklen_t);
	int (*getsockopt)(int, int, int, void *, socklen_t *);
	int (*getsockname)(int, struct sockaddr *, socklen_t *);
	int (*getpeername)(int, struct sockaddr *, socklen_t *);
	int (*fcntl)(int, int, ...);
	int (*ioctl)(int, unsigned long, ...);
	int (*dup)(int);
	int (*dup2)(int, int);
	int (*dup3)(int, int, int);
	ssize_t (*read)(int, void *, size_t);
	ssize_t (*write)(int, const void *, size_t);
	ssize_t (*readv)(int, const struct iovec *, int);
	ssize_t (*writev)(int, const struct iovec *, int);
	ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
	ssize_t (*sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
	ssize_t (*recvmsg)(int, struct msghdr *, int);
	ssize_t (*sendmsg)(int, const struct msghdr *, int);
	ssize_t (*sendfile)(int, int, off_t *, size_t);
	pid_t (*fork)(void);
	pid_t (*_Fork)(void); /* NULL before glibc 2.34 */
	int (*system)(const char *);
	FILE *(*popen)(const char *, const char *);
	int (*execve)(const char *, char *const[], char *const[]);
	int (*execvpe)(const char *, char *const[], char *const[]);
	int (*posix_spawn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			   const posix_spawnattr_t *, char *const[], char *const[]);
	int (*posix_spawnp)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			    const posix_spawnattr_t *, char *const[], char *const[]);
	int (*sigaction)(int, const struct sigaction *, struct sigaction *);
	int (*ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
	int (*pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
		       const sigset_t *);
	int (*epoll_ctl)(int, int, int, struct epoll_event *);
	int (*epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);
};
extern struct shim_real shim_real;

/* A skops socket; the fds naming it (dups) share it. */
struct ssock {
	_Atomic int refs;
	uint32_t id; /* the daemon's */
	int family;
	int type; /* SOCK_STREAM, SOCK_DGRAM */
	/* Our ring indices (rx.tail, tx.head) live in the shared memory only, so
	 * processes sharing the socket after a fork take turns consistently. */
	struct skp_shm *shm;
	dev_t shm_dev; /* its memfd's file (shim_shm.c) */
	ino_t shm_ino;
	bool err_taken, listening, connecting;
	int rcvtimeo_ms, sndtimeo_ms; /* 0: none */
	int rcvbuf, sndbuf;	      /* datagram sockets: as the kernel set them, 0: default */
	uint32_t err_seen;	      /* datagram sockets: the last soft error reported */
	bool shut_rd, shut_wr;	      /* datagram sockets: shutdown's (this process's view) */
	bool v6only_known, v6only;    /* datagram sockets: IPV6_V6ONLY as last asked */
	_Atomic uint32_t wseq_seen;   /* shm->wseq at our last read of the eventfd */
	pthread_mutex_t rx_lock, tx_lock;
};

/* readiness as poll bits */
#define SHIM_IN	 POLLIN
#define SHIM_OUT POLLOUT

/* shim_shm.c: a socket's shared memory from the memfd the daemon sent
 * (the caller closes it), NULL when it cannot be mapped; *dev and *ino
 * name the file for shim_shm_unmap, which keeps a closed socket's mapping
 * for a later socket on the same file. A forked child forgets them. */
#include <sys/types.h>
struct skp_shm *shim_shm_map(int memfd, dev_t *dev, ino_t *ino);
void shim_shm_unmap(struct skp_shm *m, dev_t dev, ino_t ino);
void shim_shm_forget(void);

/* CLOCK_MONOTONIC in ns: the clock of the kernel's timeouts */
static inline int64_t shim_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* What the layers above do for the transport, set once at load (the
 * shim's constructor) before any socket exists; NULL: nothing. */
struct shim_up {
	/* a raw fork's child (no atfork handler ran), now on a connection
	 * of its own: take a hold on each inherited socket */
	void (*raw_fork_child)(void);
	/* which signal interrupted a wait: forget it; did its handler ask
	 * for SA_RESTART (the wait then goes on, as the kernel's would) */
	void (*sig_clear)(void);
	bool (*sig_restart)(void);
};
void shim_transport_up(const struct shim_up *up); /* shim_ctl.c */
void shim_wait_up(const struct shim_up *up);	  /* shim_wait.c */
/* SKOPS_POLL_USEC in ns: how long waits poll before they sleep */
int64_t shim_poll_ns(void);

/* shim_ctl.c */
/* libc's functions resolved, the process noted (once; every entry calls it) */
void shim_init(void);
/* A vfork child (posix_spawn, system) shares its parent's memory until it
 * execs: true there. Its dups and closes of skops fds are noted apart
 * (shim_vf_*, at most SHIM_VF_MAX) instead of changing the parent's table,
 * and its exec carries the sockets through a fork ticket. A raw fork's
 * child is found here too (shim_up.raw_fork_child). */
bool shim_foreign(void);
/* a fork's child: the parent's connection stays the parent's (the child
 * makes its own at its first socket) */
void shim_fork_child(void);
/* Connects to skopsd once; false when absent (the fallback was announced). */
bool shim_daemon(void);
bool shim_daemon_dead(void);
/* The control connection while it lives (-1 otherwise): every wait on skops
 * fds has it too, so the daemon's death wakes it (POLLRDHUP/POLLHUP) */
int shim_ctl_live(void);
int shim_ctl_fd(void); /* the same, dead or alive (-1: none) */
/* It hung up: every skops socket reports ready, errors and hang-up */
void shim_ctl_hangup(void);
/* One request and its reply; fds (up to 2) received into fds. Returns the
 * reply's rc, or -ECONNRESET when the daemon is gone. */
int shim_rpc(struct skp_req *req, struct skp_rep *rep, int *fds, int *nfds);
/* shim_rpc sending sfds (up to 2) with the request */
int shim_rpc_fds(struct skp_req *req, const int *sfds, int nsfds, struct skp_rep *rep, int *fds,
		 int *nfds);
uint32_t shim_hello_flags(void); /* SKP_F_* of the daemon this process talks to */
/* which HELLO the process's connection made: answers kept from an older
 * one (another daemon, maybe) are not this daemon's */
uint32_t shim_ctl_gen(void);
void shim_send_only(struct skp_req *req);
/* n requests whose replies only need to come (their rc is not asked): sent
 * together, then the replies read. 0, or -ECONNRESET (daemon dead). */
int shim_rpc_batch(struct skp_req *reqs, unsigned n);
void shim_kick(void);
/* after moving one of m's indices: kick only a daemon that sleeps */
void shim_kick_asleep(struct skp_shm *m);
/* exec (shim_exec.c): the control connection goes to the new image */
int shim_ctl_get(int *kick, uint32_t *flags); /* -1 when there is no live connection */
void shim_ctl_set(int ctl, int kick, uint32_t flags);
/* closes this process's connection (the next socket makes a new one) */
void shim_ctl_drop(void);
/* A call's result as libc returns it: -errno becomes -1 with errno set. */
ssize_t shim_ret(ssize_t ret);

/* shim_wait.c */
static inline bool shim_nonblock(const struct ssock *s)
{
	return atomic_load(&s->shm->app_nonblock) != 0;
}
/* poll bits ready now (IN, OUT, ERR, HUP) */
short shim_ready(struct ssock *s);
/* a datagram socket's (shim_ready's part for SOCK_DGRAM) */
short shim_dg_ready(struct ssock *s, bool dead);
/* A datagram socket's soft error not yet reported (taken: reported now), else 0. */
int shim_dg_soft_err(struct ssock *s, bool take);
/* Waits (on fd, the socket's eventfd) until shim_ready has one of want, the
 * timeout (ms, 0: none), a signal (-EINTR) or the daemon's death. */
int shim_wait(int fd, struct ssock *s, short want, int timeout_ms);
/* A receive that found nothing (called with rx_lock held): -EAGAIN when it
 * may not block, else waits with the lock dropped, so another thread of the
 * process can read meanwhile as on a kernel socket; 0: look again. */
int shim_rx_block(int fd, struct ssock *s, int flags);
/* Before a kernel wait on fd: clears its eventfd (when a write may have
 * come since the last read); with rewrite, sets it again when s is ready
 * for want. */
void shim_arm(int fd, struct ssock *s, short want, bool rewrite);
/* Around a kernel wait on s's eventfd: while counted, the daemon writes it
 * at each change. The caller looks at s's readiness after _begin. */
void shim_sleep_begin(struct ssock *s);
void shim_sleep_end(struct ssock *s);
/* A non-blocking send found the tx ring full: the daemon wakes the socket
 * once room comes (the kernel's SOCK_NOSPACE); look at the ring again
 * before reporting EAGAIN. */
void shim_ask_out(struct ssock *s);

#endif
