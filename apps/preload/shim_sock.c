/* shim_sock: the socket calls. A new AF_INET/AF_INET6 stream or datagram
 * socket is a kernel socket until bind/connect/listen (or a datagram
 * socket's first addressed send) decide: loopback and addresses skopsd does
 * not route stay on the kernel; otherwise the daemon's eventfd replaces it
 * under the same fd number (dup3), so numbers never collide. */
/* both the plain and the 64-bit names are defined here (same ABI on 64-bit) */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "shim_entry.h"

#define EXPORT __attribute__((visibility("default")))

static int fail(int e)
{
	errno = e;
	return -1;
}

EXPORT int socket(int domain, int type, int protocol)
{
	shim_init();
	int fd = shim_real.socket(domain, type, protocol);
	struct shim_fd *e = shim_fd(fd);
	int t = type & 0xf;
	if (fd < 0 || !e || (domain != AF_INET && domain != AF_INET6) ||
	    (t != SOCK_STREAM && t != SOCK_DGRAM) ||
	    (protocol && protocol != (t == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP)))
		return fd;
	if (!shim_daemon()) {
		const char *fb = getenv("SKOPS_FALLBACK");
		if (fb && !strcmp(fb, "fail")) {
			shim_real.close(fd);
			return fail(EAFNOSUPPORT);
		}
		return fd;
	}
	shim_fd_release(fd); /* a stale entry of a number closed behind our back */
	e->c = calloc(1, sizeof(*e->c));
	if (e->c) {
		e->c->family = domain;
		e->c->type = t;
	}
	return fd;
}

static bool loopback(const struct sockaddr *sa, socklen_t len)
{
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in))
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

/* the options of a datagram socket the daemon takes (the rest stay in
 * the shim, set on the socket once made: dg_local_opts) */
static bool opt_to_daemon(const struct shim_cand *c, unsigned i)
{
	return c->type != SOCK_DGRAM || !shim_dg_local_opt(c->opts[i].level, c->opts[i].name);
}

/* SKP_SOCK_CONNECT for candidate c to sa: its options go with it. false
 * when this daemon does not take it or it does not fit (each option's
 * value may be 64 bytes): then SOCKET, the options and CONNECT go apart. */
static bool sconn_pack(struct skp_req *r, const struct shim_cand *c, const struct sockaddr *sa,
		       socklen_t len)
{
	uint32_t need = c->type == SOCK_DGRAM ? SKP_F_SOCK_CONNECT_DGRAM : SKP_F_SOCK_CONNECT;
	if ((c->type != SOCK_STREAM && c->type != SOCK_DGRAM) || !(shim_hello_flags() & need))
		return false;
	struct skp_sconn h = {.salen = (uint16_t)len};
	size_t off = sizeof(h);
	if (len > sizeof(r->data) - off)
		return false;
	memcpy(r->data + off, sa, len);
	off += len;
	for (unsigned i = 0; i < c->nopts; i++) {
		if (!opt_to_daemon(c, i))
			continue;
		h.nopts++;
		struct skp_opt o = {
		    .level = c->opts[i].level, .name = c->opts[i].name, .len = c->opts[i].len};
		if (sizeof(o) + o.len > sizeof(r->data) - off)
			return false;
		memcpy(r->data + off, &o, sizeof(o));
		memcpy(r->data + off + sizeof(o), c->opts[i].val, o.len);
		off += sizeof(o) + o.len;
	}
	memcpy(r->data, &h, sizeof(h));
	r->op = SKP_SOCK_CONNECT;
	r->len = (uint32_t)off;
	return true;
}

/* a new datagram socket's options kept in the shim (the buffer sizes):
 * the kernel socket took them, so they cannot fail here */
static void dg_local_opts(struct ssock *s, const struct shim_cand *c)
{
	for (unsigned i = 0; s->type == SOCK_DGRAM && i < c->nopts; i++)
		if (!opt_to_daemon(c, i))
			(void)shim_dg_setopt(s, c->opts[i].level, c->opts[i].name, c->opts[i].val,
					     c->opts[i].len);
}

/* the options set on the kernel socket, which already accepted them:
 * their replies are not asked, so they go in one round trip */
static void replay_opts(struct ssock *s, const struct shim_cand *c)
{
	struct skp_req *o = c->nopts ? calloc(c->nopts, sizeof(*o)) : NULL;
	unsigned no = 0;
	for (unsigned i = 0; o && i < c->nopts; i++) {
		if (!opt_to_daemon(c, i))
			continue;
		o[no] = (struct skp_req){.op = SKP_SETSOCKOPT,
					 .id = s->id,
					 .a = c->opts[i].level,
					 .b = c->opts[i].name,
					 .len = c->opts[i].len};
		memcpy(o[no++].data, c->opts[i].val, c->opts[i].len);
	}
	if (no)
		shim_rpc_batch(o, no);
	free(o);
}

/* The kernel socket of a candidate becomes a skops socket. With crc (a
 * connect to sa), the socket may be made connecting, in one round trip:
 * *crc is then skops's connect's rc, else it stays as it was. */
static struct ssock *to_skops(int fd, struct shim_fd *e, const struct sockaddr *sa, socklen_t salen,
			      int *crc)
{
	struct skp_req req = {.op = SKP_SOCKET, .a = e->c->family, .b = e->c->type};
	bool conn = crc && sa && sconn_pack(&req, e->c, sa, salen);
	struct skp_rep rep;
	int fds[2], nfds;
	int rc = shim_rpc(&req, &rep, fds, &nfds);
	/* SOCK_CONNECT's fds say the socket was made: its rc is the connect's */
	if (nfds != 2 || (rc && !conn)) {
		for (int i = 0; i < nfds; i++)
			shim_real.close(fds[i]);
		errno = rc ? -rc : EPROTO;
		return NULL;
	}
	struct ssock *s = shim_sock_new(&rep, e->c->family, fds[0]);
	if (!s) {
		shim_real.close(fds[1]);
		struct skp_req cl = {.op = SKP_CLOSE, .id = rep.id};
		shim_send_only(&cl); /* the daemon's socket, which nobody names */
		errno = ENOMEM;
		return NULL;
	}
	s->type = e->c->type;
	/* the timeouts set before: a blocking connect's wait is SO_SNDTIMEO's */
	s->rcvtimeo_ms = e->c->rcvtimeo_ms;
	s->sndtimeo_ms = e->c->sndtimeo_ms;
	shim_set_nonblock(s, shim_real.fcntl(fd, F_GETFL) & O_NONBLOCK);
	int cloexec = shim_real.fcntl(fd, F_GETFD) & FD_CLOEXEC;
	dg_local_opts(s, e->c);
	if (!conn)
		replay_opts(s, e->c);
	if (shim_real.dup3(fds[1], fd, cloexec ? O_CLOEXEC : 0) < 0) {
		int er = errno;
		shim_real.close(fds[1]);
		shim_sock_put(s);
		errno = er;
		return NULL;
	}
	shim_real.close(fds[1]);
	free(e->c);
	e->c = NULL;
	shim_fd_set(fd, s);
	if (conn)
		*crc = rc;
	return s;
}

static void stay_kernel(struct shim_fd *e)
{
	free(e->c);
	e->c = NULL;
}

/* A fork's child talks to skopsd on a connection of its own, which it has
 * not made yet when its first request is for a candidate it inherited
 * (socket() before fork, connect after it in the child): it makes it now.
 * false (the candidate stays the kernel's, as socket() leaves one with no
 * daemon) when skopsd is not there. */
static bool cand_daemon(struct shim_fd *e)
{
	if (shim_ctl_fd() >= 0 || shim_daemon())
		return true;
	stay_kernel(e);
	return false;
}

static int sa_req(struct skp_req *r, const struct sockaddr *sa, socklen_t len)
{
	if (!sa || len > sizeof(r->data))
		return -EINVAL;
	memcpy(r->data, sa, len);
	r->len = len;
	return 0;
}

EXPORT int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct shim_fd *e = shim_fd(fd);
	if (e && e->c && sa && !loopback(sa, len) && cand_daemon(e)) {
		if (!to_skops(fd, e, NULL, 0, NULL))
			return -1;
	} else if (e && e->c) {
		stay_kernel(e);
	}
	if (!e || !e->s)
		return shim_real.bind(fd, sa, len);
	struct skp_req req = {.op = SKP_BIND, .id = e->s->id};
	struct skp_rep rep;
	int rc = sa_req(&req, sa, len);
	if (!rc)
		rc = shim_rpc(&req, &rep, NULL, NULL);
	return rc ? fail(-rc) : 0;
}

EXPORT int listen(int fd, int backlog)
{
	struct shim_fd *e = shim_fd(fd);
	if (e && e->c && e->c->type == SOCK_STREAM && cand_daemon(e) &&
	    !to_skops(fd, e, NULL, 0, NULL))
		return -1;
	if (!e || !e->s)
		return shim_real.listen(fd, backlog);
	if (e->s->type == SOCK_DGRAM)
		return fail(EOPNOTSUPP);
	int kfds[2], nk = e->s->listening ? 0 : shim_loop_listen(e->s, backlog, kfds);
	if (nk < 0)
		return fail(-nk);
	struct skp_req req = {.op = SKP_LISTEN, .id = e->s->id, .a = backlog};
	struct skp_rep rep;
	int rc = shim_rpc_fds(&req, kfds, nk, &rep, NULL, NULL);
	for (int i = 0; i < nk; i++)
		shim_real.close(kfds[i]); /* skopsd has them now */
	if (rc)
		return fail(-rc);
	e->s->listening = true;
	return 0;
}

static void peer_out(const struct skp_rep *rep, struct sockaddr *sa, socklen_t *len)
{
	if (sa && len) {
		socklen_t l = rep->len < *len ? rep->len : *len;
		memcpy(sa, rep->data, l);
		*len = rep->len;
	}
}

/* loopback-listen: a connection of the kernel's loopback listeners, a
 * kernel socket of this process's from now on (it came close-on-exec and
 * non-blocking) */
static int kernel_conn(int c, const struct skp_rep *rep, struct sockaddr *sa, socklen_t *len,
		       int flags)
{
	if (!(flags & SOCK_NONBLOCK))
		shim_real.fcntl(c, F_SETFL, shim_real.fcntl(c, F_GETFL) & ~O_NONBLOCK);
	if (!(flags & SOCK_CLOEXEC))
		shim_real.fcntl(c, F_SETFD, 0);
	shim_fd_release(c); /* a stale entry of a number closed behind our back */
	peer_out(rep, sa, len);
	return c;
}

EXPORT int accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags)
{
	struct ssock *s = shim_sock(fd);
	if (!s)
		return shim_real.accept4(fd, sa, len, flags);
	if (s->type == SOCK_DGRAM)
		return fail(EOPNOTSUPP);
	if (!s->listening)
		return fail(EINVAL);
	for (;;) {
		struct skp_req req = {.op = SKP_ACCEPT, .id = s->id};
		struct skp_rep rep;
		int fds[2], nfds;
		int rc = shim_rpc(&req, &rep, fds, &nfds);
		if (rc == -EAGAIN && !shim_nonblock(s)) {
			rc = shim_wait(fd, s, POLLIN, s->rcvtimeo_ms);
			if (!rc)
				continue;
		}
		if (!rc && rep.id == 0 && nfds == 1)
			return kernel_conn(fds[0], &rep, sa, len, flags);
		if (rc || nfds != 2) {
			for (int i = 0; i < nfds; i++)
				shim_real.close(fds[i]);
			return fail(rc ? -rc : EPROTO);
		}
		struct ssock *n = shim_sock_new(&rep, s->family, fds[0]);
		struct shim_fd *ne = shim_fd(fds[1]);
		if (!n || !ne) {
			shim_real.close(fds[1]);
			if (n)
				shim_sock_put(n);
			return fail(ENOMEM);
		}
		/* the eventfd arrived close-on-exec (MSG_CMSG_CLOEXEC) */
		if (!(flags & SOCK_CLOEXEC))
			shim_real.fcntl(fds[1], F_SETFD, 0);
		shim_set_nonblock(n, flags & SOCK_NONBLOCK);
		shim_fd_release(fds[1]);
		shim_fd_set(fds[1], n);
		peer_out(&rep, sa, len);
		return fds[1];
	}
}

EXPORT int accept(int fd, struct sockaddr *sa, socklen_t *len)
{
	return accept4(fd, sa, len, 0);
}

/* ROUTE's answers by destination address. skopsd routes by its
 * configuration (--addr, --gw), fixed while it runs, so each address is
 * asked once per daemon connection (shim_ctl_gen), not at every connect:
 * a client opening a connection per request paid a round trip each. */
#define ROUTE_MEMO 64
static struct route_memo {
	uint32_t gen; /* the answer's shim_ctl_gen(), 0: empty */
	sa_family_t family;
	uint8_t addr[16];
	bool routed;
} memo[ROUTE_MEMO];
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

/* 0 when skopsd routes sa (a port-less key: the answer does not depend on it) */
static int route(const struct sockaddr *sa, socklen_t len, struct skp_req *req)
{
	uint8_t addr[16] = {0};
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in))
		memcpy(addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6))
		memcpy(addr, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	else
		return -EAFNOSUPPORT;
	uint32_t h = sa->sa_family;
	for (int i = 0; i < 16; i++)
		h = h * 31 + addr[i];
	struct route_memo *m = &memo[h % ROUTE_MEMO];
	pthread_mutex_lock(&memo_lock);
	bool hit = m->gen && m->gen == shim_ctl_gen() && m->family == sa->sa_family &&
		   !memcmp(m->addr, addr, 16);
	bool routed = m->routed;
	pthread_mutex_unlock(&memo_lock);
	if (hit)
		return routed ? 0 : -ENETUNREACH;
	struct skp_rep rep;
	int rc = shim_rpc(req, &rep, NULL, NULL);
	if (rc == -ECONNRESET)
		return rc; /* no daemon: nothing learnt */
	pthread_mutex_lock(&memo_lock);
	*m = (struct route_memo){.gen = shim_ctl_gen(), .family = sa->sa_family, .routed = !rc};
	memcpy(m->addr, addr, 16);
	pthread_mutex_unlock(&memo_lock);
	return rc;
}

/* A candidate's destination: loopback and what skopsd does not route stay
 * on the kernel, the rest goes to skops (crc: a connect's, to_skops's).
 * false when to_skops failed. */
static bool decide_dest(int fd, struct shim_fd *e, const struct sockaddr *sa, socklen_t len,
			int *crc)
{
	struct skp_req req = {.op = SKP_ROUTE};
	if (!sa || loopback(sa, len) || sa_req(&req, sa, len) || !cand_daemon(e) ||
	    route(sa, len, &req))
		stay_kernel(e);
	else if (!to_skops(fd, e, sa, len, crc))
		return false;
	return true;
}

bool shim_dg_decide(int fd, const struct sockaddr *to, socklen_t tolen)
{
	struct shim_fd *e = shim_fd(fd);
	if (!e || !e->c || e->c->type != SOCK_DGRAM || !to)
		return true;
	return decide_dest(fd, e, to, tolen, NULL);
}

/* UDP connect sets (AF_UNSPEC: drops) the default peer at once. */
static int dg_connect(struct ssock *s, const struct sockaddr *sa, socklen_t len)
{
	struct skp_req req = {.op = SKP_CONNECT, .id = s->id};
	struct skp_rep rep;
	int rc = sa_req(&req, sa, len);
	if (!rc)
		rc = shim_rpc(&req, &rep, NULL, NULL);
	return rc ? fail(-rc) : 0;
}

EXPORT int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct shim_fd *e = shim_fd(fd);
	/* a datagram candidate's disconnect decides nothing */
	bool unspec = sa && len >= sizeof(sa_family_t) && sa->sa_family == AF_UNSPEC;
	int crc = 1; /* skops's connect's rc when the socket was made with it, 1: not sent */
	if (e && e->c && !(e->c->type == SOCK_DGRAM && unspec) &&
	    !decide_dest(fd, e, sa, len, &crc))
		return -1;
	if (!e || !e->s)
		return shim_real.connect(fd, sa, len);
	struct ssock *s = e->s;
	if (s->type == SOCK_DGRAM && crc != 1) /* made connected (or refused) */
		return crc ? fail(-crc) : 0;
	if (s->type == SOCK_DGRAM)
		return dg_connect(s, sa, len);
	uint32_t st = atomic_load(&s->shm->state);
	/* a socket made connecting (crc) may be established by now */
	if (crc == 1 && (st & SKP_ST_CONNECTED))
		return fail(EISCONN);
	if (crc == 1 && s->connecting) {
		if (shim_nonblock(s))
			return fail(EALREADY);
	} else {
		struct skp_req req = {.op = SKP_CONNECT, .id = s->id};
		struct skp_rep rep;
		int rc = crc;
		if (rc == 1 && !(rc = sa_req(&req, sa, len)))
			rc = shim_rpc(&req, &rep, NULL, NULL);
		if (rc && rc != -EINPROGRESS)
			return fail(-rc);
		s->connecting = true;
		if (shim_nonblock(s))
			return fail(EINPROGRESS);
	}
	int rc = shim_wait(fd, s, POLLOUT, s->sndtimeo_ms);
	if (rc)
		return fail(rc == -EAGAIN ? EINPROGRESS : -rc);
	s->connecting = false;
	st = atomic_load(&s->shm->state);
	if (st & SKP_ST_ERR) {
		s->err_taken = true;
		return fail(atomic_load(&s->shm->err));
	}
	if (shim_daemon_dead())
		return fail(ECONNRESET);
	return 0;
}

EXPORT int close(int fd)
{
	shim_fd_release(fd);
	return shim_real.close(fd);
}

EXPORT int shutdown(int fd, int how)
{
	struct ssock *s = shim_sock(fd);
	if (!s)
		return shim_real.shutdown(fd, how);
	struct skp_req req = {.op = SKP_SHUTDOWN, .id = s->id, .a = how};
	struct skp_rep rep;
	shim_kick(); /* queued bytes go before the FIN */
	int rc = shim_rpc(&req, &rep, NULL, NULL);
	/* UDP, Linux inet_shutdown: the socket is shut down even when it
	 * answers ENOTCONN (unconnected) */
	if (s->type == SOCK_DGRAM && (rc == 0 || rc == -ENOTCONN) && how >= SHUT_RD &&
	    how <= SHUT_RDWR) {
		s->shut_rd |= how != SHUT_WR;
		s->shut_wr |= how != SHUT_RD;
	}
	return rc ? fail(-rc) : 0;
}

static int timeo_ms(const void *val, socklen_t len)
{
	struct timeval tv;
	if (len < sizeof(tv))
		return -1;
	memcpy(&tv, val, sizeof(tv));
	return (int)(tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000);
}

EXPORT int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct shim_fd *e = shim_fd(fd);
	if (e && e->c) {
		int rc = shim_real.setsockopt(fd, level, name, val, len);
		bool timeo = level == SOL_SOCKET && (name == SO_RCVTIMEO || name == SO_SNDTIMEO);
		if (!rc && timeo && timeo_ms(val, len) >= 0)
			*(name == SO_RCVTIMEO ? &e->c->rcvtimeo_ms : &e->c->sndtimeo_ms) =
			    timeo_ms(val, len);
		if (!rc && len <= sizeof(e->c->opts[0].val) && e->c->nopts < SHIM_CAND_OPTS &&
		    !timeo) {
			unsigned i = e->c->nopts++;
			e->c->opts[i].level = level;
			e->c->opts[i].name = name;
			e->c->opts[i].len = len;
			memcpy(e->c->opts[i].val, val, len);
		}
		return rc;
	}
	if (!e || !e->s)
		return shim_real.setsockopt(fd, level, name, val, len);
	struct ssock *s = e->s;
	int drc = s->type == SOCK_DGRAM ? shim_dg_setopt(s, level, name, val, len) : 1;
	if (drc != 1)
		return drc;
	if (level == SOL_SOCKET && (name == SO_RCVTIMEO || name == SO_SNDTIMEO)) {
		int ms = timeo_ms(val, len);
		if (ms < 0)
			return fail(EINVAL);
		*(name == SO_RCVTIMEO ? &s->rcvtimeo_ms : &s->sndtimeo_ms) = ms;
		return 0;
	}
	struct skp_req req = {.op = SKP_SETSOCKOPT, .id = s->id, .a = level, .b = name};
	struct skp_rep rep;
	if (len > sizeof(req.data))
		return fail(EINVAL);
	memcpy(req.data, val, len);
	req.len = len;
	int rc = shim_rpc(&req, &rep, NULL, NULL);
	return rc ? fail(-rc) : 0;
}

static int put_int(void *val, socklen_t *len, int v)
{
	if (*len < sizeof(int))
		return fail(EINVAL);
	memcpy(val, &v, sizeof(v));
	*len = sizeof(v);
	return 0;
}

EXPORT int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct ssock *s = shim_sock(fd);
	if (!s)
		return shim_real.getsockopt(fd, level, name, val, len);
	int drc = s->type == SOCK_DGRAM ? shim_dg_getopt(s, level, name, val, len) : 1;
	if (drc != 1)
		return drc;
	if (level == SOL_SOCKET) {
		switch (name) {
		case SO_ERROR: {
			if (s->type == SOCK_DGRAM && shim_dg_soft_err(s, false))
				return put_int(val, len, shim_dg_soft_err(s, true));
			int err = 0;
			if ((atomic_load(&s->shm->state) & SKP_ST_ERR) && !s->err_taken) {
				s->err_taken = true;
				err = atomic_load(&s->shm->err);
			}
			return put_int(val, len, err);
		}
		case SO_TYPE:
			return put_int(val, len, s->type);
		case SO_DOMAIN:
			return put_int(val, len, s->family);
		case SO_PROTOCOL:
			return put_int(val, len, s->type == SOCK_DGRAM ? IPPROTO_UDP : IPPROTO_TCP);
		case SO_ACCEPTCONN:
			return put_int(val, len, s->listening);
		case SO_RCVTIMEO:
		case SO_SNDTIMEO: {
			int ms = name == SO_RCVTIMEO ? s->rcvtimeo_ms : s->sndtimeo_ms;
			struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
			if (*len < sizeof(tv))
				return fail(EINVAL);
			memcpy(val, &tv, sizeof(tv));
			*len = sizeof(tv);
			return 0;
		}
		}
	}
	struct skp_req req = {
	    .op = SKP_GETSOCKOPT, .id = s->id, .a = level, .b = name, .len = *len};
	struct skp_rep rep;
	int rc = shim_rpc(&req, &rep, NULL, NULL);
	if (rc)
		return fail(-rc);
	socklen_t l = rep.len < *len ? rep.len : *len;
	memcpy(val, rep.data, l);
	*len = l;
	return 0;
}

static int name_of(int op, int fd, struct sockaddr *sa, socklen_t *len)
{
	struct ssock *s = shim_sock(fd);
	struct skp_req req = {.op = (uint32_t)op, .id = s->id};
	struct skp_rep rep;
	int rc = shim_rpc(&req, &rep, NULL, NULL);
	if (rc)
		return fail(-rc);
	socklen_t l = rep.len < *len ? rep.len : *len;
	memcpy(sa, rep.data, l);
	*len = rep.len;
	return 0;
}

EXPORT int getsockname(int fd, struct sockaddr *sa, socklen_t *len)
{
	if (!shim_sock(fd))
		return shim_real.getsockname(fd, sa, len);
	return name_of(SKP_GETSOCKNAME, fd, sa, len);
}

EXPORT int getpeername(int fd, struct sockaddr *sa, socklen_t *len)
{
	if (!shim_sock(fd))
		return shim_real.getpeername(fd, sa, len);
	return name_of(SKP_GETPEERNAME, fd, sa, len);
}

/* newfd now names what fd names (after a successful dup*). */
static int dup_done(int fd, int newfd)
{
	struct shim_fd *e = shim_fd(fd), *ne = shim_fd(newfd);
	if (newfd < 0 || !e || !ne)
		return newfd;
	if (e->s && shim_foreign()) {
		shim_vf_note(newfd, e->s);
		return newfd;
	}
	if (e->c)
		stay_kernel(e); /* two fds on one undecided socket: the kernel keeps it */
	if (e->s) {
		atomic_fetch_add(&e->s->refs, 1);
		shim_fd_set(newfd, e->s);
	}
	return newfd;
}

EXPORT int dup(int fd)
{
	return dup_done(fd, shim_real.dup(fd));
}

EXPORT int dup3(int fd, int newfd, int flags)
{
	if (fd == newfd)
		return shim_real.dup3(fd, newfd, flags);
	int rc = shim_real.dup3(fd, newfd, flags);
	if (rc < 0)
		return rc;
	shim_fd_release(newfd);
	return dup_done(fd, rc);
}

EXPORT int dup2(int fd, int newfd)
{
	if (fd == newfd)
		return shim_real.dup2(fd, newfd);
	int rc = shim_real.dup2(fd, newfd);
	if (rc < 0)
		return rc;
	shim_fd_release(newfd);
	return dup_done(fd, rc);
}

static int do_fcntl(int fd, int cmd, void *arg)
{
	struct ssock *s = shim_sock(fd);
	struct shim_fd *e = shim_fd(fd);
	if (s && cmd == F_GETFL) {
		int fl = shim_real.fcntl(fd, F_GETFL);
		if (fl < 0)
			return fl;
		return (fl & ~O_NONBLOCK) | (shim_nonblock(s) ? O_NONBLOCK : 0);
	}
	if (s && cmd == F_SETFL) {
		/* the eventfd itself stays non-blocking: the shim reads it */
		shim_set_nonblock(s, ((long)arg & O_NONBLOCK) != 0);
		return shim_real.fcntl(fd, F_SETFL, (long)arg | O_NONBLOCK);
	}
	if (e && e->c && cmd == F_SETFL)
		return shim_real.fcntl(fd, cmd, arg);
	int rc = shim_real.fcntl(fd, cmd, arg);
	if (rc >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		return dup_done(fd, rc);
	return rc;
}

EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return do_fcntl(fd, cmd, arg);
}

EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return do_fcntl(fd, cmd, arg);
}

EXPORT int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	struct ssock *s = shim_sock(fd);
	if (s && req == FIONREAD && s->type == SOCK_DGRAM) {
		*(int *)arg = shim_dg_next_len(s);
		return 0;
	}
	if (s && req == FIONREAD) {
		uint32_t n = atomic_load(&s->shm->rx.head) - atomic_load(&s->shm->rx.tail);
		*(int *)arg = (int)(n > SKP_RING_SIZE ? 0 : n);
		return 0;
	}
	if (s && req == FIONBIO) {
		shim_set_nonblock(s, *(int *)arg != 0);
		return 0;
	}
	return shim_real.ioctl(fd, req, arg);
}
