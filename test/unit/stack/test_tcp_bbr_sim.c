/* BBR (stack/tcp/cc/cc_bbr.c) and the delivery-rate samples it runs on
 * (stack/tcp/tcp_rate.c) between two stacks over a simulated path: 100
 * Mbit/s from A to B, 10 ms each way (BDP 250 kB), a drop-tail queue of
 * 40 ms (500 kB, twice the BDP). A sends as fast as it can, B reads all it
 * can at once. Checked against cubic on the same path: on a clean path BBR
 * reaches the line rate with a queue well under the one cubic fills (and
 * overflows); under
 * 5 % random loss BBR keeps at least half the line rate; over 12 s it
 * enters PROBE_RTT and refreshes min_rtt; the delivery-rate samples of a
 * bulk transfer match the line rate. The segments' drops come from a
 * seeded generator: every run is the same. SKOPS_BBR_REPORT=1 prints the
 * figures. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "skops.h"
#include "tcp/cc/cc.h"
#include "tcp/tcp_int.h"
#include "test_tcp_path.h"

#define MS	 1000000ull
#define DELAY_NS (10 * MS)
#define RATE_BPS 100000000ull
#define QMAX_NS	 (40 * MS)
#define MSS	 1448u
/* what the line carries of payload: each segment pays TPATH_WIRE more */
#define GOODPUT_MAX   ((double)RATE_BPS * MSS / (MSS + TPATH_WIRE))
#define NSAMPLES      8192
#define POLICE_BUCKET 64000u /* bytes: about 40 segments */

struct path {
	struct tpath w; /* the clock, both stacks, the segments in flight */
	uint64_t rng;
	uint32_t loss_ppm; /* random loss of A's segments */
	/* a token-bucket policer on A's segments before the queue: police_bps,
	 * a bucket of POLICE_BUCKET bytes; 0: none */
	uint64_t police_bps, tokens_nb, police_ns; /* tokens in byte-ns units */
	uint64_t dropped, lost, policed;
	/* queueing delay of A's data segments from `measure_ns` on */
	uint64_t measure_ns, qsum_ns, qmax_ns, qn;
};

/* The rate samples BBR saw, by a cong_control that records and passes on. */
static struct {
	double mbps[NSAMPLES];
	unsigned n;
	uint64_t from_ns;
	uint64_t *now;
} samples;

static void record_cong_control(struct tcp_cc_view *v, uint32_t ack,
				const struct tcp_rate_sample *rs)
{
	if (samples.now && *samples.now >= samples.from_ns && rs->delivered > 0 &&
	    rs->interval_us > 0 && !rs->is_app_limited && samples.n < NSAMPLES)
		samples.mbps[samples.n++] = (double)rs->delivered * 8 / (double)rs->interval_us;
	cc_bbr_ops.cong_control(v, ack, rs);
}

static uint32_t rnd(struct path *p)
{
	p->rng = p->rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(p->rng >> 33);
}

/* Token bucket: the bucket fills at police_bps up to POLICE_BUCKET bytes;
 * a segment it cannot pay for is dropped. Tokens are bytes × 8e9 / rate. */
static bool police(struct path *p, uint32_t len)
{
	uint64_t cap = (uint64_t)POLICE_BUCKET * 8 * 1000000000ull;
	p->tokens_nb += (p->w.now - p->police_ns) * p->police_bps;
	p->police_ns = p->w.now;
	if (p->tokens_nb > cap)
		p->tokens_nb = cap;
	uint64_t cost = (uint64_t)(len + TPATH_WIRE) * 8 * 1000000000ull;
	if (p->tokens_nb < cost) {
		p->policed++;
		return false;
	}
	p->tokens_nb -= cost;
	return true;
}

static int path_xmit(void *arg, const struct tcp_tuple *t, uint8_t tos, const struct tcp_repr *r,
		     const struct tcp_iov *d)
{
	(void)tos;
	struct tpath_end *e = arg;
	struct path *p = TPATH_OWNER(e, struct path, w);
	uint32_t len = d->n[0] + d->n[1];
	if (e->idx == 0 && len && p->police_bps && !police(p, len))
		return 0;
	if (p->w.busy[e->idx] > p->w.now + QMAX_NS) {
		p->dropped++;
		return 0;
	}
	uint64_t start;
	uint64_t gone = tpath_line(&p->w, e->idx, len, &start);
	if (e->idx == 0 && len && p->w.now >= p->measure_ns) {
		uint64_t q = start - p->w.now;
		p->qsum_ns += q;
		p->qn++;
		if (q > p->qmax_ns)
			p->qmax_ns = q;
	}
	/* random loss on the line, after the queue (the line was busy for it) */
	if (e->idx == 0 && len && p->loss_ppm && rnd(p) % 1000000u < p->loss_ppm) {
		p->lost++;
		return 0;
	}
	tpath_put(&p->w, e->idx, gone + DELAY_NS, t, r, d);
	return 0;
}

struct result {
	double mbps;	  /* goodput after the first second */
	double q_mean_ms; /* A's queueing delay after the first second */
	double q_max_ms;
	uint64_t dropped;     /* at the queue */
	uint64_t policed;     /* by the policer, after the first second */
	uint64_t sent;	      /* A's data segments then, resent ones too */
	bool lt_used;	      /* BBR paced at the long-term (policer) rate */
	bool saw_probe_rtt;   /* BBR only */
	bool min_rtt_renewed; /* min_rtt taken again after PROBE_RTT */
	uint32_t min_rtt_us;
};

/* A bulk transfer of `secs` seconds from A to B with congestion control
 * cc; record: BBR's rate samples after the first second are kept. */
static struct result run_opts(const char *cc, uint32_t loss_ppm, unsigned secs, bool record,
			      bool no_sack, uint64_t police_bps)
{
	struct result res;
	memset(&res, 0, sizeof(res));
	struct path *p = calloc(1, sizeof(*p));
	ck_assert_ptr_nonnull(p);
	tpath_init(&p->w, RATE_BPS);
	p->rng = 0x5eed0bb1;
	p->loss_ppm = loss_ppm;
	p->police_bps = police_bps;
	p->tokens_nb = (uint64_t)POLICE_BUCKET * 8 * 1000000000ull;
	for (int i = 0; i < 2; i++) {
		struct tcp_config cfg;
		memset(&cfg, 0, sizeof(cfg));
		cfg.seed = 11 + (uint64_t)i;
		cfg.keys_from_seed = true;
		cfg.max_conns = 8;
		cfg.no_sack = no_sack;
		cfg.xmit = path_xmit;
		tpath_stack(&p->w, i, &cfg);
	}
	uint32_t b4 = inet_addr("198.18.0.2");
	struct tcb *l, *a, *b = NULL;
	ck_assert_int_eq(tcp_open(p->w.tcp[1], AF_INET, &l), 0);
	l->sd = 0;
	ck_assert_int_eq(tcp_bind(p->w.tcp[1], l, &b4, 5001), 0);
	ck_assert_int_eq(tcp_listen(p->w.tcp[1], l, 4, p->w.now), 0);
	ck_assert_int_eq(tcp_open(p->w.tcp[0], AF_INET, &a), 0);
	a->sd = 0;
	ck_assert_int_eq(tcp_setsockopt(a, IPPROTO_TCP, 13, cc, (uint32_t)strlen(cc), false), 0);
	static struct tcp_cc_ops recorder;
	if (record) {
		ck_assert_str_eq(cc, "bbr");
		recorder = cc_bbr_ops;
		recorder.cong_control = record_cong_control;
		a->cc.ops = &recorder;
		samples.n = 0;
		samples.now = &p->w.now;
	}
	ck_assert_int_eq(tcp_connect(p->w.tcp[0], a, &b4, 5001, p->w.now), -EINPROGRESS);
	static uint8_t buf[65536];
	uint64_t t0 = 0, end_ns = 0, rcvd = 0, rcvd_1s = 0, t1 = 0, policed_1s = 0, sent_1s = 0;
	uint32_t first_min_rtt_ms = 0;
	const char *bad = NULL;
	for (uint64_t steps = 0; steps < 50000000ull; steps++) {
		if (!b && (b = tcp_accept(p->w.tcp[1], l)))
			b->sd = 1;
		if (a->state == TCP_ESTABLISHED && !t0) {
			t0 = p->w.now;
			end_ns = t0 + secs * 1000 * MS;
			p->measure_ns = t0 + 1000 * MS;
			samples.from_ns = p->measure_ns;
		}
		if (a->state == TCP_ESTABLISHED) {
			int32_t w;
			do
				w = tcp_send(p->w.tcp[0], a, buf, sizeof(buf), p->w.now);
			while (w == (int32_t)sizeof(buf));
		}
		if (b) {
			int32_t r;
			while ((r = tcp_recv(p->w.tcp[1], b, buf, sizeof(buf), false, p->w.now)) >
			       0)
				rcvd += (uint64_t)r;
		}
		if (t0 && !t1 && p->w.now >= p->measure_ns) {
			t1 = p->w.now;
			rcvd_1s = rcvd;
			policed_1s = p->policed;
			sent_1s = a->cnt.data_segs_out;
		}
		struct cc_bbr_info bi;
		if (cc_bbr_get_info(a, &bi)) {
			if (bi.mode == 3)
				res.saw_probe_rtt = true;
			if (bi.lt_use_bw)
				res.lt_used = true;
			if (!first_min_rtt_ms && bi.min_rtt_us != UINT32_MAX)
				first_min_rtt_ms = bi.min_rtt_stamp_ms;
			if (res.saw_probe_rtt && bi.mode != 3 &&
			    bi.min_rtt_stamp_ms != first_min_rtt_ms)
				res.min_rtt_renewed = true;
			res.min_rtt_us = bi.min_rtt_us;
		}
		if (t0 && p->w.now >= end_ns)
			break;
		uint64_t next = tpath_next(&p->w, UINT64_MAX);
		if (next == UINT64_MAX) {
			bad = "stalled";
			break;
		}
		if (next > p->w.now)
			p->w.now = next;
		tpath_deliver(&p->w, -1, NULL, NULL);
		for (int i = 0; i < 2; i++)
			tcp_timers(p->w.tcp[i], p->w.now);
	}
	ck_assert_msg(!bad && t1 && p->w.now >= end_ns, "%s: %s", cc, bad ? bad : "did not finish");
	ck_assert(!no_sack || !(a->flags & TCB_F_SACK));
	res.mbps = (double)(rcvd - rcvd_1s) * 8 / ((double)(p->w.now - t1) / 1e9) / 1e6;
	res.q_mean_ms = p->qn ? (double)p->qsum_ns / (double)p->qn / 1e6 : 0;
	res.q_max_ms = (double)p->qmax_ns / 1e6;
	res.dropped = p->dropped;
	res.policed = p->policed - policed_1s;
	res.sent = a->cnt.data_segs_out - sent_1s;
	samples.now = NULL;
	if (getenv("SKOPS_BBR_REPORT"))
		printf("bbr_sim: %-5s loss %.1f%%: %.1f Mbit/s (line %.1f of payload), queue mean "
		       "%.2f "
		       "ms max %.2f ms, %llu dropped at the queue, %llu lost, %llu policed of %llu "
		       "after 1 s%s%s%s\n",
		       cc, loss_ppm / 1e4, res.mbps, GOODPUT_MAX / 1e6, res.q_mean_ms, res.q_max_ms,
		       (unsigned long long)res.dropped, (unsigned long long)p->lost,
		       (unsigned long long)res.policed, (unsigned long long)res.sent,
		       res.lt_used ? ", long-term rate used" : "",
		       res.saw_probe_rtt ? ", PROBE_RTT seen" : "",
		       res.min_rtt_renewed ? ", min_rtt renewed" : "");
	tpath_fini(&p->w);
	free(p);
	return res;
}

static struct result run(const char *cc, uint32_t loss_ppm, unsigned secs, bool record)
{
	return run_opts(cc, loss_ppm, secs, record, false, 0);
}

START_TEST(clean_path)
{
	struct result bbr = run("bbr", 0, 6, false);
	struct result cubic = run("cubic", 0, 6, false);
	ck_assert_msg(bbr.mbps >= 0.9 * GOODPUT_MAX / 1e6, "bbr %.1f Mbit/s", bbr.mbps);
	/* cubic fills the drop-tail queue; BBR keeps at most about a BDP
	 * (cwnd gain 2 without pacing) and far less on average */
	ck_assert_msg(cubic.q_max_ms > 30, "cubic's queue only %.1f ms", cubic.q_max_ms);
	ck_assert_msg(bbr.q_mean_ms < cubic.q_mean_ms / 2, "bbr queue %.2f ms, cubic %.2f ms",
		      bbr.q_mean_ms, cubic.q_mean_ms);
	/* and overflows it: Linux's HyStart leaves slow start before the
	 * queue is full, so cubic's drops come from the curve alone (27 here,
	 * against 100 of BBR's startup), but they come */
	ck_assert_msg(cubic.dropped > 0, "cubic never overflowed the queue");
}
END_TEST

START_TEST(random_loss)
{
	struct result bbr = run("bbr", 50000, 6, false);
	struct result cubic = run("cubic", 50000, 6, false);
	ck_assert_msg(bbr.mbps >= 0.5 * RATE_BPS / 1e6, "bbr %.1f Mbit/s under 5%% loss", bbr.mbps);
	ck_assert_msg(cubic.mbps < bbr.mbps / 2, "cubic %.1f Mbit/s, bbr %.1f", cubic.mbps,
		      bbr.mbps);
}
END_TEST

/* A token-bucket policer at 30 Mbit/s (64 kB bucket) on a 100 Mbit/s
 * line: it drops whatever exceeds its rate, however short the queue, so
 * BBR's probes and its filter's burst samples cost a loss each time
 * (Linux's BBR finds the policer from intervals of 20 % loss at a steady
 * rate, bbr_lt_bw_sampling, and paces at that rate for 48 rounds). */
START_TEST(policer)
{
	struct result res = run_opts("bbr", 0, 8, false, false, 30000000ull);
	double cap = 30e6 * MSS / (MSS + TPATH_WIRE) / 1e6;
	ck_assert_msg(res.lt_used, "bbr never used the long-term rate");
	ck_assert_msg(res.mbps >= 0.85 * cap, "bbr %.1f Mbit/s under a %.1f policer", res.mbps,
		      cap);
	/* 5.1 % of what it sent after the first second is policed; 6.0 %
	 * without the long-term model */
	ck_assert_msg(res.policed * 1000 < res.sent * 55, "%llu of %llu segments policed",
		      (unsigned long long)res.policed, (unsigned long long)res.sent);
}
END_TEST

START_TEST(probe_rtt)
{
	struct result bbr = run("bbr", 0, 13, false);
	ck_assert_msg(bbr.saw_probe_rtt, "no PROBE_RTT in 13 s");
	ck_assert_msg(bbr.min_rtt_renewed, "min_rtt not taken again after PROBE_RTT");
	/* the propagation delay, 20 ms, plus at most a few segments' time */
	ck_assert_uint_ge(bbr.min_rtt_us, 20000);
	ck_assert_uint_lt(bbr.min_rtt_us, 21000);
	ck_assert_msg(bbr.mbps >= 0.85 * GOODPUT_MAX / 1e6, "bbr %.1f Mbit/s", bbr.mbps);
}
END_TEST

/* Without SACK the rate records see cumulative ACKs only (and RACK stays
 * off): still the line rate, and through a loss too. */
START_TEST(no_sack)
{
	struct result bbr = run_opts("bbr", 0, 4, false, true, 0);
	ck_assert_msg(bbr.mbps >= 0.9 * GOODPUT_MAX / 1e6, "bbr %.1f Mbit/s without SACK",
		      bbr.mbps);
	bbr = run_opts("bbr", 5000, 4, false, true, 0);
	ck_assert_msg(bbr.mbps >= 0.3 * GOODPUT_MAX / 1e6,
		      "bbr %.1f Mbit/s without SACK, 0.5%% loss", bbr.mbps);
}
END_TEST

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

START_TEST(rate_samples)
{
	run("bbr", 0, 4, true);
	ck_assert_uint_gt(samples.n, 1000);
	qsort(samples.mbps, samples.n, sizeof(double), cmp_double);
	double line = GOODPUT_MAX / 1e6;
	unsigned near = 0;
	for (unsigned i = 0; i < samples.n; i++)
		near += samples.mbps[i] > 0.9 * line && samples.mbps[i] < 1.1 * line;
	double med = samples.mbps[samples.n / 2], max = samples.mbps[samples.n - 1];
	if (getenv("SKOPS_BBR_REPORT"))
		printf("bbr_sim: %u rate samples: %.1f%% within 10%% of the line (%.1f Mbit/s of "
		       "payload), min %.1f, 10th percentile %.1f, median %.1f, max %.1f\n",
		       samples.n, 100.0 * near / samples.n, line, samples.mbps[0],
		       samples.mbps[samples.n / 10], med, max);
	/* The max filter needs samples that never overestimate; most match.
	 * The others (about 0.8 of the line) come from windows whose send
	 * phase spans the stall after a 5/4 probe of an unpaced sender. */
	ck_assert_msg(med > 0.9 * line && med < 1.1 * line, "median sample %.1f Mbit/s", med);
	ck_assert_msg(max < 1.1 * line, "a sample of %.1f Mbit/s", max);
	ck_assert_msg(near * 4 >= samples.n * 3, "only %u of %u samples near the line", near,
		      samples.n);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tcp_bbr_sim");
	TCase *tc = tcase_create("sim");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, clean_path);
	tcase_add_test(tc, random_loss);
	tcase_add_test(tc, probe_rtt);
	tcase_add_test(tc, rate_samples);
	tcase_add_test(tc, no_sack);
	tcase_add_test(tc, policer);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
