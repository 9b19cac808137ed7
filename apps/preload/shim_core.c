/* shim_core: libc's functions, the connection to skopsd, the fd table,
 * readiness and blocking waits (a short spin, then the kernel's poll on the
 * socket's eventfd, so a blocked call holds no core and signals interrupt it). */
/* both the plain and the 64-bit names are defined here (same ABI on 64-bit) */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/kcmp.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "shim.h"

#define SHIM_SPIN 2000 /* readiness checks before a kernel wait */
/* A request skopsd has not answered in this long (or a connect its full
 * backlog keeps waiting) takes the daemon for dead: an app never hangs on
 * a stuck daemon. SKOPS_RPC_TIMEOUT_MS sets it. */
#define SHIM_RPC_TIMEOUT_MS 5000

struct shim_real shim_real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;
static int ctl_fd = -1, kick_fd = -1;
static uint32_t hello_flags; /* HELLO's SKP_F_*: the daemon's settings */
static bool ctl_timed_out;   /* the last request failed for want of an answer */
static _Atomic bool ctl_dead, announced;
static struct shim_fd *fdtab;
static size_t fdtab_len;
static _Atomic int fd_hi = -1; /* the highest fd that ever named a skops socket */
/* The process whose memory this is. A vfork child (vfork, posix_spawn,
 * system) runs in its parent's memory until it execs: it must leave the
 * parent's tables and connection alone (shim_foreign). */
static pid_t owner_pid;
/* A vfork child's dup/close of skops fds, kept apart from the parent's
 * table (which stays the parent's) for its exec; pid: whose they are. */
static struct {
	pid_t pid;
	unsigned n;
	int fd[SHIM_VF_MAX];
	struct ssock *s[SHIM_VF_MAX]; /* NULL: fd closed there */
} vf;

static void *sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (!p) {
		fprintf(stderr, "skops: libc has no %s\n", name);
		abort();
	}
	return p;
}

void shim_ctl_drop(void)
{
	if (ctl_fd >= 0) {
		shim_real.close(ctl_fd);
		shim_real.close(kick_fd);
	}
	ctl_fd = kick_fd = -1;
	atomic_store(&ctl_dead, false);
}

static void atfork_child(void)
{
	/* The parent's connection stays the parent's: the child talks to
	 * skopsd on a connection of its own, made at its first socket. */
	shim_ctl_drop();
	pthread_mutex_init(&ctl_lock, NULL);
	owner_pid = getpid();
}

static void init_once(void)
{
	struct shim_real *r = &shim_real;
	r->socket = sym("socket");
	r->bind = sym("bind");
	r->listen = sym("listen");
	r->accept4 = sym("accept4");
	r->connect = sym("connect");
	r->close = sym("close");
	r->shutdown = sym("shutdown");
	r->setsockopt = sym("setsockopt");
	r->getsockopt = sym("getsockopt");
	r->getsockname = sym("getsockname");
	r->getpeername = sym("getpeername");
	r->fcntl = sym("fcntl");
	r->ioctl = sym("ioctl");
	r->dup = sym("dup");
	r->dup2 = sym("dup2");
	r->dup3 = sym("dup3");
	r->read = sym("read");
	r->write = sym("write");
	r->readv = sym("readv");
	r->writev = sym("writev");
	r->recvfrom = sym("recvfrom");
	r->sendto = sym("sendto");
	r->recvmsg = sym("recvmsg");
	r->sendmsg = sym("sendmsg");
	r->sendfile = sym("sendfile");
	r->fork = sym("fork");
	r->_Fork = dlsym(RTLD_NEXT, "_Fork"); /* glibc 2.34 on */
	r->system = sym("system");
	r->popen = sym("popen");
	r->execve = sym("execve");
	r->execvpe = sym("execvpe");
	r->posix_spawn = sym("posix_spawn");
	r->posix_spawnp = sym("posix_spawnp");
	r->sigaction = sym("sigaction");
	r->ppoll = sym("ppoll");
	r->pselect = sym("pselect");
	r->epoll_ctl = sym("epoll_ctl");
	r->epoll_pwait = sym("epoll_pwait");
	struct rlimit rl;
	fdtab_len = 65536;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (1u << 20) && rl.rlim_cur > fdtab_len)
		fdtab_len = rl.rlim_cur;
	fdtab = calloc(fdtab_len, sizeof(*fdtab));
	owner_pid = getpid();
	pthread_atfork(NULL, NULL, atfork_child);
}

/* pid's memory is ours (we are its vfork child): kcmp(KCMP_VM). When the
 * kernel will not tell (no kcmp, another uid), a vfork child is assumed,
 * the safe side for one, whose parent waits. */
static bool vm_shared(pid_t pid)
{
	long r = syscall(SYS_kcmp, getpid(), pid, KCMP_VM, 0, 0);
	return r == 0 || (r < 0 && errno != ESRCH);
}

bool shim_foreign(void)
{
	shim_init();
	if (getpid() == owner_pid)
		return false;
	if (vm_shared(owner_pid))
		return true;
	/* a copy of the memory made past fork(): a raw clone or fork syscall,
	 * or _Fork, ran no atfork handler. It takes a connection of its own
	 * and a hold on each socket it inherited (shim_inherit.c). */
	int e = errno;
	atfork_child();
	shim_inherit_rehold();
	errno = e;
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

void shim_init(void)
{
	pthread_once(&once, init_once);
}

__attribute__((constructor)) static void shim_ctor(void)
{
	shim_init();
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

uint32_t shim_hello_flags(void)
{
	return hello_flags;
}

int shim_ctl_get(int *kick, uint32_t *flags)
{
	*kick = kick_fd;
	*flags = hello_flags;
	return atomic_load(&ctl_dead) ? -1 : ctl_fd;
}

void shim_ctl_set(int ctl, int kick, uint32_t flags)
{
	hello_flags = flags;
	ctl_fd = ctl;
	kick_fd = kick;
	atomic_store(&ctl_dead, false);
}

static bool any_sock(void)
{
	for (int fd = 0; fd <= atomic_load(&fd_hi); fd++)
		if (fdtab[fd].s)
			return true;
	return false;
}

/* fork: the daemon's ticket keeps every socket of ours open until the child
 * has claimed its share (a close here right after fork, as servers do with
 * the connection they hand to a child, must not close the child's). */
static pid_t fork_by(pid_t (*real)(void), bool atfork_runs)
{
	struct skp_req req = {.op = SKP_FORK};
	struct skp_rep rep;
	uint64_t ticket = any_sock() && !shim_rpc(&req, &rep, NULL, NULL) ? rep.token : 0;
	pid_t pid = real();
	if (pid == 0 && !atfork_runs)
		atfork_child();
	if (pid > 0 || !ticket)
		return pid;
	int e = errno;
	/* the child (atfork_child dropped the parent's connection), or the
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
 * the child's part of atfork_child here */
__attribute__((visibility("default"))) pid_t _Fork(void)
{
	shim_init();
	if (!shim_real._Fork) {
		errno = ENOSYS;
		return -1;
	}
	return fork_by(shim_real._Fork, false);
}

struct shim_fd *shim_fd(int fd)
{
	shim_init();
	return fd >= 0 && (size_t)fd < fdtab_len && fdtab ? &fdtab[fd] : NULL;
}

static void announce(const char *path, int err)
{
	if (atomic_exchange(&announced, true))
		return;
	const char *fb = getenv("SKOPS_FALLBACK");
	fprintf(stderr, "skops: skopsd not reachable at %s (%s): %s\n", path, strerror(err),
		fb && !strcmp(fb, "fail") ? "socket() fails" : "using the kernel's sockets");
}

static void drop_fd(int fd)
{
	shim_real.close(fd);
}

static int recv_rep(struct skp_rep *rep, int *fds, int *nfds)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = rep, .iov_len = sizeof(*rep)};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = u.buf,
			   .msg_controllen = sizeof(u.buf)};
	ssize_t n;
	do
		n = shim_real.recvmsg(ctl_fd, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*rep))
		return n < 0 && errno == EAGAIN ? -ETIMEDOUT : -ECONNRESET;
	int got = skp_fds_take(&m, fds, fds ? 2 : 0, drop_fd);
	if (nfds)
		*nfds = got;
	else
		for (int i = 0; i < got; i++)
			shim_real.close(fds[i]);
	return 0;
}

/* One request (with sfds, up to 2, as SCM_RIGHTS) and its reply. */
static int xfer(struct skp_req *req, const int *sfds, int nsfds, struct skp_rep *rep, int *fds,
		int *nfds)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = req, .iov_len = sizeof(*req)};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	skp_fds_put(&m, u.buf, sfds, nsfds);
	/* this thread's credentials now, which the kernel checks (its own pid,
	 * one of its uids): the daemon owns and charges what the request
	 * creates to the effective uid, as the kernel's socket() would, even
	 * after a setuid() since the connect */
	struct ucred cr = {.pid = getpid(), .uid = geteuid(), .gid = getegid()};
	size_t had = m.msg_controllen;
	m.msg_control = u.buf;
	m.msg_controllen = had + CMSG_SPACE(sizeof(cr));
	struct cmsghdr *c = (struct cmsghdr *)(u.buf + had);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(cr));
	memcpy(CMSG_DATA(c), &cr, sizeof(cr));
	ssize_t n;
	do
		n = shim_real.sendmsg(ctl_fd, &m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EPERM) {
		/* credentials the kernel would not vouch for (another pid
		 * namespace's view): it fills in the real ones itself */
		m.msg_controllen = had;
		if (!had)
			m.msg_control = NULL;
		do
			n = shim_real.sendmsg(ctl_fd, &m, MSG_NOSIGNAL);
		while (n < 0 && errno == EINTR);
	}
	int rc = n != (ssize_t)sizeof(*req) ? (n < 0 && errno == EAGAIN ? -ETIMEDOUT : -ECONNRESET)
		 : rep			    ? recv_rep(rep, fds, nfds)
					    : 0;
	if (rc) {
		/* the daemon is taken for dead; callers see ECONNRESET,
		 * only the fallback's announcement says it timed out */
		atomic_store(&ctl_dead, true);
		ctl_timed_out = rc == -ETIMEDOUT;
		return -ECONNRESET;
	}
	return rep ? rep->rc : 0;
}

bool shim_daemon(void)
{
	shim_init();
	pthread_mutex_lock(&ctl_lock);
	if (ctl_fd >= 0 && !atomic_load(&ctl_dead)) {
		pthread_mutex_unlock(&ctl_lock);
		return true;
	}
	if (ctl_fd >= 0) { /* a restarted daemon gets the new sockets */
		shim_real.close(ctl_fd);
		shim_real.close(kick_fd);
		ctl_fd = kick_fd = -1;
	}
	const char *path = getenv("SKOPS_SOCK");
	if (!path || !*path)
		path = SKP_SOCK_DEFAULT;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	int fd = shim_real.socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	const char *tv_env = getenv("SKOPS_RPC_TIMEOUT_MS");
	long ms = tv_env && atol(tv_env) > 0 ? atol(tv_env) : SHIM_RPC_TIMEOUT_MS;
	struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
	/* the send timeout bounds connect too (a full backlog), the receive
	 * timeout every reply */
	if (fd >= 0 && (shim_real.setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
			shim_real.setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))) {
		shim_real.close(fd);
		fd = -1;
	}
	if (fd < 0 || shim_real.connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno == EAGAIN ? ETIMEDOUT : errno; /* a full backlog past SO_SNDTIMEO */
		if (fd >= 0)
			shim_real.close(fd);
		pthread_mutex_unlock(&ctl_lock);
		announce(path, e);
		return false;
	}
	ctl_fd = fd;
	atomic_store(&ctl_dead, false);
	ctl_timed_out = false;
	struct skp_req req = {.op = SKP_HELLO};
	const char *cg = getenv("SKOPS_CGROUP");
	if (cg)
		req.len = (uint32_t)snprintf((char *)req.data, sizeof(req.data), "%s", cg);
	struct skp_rep rep;
	int fds[2], nfds = 0;
	int rc = xfer(&req, NULL, 0, &rep, fds, &nfds);
	if (rc || nfds != 1) {
		for (int i = 0; i < nfds; i++)
			shim_real.close(fds[i]);
		shim_real.close(ctl_fd);
		ctl_fd = -1;
		pthread_mutex_unlock(&ctl_lock);
		announce(path, rc == -EPERM ? EPERM : ctl_timed_out ? ETIMEDOUT : ECONNREFUSED);
		return false;
	}
	kick_fd = fds[0];
	hello_flags = rep.flags;
	pthread_mutex_unlock(&ctl_lock);
	return true;
}

bool shim_daemon_dead(void)
{
	return atomic_load(&ctl_dead);
}

int shim_ctl_live(void)
{
	return atomic_load(&ctl_dead) ? -1 : ctl_fd;
}

void shim_ctl_hangup(void)
{
	atomic_store(&ctl_dead, true);
}

int shim_rpc_fds(struct skp_req *req, const int *sfds, int nsfds, struct skp_rep *rep, int *fds,
		 int *nfds)
{
	if (nfds)
		*nfds = 0;
	(void)shim_foreign(); /* a raw fork's child must not talk on its parent's connection */
	pthread_mutex_lock(&ctl_lock);
	int rc = ctl_fd < 0 || atomic_load(&ctl_dead) ? -ECONNRESET
						      : xfer(req, sfds, nsfds, rep, fds, nfds);
	pthread_mutex_unlock(&ctl_lock);
	return rc;
}

int shim_rpc(struct skp_req *req, struct skp_rep *rep, int *fds, int *nfds)
{
	return shim_rpc_fds(req, NULL, 0, rep, fds, nfds);
}

void shim_send_only(struct skp_req *req)
{
	(void)shim_foreign();
	pthread_mutex_lock(&ctl_lock);
	if (ctl_fd >= 0 && !atomic_load(&ctl_dead))
		xfer(req, NULL, 0, NULL, NULL, NULL);
	pthread_mutex_unlock(&ctl_lock);
}

void shim_kick(void)
{
	uint64_t one = 1;
	if (kick_fd >= 0 && shim_real.write(kick_fd, &one, sizeof(one)) < 0)
		return; /* a full counter still wakes the daemon */
}

struct ssock *shim_sock_new(const struct skp_rep *rep, int family, int memfd)
{
	struct ssock *s = calloc(1, sizeof(*s));
	void *m = mmap(NULL, sizeof(struct skp_shm), PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	shim_real.close(memfd);
	if (!s || m == MAP_FAILED || ((struct skp_shm *)m)->magic != SKP_MAGIC) {
		if (m != MAP_FAILED)
			munmap(m, sizeof(struct skp_shm));
		free(s);
		return NULL;
	}
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
	munmap(s->shm, sizeof(struct skp_shm));
	free(s);
}

short shim_ready(struct ssock *s)
{
	struct skp_shm *m = s->shm;
	uint32_t st = atomic_load_explicit(&m->state, memory_order_acquire);
	bool dead = atomic_load(&ctl_dead);
	if (s->type == SOCK_DGRAM)
		return shim_dg_ready(s, dead);
	short ev = 0;
	if (atomic_load_explicit(&m->rx.head, memory_order_acquire) != atomic_load(&m->rx.tail) ||
	    (st & (SKP_ST_EOF | SKP_ST_ERR | SKP_ST_ACCEPT)) || dead)
		ev |= POLLIN;
	uint32_t used =
	    atomic_load(&m->tx.head) - atomic_load_explicit(&m->tx.tail, memory_order_acquire);
	if ((st & SKP_ST_ERR) || dead ||
	    ((st & SKP_ST_CONNECTED) && !(st & SKP_ST_WRCLOSED) && used < SKP_RING_SIZE))
		ev |= POLLOUT;
	if ((st & SKP_ST_ERR) || dead)
		ev |= POLLERR | POLLHUP;
	else if ((st & SKP_ST_EOF) && (st & SKP_ST_WRCLOSED))
		ev |= POLLHUP;
	if (st & SKP_ST_EOF)
		ev |= POLLRDHUP;
	return ev;
}

void shim_arm(int fd, struct ssock *s, short want, bool rewrite)
{
	uint64_t v;
	if (want & POLLOUT)
		atomic_fetch_or(&s->shm->want, SKP_WANT_OUT);
	/* the placeholder is the daemon's eventfd, opened non-blocking */
	(void)!shim_real.read(fd, &v, sizeof(v));
	if (rewrite && (shim_ready(s) & (want | POLLERR | POLLHUP))) {
		v = 1;
		(void)!shim_real.write(fd, &v, sizeof(v));
	}
}

int shim_wait(int fd, struct ssock *s, short want, int timeout_ms)
{
	want |= POLLERR | POLLHUP;
	for (int i = 0; i < SHIM_SPIN; i++) {
		if (shim_ready(s) & want)
			return 0;
		__builtin_ia32_pause();
	}
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += timeout_ms / 1000;
	end.tv_nsec += (timeout_ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		shim_sig_clear();
		shim_arm(fd, s, want, false);
		if (shim_ready(s) & want)
			return 0;
		struct pollfd p[2] = {{.fd = fd, .events = POLLIN},
				      {.fd = ctl_fd, .events = POLLRDHUP}};
		struct timespec left, now, *tp = NULL;
		if (timeout_ms > 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			left.tv_sec = end.tv_sec - now.tv_sec;
			left.tv_nsec = end.tv_nsec - now.tv_nsec;
			if (left.tv_nsec < 0) {
				left.tv_sec--;
				left.tv_nsec += 1000000000L;
			}
			if (left.tv_sec < 0)
				return -EAGAIN;
			tp = &left;
		}
		int n = shim_real.ppoll(p, ctl_fd >= 0 ? 2 : 1, tp, NULL);
		/* the kernel restarts an untimed socket wait for an SA_RESTART
		 * handler (sock_intr_errno), a timed one gives EINTR */
		if (n < 0 && errno == EINTR && (timeout_ms > 0 || !shim_sig_restart()))
			return -EINTR;
		if (n == 0)
			return -EAGAIN;
		if (n > 0 && (p[1].revents & (POLLHUP | POLLRDHUP | POLLERR)))
			atomic_store(&ctl_dead, true);
	}
}

int shim_rx_block(int fd, struct ssock *s, int flags)
{
	if (shim_nonblock(s) || (flags & MSG_DONTWAIT))
		return -EAGAIN;
	pthread_mutex_unlock(&s->rx_lock);
	int rc = shim_wait(fd, s, POLLIN, s->rcvtimeo_ms);
	pthread_mutex_lock(&s->rx_lock);
	return rc;
}

ssize_t shim_ret(ssize_t ret)
{
	if (ret >= 0)
		return ret;
	errno = (int)-ret;
	return -1;
}

void shim_fd_forget(int fd)
{
	struct shim_fd *e = shim_fd(fd);
	struct ssock *s = e ? e->s : NULL;
	if (!s)
		return;
	e->s = NULL;
	shim_epoll_forget(fd);
	if (atomic_fetch_sub(&s->refs, 1) == 1) {
		munmap(s->shm, sizeof(struct skp_shm));
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
		shim_epoll_forget(fd);
		shim_sock_put(s);
	}
}
