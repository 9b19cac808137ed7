/* soak_app: test_soak's traffic, run under the shim or on the kernel.
 *   soak_app client HOST PORT BYTES SEED CONNS
 *     CONNS connections one after another, each sending BYTES of a stream
 *     drawn from SEED (and the connection's number) to an echo server while
 *     reading the echo back, then a FIN; the echo must equal what was sent
 *     (its FNV-1a hash and its length). Prints "ok CONNS BYTES HASH" and
 *     exits 0, or says what differed and exits 1.
 *   soak_app server PORT CONNS
 *     listens on 0.0.0.0:PORT, prints "listening", and echoes CONNS
 *     connections, each in a forked child (a fork ticket each), then exits
 *     0 once every child has.
 * Every wait is bounded (30 s without progress: exit 3). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define STALL_MS 30000

struct stream {
	uint64_t x;
};

static uint8_t next_byte(struct stream *s)
{
	s->x ^= s->x << 13; /* xorshift64 */
	s->x ^= s->x >> 7;
	s->x ^= s->x << 17;
	return (uint8_t)(s->x >> 32);
}

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* One connection: BYTES out, the echo in, both hashed. 0 when equal. */
static int one_conn(const struct sockaddr_in *sa, uint64_t bytes, uint64_t seed, uint64_t *hash)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (const struct sockaddr *)sa, sizeof(*sa))) {
		fprintf(stderr, "soak_app: connect: %s\n", strerror(errno));
		return 2;
	}
	fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK);
	struct stream tx = {seed | 1}, rx = {seed | 1};
	uint64_t sent = 0, got = 0, htx = 0xcbf29ce484222325ull, hrx = htx;
	uint8_t out[16384], in[16384];
	size_t olen = 0, ooff = 0;
	bool shut = false;
	while (got < bytes || !shut) {
		if (olen == ooff && sent < bytes) {
			olen = sizeof(out) < bytes - sent ? sizeof(out) : bytes - sent;
			for (size_t i = 0; i < olen; i++)
				out[i] = next_byte(&tx);
			htx = fnv(htx, out, olen);
			ooff = 0;
		}
		if (sent == bytes && !shut) {
			shutdown(s, SHUT_WR);
			shut = true;
			continue;
		}
		struct pollfd p = {.fd = s, .events = POLLIN | (ooff < olen ? POLLOUT : 0)};
		int n = poll(&p, 1, STALL_MS);
		if (n == 0) {
			fprintf(stderr, "soak_app: stalled at %llu sent, %llu echoed of %llu\n",
				(unsigned long long)sent, (unsigned long long)got,
				(unsigned long long)bytes);
			return 3;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (p.revents & POLLOUT) {
			ssize_t w = send(s, out + ooff, olen - ooff, MSG_NOSIGNAL);
			if (w < 0 && errno != EAGAIN) {
				fprintf(stderr, "soak_app: send: %s\n", strerror(errno));
				return 2;
			}
			if (w > 0) {
				ooff += (size_t)w;
				sent += (uint64_t)w;
			}
		}
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t r = recv(s, in, sizeof(in), 0);
			if (r < 0 && errno != EAGAIN) {
				fprintf(stderr, "soak_app: recv: %s\n", strerror(errno));
				return 2;
			}
			if (r == 0 && got < bytes) {
				fprintf(stderr, "soak_app: EOF after %llu of %llu echoed bytes\n",
					(unsigned long long)got, (unsigned long long)bytes);
				return 1;
			}
			for (ssize_t i = 0; i < r; i++)
				if (in[i] != next_byte(&rx)) {
					fprintf(stderr, "soak_app: echo differs at byte %llu\n",
						(unsigned long long)(got + (uint64_t)i));
					return 1;
				}
			if (r > 0) {
				hrx = fnv(hrx, in, (size_t)r);
				got += (uint64_t)r;
			}
		}
	}
	/* the echo's FIN after all of it: nothing more may come */
	struct pollfd p = {.fd = s, .events = POLLIN};
	char extra;
	if (poll(&p, 1, STALL_MS) != 1 || recv(s, &extra, 1, 0) != 0) {
		fprintf(stderr, "soak_app: no clean EOF after the echo\n");
		return 1;
	}
	close(s);
	if (htx != hrx) {
		fprintf(stderr, "soak_app: hash %016llx sent, %016llx echoed\n",
			(unsigned long long)htx, (unsigned long long)hrx);
		return 1;
	}
	*hash ^= hrx;
	return 0;
}

static int client(const char *host, int port, uint64_t bytes, uint64_t seed, int conns)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		fprintf(stderr, "soak_app: bad address %s\n", host);
		return 2;
	}
	uint64_t hash = 0;
	for (int i = 0; i < conns; i++) {
		int rc = one_conn(&sa, bytes, seed * 1000003u + (uint64_t)i, &hash);
		if (rc) {
			fprintf(stderr, "soak_app: connection %d of %d failed\n", i + 1, conns);
			return rc;
		}
	}
	printf("ok %d %llu %016llx\n", conns, (unsigned long long)bytes, (unsigned long long)hash);
	return 0;
}

static int echo(int c)
{
	char buf[16384];
	for (;;) {
		struct pollfd p = {.fd = c, .events = POLLIN};
		if (poll(&p, 1, STALL_MS) != 1)
			return 3;
		ssize_t r = recv(c, buf, sizeof(buf), 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (ssize_t off = 0; off < r;) {
			ssize_t w = send(c, buf + off, (size_t)(r - off), MSG_NOSIGNAL);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return 2;
			off += w;
		}
	}
	shutdown(c, SHUT_WR);
	close(c);
	return 0;
}

static int server(int port, int conns)
{
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 64)) {
		fprintf(stderr, "soak_app: listen on %d: %s\n", port, strerror(errno));
		return 2;
	}
	printf("listening\n");
	fflush(stdout);
	int bad = 0;
	for (int i = 0; i < conns; i++) {
		struct pollfd p = {.fd = l, .events = POLLIN};
		if (poll(&p, 1, STALL_MS) != 1) {
			fprintf(stderr, "soak_app: no connection %d of %d\n", i + 1, conns);
			return 3;
		}
		int c = accept(l, NULL, NULL);
		if (c < 0) {
			fprintf(stderr, "soak_app: accept: %s\n", strerror(errno));
			return 2;
		}
		pid_t pid = fork();
		if (pid == 0) {
			close(l);
			_exit(echo(c));
		}
		close(c);
		if (pid < 0)
			bad = 2;
	}
	close(l);
	int st;
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	if (!bad)
		printf("served %d\n", conns);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc == 7 && !strcmp(argv[1], "client"))
		return client(argv[2], atoi(argv[3]), strtoull(argv[4], NULL, 0),
			      strtoull(argv[5], NULL, 0), atoi(argv[6]));
	if (argc == 4 && !strcmp(argv[1], "server"))
		return server(atoi(argv[2]), atoi(argv[3]));
	fprintf(stderr, "usage: soak_app client HOST PORT BYTES SEED CONNS\n"
			"       soak_app server PORT CONNS\n");
	return 2;
}
