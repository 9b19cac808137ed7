/* conn_probe: what a TCP client sees of its socket between socket() and
 * connect(), and of the connect itself. Under the shim the daemon learns of
 * the socket only at connect (SKP_SOCK_CONNECT: made, its options replayed,
 * connected in one request), so everything before it is the kernel
 * socket's and must read as on a kernel socket; the same run passes
 * without the shim (test_programs runs it both ways).
 *   conn_probe lazy HOST PORT CLOSED  HOST:PORT echoes, HOST:CLOSED refuses:
 *     - setsockopt before connect: a short TCP_NODELAY is EINVAL, an unknown
 *       SOL_SOCKET name ENOPROTOOPT; the options taken (TCP_NODELAY,
 *       SO_KEEPALIVE, SO_RCVTIMEO) read back set once connected, and a
 *       recv with nothing to read gives EAGAIN after the SO_RCVTIMEO;
 *     - getsockname before connect: the wildcard, port 0; SO_ERROR 0,
 *       SO_TYPE SOCK_STREAM;
 *     - 200 sockets with an option set, closed unconnected, then a connect;
 *     - fork before connect: the child connects the inherited socket and
 *       echoes over it;
 *     - non-blocking connect: EINPROGRESS, then EPOLLOUT, SO_ERROR 0, a
 *       bound local port, an echo; to CLOSED: EINPROGRESS, then POLLERR
 *       and SO_ERROR ECONNREFUSED; a blocking connect to CLOSED:
 *       ECONNREFUSED; a second connect of a connected socket: EISCONN.
 *   Prints "skops N" or "kernel": how many of the connected sockets were
 *   skopsd's (their fd an eventfd), so the shim's run can be told apart.
 * Exit 0 on success, 1 with a message naming the failed check. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int skops_socks;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "conn_probe: %s (errno %s)\n", what, strerror(errno));
		exit(1);
	}
}

static struct sockaddr_in addr_of(const char *host, const char *port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
	check(inet_pton(AF_INET, host, &sa.sin_addr) == 1, "bad host");
	return sa;
}

/* a skops socket's fd is the daemon's eventfd */
static void note_kind(int fd)
{
	char p[64], l[64] = "";
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	if (readlink(p, l, sizeof(l) - 1) > 0 && strstr(l, "eventfd"))
		skops_socks++;
}

static void echo(int fd, const char *line)
{
	size_t n = strlen(line), got = 0;
	char buf[64];
	check(send(fd, line, n, 0) == (ssize_t)n, line);
	while (got < n) {
		ssize_t k = recv(fd, buf + got, n - got, 0);
		check(k > 0, line);
		got += (size_t)k;
	}
	check(!memcmp(buf, line, n), line);
}

static int opt(int fd, int level, int name)
{
	int v = -1;
	socklen_t l = sizeof(v);
	check(!getsockopt(fd, level, name, &v, &l), "getsockopt");
	return v;
}

static void before_connect(const struct sockaddr_in *to)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	check(fd >= 0, "socket");
	errno = 0;
	check(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, 2) == -1 && errno == EINVAL,
	      "short TCP_NODELAY before connect: not EINVAL");
	errno = 0;
	check(setsockopt(fd, SOL_SOCKET, 4242, &one, sizeof(one)) == -1 && errno == ENOPROTOOPT,
	      "unknown SOL_SOCKET option before connect: not ENOPROTOOPT");
	check(!setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)), "TCP_NODELAY");
	check(!setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)), "SO_KEEPALIVE");
	struct timeval tv = {.tv_sec = 0, .tv_usec = 300000};
	check(!setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), "SO_RCVTIMEO");
	struct sockaddr_in me;
	socklen_t ml = sizeof(me);
	memset(&me, 0xff, sizeof(me));
	check(!getsockname(fd, (struct sockaddr *)&me, &ml), "getsockname before connect");
	check(ml == sizeof(me) && me.sin_family == AF_INET && me.sin_port == 0 &&
		  me.sin_addr.s_addr == htonl(INADDR_ANY),
	      "getsockname before connect: not 0.0.0.0:0");
	check(opt(fd, SOL_SOCKET, SO_ERROR) == 0, "SO_ERROR before connect");
	check(opt(fd, SOL_SOCKET, SO_TYPE) == SOCK_STREAM, "SO_TYPE before connect");
	check(!connect(fd, (const struct sockaddr *)to, sizeof(*to)), "connect");
	note_kind(fd);
	check(opt(fd, IPPROTO_TCP, TCP_NODELAY) != 0, "TCP_NODELAY set before connect lost");
	check(opt(fd, SOL_SOCKET, SO_KEEPALIVE) != 0, "SO_KEEPALIVE set before connect lost");
	echo(fd, "options\n");
	/* SO_RCVTIMEO from before connect: nothing to read, EAGAIN after it */
	socklen_t tl = sizeof(tv);
	check(!getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &tl) && tv.tv_sec == 0 &&
		  tv.tv_usec >= 290000 && tv.tv_usec <= 310000,
	      "SO_RCVTIMEO set before connect: not 300 ms once connected");
	alarm(10); /* a recv that ignores it never returns */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	errno = 0;
	check(recv(fd, (char[8]){0}, 8, 0) == -1 && errno == EAGAIN,
	      "recv past SO_RCVTIMEO set before connect: not EAGAIN");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	alarm(0);
	long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	check(ms >= 250 && ms < 3000, "recv past SO_RCVTIMEO: not after ~300 ms");
	errno = 0;
	check(connect(fd, (const struct sockaddr *)to, sizeof(*to)) == -1 && errno == EISCONN,
	      "second connect: not EISCONN");
	close(fd);
}

static void unconnected_closes(const struct sockaddr_in *to)
{
	int one = 1, fd = -1;
	for (int i = 0; i < 200; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		check(fd >= 0, "socket");
		check(!setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)), "TCP_NODELAY");
		check(!close(fd), "close of an unconnected socket");
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	check(fd >= 0 && !connect(fd, (const struct sockaddr *)to, sizeof(*to)),
	      "connect after unconnected closes");
	note_kind(fd);
	echo(fd, "after closes\n");
	close(fd);
}

static void forked(const struct sockaddr_in *to)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	check(fd >= 0, "socket");
	pid_t pid = fork();
	check(pid >= 0, "fork");
	if (!pid) {
		check(!connect(fd, (const struct sockaddr *)to, sizeof(*to)),
		      "child: connect of a socket made before fork");
		echo(fd, "child\n");
		note_kind(fd);
		_exit(skops_socks ? 2 : 0); /* 1 is check's */
	}
	int st;
	check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) != 1,
	      "fork before connect: the child failed");
	skops_socks += WEXITSTATUS(st) == 2;
	close(fd);
}

static void nonblocking(const struct sockaddr_in *to, const struct sockaddr_in *closed)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	check(fd >= 0, "socket");
	errno = 0;
	check(connect(fd, (const struct sockaddr *)to, sizeof(*to)) == -1 && errno == EINPROGRESS,
	      "non-blocking connect: not EINPROGRESS");
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLOUT, .data.fd = fd};
	check(ep >= 0 && !epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), "epoll");
	check(epoll_wait(ep, &ev, 1, 5000) == 1 && (ev.events & EPOLLOUT),
	      "non-blocking connect: no EPOLLOUT");
	close(ep);
	check(opt(fd, SOL_SOCKET, SO_ERROR) == 0, "non-blocking connect: SO_ERROR");
	struct sockaddr_in me;
	socklen_t ml = sizeof(me);
	check(!getsockname(fd, (struct sockaddr *)&me, &ml) && me.sin_port != 0,
	      "non-blocking connect: no local port");
	note_kind(fd);
	struct pollfd p = {.fd = fd, .events = POLLIN};
	check(send(fd, "nb\n", 3, 0) == 3, "non-blocking send");
	check(poll(&p, 1, 5000) == 1 && recv(fd, (char[4]){0}, 4, 0) == 3, "non-blocking echo");
	close(fd);

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	errno = 0;
	check(connect(fd, (const struct sockaddr *)closed, sizeof(*closed)) == -1 &&
		  errno == EINPROGRESS,
	      "non-blocking connect to a closed port: not EINPROGRESS");
	note_kind(fd);
	p = (struct pollfd){.fd = fd, .events = POLLOUT};
	check(poll(&p, 1, 5000) == 1 && (p.revents & POLLERR), "refused: no POLLERR");
	check(opt(fd, SOL_SOCKET, SO_ERROR) == ECONNREFUSED, "refused: SO_ERROR");
	check(opt(fd, SOL_SOCKET, SO_ERROR) == 0, "refused: SO_ERROR not cleared by reading it");
	close(fd);

	fd = socket(AF_INET, SOCK_STREAM, 0);
	errno = 0;
	check(connect(fd, (const struct sockaddr *)closed, sizeof(*closed)) == -1 &&
		  errno == ECONNREFUSED,
	      "blocking connect to a closed port: not ECONNREFUSED");
	note_kind(fd);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc != 5 || strcmp(argv[1], "lazy"))
		check(0, "usage: conn_probe lazy HOST PORT CLOSED");
	struct sockaddr_in to = addr_of(argv[2], argv[3]), closed = addr_of(argv[2], argv[4]);
	before_connect(&to);
	unconnected_closes(&to);
	forked(&to);
	nonblocking(&to, &closed);
	if (skops_socks)
		printf("skops %d\n", skops_socks);
	else
		printf("kernel\n");
	return 0;
}
