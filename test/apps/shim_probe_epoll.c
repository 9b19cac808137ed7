/* shim_probe_epoll: the probe's epoll checks (shim_probe.c lists them). */
#include <fcntl.h>
#include <pthread.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "shim_probe.h"

int run_etout(const char *host, const char *port)
{
	int sk = dial(host, port);
	fcntl(sk, F_SETFL, fcntl(sk, F_GETFL) | O_NONBLOCK);
	int ep = epoll_create1(0);
	struct epoll_event e = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.fd = sk};
	if (epoll_ctl(ep, EPOLL_CTL_ADD, sk, &e))
		die("epoll_ctl");
	(void)wait_one(ep, 0); /* the first edge: writable */
	static char buf[65536];
	size_t sent = 0;
	for (;;) {
		ssize_t w = send(sk, buf, sizeof(buf), MSG_NOSIGNAL);
		if (w < 0 && errno == EAGAIN)
			break;
		if (w < 0)
			die("send");
		sent += (size_t)w;
		check(sent < (256u << 20), "256 MiB sent without EAGAIN");
	}
	double t0 = now_s();
	int got = wait_one(ep, 10000);
	check(got == sk, "no EPOLLOUT edge within 10 s after EAGAIN");
	check(send(sk, buf, 1, MSG_NOSIGNAL) == 1, "not writable after the edge");
	printf("etout: EAGAIN after %zu bytes, the EPOLLOUT edge %.2f s later\n", sent,
	       now_s() - t0);
	close(sk);
	return 0;
}

static int late_sk;

static void *late_line(void *arg)
{
	(void)arg;
	usleep(200000);
	if (send(late_sk, "x\n", 2, MSG_NOSIGNAL) != 2)
		die("late send");
	return NULL;
}

/* a line sent 200 ms from now by another thread; the wait on ep sleeps
 * until its echo wakes it */
static void woken(int ep, int sk, const char *what)
{
	pthread_t t;
	late_sk = sk;
	if (pthread_create(&t, NULL, late_line, NULL))
		die("pthread_create");
	double t0 = now_s(), c0 = cpu_s();
	int got = wait_one(ep, 5000);
	double wall = now_s() - t0, cpu = cpu_s() - c0;
	pthread_join(t, NULL);
	if (got != sk || wall < 0.15 || cpu > 0.1) {
		fprintf(stderr, "shim_probe: %s: got %d after %.0f ms, %.1f ms cpu\n", what, got,
			wall * 1e3, cpu * 1e3);
		exit(1);
	}
}

int run_etwake(const char *host, const char *port)
{
	int sk = dial(host, port);
	fcntl(sk, F_SETFL, fcntl(sk, F_GETFL) | O_NONBLOCK);
	int lt = epoll_create1(0), et = epoll_create1(0), one = epoll_create1(0);
	struct epoll_event e = {.events = EPOLLIN, .data.fd = sk};
	if (epoll_ctl(lt, EPOLL_CTL_ADD, sk, &e))
		die("epoll_ctl lt");
	e.events = EPOLLIN | EPOLLET;
	if (epoll_ctl(et, EPOLL_CTL_ADD, sk, &e))
		die("epoll_ctl et");
	e.events = EPOLLIN | EPOLLONESHOT;
	if (epoll_ctl(one, EPOLL_CTL_ADD, sk, &e))
		die("epoll_ctl oneshot");
	woken(lt, sk, "level-triggered sleeper not woken by the echo");
	check(wait_one(lt, 0) == sk, "level-triggered: unread data not reported again");
	check(wait_one(et, 0) == sk, "edge-triggered: the echo's edge missing");
	check(wait_one(et, 300) == -1, "edge-triggered: one edge reported twice");
	check(wait_one(one, 0) == sk, "one-shot: the echo not reported");
	check(wait_one(one, 300) == -1, "one-shot: reported again before EPOLL_CTL_MOD");
	woken(et, sk, "edge-triggered sleeper not woken by the next echo");
	check(wait_one(one, 300) == -1, "one-shot: a new echo re-armed it");
	e.events = EPOLLIN | EPOLLONESHOT;
	if (epoll_ctl(one, EPOLL_CTL_MOD, sk, &e))
		die("epoll_ctl mod");
	check(wait_one(one, 0) == sk, "one-shot: EPOLL_CTL_MOD did not report the unread data");
	char buf[64];
	check(recv(sk, buf, sizeof(buf), 0) == 4, "the two echoes");
	e.events = EPOLLIN | EPOLLONESHOT;
	if (epoll_ctl(one, EPOLL_CTL_MOD, sk, &e))
		die("epoll_ctl mod");
	woken(one, sk, "one-shot sleeper not woken after EPOLL_CTL_MOD");
	check(wait_one(et, 0) == sk, "edge-triggered: the last echo's edge missing");
	printf("etwake: level, edge and one-shot sleepers woken by the echo\n");
	close(sk);
	return 0;
}

int run_epoll(const char *host, const char *port)
{
	int sk = dial(host, port), p[2], tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	if (pipe(p) || tfd < 0)
		die("pipe/timerfd");
	check(sk < FD_SETSIZE, "socket fd above FD_SETSIZE");
	int ep = epoll_create1(0);
	struct epoll_event e = {.events = EPOLLIN};
	e.data.fd = p[0];
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &e);
	e.data.fd = tfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &e);
	e.data.fd = sk;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, sk, &e))
		die("epoll_ctl socket");
	/* nothing ready: the wait sleeps */
	double t0 = now_s(), c0 = cpu_s();
	check(wait_one(ep, 500) == -1, "idle wait returned an event");
	double wall = now_s() - t0, cpu = cpu_s() - c0;
	printf("idle wait: %.0f ms wall, %.1f ms cpu\n", wall * 1e3, cpu * 1e3);
	check(wall > 0.45, "idle wait returned early");
	check(cpu < 0.1, "idle wait used the CPU (spinning)");
	/* the pipe */
	check(write(p[1], "x", 1) == 1, "pipe write");
	check(wait_one(ep, 2000) == p[0], "pipe event missing");
	char c;
	check(read(p[0], &c, 1) == 1, "pipe read");
	/* the timer */
	struct itimerspec its = {.it_value = {.tv_nsec = 100000000}};
	timerfd_settime(tfd, 0, &its, NULL);
	check(wait_one(ep, 2000) == tfd, "timerfd event missing");
	uint64_t exp;
	check(read(tfd, &exp, sizeof(exp)) == sizeof(exp), "timerfd read");
	/* the socket: the echo of what we send */
	check(send(sk, "ping", 4, 0) == 4, "send");
	check(wait_one(ep, 5000) == sk, "socket event missing");
	char buf[16];
	ssize_t n = recv(sk, buf, sizeof(buf), 0);
	check(n == 4 && !memcmp(buf, "ping", 4), "echo data");
	check(wait_one(ep, 300) == -1, "socket still readable after the read");
	/* closed without EPOLL_CTL_DEL (as nginx closes), its echo still on
	 * the way: the set forgets it, as a kernel socket's last close does */
	int sk2 = dial(host, port);
	e.data.fd = sk2;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, sk2, &e))
		die("epoll_ctl socket 2");
	static char blob[65536];
	check(send(sk2, blob, sizeof(blob), 0) > 0, "send 2");
	close(sk2);
	check(wait_one(ep, 500) == -1, "a closed socket was still reported");
	printf("epoll: pipe, timerfd and skops socket each reported once\n");
	return 0;
}
