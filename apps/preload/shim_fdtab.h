/* shim_fdtab: the middle layer of the shim (shim_transport.h says which
 * file is in which layer): the fd table and the socket objects, datagram
 * sockets, loopback listeners, inherited sockets. It calls the transport
 * below and nothing above. */
#ifndef SKOPS_APPS_SHIM_FDTAB_H
#define SKOPS_APPS_SHIM_FDTAB_H

#include "shim_transport.h"

/* A kernel AF_INET/AF_INET6 stream socket not yet bound or connected: where
 * it goes is decided at bind/connect/listen. Options set meanwhile are
 * replayed on the skops socket. */
#define SHIM_CAND_OPTS 12
struct shim_cand {
	int family, type;
	int rcvtimeo_ms, sndtimeo_ms; /* SO_RCVTIMEO/SO_SNDTIMEO, the shim's own on skops */
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

/* shim_fd.c */
/* the table, sized by RLIMIT_NOFILE (once: at load, so no vfork child
 * allocates it) */
void shim_fd_init(void);
struct shim_fd *shim_fd(int fd); /* NULL when fd is out of the table's range */
static inline struct ssock *shim_sock(int fd)
{
	struct shim_fd *e = shim_fd(fd);
	return e ? e->s : NULL;
}
/* what goes with an fd the table drops (an entry point's epoll
 * registrations), set once at load */
void shim_fd_up(void (*dropped)(int fd));
/* A socket from SOCKET/ACCEPT's reply and memfd; NULL on failure (fds closed). */
struct ssock *shim_sock_new(const struct skp_rep *rep, int family, int memfd);
/* fd now names s (its reference is the caller's). */
void shim_fd_set(int fd, struct ssock *s);
void shim_sock_put(struct ssock *s);
/* another reference, e.g. across a wait another thread's close may end */
static inline void shim_sock_hold(struct ssock *s)
{
	atomic_fetch_add(&s->refs, 1);
}
/* O_NONBLOCK of s. It lives in the socket's shared memory only: on Linux it
 * is the open file's, so every fd naming the socket (dups, a forked child's,
 * an adopter's) sees one holder's F_SETFL or FIONBIO. The kernel fd behind
 * it stays non-blocking (the shim reads it), whatever the app asks. */
void shim_set_nonblock(struct ssock *s, bool nb);
/* the highest fd that ever named a skops socket; whether any fd names one now */
int shim_fd_hi(void);
bool shim_fd_any(void);
/* Drops fd's table entry (close, dup2 over it). */
void shim_fd_release(int fd);
/* Drops fd's socket entry without a word to skopsd: this process holds
 * no such socket there */
void shim_fd_forget(int fd);
#define SHIM_VF_MAX 32
void shim_vf_note(int fd, struct ssock *s);
/* fd's socket as the vfork child sees it (its own dups and closes first) */
struct ssock *shim_vf_sock(int fd);
/* the i-th noted fd (-1 past the last) and its socket (NULL: closed) */
int shim_vf_fd(unsigned i, struct ssock **s);

/* shim_dgram.c: UDP sockets, one record per datagram in each ring */
ssize_t shim_dg_send(int fd, struct ssock *s, const struct msghdr *m, int flags);
ssize_t shim_dg_recv(int fd, struct ssock *s, struct msghdr *m, int flags);
int shim_dg_next_len(struct ssock *s); /* FIONREAD: the next datagram's size */
/* SO_RCVBUF/SO_SNDBUF(FORCE) as a kernel UDP socket answers them: 1 when
 * the option is not one of these (the daemon's), else 0 or -1 and errno */
int shim_dg_setopt(struct ssock *s, int level, int name, const void *val, socklen_t len);
/* an option shim_dg_setopt keeps in the shim: the daemon never sees it */
bool shim_dg_local_opt(int level, int name);
int shim_dg_getopt(struct ssock *s, int level, int name, void *val, socklen_t *len);

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

#endif
