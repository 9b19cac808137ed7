/* shim_probe.h: what the probe's files share: failing with a message, the
 * clocks, a client connection, one epoll wait; and the epoll checks
 * (shim_probe_epoll.c). */
#ifndef SKOPS_TEST_APPS_SHIM_PROBE_H
#define SKOPS_TEST_APPS_SHIM_PROBE_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

static inline void die(const char *what)
{
	fprintf(stderr, "shim_probe: %s: %s\n", what, strerror(errno));
	exit(1);
}

static inline void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "shim_probe: %s\n", what);
		exit(1);
	}
}

static inline double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static inline double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static inline int dial(const char *host, const char *port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		check(0, "bad host");
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("connect");
	return fd;
}

/* one epoll_wait; returns the data of the single event, or -1 on timeout */
static inline int wait_one(int ep, int ms)
{
	struct epoll_event ev[4];
	int n = epoll_wait(ep, ev, 4, ms);
	if (n < 0)
		die("epoll_wait");
	check(n <= 1, "epoll_wait: more than one event");
	return n ? ev[0].data.fd : -1;
}

/* shim_probe_epoll.c */
int run_etout(const char *host, const char *port);
int run_etwake(const char *host, const char *port);
int run_epoll(const char *host, const char *port);

#endif
