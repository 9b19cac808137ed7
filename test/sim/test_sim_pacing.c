/* Pacing (docs/tcp.md "Pacing") on two whole stacks over the simulation's
 * 1 ms wire (RTT 2 ms, no bottleneck: without pacing only cwnd and the
 * buffers limit the sender):
 * - max_rate: SO_MAX_PACING_RATE 1 MB/s on the sender. Data segments leave
 *   len / rate apart on average (within GAP_MEAN_TOL) and each gap is
 *   within one 1 ms wheel tick of that; the payload delivered over 2 s is
 *   the cap within RATE_TOL. Between departures the stack sleeps: the
 *   simulation's clock jumps to its deadlines (steps bounded), it never
 *   reports "due now" while waiting.
 * - slow_rate: 100 kB/s, a slot (14.5 ms) much longer than a tick: every
 *   gap within a tick of it.
 * - cc_rate: stack-wide pacing (stack_config.pacing), no cap, through a
 *   100 Mbit/s bottleneck whose short queue ends slow start: tcp_info's
 *   pacing_rate is Linux's tcp_update_pacing_rate of the same cwnd, MSS
 *   and SRTT (200 % below ssthresh / 2, 120 % above) within RATE_TOL, and
 *   no more data leaves at one instant than a tick of that rate plus two
 *   segments; the transfer completes.
 * - sockopt: SO_MAX_PACING_RATE reads back as an int (capped at ~0U) and
 *   as an unsigned long; tcp_info carries both rates. */

#include "sim_harness.h"

#define MS	     1000000ull
#define PORT	     5004
#define RATE_TOL     0.03 /* throughput against the cap, pacing_rate against the formula */
#define GAP_MEAN_TOL 0.02

struct flow {
	struct sim s;
	int ls, a, b;
	uint64_t rcvd, steps;
	uint32_t segs_seen; /* the sender's data_segs_out at the last step */
	uint64_t *dep;	    /* departure time of each data segment, when recorded */
	uint32_t ndep, capdep;
};

static void pacing_on(struct stack_config *c)
{
	c->pacing = true;
}

static int flow_open(struct flow *fl, const char *tag, uint64_t seed,
		     const struct dev_fault_config *f, bool stack_pacing, uint64_t max_rate)
{
	memset(fl, 0, sizeof(*fl));
	fl->b = -1;
	if (sim_create_tweak(&fl->s, tag, seed, f, 8, 1u << 20, false, NULL, NULL, NULL,
			     stack_pacing ? pacing_on : NULL) < 0) {
		sim_fail(tag, "sim setup");
		return -1;
	}
	const char *why;
	if (sim_connect(&fl->s, PORT, &fl->ls, &fl->a, &fl->b, &why) < 0) {
		sim_fail(tag, "%s", why);
		return -1;
	}
	/* on the established connection: its first 10 segments leave unpaced
	 * anyway (Linux's rule) */
	if (max_rate) {
		int rc = skops_setsockopt(fl->s.a, fl->a, SOL_SOCKET, SO_MAX_PACING_RATE, &max_rate,
					  sizeof(max_rate));
		if (rc) {
			sim_fail(tag, "SO_MAX_PACING_RATE: %d", rc);
			return -1;
		}
	}
	fl->capdep = 1u << 16;
	fl->dep = calloc(fl->capdep, sizeof(*fl->dep));
	return fl->dep ? 0 : -1;
}

static void flow_close(struct flow *fl, bool failed)
{
	free(fl->dep);
	sim_destroy(&fl->s, failed);
}

static void info(struct flow *fl, struct skops_tcp_info *ti)
{
	memset(ti, 0, sizeof(*ti));
	skops_tcp_info(fl->s.a, fl->a, ti);
}

/* One step of a bulk transfer (limit: bytes the sender writes in all, 0
 * for no end); records the departures of the sender's data segments. */
static bool step(struct flow *fl, uint64_t limit, uint64_t *written)
{
	static uint8_t buf[65536];
	for (int i = 0; i < 16; i++) {
		uint64_t n = sizeof(buf);
		if (limit && *written + n > limit)
			n = limit - *written;
		if (!n)
			break;
		ssize_t w = skops_send(fl->s.a, fl->a, buf, n, 0);
		if (w <= 0)
			break;
		*written += (uint64_t)w;
	}
	sim_drain(fl->s.b, fl->b, &fl->rcvd);
	bool more = sim_step(&fl->s);
	fl->steps++;
	struct skops_tcp_info ti;
	info(fl, &ti);
	for (; fl->segs_seen < ti.data_segs_out; fl->segs_seen++)
		if (fl->ndep < fl->capdep)
			fl->dep[fl->ndep++] = fl->s.now;
	return more;
}

static void run_for(struct flow *fl, uint64_t ns, uint64_t limit, uint64_t *written)
{
	uint64_t end = fl->s.now + ns;
	while (fl->s.now < end && step(fl, limit, written))
		;
}

/* Gaps between departures from segment `from` on: mean and extremes. */
static void gaps(const struct flow *fl, uint32_t from, double *mean, double *lo, double *hi)
{
	*lo = 1e18;
	*hi = 0;
	for (uint32_t i = from + 1; i < fl->ndep; i++) {
		double g = (double)(fl->dep[i] - fl->dep[i - 1]);
		*lo = g < *lo ? g : *lo;
		*hi = g > *hi ? g : *hi;
	}
	*mean = fl->ndep > from + 1
		    ? (double)(fl->dep[fl->ndep - 1] - fl->dep[from]) / (fl->ndep - 1 - from)
		    : 0;
}

static void capped(const char *T, uint64_t rate, uint64_t run_ns, uint64_t seed)
{
	struct flow fl;
	if (flow_open(&fl, T, seed, NULL, false, rate) < 0)
		return;
	uint64_t written = 0;
	/* past the unpaced initial window and the first round trips */
	run_for(&fl, 200 * MS, 0, &written);
	struct skops_tcp_info ti;
	info(&fl, &ti);
	uint64_t acked0 = ti.bytes_acked, steps0 = fl.steps, t0 = fl.s.now;
	uint32_t from = fl.ndep;
	run_for(&fl, run_ns, 0, &written);
	info(&fl, &ti);
	double secs = (double)(fl.s.now - t0) / 1e9;
	double got = (double)(ti.bytes_acked - acked0) / secs;
	double slot = (double)ti.mss * 1e9 / (double)rate;
	double mean, lo, hi;
	gaps(&fl, from, &mean, &lo, &hi);
	uint32_t n = fl.ndep - from;
	printf("sim_pacing: %s: cap %llu B/s: %.0f B/s delivered over %.2f s; %u segments, "
	       "gap mean %.1f µs (slot %.1f), min %.1f, max %.1f; %llu steps\n",
	       T, (unsigned long long)rate, got, secs, n, mean / 1e3, slot / 1e3, lo / 1e3,
	       hi / 1e3, (unsigned long long)(fl.steps - steps0));
	bool bad = false;
	if (ti.max_pacing_rate != rate || ti.pacing_rate != rate) {
		sim_fail(T, "tcp_info max_pacing_rate %llu pacing_rate %llu, want %llu both",
			 (unsigned long long)ti.max_pacing_rate, (unsigned long long)ti.pacing_rate,
			 (unsigned long long)rate);
		bad = true;
	}
	if (got > rate * (1 + RATE_TOL) || got < rate * (1 - RATE_TOL)) {
		sim_fail(T, "%.0f B/s delivered, want %llu ± %.0f %%", got,
			 (unsigned long long)rate, RATE_TOL * 100);
		bad = true;
	}
	if (n < 20 || mean > slot * (1 + GAP_MEAN_TOL) || mean < slot * (1 - GAP_MEAN_TOL)) {
		sim_fail(T, "%u segments %.1f µs apart on average, want %.1f ± %.0f %%", n,
			 mean / 1e3, slot / 1e3, GAP_MEAN_TOL * 100);
		bad = true;
	}
	if (lo < slot - (double)MS || hi > slot + (double)MS) {
		sim_fail(T, "gaps %.1f..%.1f µs, want within a tick (1 ms) of %.1f", lo / 1e3,
			 hi / 1e3, slot / 1e3);
		bad = true;
	}
	/* asleep between departures: a few wakes per segment (its slot, the
	 * ACK coming back, the receiver's delayed ACK), not one per µs */
	if (fl.steps - steps0 > 20ull * n + 1000) {
		sim_fail(T, "%llu simulation steps for %u segments: the stack does not sleep",
			 (unsigned long long)(fl.steps - steps0), n);
		bad = true;
	}
	flow_close(&fl, bad);
}

static void cc_rate(void)
{
	const char *T = "cc_rate";
	struct flow fl;
	/* a 100 Mbit/s bottleneck with a short queue: slow start overflows
	 * it, and the rest runs above ssthresh / 2 */
	struct dev_fault_config f = {.rate_bps = 100000000, .queue_len = 64};
	if (flow_open(&fl, T, 21, &f, true, 0) < 0)
		return;
	uint64_t written = 0, limit = 16u << 20;
	bool bad = false;
	uint32_t checked = 0, ss = 0, ca = 0, worst_burst = 0;
	double worst = 0;
	uint64_t end = fl.s.now + 10000 * MS;
	while (fl.rcvd < limit && fl.s.now < end) {
		if (!step(&fl, limit, &written))
			break;
		struct skops_tcp_info ti;
		info(&fl, &ti);
		if (ti.srtt_us && ti.data_segs_out > 10 && ti.pacing_rate != UINT64_MAX) {
			/* Linux tcp_update_pacing_rate, from what tcp_info shows */
			uint32_t out = (ti.unacked + ti.mss - 1) / ti.mss;
			uint32_t segs = ti.cwnd > out ? ti.cwnd : out;
			bool slow = ti.cwnd < ti.ssthresh / 2;
			double want = (double)ti.mss * segs * (slow ? 2.0 : 1.2) * 1e6 / ti.srtt_us;
			double err = ((double)ti.pacing_rate - want) / want;
			err = err < 0 ? -err : err;
			worst = err > worst ? err : worst;
			checked++;
			*(slow ? &ss : &ca) += 1;
			/* a tick of the rate and the two segments of a late wake */
			uint32_t burst = 0;
			for (uint32_t i = fl.ndep; i-- > 10 && fl.dep[i] == fl.s.now;)
				burst++;
			uint32_t allow = (uint32_t)((double)ti.pacing_rate / 1e3 / ti.mss) + 2;
			if (burst > allow && burst > worst_burst) {
				worst_burst = burst;
				sim_fail(T, "%u segments at one instant, rate %llu allows %u",
					 burst, (unsigned long long)ti.pacing_rate, allow);
				bad = true;
			}
		}
	}
	printf("sim_pacing: %s: %llu bytes in %.3f s, %u samples (%u slow start, %u after), "
	       "pacing_rate within %.2f %% of Linux's formula\n",
	       T, (unsigned long long)fl.rcvd, (double)(fl.s.now - 1000000000ull) / 1e9, checked,
	       ss, ca, worst * 100);
	if (fl.rcvd < limit) {
		sim_fail(T, "%llu of %llu bytes arrived", (unsigned long long)fl.rcvd,
			 (unsigned long long)limit);
		bad = true;
	}
	if (!ss || !ca) {
		sim_fail(T, "samples: %u in slow start, %u after; want both phases", ss, ca);
		bad = true;
	}
	if (worst > RATE_TOL) {
		sim_fail(T, "pacing_rate off Linux's formula by %.2f %%", worst * 100);
		bad = true;
	}
	flow_close(&fl, bad);
}

static void sockopt(void)
{
	const char *T = "sockopt";
	struct flow fl;
	if (flow_open(&fl, T, 31, NULL, false, 0) < 0)
		return;
	bool bad = false;
	uint64_t u = 0;
	int v = 0;
	socklen_t l = sizeof(u);
	struct skops_tcp_info ti;
	info(&fl, &ti);
	if (skops_getsockopt(fl.s.a, fl.a, SOL_SOCKET, SO_MAX_PACING_RATE, &u, &l) ||
	    l != sizeof(u) || u != UINT64_MAX || ti.max_pacing_rate != UINT64_MAX) {
		sim_fail(T, "default max rate %llu (len %u), tcp_info %llu; want ~0UL",
			 (unsigned long long)u, (unsigned)l,
			 (unsigned long long)ti.max_pacing_rate);
		bad = true;
	}
	l = sizeof(v);
	if (skops_getsockopt(fl.s.a, fl.a, SOL_SOCKET, SO_MAX_PACING_RATE, &v, &l) ||
	    l != sizeof(v) || v != -1) {
		sim_fail(T, "default as an int %d, want ~0U", v);
		bad = true;
	}
	v = 123456;
	if (skops_setsockopt(fl.s.a, fl.a, SOL_SOCKET, SO_MAX_PACING_RATE, &v, sizeof(v))) {
		sim_fail(T, "set as an int");
		bad = true;
	}
	u = 0;
	l = sizeof(u);
	info(&fl, &ti);
	if (skops_getsockopt(fl.s.a, fl.a, SOL_SOCKET, SO_MAX_PACING_RATE, &u, &l) || u != 123456 ||
	    ti.max_pacing_rate != 123456 || ti.pacing_rate > 123456) {
		sim_fail(T, "after 123456: %llu, tcp_info max %llu rate %llu",
			 (unsigned long long)u, (unsigned long long)ti.max_pacing_rate,
			 (unsigned long long)ti.pacing_rate);
		bad = true;
	}
	u = 5000000000ull; /* above what an int holds */
	skops_setsockopt(fl.s.a, fl.a, SOL_SOCKET, SO_MAX_PACING_RATE, &u, sizeof(u));
	l = sizeof(v);
	if (skops_getsockopt(fl.s.a, fl.a, SOL_SOCKET, SO_MAX_PACING_RATE, &v, &l) || v != -1) {
		sim_fail(T, "5e9 read as an int: %d, want ~0U (capped)", v);
		bad = true;
	}
	flow_close(&fl, bad);
}

int main(void)
{
	sim_eal_init("sim_pacing");
	capped("max_rate", 1000000, 2000 * MS, 1);
	capped("slow_rate", 100000, 1000 * MS, 2);
	cc_rate();
	sockopt();
	if (sim_report()->fails) {
		fprintf(stderr, "sim_pacing: %d failures\n", sim_report()->fails);
		return 1;
	}
	printf("sim_pacing: all passed\n");
	return 0;
}
