/* shim_ctl: the bottom of the shim, its transport. libc's own functions
 * beneath the interposed ones, which process this memory belongs to (a
 * vfork child must leave its parent's connection alone), and the control
 * connection to skopsd: HELLO, one request and its reply at a time, the
 * kick eventfd. It calls nothing above it: what the layers above must do
 * when a raw fork is found comes as a callback (shim_transport_up). */
/* both the plain and the 64-bit names are defined here (same ABI on 64-bit) */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kcmp.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "shim_transport.h"

/* A request skopsd has not answered in this long (or a connect its full
 * backlog keeps waiting) takes the daemon for dead: an app never hangs on
 * a stuck daemon. SKOPS_RPC_TIMEOUT_MS sets it. */
#define SHIM_RPC_TIMEOUT_MS 5000

struct shim_real shim_real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;
static int ctl_fd = -1, kick_fd = -1;
static uint32_t hello_flags;	 /* HELLO's SKP_F_*: the daemon's settings */
static _Atomic uint32_t ctl_gen; /* HELLOs so far: a new one may be another daemon */
static bool ctl_timed_out;	 /* the last request failed for want of an answer */
static _Atomic bool ctl_dead, announced;
/* The process whose memory this is. A vfork child (vfork, posix_spawn,
 * system) runs in its parent's memory until it execs: it must leave the
 * parent's tables and connection alone (shim_foreign). */
static pid_t owner_pid;
static struct shim_up up; /* the layers above, set once at load */

void shim_transport_up(const struct shim_up *u)
{
	up = *u;
}

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

void shim_fork_child(void)
{
	/* The parent's connection stays the parent's: the child talks to
	 * skopsd on a connection of its own, made at its first socket. */
	shim_ctl_drop();
	pthread_mutex_init(&ctl_lock, NULL);
	owner_pid = getpid();
	shim_shm_forget();
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
	owner_pid = getpid();
	pthread_atfork(NULL, NULL, shim_fork_child);
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
	shim_fork_child();
	if (up.raw_fork_child)
		up.raw_fork_child();
	errno = e;
	return false;
}

void shim_init(void)
{
	pthread_once(&once, init_once);
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
	atomic_fetch_add(&ctl_gen, 1);
	pthread_mutex_unlock(&ctl_lock);
	return true;
}

uint32_t shim_ctl_gen(void)
{
	return atomic_load(&ctl_gen);
}

bool shim_daemon_dead(void)
{
	return atomic_load(&ctl_dead);
}

int shim_ctl_live(void)
{
	return atomic_load(&ctl_dead) ? -1 : ctl_fd;
}

int shim_ctl_fd(void)
{
	return ctl_fd;
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

int shim_rpc_batch(struct skp_req *reqs, unsigned n)
{
	(void)shim_foreign();
	pthread_mutex_lock(&ctl_lock);
	int rc = ctl_fd < 0 || atomic_load(&ctl_dead) ? -ECONNRESET : 0;
	unsigned sent = 0;
	/* all of them out, then their replies in order: one round trip */
	while (!rc && sent < n)
		if (!(rc = xfer(&reqs[sent], NULL, 0, NULL, NULL, NULL)))
			sent++;
	for (unsigned i = 0; i < sent && !atomic_load(&ctl_dead); i++) {
		struct skp_rep rep;
		int r = recv_rep(&rep, NULL, NULL);
		if (r) {
			atomic_store(&ctl_dead, true);
			ctl_timed_out = r == -ETIMEDOUT;
			rc = -ECONNRESET;
		}
	}
	pthread_mutex_unlock(&ctl_lock);
	return rc;
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

void shim_kick_asleep(struct skp_shm *m)
{
	/* the index this thread just moved, then the daemon's flag: a daemon
	 * that set it before our move polls once more and finds the move */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&m->dsleep, memory_order_relaxed))
		shim_kick();
}

ssize_t shim_ret(ssize_t ret)
{
	if (ret >= 0)
		return ret;
	errno = (int)-ret;
	return -1;
}
