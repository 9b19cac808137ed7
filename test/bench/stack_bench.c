/* stack_bench: the stack's cost in the simulation (two stacks, in-memory
 * wire, manual clock): memory per idle established connection (N
 * connections, default 100000), connection setup rate, and bulk transfer
 * CPU cost per byte (no device beyond the in-memory wire). JSON on stdout.
 * Usage: stack_bench [connections] [bulk MiB]. A benchmark, not a test. */
#include <malloc.h>
#include <time.h>

#include "../sim/sim_harness.h"
#include "stack_int.h"
#include "tcp/tcp_int.h"

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

/* Ring memory held by the connections of a stack right now. */
static uint64_t ring_bytes(struct stack *st)
{
	uint64_t b = 0;
	for (uint32_t i = 0; i < st->tcp->cfg.max_conns; i++) {
		const struct tcb *t = &st->tcp->pool[i];
		if (t->tcp)
			b += t->snd.cap + t->rcv.cap;
	}
	return b;
}

#define NPORTS 8

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 100000;
	uint64_t bulk = (argc > 2 ? strtoull(argv[2], NULL, 0) : 64) << 20;
	if (n == 0 || n > 200000) {
		fprintf(stderr, "stack_bench: connections must be 1..200000\n");
		return 2;
	}
	sim_eal_init("stack_bench");
	struct sim s;
	size_t h0 = heap_used();
	if (sim_create(&s, "bench", 1, NULL, n + 16, 0, false) < 0) {
		fprintf(stderr, "stack_bench: setup failed\n");
		return 1;
	}
	size_t h1 = heap_used();
	int ls[NPORTS];
	for (int p = 0; p < NPORTS; p++) {
		ls[p] = skops_socket(s.b, AF_INET, SOCK_STREAM);
		struct sockaddr_in sb = sim_sin(0, (uint16_t)(6000 + p));
		skops_bind(s.b, ls[p], (struct sockaddr *)&sb, sizeof(sb));
		skops_listen(s.b, ls[p], 4096);
	}
	/* ---- connection setup ---- */
	double w0 = wall_s(), c0 = cpu_s();
	uint32_t opened = 0, accepted = 0;
	const uint32_t batch = 2000;
	while (accepted < n) {
		uint32_t target = opened + batch < n ? opened + batch : n;
		for (; opened < target; opened++) {
			int sd = skops_socket(s.a, AF_INET, SOCK_STREAM);
			struct sockaddr_in to = sim_sin(s.b4, (uint16_t)(6000 + opened % NPORTS));
			if (sd < 0 || skops_connect(s.a, sd, (struct sockaddr *)&to, sizeof(to)) !=
					  -EINPROGRESS) {
				fprintf(stderr, "stack_bench: connect %u failed\n", opened);
				return 1;
			}
		}
		for (int guard = 0; guard < 200000 && accepted < opened; guard++) {
			for (int p = 0; p < NPORTS; p++)
				while (skops_accept(s.b, ls[p], NULL, NULL) >= 0)
					accepted++;
			if (!sim_step(&s))
				break;
		}
		if (accepted < opened) {
			fprintf(stderr, "stack_bench: only %u of %u accepted\n", accepted, opened);
			return 1;
		}
	}
	/* let the last ACKs and timers settle */
	for (int i = 0; i < 100; i++)
		stack_poll(s.a), stack_poll(s.b);
	double setup_wall = wall_s() - w0, setup_cpu = cpu_s() - c0;
	size_t h2 = heap_used();
	uint64_t rings = ring_bytes(s.a) + ring_bytes(s.b);
	uint32_t conns = tcp_conn_count(s.a->tcp) + tcp_conn_count(s.b->tcp) - NPORTS;
	double tcb_b = (double)sizeof(struct tcb);
	double hash_b = (double)((s.a->tcp->ht_mask + 1) * sizeof(void *)) / (n + 16);
	double sock_b = (double)sizeof(struct skops_sock);
	double per_conn = tcb_b + hash_b + sock_b + (double)rings / conns;
	printf("{\n  \"connections\": %u,\n  \"established_tcbs\": %u,\n", n, conns);
	printf("  \"bytes_per_idle_connection\": %.0f,\n", per_conn);
	printf("  \"breakdown\": {\"tcb\": %.0f, \"hash_slots\": %.1f, \"socket\": %.0f, "
	       "\"ring_buffers\": %.1f},\n",
	       tcb_b, hash_b, sock_b, (double)rings / conns);
	printf("  \"heap_growth_during_setup_per_connection\": %.1f,\n",
	       (double)(h2 > h1 ? h2 - h1 : 0) / conns);
	printf("  \"preallocated_heap_bytes\": %zu,\n", h1 - h0);
	printf("  \"setup_rate_conns_per_s\": %.0f,\n  \"setup_cpu_us_per_conn\": %.2f,\n",
	       n / setup_wall, setup_cpu * 1e6 / n);
	sim_destroy(&s, false);

	/* ---- bulk transfer, one direction ---- */
	if (sim_create(&s, "bulk", 2, NULL, 16, 4u << 20, false) < 0)
		return 1;
	int l = skops_socket(s.b, AF_INET, SOCK_STREAM);
	struct sockaddr_in sb = sim_sin(0, 7000);
	skops_bind(s.b, l, (struct sockaddr *)&sb, sizeof(sb));
	skops_listen(s.b, l, 4);
	int a = skops_socket(s.a, AF_INET, SOCK_STREAM);
	int one = 1;
	skops_setsockopt(s.a, a, 6, 1, &one, sizeof(one));
	struct sockaddr_in to = sim_sin(s.b4, 7000);
	skops_connect(s.a, a, (struct sockaddr *)&to, sizeof(to));
	int b = -1;
	static uint8_t buf[65536];
	memset(buf, 0x5a, sizeof(buf));
	uint64_t sent = 0, rcvd = 0, t0 = s.now;
	double bc0 = cpu_s(), bw0 = wall_s();
	for (uint64_t guard = 0; rcvd < bulk && guard < 100000000ull; guard++) {
		if (b < 0)
			b = skops_accept(s.b, l, NULL, NULL);
		while (sent < bulk) {
			ssize_t w = skops_send(
			    s.a, a, buf, bulk - sent < sizeof(buf) ? bulk - sent : sizeof(buf), 0);
			if (w <= 0)
				break;
			sent += (uint64_t)w;
		}
		if (b >= 0)
			for (;;) {
				ssize_t r = skops_recv(s.b, b, buf, sizeof(buf), 0);
				if (r <= 0)
					break;
				rcvd += (uint64_t)r;
			}
		if (!sim_step(&s))
			break;
	}
	double bcpu = cpu_s() - bc0, bwall = wall_s() - bw0;
	printf("  \"bulk_bytes\": %llu,\n  \"bulk_cpu_ns_per_byte\": %.3f,\n",
	       (unsigned long long)rcvd, bcpu * 1e9 / (double)(rcvd ? rcvd : 1));
	printf("  \"bulk_cpu_gbit_per_s\": %.2f,\n  \"bulk_wall_gbit_per_s\": %.2f,\n",
	       (double)rcvd * 8 / bcpu / 1e9, (double)rcvd * 8 / bwall / 1e9);
	printf("  \"bulk_simulated_s\": %.3f\n}\n", (double)(s.now - t0) / 1e9);
	sim_destroy(&s, false);
	rte_eal_cleanup();
	return rcvd == bulk ? 0 : 1;
}
