/* kconns: the kernel's side of the benchmark's idle-connection figures, as
 * stack_bench measures them on skops: N established loopback connections
 * held open, the time to set them up and the kernel memory they take.
 *   kconns N   (run in a fresh netns)
 * prints {"connections":N,"setup_s":..,"bytes_per_end":..,"slab_delta_bytes":..}.
 * A process may hold fewer descriptors than 2N (the hard limit here is
 * 20000 and raising it needs CAP_SYS_RESOURCE), so children hold chunks
 * of the connections, set up one after another.
 * Memory is the growth of the kernel's slab (sockets, files, inodes) over
 * the setup, shared with whatever else the machine does meanwhile: the
 * suite repeats it and reports the spread. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NPORTS 8 /* 8 listeners: 8 x the ephemeral range of client ports */
#define BATCH  1000

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Slab: in /proc/meminfo, in bytes; -1 when unreadable. */
static long long slab_bytes(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	char line[256];
	long long kb = -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

static int ls[NPORTS];

/* Sets up connections [from, to) (both ends in this process); 0 or -1. */
static int open_chunk(long from, long to, int *fds)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	long m = to - from, opened = 0, accepted = 0;
	while (accepted < m) {
		long target = opened + BATCH < m ? opened + BATCH : m;
		for (; opened < target; opened++) {
			int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
			sa.sin_port = htons((uint16_t)(17000 + (from + opened) % NPORTS));
			if (fd < 0 || (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
				       errno != EINPROGRESS)) {
				fprintf(stderr, "kconns: connection %ld: %s\n", from + opened,
					strerror(errno));
				return -1;
			}
			fds[opened] = fd;
		}
		/* loopback completes the handshake inside connect: accept them */
		for (int spins = 0; accepted < opened && spins < 100000; spins++)
			for (int p = 0; p < NPORTS; p++) {
				int c;
				while ((c = accept4(ls[p], NULL, NULL, SOCK_NONBLOCK)) >= 0)
					fds[m + accepted++] = c;
			}
		if (accepted < opened) {
			fprintf(stderr, "kconns: %ld of %ld accepted\n", accepted, opened);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc == 2 ? strtol(argv[1], NULL, 10) : 0;
	if (n < 1 || n > 400000) {
		fprintf(stderr, "usage: kconns N (1..400000)\n");
		return 2;
	}
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max; /* the soft limit up to the hard one */
	setrlimit(RLIMIT_NOFILE, &rl);
	long chunk = ((long)rl.rlim_cur - 64) / 2;
	if (chunk < 1000) {
		fprintf(stderr, "kconns: %ld descriptors a process: too few\n", (long)rl.rlim_cur);
		return 1;
	}
	int one = 1;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	for (int p = 0; p < NPORTS; p++) {
		ls[p] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		setsockopt(ls[p], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sa.sin_port = htons((uint16_t)(17000 + p));
		if (ls[p] < 0 || bind(ls[p], (struct sockaddr *)&sa, sizeof(sa)) ||
		    listen(ls[p], 4096)) {
			fprintf(stderr, "kconns: listen on 127.0.0.1:%d: %s\n", 17000 + p,
				strerror(errno));
			return 1;
		}
	}
	int *fds = malloc(2 * (size_t)chunk * sizeof(int));
	int hold[2]; /* children keep their connections until this closes */
	if (!fds || pipe(hold)) {
		fprintf(stderr, "kconns: out of memory\n");
		return 1;
	}
	long long m0 = slab_bytes();
	double t0 = now_s();
	int status = 0, nkids = 0;
	for (long from = 0; from < n && !status; from += chunk) {
		long to = from + chunk < n ? from + chunk : n;
		int ready[2];
		if (pipe(ready)) {
			status = 1;
			break;
		}
		pid_t pid = fork();
		if (pid == 0) {
			close(hold[1]);
			close(ready[0]);
			char ok = open_chunk(from, to, fds) ? 'n' : 'y', c;
			if (write(ready[1], &ok, 1) != 1 || ok != 'y')
				_exit(1);
			while (read(hold[0], &c, 1) > 0)
				;
			_exit(0);
		}
		close(ready[1]);
		char ok = 'n';
		if (pid < 0 || read(ready[0], &ok, 1) != 1 || ok != 'y')
			status = 1;
		close(ready[0]);
		nkids += pid > 0;
	}
	double setup = now_s() - t0;
	long long m1 = slab_bytes();
	close(hold[1]);
	while (nkids-- > 0)
		wait(NULL);
	if (status)
		return 1;
	if (m0 < 0 || m1 < 0) {
		fprintf(stderr, "kconns: no Slab line in /proc/meminfo\n");
		return 1;
	}
	long long d = m1 - m0;
	printf("{\"connections\":%ld,\"setup_s\":%.3f,\"setup_per_s\":%.0f,"
	       "\"slab_delta_bytes\":%lld,\"bytes_per_end\":%.0f}\n",
	       n, setup, (double)n / setup, d, (double)d / (2.0 * (double)n));
	return 0;
}
