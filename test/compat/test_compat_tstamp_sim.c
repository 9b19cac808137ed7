/* progs/tstamp_cb.c on two stacks in the simulation: the stack's TSTAMP call
 * points (docs/sockops.md §3). The client writes 1000 bytes at a time and
 * waits for each to be acked, so every write is its own marked byte: it must
 * see SENDMSG, SCHED, SND_SW and ACK once per write, in that order, and no
 * SND_HW. The server's child inherits the listener's SK_BPF_CB_FLAGS (as the
 * 6.18 kernel's did) and its one 3000-byte write is reported the same way.
 * Then one large write, sent in many segments: SCHED = SND_SW, and ACK once
 * per marked byte. */
#include "compat_sim.h"
#include "tstamp_res.h"

#define T      "compat_tstamp_sim"
#define WRITES 5

static void settle(struct sim *s, int rd, uint64_t *rcvd)
{
	for (int i = 0; i < 2000; i++) {
		sim_step(s);
		sim_drain(s->b, rd, rcvd);
	}
}

static void expect(const struct tstamp_res *r, const char *who, uint32_t n)
{
	printf(T ": %s: sendmsg %u marked %u sched %u sw %u hw %u ack %u order_bad %u\n", who,
	       r->n_sendmsg, r->n_marked, r->n_sched, r->n_sw, r->n_hw, r->n_ack, r->order_bad);
	if (r->n_sendmsg != n || r->n_marked != n || r->n_sched != n || r->n_sw != n ||
	    r->n_ack != n || r->n_hw || r->order_bad || r->not_full)
		sim_fail(T, "%s: want %u of each but SND_HW, in order", who, n);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	sim_eal_init(T);
	struct compat_env e;
	compat_env_init(&e, T);
	struct bpfvm_obj *obj = compat_attach(&e, "tstamp_cb", "/");
	struct sim s;
	if (sim_create_hooks(&s, T, 1, NULL, 8, 0, false, e.tree, e.hk) < 0) {
		printf(T ": FAIL: sim setup\n");
		return EXIT_FAILURE;
	}
	int ls, a, b;
	const char *what = "";
	if (sim_connect(&s, 55601, &ls, &a, &b, &what) < 0) {
		printf(T ": FAIL: %s\n", what);
		return EXIT_FAILURE;
	}
	static uint8_t buf[1 << 20];
	uint64_t rcvd_b = 0, rcvd_a = 0;
	settle(&s, b, &rcvd_b);
	for (int i = 0; i < WRITES; i++) {
		if (skops_send(s.a, a, buf, 1000, 0) != 1000)
			sim_fail(T, "write %d", i);
		settle(&s, b, &rcvd_b);
	}
	if (skops_send(s.b, b, buf, 3000, 0) != 3000)
		sim_fail(T, "server write");
	for (int i = 0; i < 2000; i++) {
		sim_step(&s);
		sim_drain(s.a, a, &rcvd_a);
	}
	const struct tstamp_res *ra = tstamp_res_get(obj, 0), *rb = tstamp_res_get(obj, 1);
	expect(ra, "client", WRITES);
	expect(rb, "server", 1);
	if (ra->get0_val != 0 || rb->get0_val != 1 || tstamp_res_get(obj, 2)->set_rc != 0)
		sim_fail(T, "SK_BPF_CB_FLAGS: client read %u, server child %u (want 0, 1)",
			 ra->get0_val, rb->get0_val);
	if (ra->kf_first || ra->kf_flags != -EINVAL || ra->kf_other != -EOPNOTSUPP ||
	    ra->sockopt_ts != -EOPNOTSUPP)
		sim_fail(T, "kfunc %d/%d/%d, setsockopt %d", ra->kf_first, ra->kf_flags,
			 ra->kf_other, ra->sockopt_ts);
	/* one write of 200 kB leaves in many segments: one marked byte */
	ssize_t n = skops_send(s.a, a, buf, 200000, 0);
	for (int i = 0; i < 20000 && rcvd_b < WRITES * 1000u + (uint64_t)(n > 0 ? n : 0); i++) {
		sim_step(&s);
		sim_drain(s.b, b, &rcvd_b);
	}
	settle(&s, b, &rcvd_b);
	printf(T ": bulk write %zd: sched %u sw %u ack %u\n", n, ra->n_sched, ra->n_sw, ra->n_ack);
	if (n <= 0 || ra->n_sched != ra->n_sw || ra->n_ack != WRITES + 1 ||
	    ra->n_sched < WRITES + 1 || ra->n_hw)
		sim_fail(T, "bulk write: want SCHED = SND_SW and %d ACKs", WRITES + 1);
	int fails = sim_report()->fails;
	sim_destroy(&s, false);
	bpfvm_obj_close(obj);
	compat_env_fini(&e);
	rte_eal_cleanup();
	printf(T ": %s\n", fails ? "FAIL" : "ok");
	return fails ? EXIT_FAILURE : EXIT_SUCCESS;
}
