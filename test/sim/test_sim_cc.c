/* Congestion control on scripted paths, two whole stacks in the simulation:
 * - cubic_curve: one scripted loss on a 100 ms path; after recovery cwnd
 *   follows RFC 9438's W_cubic(t) = C (t - K)^3 + W_max between W_cubic(t)
 *   and W_cubic(t + RTT) (Linux's integer curve, which cubic runs, aims one
 *   minimum RTT ahead), within CURVE_TOL segments; ssthresh is beta_cubic ×
 *   W_max.
 * - hystart: a 100 Mbit/s bottleneck with a deep queue: cubic's HyStart
 *   (Linux's ACK-train and delay exits) and cubic_rfc's HyStart++ (RFC 9406)
 *   leave slow start with nothing lost and no lower than the path's BDP,
 *   where Reno's slow start on the same path runs into loss.
 * - dctcp_threshold: a bottleneck marking CE above a queueing threshold:
 *   DCTCP's alpha averages to the fraction of ECT frames the path marked
 *   (RFC 8257 §3.3), nothing is lost.
 * - dctcp_random: 10 % random marking: alpha averages to 0.1.
 * - dctcp_program: a sock_ops program shaped like the seed tcp_cong sample
 *   (NEEDS_ECN 1, TCP_CONGESTION "dctcp" from the established callbacks)
 *   on stacks that default to cubic: both ends run DCTCP with ECN.
 * Tolerances are stated where they are checked. */
#include <math.h>
#include <time.h>

#include "../unit/hooks/hk_insn.h"
#include "bpfvm.h"
#include "cgroup.h"
#include "hooks.h"
#include "sim_harness.h"

#define MS	   1000000ull
#define PORT	   5003
#define CUBIC_C	   0.4
#define CUBIC_BETA (717.0 / 1024.0)
#define CURVE_TOL  3.0 /* segments: see cubic_curve */

struct flow {
	struct sim s;
	int ls, a, b;
	uint64_t rcvd;
};

static void pump(struct flow *fl)
{
	static uint8_t buf[65536];
	for (int i = 0; i < 64; i++)
		if (skops_send(fl->s.a, fl->a, buf, sizeof(buf), 0) <= 0)
			break;
	if (fl->b < 0)
		return;
	sim_drain(fl->s.b, fl->b, &fl->rcvd);
}

static bool step(struct flow *fl)
{
	pump(fl);
	return sim_step(&fl->s);
}

static void info(struct flow *fl, bool client, struct skops_tcp_info *ti)
{
	memset(ti, 0, sizeof(*ti));
	if (client)
		skops_tcp_info(fl->s.a, fl->a, ti);
	else if (fl->b >= 0)
		skops_tcp_info(fl->s.b, fl->b, ti);
}

/* bufsz: both ends' buffers, room for the largest window the test reaches
 * (the rings are allocated whole, so no bigger than needed). */
static int flow_open(struct flow *fl, const char *tag, uint64_t seed,
		     const struct dev_fault_config *f, uint32_t bufsz, const char *cc,
		     struct cg_tree *tree, struct hooks *hk)
{
	memset(fl, 0, sizeof(*fl));
	fl->b = -1;
	if (sim_create_cc(&fl->s, tag, seed, f, 8, bufsz, false, tree, hk, cc) < 0) {
		sim_fail(tag, "sim setup");
		return -1;
	}
	const char *why;
	if (sim_connect(&fl->s, PORT, &fl->ls, &fl->a, &fl->b, &why) < 0) {
		sim_fail(tag, "%s", why);
		return -1;
	}
	return 0;
}

/* Runs the bulk transfer until cond or the sim clock passes until_ns. */
static bool run_until(struct flow *fl, uint64_t until_ns, bool (*cond)(struct flow *, void *),
		      void *arg)
{
	while (fl->s.now < until_ns) {
		if (cond && cond(fl, arg))
			return true;
		if (!step(fl))
			return false;
	}
	return cond == NULL;
}

/* ---- cubic_curve ---- */

static bool cwnd_at_least(struct flow *fl, void *arg)
{
	struct skops_tcp_info ti;
	info(fl, true, &ti);
	return ti.cwnd >= *(uint32_t *)arg;
}

/* Recovery from the scripted loss is over once everything sent before it
 * began (its RecoveryPoint, RFC 6675 §5 / RFC 6582) is acknowledged: the
 * window is back at ssthresh and the curve's epoch begins. */
struct rec_point {
	uint64_t point;
	bool have;
};

static bool recovered(struct flow *fl, void *arg)
{
	struct rec_point *rp = arg;
	struct skops_tcp_info ti;
	info(fl, true, &ti);
	if (!rp->have && ti.total_retrans) {
		rp->point = ti.bytes_sent;
		rp->have = true;
	}
	return rp->have && ti.bytes_acked >= rp->point;
}

static double w_cubic(double t, double k, double w_max)
{
	return CUBIC_C * (t - k) * (t - k) * (t - k) + w_max;
}

static void cubic_curve(void)
{
	const char *T = "cubic_curve";
	/* one way: 1 ms wire + 49 ms fault = 50 ms, RTT 100 ms, no bottleneck:
	 * the window is limited by cwnd alone */
	struct dev_fault_config f = {.delay_ns = 49 * MS, .queue_len = 65536};
	struct flow fl;
	if (flow_open(&fl, T, 11, &f, 2u << 20, NULL, NULL, NULL) < 0)
		return;
	uint32_t at = 160;
	if (!run_until(&fl, fl.s.now + 30000 * MS, cwnd_at_least, &at)) {
		sim_fail(T, "slow start never reached cwnd %u", at);
		goto out;
	}
	dev_fault_drop_next(fl.s.fa, 1);
	struct rec_point rp = {0};
	if (!run_until(&fl, fl.s.now + 10000 * MS, recovered, &rp)) {
		sim_fail(T, "no recovery from the scripted loss");
		goto out;
	}
	struct skops_tcp_info ti;
	info(&fl, true, &ti);
	uint64_t t0 = fl.s.now;
	double w_max = ti.max_cwnd, s = ti.ssthresh;
	uint32_t want_s = (uint32_t)(ti.max_cwnd * 717u / 1024u);
	if (ti.ssthresh != want_s)
		sim_fail(T, "ssthresh %u after W_max %u, want %u (beta 717/1024)", ti.ssthresh,
			 ti.max_cwnd, want_s);
	if (strcmp(ti.cc, "cubic"))
		sim_fail(T, "cc %s, want the default cubic", ti.cc);
	double k = cbrt((w_max - s) / CUBIC_C);
	double rtt = 0.1;
	/* Sample every 25 ms up to K + 1.5 s (concave, plateau, convex). cwnd
	 * moves in whole segments and is ACK-clocked: CURVE_TOL allows for a
	 * segment of rounding each side and the increments an RTT's ACKs
	 * bring at once. */
	double worst = 0, worst_t = 0;
	unsigned n = 0;
	for (double t = 0.025; t < k + 1.5; t += 0.025) {
		if (!run_until(&fl, t0 + (uint64_t)(t * 1e9), NULL, NULL))
			break;
		info(&fl, true, &ti);
		double lo = w_cubic(t, k, w_max), hi = w_cubic(t + rtt, k, w_max);
		double e = ti.cwnd < lo ? lo - ti.cwnd : ti.cwnd > hi ? ti.cwnd - hi : 0;
		if (e > worst) {
			worst = e;
			worst_t = t;
		}
		n++;
	}
	info(&fl, true, &ti);
	printf("sim_cc: %s: W_max %.0f ssthresh %.0f K %.3f s, %u samples, worst %.2f segments "
	       "off [W(t), W(t+RTT)] at t %.3f s, cwnd at end %u, retrans %u\n",
	       T, w_max, s, k, n, worst, worst_t, ti.cwnd, ti.total_retrans);
	if (n < 100)
		sim_fail(T, "only %u samples", n);
	if (worst > CURVE_TOL)
		sim_fail(T, "cwnd %.2f segments off the curve at t = %.3f s (tolerance %.1f)",
			 worst, worst_t, CURVE_TOL);
	if (ti.total_retrans != 1)
		sim_fail(T, "%u retransmissions, want the one scripted loss", ti.total_retrans);
	if (ti.cwnd <= w_max)
		sim_fail(T, "cwnd %u never passed W_max %.0f (the convex region)", ti.cwnd, w_max);
out:
	sim_destroy(&fl.s, false);
}

/* ---- hystart ---- */

static bool ss_over(struct flow *fl, void *arg)
{
	(void)arg;
	struct skops_tcp_info ti;
	info(fl, true, &ti);
	return ti.ssthresh < (1u << 30) || ti.total_retrans;
}

/* Slow start on a 100 Mbit/s, 20 ms path with a queue of about 2000 frames
 * (BDP 172 segments), all of it in the bottleneck device: the stack's own
 * transmit queue (1024 frames) used to overflow into losses behind a
 * device queue of 1000 and so made the rest; it now waits there instead
 * (tcp_outq.c) and the device tail-drops. Returns the client's tcp_info
 * when slow start ended. */
static int slow_start_exit(const char *T, const char *cc, struct skops_tcp_info *ti)
{
	struct dev_fault_config f = {.delay_ns = 9 * MS, .rate_bps = 100000000, .queue_len = 2000};
	struct flow fl;
	if (flow_open(&fl, T, 12, &f, 8u << 20, cc, NULL, NULL) < 0)
		return -1;
	bool over = run_until(&fl, fl.s.now + 20000 * MS, ss_over, NULL);
	info(&fl, true, ti);
	sim_destroy(&fl.s, false);
	if (!over) {
		sim_fail(T, "%s: slow start did not end in 20 s", cc);
		return -1;
	}
	return 0;
}

static void hystart(void)
{
	const char *T = "hystart";
	struct skops_tcp_info c, f, r;
	if (slow_start_exit(T, "cubic", &c) < 0 || slow_start_exit(T, "cubic_rfc", &f) < 0 ||
	    slow_start_exit(T, "reno", &r) < 0)
		return;
	printf("sim_cc: %s: cubic left slow start at cwnd %u ssthresh %u srtt %u us with %u "
	       "retransmissions; cubic_rfc at cwnd %u ssthresh %u with %u; reno at cwnd %u "
	       "with %u\n",
	       T, c.cwnd, c.ssthresh, c.srtt_us, c.total_retrans, f.cwnd, f.ssthresh,
	       f.total_retrans, r.cwnd, r.total_retrans);
	const struct skops_tcp_info *hs[] = {&c, &f};
	for (int i = 0; i < 2; i++) {
		const char *name = i ? "cubic_rfc" : "cubic";
		if (hs[i]->total_retrans)
			sim_fail(T, "%s left slow start by loss (%u retransmissions)", name,
				 hs[i]->total_retrans);
		if (hs[i]->ssthresh < 172)
			sim_fail(T, "%s: ssthresh %u below the path's BDP of 172 segments", name,
				 hs[i]->ssthresh);
	}
	if (!r.total_retrans)
		sim_fail(
		    T, "control: reno left slow start without loss; the path does not test delay");
}

/* ---- DCTCP ---- */

struct alpha_avg {
	double sum;
	unsigned n;
};

/* Averages the client's alpha every 2 ms over [from, until); returns the
 * fraction of ECT frames the client's side of the path marked meanwhile. */
static double alpha_over(struct flow *fl, uint64_t from, uint64_t until, struct alpha_avg *av)
{
	run_until(fl, from, NULL, NULL);
	struct dev_fault_stats s0, s1;
	dev_fault_stats(fl->s.fa, &s0);
	for (uint64_t t = from; t < until; t += 2 * MS) {
		run_until(fl, t, NULL, NULL);
		struct skops_tcp_info ti;
		info(fl, true, &ti);
		if (ti.dctcp_alpha < 0)
			break;
		av->sum += ti.dctcp_alpha / 1024.0;
		av->n++;
	}
	dev_fault_stats(fl->s.fa, &s1);
	uint64_t ect = s1.ect - s0.ect;
	return ect ? (double)(s1.ce_marked - s0.ce_marked) / (double)ect : 0;
}

static void dctcp_check(const char *T, struct flow *fl, double tol, double want_f)
{
	struct alpha_avg av = {0};
	uint64_t t0 = fl->s.now;
	double f = alpha_over(fl, t0 + 1000 * MS, t0 + 4000 * MS, &av);
	struct skops_tcp_info ca, cb;
	info(fl, true, &ca);
	info(fl, false, &cb);
	double mean = av.n ? av.sum / av.n : -1;
	printf("sim_cc: %s: cc %s/%s ecn %#x/%#x, marked fraction %.4f, mean alpha %.4f over %u "
	       "samples, cwnd %u, retrans %u, %.1f MB moved\n",
	       T, ca.cc, cb.cc, ca.ecn, cb.ecn, f, mean, av.n, ca.cwnd, ca.total_retrans,
	       fl->rcvd / 1e6);
	if (strcmp(ca.cc, "dctcp") || strcmp(cb.cc, "dctcp"))
		sim_fail(T, "cc %s/%s, want dctcp at both ends", ca.cc, cb.cc);
	if (!(ca.ecn & 1) || !(cb.ecn & 1))
		sim_fail(T, "ECN not negotiated");
	if (av.n < 1000)
		sim_fail(T, "%u alpha samples", av.n);
	if (want_f >= 0 && fabs(f - want_f) > 0.02)
		sim_fail(T, "the path marked %.4f of ECT frames, configured %.2f", f, want_f);
	if (f <= 0)
		sim_fail(T, "nothing was marked");
	if (fabs(mean - f) > tol)
		sim_fail(T, "mean alpha %.4f vs marked fraction %.4f (tolerance %.2f)", mean, f,
			 tol);
	if (ca.total_retrans)
		sim_fail(T, "%u retransmissions: marking alone should control the queue",
			 ca.total_retrans);
}

static void dctcp_threshold(void)
{
	const char *T = "dctcp_threshold";
	/* 100 Mbit/s, base RTT 4 ms (BDP 34 segments), CE above 0.5 ms of
	 * queueing (about 4 frames): RFC 8257 §4's K for this BDP. */
	struct dev_fault_config f = {.delay_ns = 1 * MS,
				     .rate_bps = 100000000,
				     .ce_threshold_ns = MS / 2,
				     .queue_len = 4096};
	struct flow fl;
	if (flow_open(&fl, T, 13, &f, 1u << 20, "dctcp", NULL, NULL) < 0)
		return;
	/* alpha is an EWMA (g = 1/16) of each window's marked fraction: its
	 * mean matches the path's fraction to within the per-window noise. */
	dctcp_check(T, &fl, 0.05, -1);
	sim_destroy(&fl.s, false);
}

static void dctcp_random(void)
{
	const char *T = "dctcp_random";
	struct dev_fault_config f = {.delay_ns = 1 * MS, .ce_ppm = 100000, .queue_len = 65536};
	struct flow fl;
	if (flow_open(&fl, T, 14, &f, 1u << 20, "dctcp", NULL, NULL) < 0)
		return;
	dctcp_check(T, &fl, 0.03, 0.10);
	sim_destroy(&fl.s, false);
}

/* The seed's policy in instructions: NEEDS_ECN → reply 1; ACTIVE/PASSIVE
 * ESTABLISHED → reply = bpf_setsockopt(SOL_TCP, TCP_CONGESTION, "dctcp", 6). */
static size_t build_cong_prog(struct bpfvm_insn *p)
{
	size_t n = 0;
	p[n++] = I_MOV64_REG(6, 1);
	p[n++] = I_LDXW(2, 6, 0);    /* op */
	p[n++] = I_JEQ_IMM(2, 6, 4); /* NEEDS_ECN */
	p[n++] = I_JEQ_IMM(2, 4, 6); /* ACTIVE_ESTABLISHED_CB */
	p[n++] = I_JEQ_IMM(2, 5, 5); /* PASSIVE_ESTABLISHED_CB */
	p[n++] = I_MOV64_IMM(0, 1);
	p[n++] = I_EXIT();
	p[n++] = I_STW(6, 4, 1); /* reply = 1 */
	p[n++] = I_MOV64_IMM(0, 1);
	p[n++] = I_EXIT();
	p[n++] = I_STW(10, -8, 0x63746364); /* "dctc" */
	p[n++] = I_STW(10, -4, 0x00000070); /* "p\0" */
	p[n++] = I_MOV64_REG(1, 6);
	p[n++] = I_MOV64_IMM(2, 6);  /* SOL_TCP */
	p[n++] = I_MOV64_IMM(3, 13); /* TCP_CONGESTION */
	p[n++] = I_MOV64_REG(4, 10);
	p[n++] = (struct bpfvm_insn){.code = 0x07, .dst = 4, .imm = -8};
	p[n++] = I_MOV64_IMM(5, 6);
	p[n++] = I_CALL(49);	  /* bpf_setsockopt */
	p[n++] = I_STXW(6, 0, 4); /* reply = its result */
	p[n++] = I_MOV64_IMM(0, 1);
	p[n++] = I_EXIT();
	return n;
}

static void dctcp_program(void)
{
	const char *T = "dctcp_program";
	struct bpfvm_registry *reg = NULL;
	struct cg_tree *tree = NULL;
	struct cg_node *root = NULL;
	struct hooks *hk = NULL;
	char log[4096] = "";
	if (bpfvm_registry_create(&reg) < 0 || cg_tree_create(&hooks_cg_prog_ops, 2, &tree) < 0 ||
	    cg_lookup(tree, "/", false, &root) < 0) {
		sim_fail(T, "registry/cgroup setup");
		return;
	}
	struct hooks_config hc = {.tree = tree, .reg = reg, .netns_cookie = 1};
	if (hooks_create(&hc, &hk) < 0) {
		sim_fail(T, "hooks_create");
		return;
	}
	struct bpfvm_insn insns[32];
	size_t ni = build_cong_prog(insns);
	struct bpfvm_log bl = {.level = 1, .buf = log, .size = sizeof(log)};
	struct bpfvm_load_opts lo = {.type = &hooks_sock_ops_type, .strict = true, .log = &bl};
	struct bpfvm_prog *prog = NULL;
	int rc = bpfvm_prog_load(reg, insns, ni, NULL, 0, &lo, &prog);
	if (rc < 0 || cg_attach(tree, root, CG_ATTACH_SOCK_OPS, prog, CG_F_ALLOW_MULTI, NULL) < 0) {
		sim_fail(T, "load/attach %d: %s", rc, log);
		return;
	}
	bpfvm_prog_put(prog);
	struct dev_fault_config f = {.delay_ns = 1 * MS,
				     .rate_bps = 100000000,
				     .ce_threshold_ns = MS / 2,
				     .queue_len = 4096};
	struct flow fl;
	/* the stacks' default stays cubic: only the program asks for dctcp */
	if (flow_open(&fl, T, 15, &f, 1u << 20, NULL, tree, hk) == 0) {
		dctcp_check(T, &fl, 0.05, -1);
		sim_destroy(&fl.s, false);
	}
	cg_node_put(root);
	hooks_destroy(hk);
	cg_tree_destroy(tree);
	bpfvm_registry_destroy(reg);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	sim_eal_init("sim_cc");
	static const struct {
		const char *name;
		void (*fn)(void);
	} tests[] = {
	    {"cubic_curve", cubic_curve},	  {"hystart", hystart},
	    {"dctcp_threshold", dctcp_threshold}, {"dctcp_random", dctcp_random},
	    {"dctcp_program", dctcp_program},
	};
	unsigned passed = 0, failed = 0;
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		int before = sim_report()->fails;
		clock_t c0 = clock();
		tests[i].fn();
		bool ok = sim_report()->fails == before;
		printf("sim_cc: %s: %s (%.1f s cpu)\n", tests[i].name, ok ? "ok" : "FAILED",
		       (double)(clock() - c0) / CLOCKS_PER_SEC);
		ok ? passed++ : failed++;
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
