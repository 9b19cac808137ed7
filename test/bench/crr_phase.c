/* crr_phase: where a connection-per-request client's time goes, phase by
 * phase, as test/bench/shim_prof.sh compares it under the shim and on the
 * kernel: socket() + TCP_NODELAY, a blocking connect(), one SIZE-byte
 * request and its echo, close(); N connections one after another, the p50
 * and p90 of each phase in µs (JSON).
 *   crr_phase HOST PORT N [SIZE] */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: crr_phase HOST PORT N [SIZE]\n");
		return 2;
	}
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
	int n = atoi(argv[3]), size = argc > 4 ? atoi(argv[4]) : 64;
	if (inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1 || n < 1 || size < 1 || size > 65536) {
		fprintf(stderr, "crr_phase: bad HOST, N or SIZE\n");
		return 2;
	}
	static char buf[65536];
	static const char *name[] = {"socket", "connect", "rr", "close"};
	double *ph[4];
	for (int k = 0; k < 4; k++)
		if (!(ph[k] = calloc((size_t)n, sizeof(double))))
			return 1;
	for (int i = 0; i < n; i++) {
		double t0 = now_us();
		int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		double t1 = now_us();
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			perror("crr_phase: connect");
			return 1;
		}
		double t2 = now_us();
		if (send(fd, buf, (size_t)size, MSG_NOSIGNAL) != size) {
			perror("crr_phase: send");
			return 1;
		}
		for (int got = 0; got < size;) {
			ssize_t r = recv(fd, buf, (size_t)(size - got), 0);
			if (r <= 0) {
				perror("crr_phase: recv");
				return 1;
			}
			got += (int)r;
		}
		double t3 = now_us();
		close(fd);
		double t4 = now_us();
		ph[0][i] = t1 - t0;
		ph[1][i] = t2 - t1;
		ph[2][i] = t3 - t2;
		ph[3][i] = t4 - t3;
	}
	printf("{\"connections\":%d", n);
	for (int k = 0; k < 4; k++) {
		qsort(ph[k], (size_t)n, sizeof(double), cmp);
		printf(",\"%s_us\":{\"p50\":%.1f,\"p90\":%.1f}", name[k], ph[k][n / 2],
		       ph[k][n * 9 / 10]);
	}
	printf("}\n");
	return 0;
}
