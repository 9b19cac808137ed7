/* shim_probe: checks run under skops-run against a kernel echo server.
 *   shim_probe epoll HOST PORT  one epoll set of a pipe, a timerfd and a
 *       skops socket: each reports its own event, and an empty wait sleeps
 *       (CPU time well under the wall time)
 *   shim_probe etout HOST PORT  against a server that reads only after a
 *       second: a non-blocking socket in an edge-triggered epoll set sends
 *       until EAGAIN, then its EPOLLOUT edge comes once the server reads
 *       (the same on a kernel socket)
 *   shim_probe etwake HOST PORT against an echo server: a wait sleeping in
 *       epoll_wait (past the shim's poll) is woken when the echo of a
 *       line sent 200 ms later arrives, for a level-triggered, an
 *       edge-triggered and a one-shot registration of one socket in three
 *       sets; the edge is reported once while the data stays unread and
 *       again at the next echo; the one-shot one not again until
 *       EPOLL_CTL_MOD, which reports the unread data at once (the same on
 *       a kernel socket)
 *   shim_probe eintr HOST PORT  a blocking recv interrupted by SIGALRM
 *       (no SA_RESTART) returns EINTR after ~200 ms, without spinning
 *   shim_probe hold HOST PORT   connects, prints "connected", sleeps
 *   shim_probe orphan HOST PORT connects, prints "connected", blocks in recv:
 *       once skopsd dies recv fails with ECONNRESET and send with EPIPE, and
 *       the connect of a socket made before is ECONNRESET
 *   shim_probe restart HOST PORT a blocking recv with an SA_RESTART handler
 *       goes on after the signal and returns the echo sent 500 ms later by
 *       another thread; with SO_RCVTIMEO set the same signal gives EINTR
 *   shim_probe exec HOST PORT   connects twice (the second close-on-exec),
 *       execs itself: the new image echoes "ping" over the first socket,
 *       and the second fd is gone
 *   shim_probe spawn HOST PORT  connects, then system("exit 3"); children
 *       made past the shim's hooks: system()'s shell echoing a line into
 *       the socket, system() and popen() shells execing an image that uses
 *       it, a raw fork syscall's child (getpeername, echo, close) and
 *       _Fork's child execing; then posix_spawn
 *       of itself and vfork (the child dups the socket to fd 100, closes the
 *       original, execs itself): each spawned image sees its inherited fd
 *       as a skops socket and echoes a line over it; afterwards the
 *       parent's socket still echoes (its shim state untouched)
 *   shim_probe recvmmsg HOST PORT recvmmsg's timeout as Linux applies it:
 *       an end time checked after each message (one-byte messages here), the
 *       time left written back, {0, 0} stopping after the first, a wait
 *       inside one receive not cut short, a bad timespec EINVAL (the same
 *       checks pass on a kernel socket)
 *   shim_probe rstmmsg HOST PORT the server sends "ab" and resets: as
 *       Linux, recvmmsg fails at once with ECONNRESET (do_recvmmsg takes
 *       the pending error first), recv then gets "ab", then EOF
 *   shim_probe nbshare HOST PORT O_NONBLOCK is the open file's: for a TCP
 *       socket connected to HOST:PORT and a bound UDP one, the parent's
 *       F_SETFL after fork() is seen by the child (F_GETFL on the fd and a
 *       dup of it, a recv that returns EAGAIN at once) and by the parent's
 *       dup; the child's FIONBIO clearing it through its dup is seen by the
 *       parent (the same checks pass on kernel sockets)
 *   shim_probe fork ADDR PORT   listens, prints "listening", forks: parent
 *       and child both accept (each holds a connection 300 ms), answering
 *       "PID\n" to each client, until killed
 *   shim_probe forkconn ADDR PORT listens; accepts, forks a child per
 *       connection and closes its copy at once; the child waits 200 ms,
 *       then echoes one line prefixed with its pid; until killed
 * Exit 0 on success, 1 with a message naming the failed check. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shim_probe.h"

static void on_alarm(int sig)
{
	(void)sig;
}

static int run_eintr(const char *host, const char *port)
{
	int sk = dial(host, port);
	struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {.it_value = {.tv_usec = 200000}};
	setitimer(ITIMER_REAL, &it, NULL);
	double t0 = now_s(), c0 = cpu_s();
	char buf[16];
	ssize_t n = recv(sk, buf, sizeof(buf), 0);
	int e = errno;
	double wall = now_s() - t0, cpu = cpu_s() - c0;
	printf("recv: %zd (%s) after %.0f ms, %.1f ms cpu\n", n, strerror(e), wall * 1e3,
	       cpu * 1e3);
	check(n == -1 && e == EINTR, "blocking recv not interrupted with EINTR");
	check(wall > 0.15 && wall < 2, "EINTR at the wrong time");
	check(cpu < 0.1, "blocking recv used the CPU (spinning)");
	return 0;
}

static int restart_sk;
static volatile sig_atomic_t alarms;

static void count_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void *late_ping(void *arg)
{
	(void)arg;
	usleep(500000);
	if (send(restart_sk, "ping", 4, 0) != 4)
		die("late send");
	return NULL;
}

static int run_restart(const char *host, const char *port)
{
	restart_sk = dial(host, port);
	struct sigaction sa = {.sa_handler = count_alarm, .sa_flags = SA_RESTART}, old;
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGALRM, NULL, &old);
	check(old.sa_handler == count_alarm && (old.sa_flags & SA_RESTART),
	      "sigaction does not give back the program's own handler and flags");
	struct itimerval it = {.it_value = {.tv_usec = 200000}};
	setitimer(ITIMER_REAL, &it, NULL);
	pthread_t th;
	pthread_create(&th, NULL, late_ping, NULL);
	double t0 = now_s();
	char buf[16];
	ssize_t n = recv(restart_sk, buf, sizeof(buf), 0);
	int e = errno;
	double wall = now_s() - t0;
	pthread_join(th, NULL);
	printf("SA_RESTART recv: %zd (%s) after %.0f ms, %d signal(s)\n", n,
	       n < 0 ? strerror(e) : "ok", wall * 1e3, (int)alarms);
	check(alarms == 1, "the handler did not run once");
	check(n == 4 && !memcmp(buf, "ping", 4), "recv with SA_RESTART did not go on to the data");
	check(wall > 0.4, "recv returned before the data");
	/* a timed wait is not restarted, as the kernel's (sock_intr_errno) */
	struct timeval tv = {.tv_sec = 3};
	setsockopt(restart_sk, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setitimer(ITIMER_REAL, &it, NULL);
	t0 = now_s();
	n = recv(restart_sk, buf, sizeof(buf), 0);
	e = errno;
	wall = now_s() - t0;
	printf("SA_RESTART recv with SO_RCVTIMEO: %zd (%s) after %.0f ms\n", n, strerror(e),
	       wall * 1e3);
	check(n == -1 && e == EINTR && wall < 1.5, "timed recv not interrupted with EINTR");
	return 0;
}

struct late {
	int sk;
	const char *data;
	int ms;
};

static void *late_send(void *arg)
{
	struct late *l = arg;
	usleep((useconds_t)l->ms * 1000);
	if (send(l->sk, l->data, strlen(l->data), 0) != (ssize_t)strlen(l->data))
		die("late send");
	return NULL;
}

/* recvmmsg into n one-byte messages; the bytes in got */
static int mmsg(int sk, unsigned n, int flags, struct timespec *tmo, char *got)
{
	struct mmsghdr v[8];
	struct iovec iov[8];
	memset(v, 0, sizeof(v));
	memset(got, 0, 9);
	for (unsigned i = 0; i < n && i < 8; i++) {
		iov[i] = (struct iovec){.iov_base = got + i, .iov_len = 1};
		v[i].msg_hdr.msg_iov = &iov[i];
		v[i].msg_hdr.msg_iovlen = 1;
	}
	return recvmmsg(sk, v, n, flags, tmo);
}

static int run_recvmmsg(const char *host, const char *port)
{
	int sk = dial(host, port);
	char got[9];
	check(send(sk, "abcd", 4, 0) == 4, "send abcd");
	usleep(300000); /* the echo is back */
	struct timespec bad = {.tv_nsec = 1000000000L};
	int n = mmsg(sk, 1, 0, &bad, got);
	check(n == -1 && errno == EINVAL, "recvmmsg: tv_nsec 1e9 is not EINVAL");
	struct timespec zero = {0, 0};
	n = mmsg(sk, 4, 0, &zero, got);
	printf("recvmmsg, timeout {0, 0}: %d message(s) '%s'\n", n, got);
	check(n == 1 && !strcmp(got, "a"),
	      "recvmmsg: timeout {0, 0} did not stop after one message");
	check(!zero.tv_sec && !zero.tv_nsec, "recvmmsg: {0, 0} not left at zero");
	struct timespec five = {.tv_sec = 5};
	n = mmsg(sk, 3, 0, &five, got);
	printf("recvmmsg, timeout 5 s: %d message(s) '%s', %ld.%09ld s left\n", n, got,
	       (long)five.tv_sec, five.tv_nsec);
	check(n == 3 && !strcmp(got, "bcd"), "recvmmsg: timeout 5 s: not the three bytes ready");
	check(five.tv_sec == 4 && five.tv_nsec > 0, "recvmmsg: the time left not written back");
	/* the first receive waits past the timeout (the check comes after each
	 * message), then the timeout has run out: "f", ready too, stays */
	struct late l = {sk, "ef", 300};
	pthread_t th;
	pthread_create(&th, NULL, late_send, &l);
	struct timespec short_tmo = {.tv_nsec = 100000000L};
	double t0 = now_s();
	n = mmsg(sk, 2, 0, &short_tmo, got);
	double wall = now_s() - t0;
	pthread_join(th, NULL);
	printf("recvmmsg, timeout 100 ms, data after 300 ms: %d message(s) '%s' after %.0f ms\n", n,
	       got, wall * 1e3);
	check(n == 1 && !strcmp(got, "e"), "recvmmsg: an expired timeout did not end the batch");
	check(wall > 0.25, "recvmmsg: the first receive was cut short by the timeout");
	check(!short_tmo.tv_sec && !short_tmo.tv_nsec, "recvmmsg: expired timeout not zeroed");
	usleep(100000);
	check(recv(sk, got, 8, MSG_DONTWAIT) == 1 && got[0] == 'f', "recv of the byte left");
	/* MSG_WAITFORONE, no timeout: the first waits, the rest take what is there */
	l = (struct late){sk, "gh", 200};
	pthread_create(&th, NULL, late_send, &l);
	n = mmsg(sk, 3, MSG_WAITFORONE, NULL, got);
	pthread_join(th, NULL);
	printf("recvmmsg, MSG_WAITFORONE: %d message(s) '%s'\n", n, got);
	check(n == 2 && !strcmp(got, "gh"), "recvmmsg: MSG_WAITFORONE");
	close(sk);
	return 0;
}

static int run_rstmmsg(const char *host, const char *port)
{
	int sk = dial(host, port);
	char got[9];
	usleep(300000); /* the data and the reset are in */
	int n = mmsg(sk, 4, 0, NULL, got);
	int e = errno;
	printf("recvmmsg after data and a reset: %d (%s)\n", n, n < 0 ? strerror(e) : "ok");
	check(n == -1 && e == ECONNRESET, "recvmmsg: the pending reset not reported first");
	ssize_t r = recv(sk, got, sizeof(got), 0);
	printf("then recv: %zd '%.*s'\n", r, r > 0 ? (int)r : 0, got);
	check(r == 2 && !memcmp(got, "ab", 2), "recv after the reset: not the two bytes");
	r = recv(sk, got, sizeof(got), 0);
	printf("then recv: %zd\n", r);
	check(r == 0, "recv after the bytes: not EOF (the error was taken)");
	close(sk);
	return 0;
}

static int listen_on(const char *addr, const char *port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		check(0, "bad address");
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 64))
		die("listen");
	printf("listening\n");
	return fd;
}

static _Noreturn void run_fork(const char *addr, const char *port)
{
	int l = listen_on(addr, port);
	if (fork() < 0)
		die("fork");
	alarm(60); /* bounded even if the test dies */
	/* both say so before their first accept: on a loaded machine the
	 * child can take seconds to get there, and the clients must not come
	 * before it does */
	printf("accepting %d\n", (int)getpid());
	for (;;) {
		int c = accept(l, NULL, NULL);
		if (c < 0)
			die("accept");
		char line[32];
		int k = snprintf(line, sizeof(line), "%d\n", (int)getpid());
		if (write(c, line, (size_t)k) != k)
			die("write");
		/* the client reads to EOF: close first, then stay busy, so the
		 * next client, 50 ms on, is the other process's to accept (with
		 * the close after the pause both waited in accept again and
		 * either could win, at times all six for one) */
		close(c);
		usleep(300000);
	}
}

static _Noreturn void run_forkconn(const char *addr, const char *port)
{
	int l = listen_on(addr, port);
	signal(SIGCHLD, SIG_IGN);
	alarm(60);
	for (;;) {
		int c = accept(l, NULL, NULL);
		if (c < 0 && errno == EINTR)
			continue;
		if (c < 0)
			die("accept");
		pid_t p = fork();
		if (p < 0)
			die("fork");
		if (p == 0) {
			close(l);
			usleep(200000); /* the parent's close has happened by now */
			char buf[256], out[300];
			ssize_t n = read(c, buf, sizeof(buf) - 1);
			if (n <= 0)
				die("child read");
			int k = snprintf(out, sizeof(out), "%d %.*s", (int)getpid(), (int)n, buf);
			if (write(c, out, (size_t)k) != k)
				die("child write");
			close(c);
			_exit(0);
		}
		close(c);
	}
}

static int run_exec(const char *host, const char *port, char *self)
{
	int keep = dial(host, port), gone = dial(host, port);
	if (fcntl(gone, F_SETFD, FD_CLOEXEC))
		die("FD_CLOEXEC");
	char a[16], b[16];
	snprintf(a, sizeof(a), "%d", keep);
	snprintf(b, sizeof(b), "%d", gone);
	execl(self, self, "execd", a, b, (char *)NULL);
	die("execl");
	return 1;
}

static int run_execd(int keep, int gone)
{
	check(fcntl(gone, F_GETFD) < 0 && errno == EBADF, "the close-on-exec socket survived exec");
	check(send(keep, "ping", 4, 0) == 4, "send after exec");
	char buf[16];
	ssize_t n = recv(keep, buf, sizeof(buf), 0);
	check(n == 4 && !memcmp(buf, "ping", 4), "echo after exec");
	printf("exec: the socket works in the new image, the close-on-exec one is gone\n");
	return 0;
}

static void echo_line(int sk, const char *line, const char *who)
{
	size_t n = strlen(line);
	char buf[64], what[96];
	snprintf(what, sizeof(what), "%s: send", who);
	check(send(sk, line, n, 0) == (ssize_t)n, what);
	size_t got = 0;
	while (got < n) {
		ssize_t k = recv(sk, buf + got, n - got, 0);
		snprintf(what, sizeof(what), "%s: recv", who);
		check(k > 0, what);
		got += (size_t)k;
	}
	snprintf(what, sizeof(what), "%s: echo differs", who);
	check(!memcmp(buf, line, n), what);
}

static void reap(pid_t pid, const char *who)
{
	int st;
	char what[64];
	snprintf(what, sizeof(what), "%s: the child failed", who);
	check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, what);
}

extern char **environ;

static void nb_want(int fd, int want, const char *what)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		die("fcntl F_GETFL");
	if (!!(fl & O_NONBLOCK) != want) {
		fprintf(stderr, "shim_probe: nbshare: %s: O_NONBLOCK %s\n", what,
			want ? "not seen" : "still set");
		exit(1);
	}
}

static void nb_blocked(int sig)
{
	(void)sig;
	static const char m[] = "shim_probe: nbshare: the child's recv blocked\n";
	if (write(2, m, sizeof(m) - 1) < 0)
		_exit(2);
	_exit(1);
}

/* one socket's O_NONBLOCK shared by a forked child and dups (nbshare) */
static void nb_share(int fd, const char *name)
{
	int d = dup(fd), p2c[2], c2p[2];
	char b, what[96];
	if (d < 0 || pipe(p2c) || pipe(c2p))
		die("dup/pipe");
	nb_want(fd, 0, name);
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		check(read(p2c[0], &b, 1) == 1, "nbshare: child: no word from the parent");
		snprintf(what, sizeof(what), "%s: the child after the parent's F_SETFL", name);
		nb_want(fd, 1, what);
		nb_want(d, 1, what);
		signal(SIGALRM, nb_blocked);
		alarm(2);
		check(recv(fd, &b, 1, 0) == -1 && errno == EAGAIN,
		      "nbshare: child: recv not EAGAIN");
		alarm(0);
		int off = 0;
		check(!ioctl(d, FIONBIO, &off), "nbshare: child: FIONBIO");
		check(write(c2p[1], "c", 1) == 1, "nbshare: child: write");
		exit(0);
	}
	check(!fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), "nbshare: F_SETFL");
	snprintf(what, sizeof(what), "%s: the parent's dup after F_SETFL", name);
	nb_want(d, 1, what);
	check(write(p2c[1], "p", 1) == 1, "nbshare: parent: write");
	check(read(c2p[0], &b, 1) == 1, "nbshare: parent: no word from the child");
	snprintf(what, sizeof(what), "%s: the parent after the child's FIONBIO", name);
	nb_want(fd, 0, what);
	snprintf(what, sizeof(what), "nbshare %s", name);
	reap(pid, what);
	close(d);
	close(p2c[0]);
	close(p2c[1]);
	close(c2p[0]);
	close(c2p[1]);
}

static int run_nbshare(const char *host, const char *port)
{
	int t = dial(host, port), u = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in any = {.sin_family = AF_INET};
	if (u < 0 || bind(u, (struct sockaddr *)&any, sizeof(any)))
		die("UDP socket");
	nb_share(t, "TCP");
	nb_share(u, "UDP");
	printf("O_NONBLOCK shared by a forked child and dups (TCP, UDP)\n");
	return 0;
}

static int run_spawned(int sk, const char *how);

/* a child's exit status 0, or the check names who failed */
static void status_ok(int st, const char *who)
{
	char what[96];
	snprintf(what, sizeof(what), "%s: the child failed (status %#x)", who, st);
	check(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, what);
}

/* Children made past the shim's fork and exec hooks, which find the
 * socket by its inherited fd: system()'s shell writing to it itself (its
 * echo comes back to the parent), system() and popen() shells execing
 * an image that uses it, a raw fork syscall's child using it and closing
 * its copy, and _Fork's child execing. The parent's socket works after
 * each. */
static void inherit_children(int sk, char *self)
{
	char cmd[512], buf[64];
	snprintf(cmd, sizeof(cmd), "echo 'shell of system' >&%d", sk);
	status_ok(system(cmd), "system's shell writing");
	size_t got = 0, want = strlen("shell of system\n");
	while (got < want) {
		ssize_t k = recv(sk, buf + got, want - got, 0);
		check(k > 0, "system's shell writing: no echo for the parent");
		got += (size_t)k;
	}
	check(!memcmp(buf, "shell of system\n", want), "system's shell writing: echo differs");
	snprintf(cmd, sizeof(cmd), "exec %s spawned %d system", self, sk);
	status_ok(system(cmd), "system");
	echo_line(sk, "parent after system exec\n", "parent after system exec");
	snprintf(cmd, sizeof(cmd), "exec %s spawned %d popen", self, sk);
	FILE *p = popen(cmd, "r");
	if (!p)
		die("popen");
	status_ok(pclose(p), "popen");
	echo_line(sk, "parent after popen\n", "parent after popen");
	pid_t pid = (pid_t)syscall(SYS_fork);
	if (pid == 0) {
		/* a request on its own connection needs its own hold */
		struct sockaddr_storage ss;
		socklen_t l = sizeof(ss);
		check(!getpeername(sk, (struct sockaddr *)&ss, &l), "raw fork: getpeername");
		run_spawned(sk, "raw fork");
		close(sk);
		_exit(0);
	}
	if (pid < 0)
		die("fork syscall");
	printf("raw fork child %d\n", (int)pid); /* skopsd's log names its connection */
	reap(pid, "raw fork");
	echo_line(sk, "parent after raw fork\n", "parent after raw fork");
	char fd[16];
	snprintf(fd, sizeof(fd), "%d", sk);
	pid = _Fork();
	if (pid == 0) {
		execl(self, self, "spawned", fd, "_Fork", (char *)NULL);
		_exit(3);
	}
	if (pid < 0)
		die("_Fork");
	reap(pid, "_Fork");
	echo_line(sk, "parent after _Fork\n", "parent after _Fork");
}

static int run_spawn(const char *host, const char *port, char *self)
{
	int sk = dial(host, port);
	echo_line(sk, "parent before\n", "parent");
	int st = system("exit 3");
	check(WIFEXITED(st) && WEXITSTATUS(st) == 3, "system: not the shell's status");
	echo_line(sk, "parent after system\n", "parent after system");
	char fd[16];
	snprintf(fd, sizeof(fd), "%d", sk);
	inherit_children(sk, self);
	char *av[] = {self, "spawned", fd, "posix_spawn", NULL};
	pid_t pid;
	errno = posix_spawn(&pid, self, NULL, NULL, av, environ);
	if (errno)
		die("posix_spawn");
	reap(pid, "posix_spawn");
	echo_line(sk, "parent after posix_spawn\n", "parent after posix_spawn");
	pid = vfork();
	if (pid == 0) {
		/* the child's dup and close are its own: the parent's sk stays */
		if (dup2(sk, 100) != 100)
			_exit(2);
		close(sk);
		execl(self, self, "spawned", "100", "vfork", (char *)NULL);
		_exit(3);
	}
	if (pid < 0)
		die("vfork");
	reap(pid, "vfork");
	check(fcntl(100, F_GETFD) < 0, "vfork: the child's dup2 reached the parent");
	echo_line(sk, "parent after vfork\n", "parent after vfork");
	close(sk);
	printf("spawn: system, popen, raw fork, _Fork, posix_spawn and vfork children; the "
	       "parent's socket works\n");
	return 0;
}

static int run_spawned(int sk, const char *how)
{
	int type = 0;
	socklen_t l = sizeof(type);
	char what[96], line[64];
	snprintf(what, sizeof(what), "%s: fd %d is not a socket in the new image", how, sk);
	check(!getsockopt(sk, SOL_SOCKET, SO_TYPE, &type, &l) && type == SOCK_STREAM, what);
	snprintf(line, sizeof(line), "child of %s\n", how);
	echo_line(sk, line, how);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "spawned"))
		return run_spawned(atoi(argv[2]), argv[3]);
	if (argc != 4)
		check(0, "usage: shim_probe "
			 "epoll|etout|eintr|restart|exec|spawn|hold|orphan|fork|forkconn "
			 "HOST PORT");
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(argv[1], "epoll"))
		return run_epoll(argv[2], argv[3]);
	if (!strcmp(argv[1], "eintr"))
		return run_eintr(argv[2], argv[3]);
	if (!strcmp(argv[1], "etwake"))
		return run_etwake(argv[2], argv[3]);
	if (!strcmp(argv[1], "etout"))
		return run_etout(argv[2], argv[3]);
	if (!strcmp(argv[1], "exec"))
		return run_exec(argv[2], argv[3], argv[0]);
	if (!strcmp(argv[1], "spawn"))
		return run_spawn(argv[2], argv[3], argv[0]);
	if (!strcmp(argv[1], "execd"))
		return run_execd(atoi(argv[2]), atoi(argv[3]));
	if (!strcmp(argv[1], "restart"))
		return run_restart(argv[2], argv[3]);
	if (!strcmp(argv[1], "recvmmsg"))
		return run_recvmmsg(argv[2], argv[3]);
	if (!strcmp(argv[1], "nbshare"))
		return run_nbshare(argv[2], argv[3]);
	if (!strcmp(argv[1], "rstmmsg"))
		return run_rstmmsg(argv[2], argv[3]);
	if (!strcmp(argv[1], "fork"))
		run_fork(argv[2], argv[3]);
	if (!strcmp(argv[1], "forkconn"))
		run_forkconn(argv[2], argv[3]);
	if (!strcmp(argv[1], "hold")) {
		dial(argv[2], argv[3]);
		printf("connected\n");
		for (;;)
			pause();
	}
	if (!strcmp(argv[1], "orphan")) {
		int sk = dial(argv[2], argv[3]), one = 1;
		/* made before skopsd dies, connected after: skopsd is first
		 * asked at connect, which fails as every later call */
		int late = socket(AF_INET, SOCK_STREAM, 0);
		check(late >= 0 && !setsockopt(late, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)),
		      "a second socket");
		printf("connected\n");
		char buf[16];
		ssize_t n = recv(sk, buf, sizeof(buf), 0);
		check(n == -1 && errno == ECONNRESET, "recv after skopsd died: not ECONNRESET");
		n = send(sk, "x", 1, MSG_NOSIGNAL);
		check(n == -1 && errno == EPIPE, "send after skopsd died: not EPIPE");
		struct sockaddr_in sa = {.sin_family = AF_INET,
					 .sin_port = htons((uint16_t)atoi(argv[3]))};
		inet_pton(AF_INET, argv[2], &sa.sin_addr);
		check(connect(late, (struct sockaddr *)&sa, sizeof(sa)) == -1 &&
			  errno == ECONNRESET,
		      "connect after skopsd died of a socket made before: not ECONNRESET");
		printf("ECONNRESET, EPIPE, connect ECONNRESET\n");
		return 0;
	}
	check(0, "unknown mode");
	return 1;
}
