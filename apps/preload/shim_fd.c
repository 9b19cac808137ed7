/* shim_fd: the middle of the shim, its fd table: which fd names which
 * skops socket (struct ssock, shared by dups) or candidate, the sockets'
 * lifetime, and a vfork child's dups and closes kept apart from its
 * parent's table. Below the interposed entry points, above the transport
 * (shim_ctl.c, shim_wait.c); what an entry point must forget with an fd
 * (its epoll registrations) comes as a callback (shim_fd_up). */
#undef _FILE_OFFSET_BITS
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "shim_fdtab.h"

static pthread_once_t fd_once = PTHREAD_ONCE_INIT;
static struct shim_fd *fdtab;
static size_t fdtab_len;
static _Atomic int fd_hi = -1; /* the highest fd that ever named a skops socket */
/* A vfork child's dup/close of skops fds, kept apart from the parent's
 * table (which stays the parent's) for its exec; pid: whose they are. */
static struct {
	pid_t pid;
	unsigned n;
	int fd[SHIM_VF_MAX];
	struct ssock *s[SHIM_VF_MAX]; /* NULL: fd closed there */
} vf;
static void (*fd_dropped)(int fd); /* set once at load */

void shim_fd_up(void (*dropped)(int fd))
{
	fd_dropped = dropped;
}

static void fdtab_init(void)
{
	struct rlimit rl;
	fdtab_len = 65536;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (1u << 20) && rl.rlim_cur > fdtab_len)
		fdtab_len = rl.rlim_cur;
	fdtab = calloc(fdtab_len, sizeof(*fdtab));
}

void shim_fd_init(void)
{
	shim_init();
	pthread_once(&fd_once, fdtab_init);
}

struct shim_fd *shim_fd(int fd)
{
	shim_fd_init();
	return fd >= 0 && (size_t)fd < fdtab_len && fdtab ? &fdtab[fd] : NULL;
}

void shim_fd_set(int fd, struct ssock *s)
{
	struct shim_fd *e = shim_fd(fd);
	if (!e)
		return;
	e->s = s;
	for (int hi = atomic_load(&fd_hi);
	     fd > hi && !atomic_compare_exchange_weak(&fd_hi, &hi, fd);)
		;
}

int shim_fd_hi(void)
{
	return atomic_load(&fd_hi);
}

bool shim_fd_any(void)
{
	for (int fd = 0; fd <= atomic_load(&fd_hi); fd++)
		if (fdtab[fd].s)
			return true;
	return false;
}

void shim_vf_note(int fd, struct ssock *s)
{
	pid_t me = getpid();
	if (vf.pid != me) {
		vf.pid = me;
		vf.n = 0;
	}
	unsigned i = 0;
	while (i < vf.n && vf.fd[i] != fd)
		i++;
	if (i == vf.n && vf.n < SHIM_VF_MAX)
		vf.n++;
	if (i < vf.n) {
		vf.fd[i] = fd;
		vf.s[i] = s;
	}
}

struct ssock *shim_vf_sock(int fd)
{
	if (vf.pid == getpid())
		for (unsigned i = 0; i < vf.n; i++)
			if (vf.fd[i] == fd)
				return vf.s[i];
	return shim_sock(fd);
}

int shim_vf_fd(unsigned i, struct ssock **s)
{
	if (vf.pid != getpid() || i >= vf.n)
		return -1;
	*s = vf.s[i];
	return vf.fd[i];
}

struct ssock *shim_sock_new(const struct skp_rep *rep, int family, int memfd)
{
	struct ssock *s = calloc(1, sizeof(*s));
	dev_t dev;
	ino_t ino;
	struct skp_shm *m = shim_shm_map(memfd, &dev, &ino);
	shim_real.close(memfd);
	if (!s || !m || m->magic != SKP_MAGIC) {
		if (m)
			shim_shm_unmap(m, 0, 0);
		free(s);
		return NULL;
	}
	s->shm_dev = dev;
	s->shm_ino = ino;
	s->refs = 1;
	s->id = rep->id;
	s->family = family;
	s->type = SOCK_STREAM;
	s->shm = m;
	pthread_mutex_init(&s->rx_lock, NULL);
	pthread_mutex_init(&s->tx_lock, NULL);
	return s;
}

void shim_set_nonblock(struct ssock *s, bool nb)
{
	atomic_store(&s->shm->app_nonblock, nb);
}

void shim_sock_put(struct ssock *s)
{
	if (atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	struct skp_req req = {.op = SKP_CLOSE, .id = s->id};
	shim_send_only(&req);
	shim_shm_unmap(s->shm, s->shm_dev, s->shm_ino);
	free(s);
}

void shim_fd_forget(int fd)
{
	struct shim_fd *e = shim_fd(fd);
	struct ssock *s = e ? e->s : NULL;
	if (!s)
		return;
	e->s = NULL;
	if (fd_dropped)
		fd_dropped(fd);
	if (atomic_fetch_sub(&s->refs, 1) == 1) {
		shim_shm_unmap(s->shm, s->shm_dev, s->shm_ino);
		free(s);
	}
}

void shim_fd_release(int fd)
{
	struct shim_fd *e = shim_fd(fd);
	if (!e || (!e->s && !e->c))
		return;
	if (shim_foreign()) { /* a vfork child: the entry is its parent's */
		shim_vf_note(fd, NULL);
		return;
	}
	struct ssock *s = e->s;
	struct shim_cand *c = e->c;
	e->s = NULL;
	e->c = NULL;
	free(c);
	if (s) {
		if (fd_dropped)
			fd_dropped(fd);
		shim_sock_put(s);
	}
}
