/* tenant_attack: skopsd's control protocol spoken raw, as a hostile local
 * user writes it (no shim), against the daemon serving other users' apps.
 *   tenant_attack attack SOCK PEER PORT  every attack in turn, one line each
 *       ("NAME: held ..." or "NAME: BROKEN ..."); PEER:PORT is a kernel echo
 *       the attacker's own connections may use. Between the quota attacks
 *       and their release it prints "exhausted" and waits for a line on
 *       stdin (the test checks root is still served meanwhile).
 *   tenant_attack orphan SOCK  a child connects and exits; the parent then
 *       speaks on the connection: skopsd must have refused it (the test
 *       stops skopsd around the child's life, so the accept comes after the
 *       exit), not filed it under "/"
 * Exit 0 when every attack was held, 1 otherwise. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "skp_proto.h"

#define SKOPSD_ATTACK_MAX 1100 /* more sockets than skopsd serves at all */

static const char *sock_path;
static int broken;

static void verdict(const char *name, bool held, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void verdict(const char *name, bool held, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%s: %s ", name, held ? "held" : "BROKEN");
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
	broken += !held;
}

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int ctl_open(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	int c = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct timeval tv = {.tv_sec = 5};
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof(sa))) {
		if (c >= 0)
			close(c);
		return -1;
	}
	return c;
}

static void drop(int fd)
{
	close(fd);
}

/* one request (sfd: an fd to send, -1 none) and its reply; -ETIMEDOUT
 * when skopsd does not answer in 5 s, -EPIPE when it hung up */
static int rpc(int c, struct skp_req *r, struct skp_rep *rep, int sfd, int *fds, int *nfds)
{
	union {
		char buf[CMSG_SPACE(SKP_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = r, .iov_len = sizeof(*r)};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	if (sfd >= 0)
		skp_fds_put(&m, u.buf, &sfd, 1);
	if (sendmsg(c, &m, MSG_NOSIGNAL) != (ssize_t)sizeof(*r))
		return -EPIPE;
	struct iovec riov = {.iov_base = rep, .iov_len = sizeof(*rep)};
	struct msghdr rm = {.msg_iov = &riov,
			    .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf)};
	ssize_t n = recvmsg(c, &rm, MSG_CMSG_CLOEXEC);
	if (n < 0 && errno == EAGAIN)
		return -ETIMEDOUT;
	if (n != (ssize_t)sizeof(*rep))
		return -EPIPE;
	int got = skp_fds_take(&rm, fds ? fds : (int[2]){0}, fds ? 2 : 0, drop);
	if (nfds)
		*nfds = got;
	return rep->rc;
}

static int hello(int c, int *kick)
{
	struct skp_req r = {.op = SKP_HELLO};
	struct skp_rep rep;
	int fds[2], n = 0;
	int rc = rpc(c, &r, &rep, -1, fds, &n);
	if (!rc && n == 1)
		*kick = fds[0];
	return rc ? rc : n == 1 ? 0 : -EPROTO;
}

struct ts {
	uint32_t id;
	int memfd, efd;
	struct skp_shm *shm;
};

static int sock_new(int c, int type, struct ts *t)
{
	struct skp_req r = {.op = SKP_SOCKET, .a = AF_INET, .b = type};
	struct skp_rep rep;
	int fds[2], n = 0;
	int rc = rpc(c, &r, &rep, -1, fds, &n);
	if (rc)
		return rc;
	if (n != 2)
		return -EPROTO;
	t->id = rep.id;
	t->memfd = fds[0];
	t->efd = fds[1];
	t->shm =
	    mmap(NULL, sizeof(struct skp_shm), PROT_READ | PROT_WRITE, MAP_SHARED, t->memfd, 0);
	return t->shm == MAP_FAILED ? -errno : 0;
}

static int sock_op(int c, uint32_t op, uint32_t id, int a, int b, const void *data, uint32_t len,
		   struct skp_rep *rep)
{
	struct skp_req r = {.op = op, .id = id, .a = a, .b = b, .len = len};
	if (data)
		memcpy(r.data, data, len);
	struct skp_rep tmp;
	return rpc(c, &r, rep ? rep : &tmp, -1, NULL, NULL);
}

static void sock_close(int c, struct ts *t)
{
	struct skp_req r = {.op = SKP_CLOSE, .id = t->id};
	send(c, &r, sizeof(r), MSG_NOSIGNAL); /* no reply */
	munmap(t->shm, sizeof(struct skp_shm));
	close(t->memfd);
	close(t->efd);
}

/* skopsd still answers at once: a GETSOCKNAME on a socket of ours */
static bool responsive(int c, uint32_t id, int64_t *ms)
{
	int64_t t0 = now_ms();
	struct skp_rep rep;
	int rc = sock_op(c, SKP_GETSOCKNAME, id, 0, 0, NULL, 0, &rep);
	*ms = now_ms() - t0;
	return rc != -ETIMEDOUT && rc != -EPIPE && *ms < 1000;
}

static struct sockaddr_in peer;

static bool wait_state(struct ts *t, uint32_t bit, int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		if (atomic_load(&t->shm->state) & bit)
			return true;
		usleep(10000);
	}
	return false;
}

static void attack_seal(int c)
{
	struct ts t;
	int rc = sock_new(c, SOCK_STREAM, &t);
	if (rc) {
		verdict("sigbus", false, "SOCKET: %s", strerror(-rc));
		return;
	}
	int seals = fcntl(t.memfd, F_GET_SEALS);
	int tr = ftruncate(t.memfd, 0);
	int e = errno;
	int64_t ms;
	bool ok =
	    tr < 0 && (seals & F_SEAL_SHRINK) && (seals & F_SEAL_SEAL) && responsive(c, t.id, &ms);
	verdict("sigbus", ok, "(ftruncate(memfd, 0): %s, seals 0x%x)", tr ? strerror(e) : "done",
		seals);
	sock_close(c, &t);
}

static void attack_eventfd(int c)
{
	struct ts t;
	int rc = sock_new(c, SOCK_STREAM, &t);
	if (rc) {
		verdict("eventfd", false, "SOCKET: %s", strerror(-rc));
		return;
	}
	/* the daemon's next wake of this socket would sleep: O_NONBLOCK off
	 * on the shared open file, the counter full, and the shared memory
	 * asking for a write at every change (an epoll registration) */
	uint64_t full = 0xfffffffffffffffeull;
	fcntl(t.efd, F_SETFL, 0);
	(void)!write(t.efd, &full, sizeof(full));
	atomic_store(&t.shm->epoll_regs, 1);
	rc = sock_op(c, SKP_CONNECT, t.id, 0, 0, &peer, sizeof(peer), NULL);
	bool reset = wait_state(&t, SKP_ST_ERR, 3000);
	int64_t ms;
	bool ok = responsive(c, t.id, &ms) && reset;
	verdict("eventfd", ok, "(connect %s; the socket %s; skopsd answered in %lld ms)",
		strerror(-rc), reset ? "reset" : "not reset", (long long)ms);
	sock_close(c, &t);
}

static void attack_kick(int c, int kick)
{
	struct ts t;
	if (sock_new(c, SOCK_STREAM, &t)) {
		verdict("kick", false, "SOCKET failed");
		return;
	}
	fcntl(kick, F_SETFL, 0);
	pid_t p = fork();
	if (p == 0) { /* reads the count away, blocking, as fast as it comes */
		alarm(2);
		uint64_t v;
		for (;;)
			(void)!read(kick, &v, sizeof(v));
	}
	uint64_t one = 1;
	int64_t worst = 0, ms;
	bool ok = true;
	for (int i = 0; i < 200 && ok; i++) {
		(void)!write(kick, &one, sizeof(one));
		ok = responsive(c, t.id, &ms);
		worst = ms > worst ? ms : worst;
	}
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	verdict("kick", ok, "(200 kicks read away by a blocking reader; slowest answer %lld ms)",
		(long long)worst);
	sock_close(c, &t);
}

/* loopback-listen: a kernel listener of ours handed over with LISTEN,
 * made blocking and drained by us before we ask skopsd to accept */
static void attack_kloop(int c)
{
	struct ts t;
	if (sock_new(c, SOCK_STREAM, &t)) {
		verdict("loopback", false, "SOCKET failed");
		return;
	}
	struct sockaddr_in any = {.sin_family = AF_INET};
	struct skp_rep rep;
	int rc = sock_op(c, SKP_BIND, t.id, 0, 0, &any, sizeof(any), NULL);
	if (!rc)
		rc = sock_op(c, SKP_GETSOCKNAME, t.id, 0, 0, NULL, 0, &rep);
	struct sockaddr_in lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (!rc)
		lo.sin_port = ((struct sockaddr_in *)rep.data)->sin_port;
	int k = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(k, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (rc || bind(k, (struct sockaddr *)&lo, sizeof(lo)) || listen(k, 8)) {
		verdict("loopback", false, "setup: %s", strerror(rc ? -rc : errno));
		return;
	}
	struct skp_req r = {.op = SKP_LISTEN, .id = t.id, .a = 8};
	rc = rpc(c, &r, &rep, k, NULL, NULL);
	if (rc) {
		verdict("loopback", false,
			"LISTEN with a loopback listener: %s (is loopback-listen on?)",
			strerror(-rc));
		return;
	}
	fcntl(k, F_SETFL, 0);
	int cl = socket(AF_INET, SOCK_STREAM, 0);
	connect(cl, (struct sockaddr *)&lo, sizeof(lo));
	usleep(100000); /* skopsd's epoll saw it */
	int a = accept(k, NULL, NULL);
	int64_t t0 = now_ms();
	rc = sock_op(c, SKP_ACCEPT, t.id, 0, 0, NULL, 0, &rep);
	int64_t ms = now_ms() - t0;
	bool ok = rc != -ETIMEDOUT && rc != -EPIPE && ms < 1000 && responsive(c, t.id, &ms);
	verdict("loopback", ok, "(ACCEPT on a drained blocking listener: %s after %lld ms)",
		rc ? strerror(-rc) : "a connection", (long long)(now_ms() - t0));
	close(a);
	close(cl);
	close(k);
	sock_close(c, &t);
}

static unsigned rmem_max(void)
{
	FILE *f = fopen("/proc/sys/net/core/rmem_max", "r");
	unsigned v = 212992; /* Linux's default, what skopsd takes without the file */
	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 212992;
		fclose(f);
	}
	return v;
}

static void attack_rcvbuf(int c)
{
	struct ts t;
	if (sock_new(c, SOCK_STREAM, &t)) {
		verdict("rcvbuf", false, "SOCKET failed");
		return;
	}
	int v = 1 << 30;
	struct skp_rep rep;
	int rc = sock_op(c, SKP_SETSOCKOPT, t.id, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v), NULL);
	int rc2 = sock_op(c, SKP_GETSOCKOPT, t.id, SOL_SOCKET, SO_RCVBUF, NULL, sizeof(int), &rep);
	int got = 0;
	memcpy(&got, rep.data, sizeof(got));
	unsigned want = 2 * rmem_max();
	verdict("rcvbuf", !rc && !rc2 && (unsigned)got == want,
		"(SO_RCVBUF 1 GiB reads back %d, 2 x rmem_max %u)", got, want);
	sock_close(c, &t);
}

/* never-reading connections asking for the largest buffers: past the
 * uid's share of the total (test_tenants runs skopsd with --buf-mem 64,
 * 32 MiB for one uid) a buffer no longer grows; closing gives it back */
static void attack_membuf(int c)
{
	struct ts t[16];
	int big = 0, n = 0, v = 1 << 30;
	unsigned want = 2 * rmem_max();
	for (; n < 16; n++) {
		if (sock_new(c, SOCK_STREAM, &t[n]))
			break;
		struct skp_rep rep;
		int got = 0;
		sock_op(c, SKP_SETSOCKOPT, t[n].id, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v), NULL);
		sock_op(c, SKP_GETSOCKOPT, t[n].id, SOL_SOCKET, SO_RCVBUF, NULL, sizeof(int), &rep);
		memcpy(&got, rep.data, sizeof(got));
		big += (unsigned)got == want;
	}
	for (int i = 0; i < n; i++)
		sock_close(c, &t[i]);
	struct ts again;
	struct skp_rep rep;
	int got = 0;
	if (!sock_new(c, SOCK_STREAM, &again)) {
		sock_op(c, SKP_SETSOCKOPT, again.id, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v), NULL);
		sock_op(c, SKP_GETSOCKOPT, again.id, SOL_SOCKET, SO_RCVBUF, NULL, sizeof(int),
			&rep);
		memcpy(&got, rep.data, sizeof(got));
		sock_close(c, &again);
	}
	verdict("membuf", n == 16 && big > 0 && big < 16 && (unsigned)got == want,
		"(16 sockets asking SO_RCVBUF 1 GiB: %d got %u bytes, the rest kept theirs; "
		"after closing them a new one gets %d)",
		big, want, got);
}

/* A listener asking for the largest accept queue (somaxconn, 4096) gets
 * the uid's share of the accept-queue slots (512: a backlog of 511); a
 * second listener then has none left (ENOBUFS) until the first closes */
static void attack_pending(int c)
{
	struct ts a, b;
	if (sock_new(c, SOCK_STREAM, &a)) {
		verdict("pending", false, "(no socket)");
		return;
	}
	if (sock_new(c, SOCK_STREAM, &b)) {
		sock_close(c, &a);
		verdict("pending", false, "(no second socket)");
		return;
	}
	int big = sock_op(c, SKP_LISTEN, a.id, 4096, 0, NULL, 0, NULL);
	int second = sock_op(c, SKP_LISTEN, b.id, 16, 0, NULL, 0, NULL);
	sock_close(c, &a);
	int after = sock_op(c, SKP_LISTEN, b.id, 16, 0, NULL, 0, NULL);
	sock_close(c, &b);
	verdict("pending", !big && second == -ENOBUFS && !after,
		"(listen backlog 4096: %s; a second listener: %s; after the first closed: %s)",
		strerror(-big), strerror(-second), strerror(-after));
}

static void attack_privileged(int c)
{
	static const struct {
		int type, port;
		const char *what;
	} tries[] = {{SOCK_STREAM, 22, "TCP 22"}, {SOCK_DGRAM, 53, "UDP 53"}};
	for (unsigned i = 0; i < 2; i++) {
		struct ts t;
		if (sock_new(c, tries[i].type, &t)) {
			verdict("port", false, "SOCKET failed");
			continue;
		}
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(tries[i].port)};
		int rc = sock_op(c, SKP_BIND, t.id, 0, 0, &sa, sizeof(sa), NULL);
		verdict("port", rc == -EACCES, "(bind %s: %s)", tries[i].what,
			rc ? strerror(-rc) : "bound");
		sock_close(c, &t);
	}
}

static void attack_sockopt_caps(int c)
{
	struct ts t;
	if (sock_new(c, SOCK_STREAM, &t)) {
		verdict("sockopt", false, "SOCKET failed");
		return;
	}
	int mark = 7, prio = 7, low = 3;
	int r1 = sock_op(c, SKP_SETSOCKOPT, t.id, SOL_SOCKET, SO_MARK, &mark, sizeof(int), NULL);
	int r2 =
	    sock_op(c, SKP_SETSOCKOPT, t.id, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(int), NULL);
	int r3 = sock_op(c, SKP_SETSOCKOPT, t.id, SOL_SOCKET, SO_PRIORITY, &low, sizeof(int), NULL);
	verdict("sockopt", r1 == -EPERM && r2 == -EPERM && r3 == 0,
		"(SO_MARK: %s, SO_PRIORITY 7: %s, SO_PRIORITY 3: %s)", strerror(-r1), strerror(-r2),
		strerror(-r3));
	sock_close(c, &t);
}

/* SOCK_CONNECT's packed data: each lie about a part's length is EINVAL
 * with no socket made, and the options it carries pass the same
 * capability checks as SETSOCKOPT (SO_PRIORITY 7 stays unset) */
static uint32_t sconn(uint8_t *d, uint16_t salen, uint16_t nopts, uint32_t optlen, int prio)
{
	struct skp_sconn h = {.salen = salen, .nopts = nopts};
	struct skp_opt o = {.level = SOL_SOCKET, .name = SO_PRIORITY, .len = optlen};
	memcpy(d, &h, sizeof(h));
	memcpy(d + sizeof(h), &peer, sizeof(peer));
	memcpy(d + sizeof(h) + sizeof(peer), &o, sizeof(o));
	memcpy(d + sizeof(h) + sizeof(peer) + sizeof(o), &prio, sizeof(prio));
	return sizeof(h) + sizeof(peer) + sizeof(o) + sizeof(prio);
}

static void attack_sconn(int c)
{
	static const struct {
		uint16_t salen, nopts;
		uint32_t optlen, cut;
		const char *what;
	} lies[] = {{200, 1, 4, 0, "sockaddr past the end"},
		    {16, 3, 4, 0, "options claimed, absent"},
		    {16, 1, 4000, 0, "option value past the end"},
		    {16, 1, 4, 2, "option cut short"},
		    {16, 0, 4, 0, "bytes after the last part"}};
	bool held = true;
	for (unsigned i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		struct skp_req r = {.op = SKP_SOCK_CONNECT, .a = AF_INET};
		r.len =
		    sconn(r.data, lies[i].salen, lies[i].nopts, lies[i].optlen, 3) - lies[i].cut;
		struct skp_rep rep;
		int fds[2], n = 0;
		int rc = rpc(c, &r, &rep, -1, fds, &n);
		for (int k = 0; k < n; k++)
			close(fds[k]);
		if (rc != -EINVAL || n) {
			verdict("sock_connect", false, "(%s: %s, %d fds)", lies[i].what,
				strerror(-rc), n);
			held = false;
		}
	}
	struct skp_req r = {.op = SKP_SOCK_CONNECT, .a = AF_INET};
	r.len = sconn(r.data, sizeof(peer), 1, sizeof(int), 7);
	struct skp_rep rep, grep;
	int fds[2], n = 0, prio = -1;
	int rc = rpc(c, &r, &rep, -1, fds, &n);
	int grc = n == 2 ? sock_op(c, SKP_GETSOCKOPT, rep.id, SOL_SOCKET, SO_PRIORITY, NULL,
				   sizeof(int), &grep)
			 : -EPROTO;
	if (!grc)
		memcpy(&prio, grep.data, sizeof(prio));
	if (n == 2) {
		struct ts t = {.id = rep.id, .memfd = fds[0], .efd = fds[1]};
		t.shm = mmap(NULL, sizeof(struct skp_shm), PROT_READ, MAP_SHARED, t.memfd, 0);
		sock_close(c, &t);
	}
	verdict("sock_connect",
		held && n == 2 && (rc == 0 || rc == -EINPROGRESS) && !grc && prio == 0,
		"(malformed: EINVAL, no socket; well-formed: connect %s, SO_PRIORITY 7 %s)",
		strerror(-rc), prio == 0 ? "refused" : "applied");
}

/* garbage in the rings: the socket is reset, the daemon goes on */
static void attack_ring(int c, int kick)
{
	int bad = 0;
	int64_t ms = 0;
	bool ok = true;
	for (int i = 0; i < 50 && ok; i++) {
		struct ts t;
		if (sock_new(c, i % 2 ? SOCK_DGRAM : SOCK_STREAM, &t)) {
			ok = false;
			break;
		}
		sock_op(c, SKP_CONNECT, t.id, 0, 0, &peer, sizeof(peer), NULL);
		wait_state(&t, SKP_ST_CONNECTED, 2000);
		uint32_t r;
		(void)!getentropy(&r, sizeof(r));
		/* a record claiming more than was published, or a head past the ring */
		struct skp_dgram h = {.len = 70000, .family = AF_INET};
		memcpy(t.shm->txbuf, &h, sizeof(h));
		atomic_store(&t.shm->tx.head, r | 0x80000000u);
		atomic_store(&t.shm->rx.tail, r);
		uint64_t one = 1;
		(void)!write(kick, &one, sizeof(one));
		bad += wait_state(&t, SKP_ST_ERR, 2000);
		ok = responsive(c, t.id, &ms);
		sock_close(c, &t);
	}
	verdict("ring", ok && bad == 50, "(50 sockets with garbage indices: %d reset)", bad);
}

static void attack_adopt(int c)
{
	int own = eventfd(0, EFD_CLOEXEC);
	int64_t t0 = now_ms();
	int enotsock = 0;
	for (int i = 0; i < 64; i++) {
		struct skp_req r = {.op = SKP_ADOPT};
		struct skp_rep rep;
		enotsock += rpc(c, &r, &rep, own, NULL, NULL) == -ENOTSOCK;
	}
	int64_t ms = now_ms() - t0;
	close(own);
	verdict("adopt", enotsock == 64 && ms < 500, "(64 ADOPTs of a foreign eventfd: %lld ms)",
		(long long)ms);
}

/* every quota at once; root must still be served while they are held */
static void attack_quotas(int c)
{
	static struct ts socks[SKOPSD_ATTACK_MAX];
	int ns = 0, rc = 0;
	/* only the ids are kept: the fds would run into our own RLIMIT_NOFILE */
	while (ns < SKOPSD_ATTACK_MAX && !(rc = sock_new(c, SOCK_STREAM, &socks[ns]))) {
		munmap(socks[ns].shm, sizeof(struct skp_shm));
		close(socks[ns].memfd);
		close(socks[ns].efd);
		ns++;
	}
	int sock_err = -rc;
	int conns[300], nc = 0, crc = 0;
	for (; nc < 300; nc++) {
		int k = -1;
		conns[nc] = ctl_open();
		if (conns[nc] < 0 || (crc = hello(conns[nc], &k))) {
			if (conns[nc] >= 0)
				close(conns[nc]);
			break;
		}
		close(k);
	}
	int ntk = 0, trc = 0;
	for (; ntk < 100; ntk++) {
		struct skp_req r = {.op = SKP_FORK};
		struct skp_rep rep;
		if ((trc = rpc(c, &r, &rep, -1, NULL, NULL)))
			break;
	}
	verdict("quota-sockets", sock_err == EMFILE && ns < 1024,
		"(%d sockets, then %s: the kernel's EMFILE for one user)", ns, strerror(sock_err));
	verdict("quota-control", nc + 1 < 256 && crc != 0,
		"(%d more control connections, then refused)", nc);
	verdict("quota-tickets", trc == -EAGAIN && ntk < 64, "(%d fork tickets, then %s)", ntk,
		strerror(-trc));
	printf("exhausted\n");
	fflush(stdout);
	char line[16];
	(void)!fgets(line, sizeof(line), stdin);
	for (int i = 0; i < nc; i++)
		close(conns[i]);
	for (int i = 0; i < ns; i++) {
		struct skp_req r = {.op = SKP_CLOSE, .id = socks[i].id};
		send(c, &r, sizeof(r), MSG_NOSIGNAL);
	}
}

static int attack(const char *host, int port)
{
	peer.sin_family = AF_INET;
	peer.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, host, &peer.sin_addr);
	int c = ctl_open(), kick = -1;
	if (c < 0 || hello(c, &kick)) {
		printf("cannot reach skopsd at %s: %s\n", sock_path, strerror(errno));
		return 1;
	}
	attack_seal(c);
	attack_eventfd(c);
	attack_kick(c, kick);
	attack_kloop(c);
	attack_rcvbuf(c);
	attack_membuf(c);
	attack_pending(c);
	attack_privileged(c);
	attack_sockopt_caps(c);
	attack_sconn(c);
	attack_ring(c, kick);
	attack_adopt(c);
	attack_quotas(c);
	return broken ? 1 : 0;
}

static int orphan(void)
{
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct timeval tv = {.tv_sec = 5};
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	pid_t p = fork();
	if (p == 0) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
		_exit(connect(s, (struct sockaddr *)&sa, sizeof(sa)) ? 1 : 0);
	}
	int st;
	waitpid(p, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("orphan: the child could not connect\n");
		return 1;
	}
	printf("connected\n"); /* the test lets skopsd run again now */
	fflush(stdout);
	char line[16];
	(void)!fgets(line, sizeof(line), stdin);
	int kick;
	int rc = hello(s, &kick);
	verdict("cgroup", rc != 0, "(HELLO on a connection whose process exited: %s)",
		rc ? strerror(-rc) : "served");
	return broken ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "attack")) {
		sock_path = argv[2];
		return attack(argv[3], atoi(argv[4]));
	}
	if (argc >= 3 && !strcmp(argv[1], "orphan")) {
		sock_path = argv[2];
		return orphan();
	}
	fprintf(stderr, "usage: tenant_attack attack SOCK PEER PORT | orphan SOCK\n");
	return 2;
}
