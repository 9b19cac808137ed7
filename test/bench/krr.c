/* krr: the kernel's side of the benchmark's request/response figures, as
 * skperf --rr and --crr measure them on skops (iperf3 has neither mode).
 *   krr -s PORT                       echo server (one connection at a time
 *                                     for rr, a new one per transaction for crr)
 *   krr -c HOST PORT rr|crr SIZE SECS  client; prints {"count":..,"per_s":..,
 *                                     "rtt_us":{"min","p50","p90","p99","p999","max"}}
 * Blocking sockets and one transaction at a time: the latency of one
 * round trip through the kernel, the comparison skperf's numbers need. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int full(int fd, char *buf, size_t n, int wr)
{
	size_t off = 0;
	while (off < n) {
		ssize_t r = wr ? send(fd, buf + off, n - off, MSG_NOSIGNAL)
			       : recv(fd, buf + off, n - off, 0);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)r;
	}
	return 0;
}

static int serve(int port)
{
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1024)) {
		perror("krr: listen");
		return 1;
	}
	static char buf[1 << 20];
	for (;;) {
		int c = accept(l, NULL, NULL);
		if (c < 0)
			continue;
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		ssize_t r;
		while ((r = recv(c, buf, sizeof(buf), 0)) > 0)
			if (full(c, buf, (size_t)r, 1))
				break;
		close(c);
	}
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-s"))
		return serve(atoi(argv[2]));
	if (argc != 7 || strcmp(argv[1], "-c") ||
	    (strcmp(argv[4], "rr") && strcmp(argv[4], "crr"))) {
		fprintf(stderr, "usage: krr -s PORT | krr -c HOST PORT rr|crr SIZE SECONDS\n");
		return 2;
	}
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[3]))};
	if (inet_pton(AF_INET, argv[2], &sa.sin_addr) != 1) {
		fprintf(stderr, "krr: bad host '%s'\n", argv[2]);
		return 2;
	}
	int crr = !strcmp(argv[4], "crr"), one = 1;
	size_t size = (size_t)atoi(argv[5]);
	double secs = atof(argv[6]);
	if (size < 1 || size > (1 << 20) || secs <= 0) {
		fprintf(stderr, "krr: bad size or duration\n");
		return 2;
	}
	static char buf[1 << 20];
	size_t cap = 1 << 16, n = 0;
	uint64_t *rtt = malloc(cap * sizeof(*rtt));
	int fd = -1;
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(secs * 1e9);
	while (rtt && now_ns() < end) {
		uint64_t a = now_ns();
		if (fd < 0) {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
				perror("krr: connect");
				return 1;
			}
		}
		if (full(fd, buf, size, 1) || full(fd, buf, size, 0)) {
			perror("krr: transaction");
			return 1;
		}
		if (crr) {
			close(fd);
			fd = -1;
		}
		if (n == cap)
			rtt = realloc(rtt, (cap *= 2) * sizeof(*rtt));
		if (rtt)
			rtt[n++] = now_ns() - a;
	}
	double el = (double)(now_ns() - t0) / 1e9;
	if (!rtt || !n) {
		fprintf(stderr, "krr: no transaction completed\n");
		return 1;
	}
	qsort(rtt, n, sizeof(*rtt), cmp);
#define P(p) ((double)rtt[(size_t)((p) / 100.0 * (double)(n - 1) + 0.5)] / 1e3)
	printf(
	    "{\"count\":%zu,\"seconds\":%.3f,\"per_s\":%.1f,\"rtt_us\":{\"min\":%.1f,\"p50\":%.1f,"
	    "\"p90\":%.1f,\"p99\":%.1f,\"p999\":%.1f,\"max\":%.1f},",
	    n, el, (double)n / el, P(0), P(50), P(90), P(99), P(99.9), P(100));
	/* the distribution for plots, as skperf's end.rr.cdf */
	static const double tail[] = {99.5, 99.9, 99.99, 100};
	printf("\"cdf\":{\"p\":[");
	for (int i = 0; i < 104; i++)
		printf("%s%g", i ? "," : "", i < 100 ? i : tail[i - 100]);
	printf("],\"us\":[");
	for (int i = 0; i < 104; i++)
		printf("%s%.1f", i ? "," : "", P(i < 100 ? i : tail[i - 100]));
	printf("]}}\n");
	return 0;
}
