/* libFuzzer target for skopsd's ring reader: what a hostile app can write
 * into a socket's shared memory (ring indices, record headers, payload
 * bytes) while the daemon pumps it between the rings and the stack
 * (dsock_pump, dgram_pump). One simulated pair of stacks for the whole run
 * (test/sim/sim_harness.h); per input a connected TCP or UDP socket of
 * skopsd's on stack a, the input applied as app writes between pumps, then
 * the app's close. Whatever the app writes: no crash, no sanitizer report,
 * nothing read or written outside the rings, no hang.
 *
 * Input: byte 0 (bit 0: a UDP socket), then records of 9 bytes [op][a u32]
 * [b u32]: op % 6: 0 tx.head = a, 1 rx.tail = a, 2 four bytes b into txbuf
 * at a, 3 pump (a % 8 + 1) rounds, 4 tx.head += a % 70000 (a record-sized
 * publish), 5 rcvbuf = a, want = b. */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/mman.h>

#include "../sim/sim_harness.h"
#include "skopsd.h"

static struct sim S;
static struct skopsd D;
static struct client CL = {.pid = 1, .pidfd = -1};
static int tcp_l, udp_b;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sim_eal_init("fuzz_skopsd_ring");
	if (sim_create(&S, "fuzzring", 7, NULL, 64, 0, false)) {
		fprintf(stderr, "fuzz_skopsd_ring: no simulated stacks\n");
		exit(1);
	}
	D.st = S.a;
	tcp_l = skops_socket(S.b, AF_INET, SOCK_STREAM);
	udp_b = skops_socket(S.b, AF_INET, SOCK_DGRAM);
	struct sockaddr_in t = sim_sin(S.b4, 7000), u = sim_sin(S.b4, 7001);
	if (skops_bind(S.b, tcp_l, (struct sockaddr *)&t, sizeof(t)) ||
	    skops_listen(S.b, tcp_l, 8) ||
	    skops_bind(S.b, udp_b, (struct sockaddr *)&u, sizeof(u))) {
		fprintf(stderr, "fuzz_skopsd_ring: peer sockets\n");
		exit(1);
	}
	return 0;
}

/* the peer side: accept, read and answer whatever comes */
static void peer_work(void)
{
	static uint8_t buf[65536];
	static int conns[8];
	static unsigned nconn;
	int c = skops_accept(S.b, tcp_l, NULL, NULL);
	if (c >= 0) {
		if (nconn == 8)
			skops_abort(S.b, conns[--nconn]);
		conns[nconn++] = c;
	}
	for (unsigned i = 0; i < nconn; i++) {
		ssize_t r = skops_recv(S.b, conns[i], buf, sizeof(buf), 0);
		if (r > 0)
			skops_send(S.b, conns[i], buf, (size_t)r, 0);
		if (r == 0 || (r < 0 && r != -EAGAIN)) {
			skops_close(S.b, conns[i]);
			conns[i--] = conns[--nconn];
		}
	}
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	ssize_t r = skops_recvfrom(S.b, udp_b, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
	if (r >= 0)
		skops_sendto(S.b, udp_b, buf, (size_t)r, 0, (struct sockaddr *)&from, fl);
}

static void rounds(unsigned id, int n)
{
	for (int i = 0; i < n; i++) {
		if (D.socks[id])
			dsock_pump(&D, id);
		peer_work();
		sim_step(&S);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	bool dg = data[0] & 1;
	int sd = skops_socket(S.a, AF_INET, dg ? SOCK_DGRAM : SOCK_STREAM);
	if (sd < 0)
		return 0;
	int memfd;
	int rc = dsock_create(&D, &CL, sd, AF_INET, &memfd);
	if (rc < 0) {
		skops_close(S.a, sd);
		return 0;
	}
	unsigned id =
	    (unsigned)rc; /* memfd is the daemon's own (s->mfd), kept or pooled at the free */
	struct dsock *s = D.socks[id];
	s->dgram = dg;
	s->started = true;
	struct sockaddr_in to = sim_sin(S.b4, dg ? 7001 : 7000);
	skops_connect(S.a, sd, (struct sockaddr *)&to, sizeof(to));
	if (dg)
		atomic_fetch_or(&s->shm->state, SKP_ST_CONNECTED);
	rounds(id, 20);
	struct skp_shm *m = s->shm; /* the app's view: a mapping of the same memory */
	for (size_t off = 1; off + 9 <= size && D.socks[id]; off += 9) {
		uint32_t a, b;
		memcpy(&a, data + off + 1, 4);
		memcpy(&b, data + off + 5, 4);
		switch (data[off] % 6) {
		case 0:
			atomic_store(&m->tx.head, a);
			break;
		case 1:
			atomic_store(&m->rx.tail, a);
			break;
		case 2:
			skp_ring_write(m->txbuf, a, &b, sizeof(b));
			break;
		case 3:
			rounds(id, (int)(a % 8) + 1);
			break;
		case 4:
			atomic_store(&m->tx.head, atomic_load(&m->tx.head) + a % 70000);
			break;
		case 5:
			atomic_store(&m->rcvbuf, a);
			atomic_store(&m->want, b);
			break;
		}
		if (D.socks[id])
			dsock_pump(&D, id);
	}
	/* the app closes: a TCP close flushes at most 10 s (the sim's clock) */
	if (D.socks[id] && !dsock_release(D.socks[id], &CL, id))
		dsock_close(&D, id);
	for (int i = 0; i < 2000 && D.socks[id]; i++) {
		dsock_pump(&D, id);
		peer_work();
		if (!sim_step(&S))
			S.now += 100000000ull;
	}
	if (D.socks[id])
		dsock_abort(&D, id);
	return 0;
}
