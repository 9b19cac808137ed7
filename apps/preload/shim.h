/* shim internals: libskops_preload.so puts the AF_INET/AF_INET6 stream and
 * datagram sockets of an unmodified program on skopsd (skp_proto.h).
 * shim_core.c: libc's functions, the daemon connection, the fd table,
 * readiness and waiting; shim_sock.c: the socket calls; shim_io.c: data;
 * shim_dgram.c: datagram sockets;
 * shim_poll.c: poll, select, epoll; shim_exec.c: exec and spawn;
 * shim_inherit.c: sockets inherited past the fork and exec hooks.
 * docs/skopsd.md. */
#ifndef SKOPS_APPS_SHIM_H
#define SKOPS_APPS_SHIM_H

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
	bool err_taken, listening, connecting;
	int rcvtimeo_ms, sndtimeo_ms; /* 0: none */
	int rcvbuf, sndbuf;	      /* datagram sockets: as the kernel set them, 0: default */
	uint32_t err_seen;	      /* datagram sockets: the last soft error reported */
	bool shut_rd, shut_wr;	      /* datagram sockets: shutdown's (this process's view) */
	bool v6only_known, v6only;    /* datagram sockets: IPV6_V6ONLY as last asked */
	pthread_mutex_t rx_lock, tx_lock;
};

/* A kernel AF_INET/AF_INET6 stream socket not yet bound or connected: where
 * it goes is decided at bind/connect/listen. Options set meanwhile are
 * replayed on the skops socket. */
#define SHIM_CAND_OPTS 12
struct shim_cand {
	int family, type;
	unsigned nopts;
	struct {
		int level, name;
		socklen_t len;
		uint8_t val[64];
	} opts[SHIM_CAND_OPTS];
};

struct shim_fd {
	struct ssock *s;
	struct shim_cand *c;
};

/* readiness as poll bits */
#define SHIM_IN	 POLLIN
#define SHIM_OUT POLLOUT

void shim_init(void);
struct shim_fd *shim_fd(int fd); /* NULL when fd is out of the table's range */
/* CLOCK_MONOTONIC in ns: the clock of the kernel's timeouts */
static inline int64_t shim_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static inline struct ssock *shim_sock(int fd)
{
	struct shim_fd *e = shim_fd(fd);
	return e ? e->s : NULL;
}
/* Connects to skopsd once; false when absent (the fallback was announced). */
bool shim_daemon(void);
bool shim_daemon_dead(void);
/* The control connection while it lives (-1 otherwise): every wait on skops
 * fds has it too, so the daemon's death wakes it (POLLRDHUP/POLLHUP) */
int shim_ctl_live(void);
/* It hung up: every skops socket reports ready, errors and hang-up */
void shim_ctl_hangup(void);
/* One request and its reply; fds (up to 2) received into fds. Returns the
 * reply's rc, or -ECONNRESET when the daemon is gone. */
int shim_rpc(struct skp_req *req, struct skp_rep *rep, int *fds, int *nfds);
/* shim_rpc sending sfds (up to 2) with the request */
int shim_rpc_fds(struct skp_req *req, const int *sfds, int nsfds, struct skp_rep *rep, int *fds,
		 int *nfds);
uint32_t shim_hello_flags(void); /* SKP_F_* of the daemon this process talks to */
void shim_send_only(struct skp_req *req);
void shim_kick(void);
/* A socket from SOCKET/ACCEPT's reply and memfd; NULL on failure (fds closed). */
struct ssock *shim_sock_new(const struct skp_rep *rep, int family, int memfd);
/* fd now names s (its reference is the caller's). */
void shim_fd_set(int fd, struct ssock *s);
void shim_sock_put(struct ssock *s);
/* O_NONBLOCK of s. It lives in the socket's shared memory only: on Linux it
 * is the open file's, so every fd naming the socket (dups, a forked child's,
 * an adopter's) sees one holder's F_SETFL or FIONBIO. The kernel fd behind
 * it stays non-blocking (the shim reads it), whatever the app asks. */
void shim_set_nonblock(struct ssock *s, bool nb);
static inline bool shim_nonblock(const struct ssock *s)
{
	return atomic_load(&s->shm->app_nonblock) != 0;
}
/* poll bits ready now (IN, OUT, ERR, HUP) */
short shim_ready(struct ssock *s);
/* Waits (on fd, the socket's eventfd) until shim_ready has one of want, the
 * timeout (ms, 0: none), a signal (-EINTR) or the daemon's death. */
int shim_wait(int fd, struct ssock *s, short want, int timeout_ms);
/* A receive that found nothing (called with rx_lock held): -EAGAIN when it
 * may not block, else waits with the lock dropped, so another thread of the
 * process can read meanwhile as on a kernel socket; 0: look again. */
int shim_rx_block(int fd, struct ssock *s, int flags);
/* A call's result as libc returns it: -errno becomes -1 with errno set. */
ssize_t shim_ret(ssize_t ret);
/* Clears fd's eventfd, then sets it again when s is ready for want: a
 * kernel wait on fd then sleeps exactly while s is not ready. */
void shim_arm(int fd, struct ssock *s, short want, bool rewrite);
/* exec (shim_exec.c): the control connection and the sockets without
 * FD_CLOEXEC go to the new image, which maps them again at its start. */
int shim_fd_hi(void);
int shim_ctl_get(int *kick, uint32_t *flags); /* -1 when there is no live connection */
void shim_ctl_set(int ctl, int kick, uint32_t flags);
/* closes this process's connection (the next socket makes a new one) */
void shim_ctl_drop(void);
void shim_exec_adopt(void);
/* A signal handler that interrupted a wait asked for SA_RESTART (shim_sig.c):
 * blocking calls without a timeout then go on waiting, as the kernel's. */
bool shim_sig_restart(void);
void shim_sig_clear(void);
/* A datagram candidate sending first (shim_sock.c): to decides where it
 * goes, as a connect to it would; false when that failed (errno set). */
bool shim_dg_decide(int fd, const struct sockaddr *to, socklen_t tolen);
/* shim_dgram.c: UDP sockets, one record per datagram in each ring */
ssize_t shim_dg_send(int fd, struct ssock *s, const struct msghdr *m, int flags);
ssize_t shim_dg_recv(int fd, struct ssock *s, struct msghdr *m, int flags);
short shim_dg_ready(struct ssock *s, bool dead);
/* A soft error not yet reported (taken: reported now), else 0. */
int shim_dg_soft_err(struct ssock *s, bool take);
int shim_dg_next_len(struct ssock *s); /* FIONREAD: the next datagram's size */
/* SO_RCVBUF/SO_SNDBUF(FORCE) as a kernel UDP socket answers them: 1 when
 * the option is not one of these (the daemon's), else 0 or -1 and errno */
int shim_dg_setopt(struct ssock *s, int level, int name, const void *val, socklen_t len);
int shim_dg_getopt(struct ssock *s, int level, int name, void *val, socklen_t *len);
/* A vfork child (posix_spawn, system) shares its parent's memory until it
 * execs: true there. Its dups and closes of skops fds are noted apart
 * (shim_vf_*, at most SHIM_VF_MAX) instead of changing the parent's table,
 * and its exec carries the sockets through a fork ticket. */
#define SHIM_VF_MAX 32
bool shim_foreign(void);
void shim_vf_note(int fd, struct ssock *s);
/* fd's socket as the vfork child sees it (its own dups and closes first) */
struct ssock *shim_vf_sock(int fd);
/* the i-th noted fd (-1 past the last) and its socket (NULL: closed) */
int shim_vf_fd(unsigned i, struct ssock **s);
/* shim_loop.c, loopback-listen: the kernel listeners on loopback that a
 * wildcard stream socket s about to listen also gets (fds; the count, 0
 * when none, or -errno) */
int shim_loop_listen(struct ssock *s, int backlog, int fds[2]);
/* shim_inherit.c: sockets inherited past the fork and exec hooks (system,
 * popen, raw clone), taken over with ADOPT. fd is an eventfd, as a skops
 * socket's fd is. */
bool shim_is_eventfd(int fd);
/* a new image: its inherited eventfds that are skops sockets */
void shim_inherit_scan(void);
/* a raw fork's child on a connection of its own: a hold on each socket */
void shim_inherit_rehold(void);
/* Drops fd's table entry (close, dup2 over it). */
void shim_fd_release(int fd);
/* Drops fd's socket entry without a word to skopsd: this process holds
 * no such socket there */
void shim_fd_forget(int fd);
/* epoll registrations of fd go away with it */
void shim_epoll_forget(int fd);

#endif
