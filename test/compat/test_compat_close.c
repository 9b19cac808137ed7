/* Run-time differences the kernel showed for the same program (docs/sockops.md
 * §8), on two stacks in the simulation with progs/close_counts.c on both:
 * bytes_acked counts the SYN and the FIN (N + 2 on the sender, 1 on the
 * receive-only side), bytes_received the FIN (N + 1), through the context and
 * bpf_tcp_sock() alike; a listener that turned on STATE_CB at TCP_LISTEN_CB
 * sees LISTEN → CLOSE; TCP_WINDOW_CLAMP 9216 at TCP_CONNECT_CB makes the SYN
 * offer window scale 0 (tcp_select_initial_window), 7 without. */
#include <time.h>

#include "compat_sim.h"

#define N_BYTES 27019u /* the kernel comparison's transfer */

struct close_counts {
	uint64_t bytes_acked, bytes_received, tp_bytes_acked, tp_bytes_received;
	uint32_t closes, old_state, data_segs_in, data_segs_out;
};

static int fails;

#define EXPECT(cond, ...)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("compat_close: FAIL %s: ", #cond);                                  \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			fails++;                                                                   \
		}                                                                                  \
	} while (0)

static void run(uint32_t clamp, uint8_t want_ws)
{
	struct compat_env e;
	compat_env_init(&e, "compat_close");
	struct bpfvm_obj *obj = compat_attach(&e, "close_counts", "/");
	uint32_t k0 = 0;
	bpfvm_map_update(bpfvm_obj_map_by_name(obj, "cfg"), &k0, &clamp, BPFVM_ANY);

	struct sim s;
	const char *fail = NULL;
	if (sim_create_hooks(&s, "compat_close", 1, NULL, 8, 262144, false, e.tree, e.hk) < 0)
		fail = "sim setup";
	int l = -1, a = -1, c = -1;
	uint32_t sent = 0, rcvd = 0;
	bool a_eof = false, c_eof = false, a_closed = false, c_closed = false;
	struct skops_tcp_info ia, ic;
	memset(&ia, 0, sizeof(ia));
	memset(&ic, 0, sizeof(ic));
	if (!fail) {
		l = skops_socket(s.b, AF_INET, SOCK_STREAM);
		struct sockaddr_in sb = sim_sin(0, 5003);
		skops_bind(s.b, l, (struct sockaddr *)&sb, sizeof(sb));
		skops_listen(s.b, l, 8);
		c = skops_socket(s.a, AF_INET, SOCK_STREAM);
		struct sockaddr_in to = sim_sin(s.b4, 5003);
		if (skops_connect(s.a, c, (struct sockaddr *)&to, sizeof(to)) != -EINPROGRESS)
			fail = "connect";
	}
	uint8_t buf[4096];
	memset(buf, 0x5a, sizeof(buf));
	clock_t c0 = clock();
	for (uint64_t steps = 0; !fail; steps++) {
		if (a < 0) {
			a = skops_accept(s.b, l, NULL, NULL);
			if (a >= 0)
				skops_tcp_info(s.b, a, &ia);
			if (a < -1)
				a = -1;
		}
		if (sent == 0 && (skops_events(s.a, c) & SKOPS_EV_OUT))
			skops_tcp_info(s.a, c, &ic);
		while (sent < N_BYTES) {
			uint32_t n = N_BYTES - sent < sizeof(buf) ? N_BYTES - sent : sizeof(buf);
			ssize_t w = skops_send(s.a, c, buf, n, 0);
			if (w <= 0)
				break;
			sent += (uint32_t)w;
			if (sent == N_BYTES)
				skops_shutdown(s.a, c, SHUT_WR);
		}
		for (ssize_t r;
		     a >= 0 && !a_eof && (r = skops_recv(s.b, a, buf, sizeof(buf), 0)) >= 0;) {
			if (r == 0)
				a_eof = true;
			rcvd += (uint32_t)r;
			if (r == 0)
				break;
		}
		if (a_eof && !a_closed) {
			skops_close(s.b, a); /* receive-only side: FIN after the peer's */
			a_closed = true;
		}
		if (!c_eof && skops_recv(s.a, c, buf, sizeof(buf), 0) == 0)
			c_eof = true;
		if (c_eof && !c_closed) {
			skops_close(s.a, c);
			c_closed = true;
		}
		if (a_closed && c_closed && l >= 0 && !sim_step(&s)) {
			skops_close(s.b, l); /* the listener last */
			l = -1;
			continue;
		}
		if (l < 0)
			break;
		if (!a_closed || !c_closed)
			sim_step(&s);
		if (steps > 2000000ull || (double)(clock() - c0) / CLOCKS_PER_SEC > 60.0)
			fail = "step or wall-clock limit";
	}
	for (int i = 0; i < 1000 && !fail && sim_step(&s); i++)
		;
	EXPECT(!fail, "%s", fail ? fail : "");
	EXPECT(rcvd == N_BYTES, "received %u of %u", rcvd, N_BYTES);

	struct bpfvm_map *m = bpfvm_obj_map_by_name(obj, "counts");
	struct close_counts *v[3];
	for (uint32_t k = 0; k < 3; k++)
		v[k] = bpfvm_map_lookup(m, &k);
	printf("compat_close: clamp %u: sender acked %llu received %llu (%u closes), "
	       "receiver acked %llu received %llu (%u), listener closes %u old %u, "
	       "SYN wscale %u (peer saw %u)\n",
	       clamp, (unsigned long long)v[0]->bytes_acked,
	       (unsigned long long)v[0]->bytes_received, v[0]->closes,
	       (unsigned long long)v[1]->bytes_acked, (unsigned long long)v[1]->bytes_received,
	       v[1]->closes, v[2]->closes, v[2]->old_state, ic.rcv_wscale, ia.snd_wscale);
	EXPECT(v[0]->closes == 1, "sender STATE_CB to CLOSE %u times", v[0]->closes);
	EXPECT(v[1]->closes == 1, "receiver STATE_CB to CLOSE %u times", v[1]->closes);
	EXPECT(v[0]->bytes_acked == N_BYTES + 2, "sender bytes_acked %llu",
	       (unsigned long long)v[0]->bytes_acked);
	EXPECT(v[0]->tp_bytes_acked == N_BYTES + 2, "sender tcp_sock bytes_acked %llu",
	       (unsigned long long)v[0]->tp_bytes_acked);
	EXPECT(v[0]->bytes_received == 1, "sender bytes_received %llu",
	       (unsigned long long)v[0]->bytes_received);
	EXPECT(v[1]->bytes_acked == 1, "receiver bytes_acked %llu",
	       (unsigned long long)v[1]->bytes_acked);
	EXPECT(v[1]->bytes_received == N_BYTES + 1, "receiver bytes_received %llu",
	       (unsigned long long)v[1]->bytes_received);
	EXPECT(v[1]->tp_bytes_received == N_BYTES + 1, "receiver tcp_sock bytes_received %llu",
	       (unsigned long long)v[1]->tp_bytes_received);
	EXPECT(v[2]->closes == 1 && v[2]->old_state == 10, "listener closes %u, old state %u",
	       v[2]->closes, v[2]->old_state);
	EXPECT(ic.rcv_wscale == want_ws && ia.snd_wscale == want_ws,
	       "SYN window scale %u, peer saw %u, want %u", ic.rcv_wscale, ia.snd_wscale, want_ws);

	if (!fail || s.a)
		sim_destroy(&s, false);
	bpfvm_obj_close(obj);
	compat_env_fini(&e);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	sim_eal_init("compat_close");
	run(0, 7);
	run(9216, 0);
	rte_eal_cleanup();
	return fails ? EXIT_FAILURE : EXIT_SUCCESS;
}
