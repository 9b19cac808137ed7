/* death_probe MODE HOST PORT: under the shim, connects to HOST:PORT (a peer
 * that sends nothing), prints "waiting" and waits with no timeout in MODE
 * (poll, epoll, select, recv) for data that never comes. The test kills
 * skopsd meanwhile: the wait must end, the socket report the death (poll,
 * epoll, select: readable; recv: ECONNRESET), a send then fail with EPIPE.
 * Prints what woke it and how long after "waiting"; exit 0 when all held. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: death_probe poll|epoll|select|recv HOST PORT\n");
		return 2;
	}
	const char *mode = argv[1];
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[3]))};
	inet_pton(AF_INET, argv[2], &sa.sin_addr);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa))) {
		printf("%s: connect: %s\n", mode, strerror(errno));
		return 1;
	}
	printf("waiting\n");
	fflush(stdout);
	long long t0 = now_ms();
	char buf[64], what[128] = "";
	int ok = 0;
	if (!strcmp(mode, "poll")) {
		struct pollfd p = {.fd = s, .events = POLLIN};
		int n = poll(&p, 1, -1);
		snprintf(what, sizeof(what), "poll %d revents 0x%x", n, p.revents);
		ok = n == 1 && (p.revents & (POLLIN | POLLHUP | POLLERR));
	} else if (!strcmp(mode, "epoll")) {
		int ep = epoll_create1(0);
		struct epoll_event ev = {.events = EPOLLIN}, out;
		epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev);
		int n = epoll_wait(ep, &out, 1, -1);
		snprintf(what, sizeof(what), "epoll_wait %d events 0x%x", n,
			 n > 0 ? out.events : 0);
		ok = n == 1 && (out.events & (EPOLLIN | EPOLLHUP | EPOLLERR));
	} else if (!strcmp(mode, "select")) {
		fd_set r;
		FD_ZERO(&r);
		FD_SET(s, &r);
		int n = select(s + 1, &r, NULL, NULL, NULL);
		snprintf(what, sizeof(what), "select %d readable %d", n, FD_ISSET(s, &r) != 0);
		ok = n == 1 && FD_ISSET(s, &r);
	} else {
		ssize_t n = recv(s, buf, sizeof(buf), 0);
		snprintf(what, sizeof(what), "recv %zd (%s)", n, n < 0 ? strerror(errno) : "data");
		ok = n < 0 && errno == ECONNRESET;
	}
	long long woke = now_ms() - t0;
	if (strcmp(mode, "recv")) { /* the wait said readable: the read says why */
		ssize_t n = recv(s, buf, sizeof(buf), MSG_DONTWAIT);
		ok = ok && n < 0 && errno == ECONNRESET;
		snprintf(what + strlen(what), sizeof(what) - strlen(what), ", recv %s",
			 n < 0 ? strerror(errno) : "data");
	}
	ssize_t w = send(s, "x", 1, MSG_NOSIGNAL);
	int e = errno;
	ok = ok && w < 0 && e == EPIPE;
	printf("%s: woke after %lld ms: %s, send %s\n", mode, woke, what,
	       w < 0 ? strerror(e) : "sent");
	return ok ? 0 : 1;
}
