/* tcp_cc: the congestion control modules at the level of single segments.
 * The stack default (tcp_config.cc, cubic when unset, -ENOENT for a name
 * the stack lacks); CUBIC's multiplicative decrease (beta 717/1024); DCTCP's
 * receiver echoing each segment's CE mark (RFC 8257 §3.2, with the delayed
 * ACK sent first when the mark changes) and its sender folding the ECE
 * fraction of a window into alpha with g = 1/16 (§3.3) and cutting cwnd by
 * alpha/2. Linux's CUBIC (cc_cubic.c) step by step through its view: the
 * cube root, K, the target and cnt in Linux's integers at HZ 250, the HZ/32
 * hysteresis, the Reno-friendly estimate, HyStart's ACK-train and delay
 * exits, the resets, the idle shift from the last send, the RTT it is given
 * (the newest segment delivered, in µs); "cubic_rfc" is there on request. */
#include <math.h>

#include "check_main.h"
#include "tcp/cc/cc.h"
#include "test_tcp_fixture.h"

static uint8_t seg[1460];

static void cfg_dctcp(struct tcp_config *c)
{
	c->cc = "dctcp";
}

START_TEST(stack_default)
{
	struct fx f;
	fx_init(&f);
	struct tcb *t;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &t), 0);
	ck_assert_str_eq(t->cc.ops->name, "cubic"); /* Linux's default */
	fx_fini(&f);
	fx_init_cfg(&f, cfg_dctcp);
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &t), 0);
	ck_assert_str_eq(t->cc.ops->name, "dctcp");
	fx_fini(&f);
	struct tcp_config c = f.cfg;
	c.cc = "vegas";
	struct tcp *tcp = NULL;
	ck_assert_int_eq(tcp_create(&c, &tcp), -ENOENT);
	ck_assert_ptr_null(tcp);
	ck_assert_str_eq(tcp_cc_available(), "reno newreno cubic cubic_rfc dctcp bbr");
}
END_TEST

START_TEST(cubic_beta)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	ck_assert_str_eq(c->cc.ops->name, "cubic");
	c->cc.cwnd = 100;
	ck_assert_uint_eq(tcp_cc_ssthresh(c), 100 * 717 / 1024);
	c->cc.cwnd = 2;
	ck_assert_uint_eq(tcp_cc_ssthresh(c), 2);
	fx_fini(&f);
}
END_TEST

/* ---- Linux's CUBIC (cc_cubic.c) driven through its view ---- */

#define HZ	   250u
#define T0	   (3600000 * MS) /* an hour into the stack's clock */
#define INF_SSTH   0x7fffffffu
#define CUBIC_MSS  1000u
#define LINUX_BETA 717u

static uint64_t cubic_priv[TCP_CC_PRIV_SIZE / 8];

/* A cubic connection's view at T0: cwnd and ssthresh as given, the window
 * full (cwnd-limited), 10 segments in flight to be acknowledged. */
static struct tcp_cc_view cubic_view(uint32_t cwnd, uint32_t ssthresh)
{
	memset(cubic_priv, 0, sizeof(cubic_priv));
	struct tcp_cc_view v = {
	    .now_ns = T0,
	    .hz = HZ,
	    .mss = CUBIC_MSS,
	    .snd_una = 1000,
	    .snd_nxt = 11000,
	    .cwnd = cwnd,
	    .ssthresh = ssthresh,
	    .cwnd_clamp = UINT32_MAX / 2,
	    .prior_inflight = cwnd * CUBIC_MSS,
	    .pacing_rate = UINT64_MAX, /* Linux's ~0 before an RTT sample */
	    .priv = cubic_priv,
	};
	cc_cubic_ops.init(&v);
	return v;
}

static struct cc_cubic_info cubic_info(const struct tcp_cc_view *v)
{
	struct cc_cubic_info ci;
	ck_assert(cc_cubic_info_of(&cc_cubic_ops, v->priv, &ci));
	return ci;
}

/* Linux's tcp_jiffies32 at HZ 250 for a time of the stack clock: 4 ms a
 * jiffy, counted from INITIAL_JIFFIES, 300 s before the wrap. */
static uint32_t jiffies_of(uint64_t ns)
{
	return (uint32_t)(ns / (4 * MS)) - 300u * HZ;
}

/* After a loss at cwnd 100 (W_max 100, ssthresh 100·717/1024 = 70) with a
 * minimum RTT of 10 ms, in congestion avoidance at cwnd 71 from T0 (the
 * window recovery left, one above ssthresh). */
static struct tcp_cc_view cubic_after_loss(void)
{
	struct tcp_cc_view v = cubic_view(100, INF_SSTH);
	cc_cubic_ops.pkts_acked(&v, 1, 10000);
	ck_assert_uint_eq(cc_cubic_ops.ssthresh(&v), 100 * LINUX_BETA / 1024);
	v.cwnd = v.ssthresh = 71;
	v.prior_inflight = 71 * CUBIC_MSS;
	return v;
}

START_TEST(cubic_root_table)
{
	/* cc_cubic_root(a) for K: (W_max - cwnd) times 2^40/410 = 2681735677.
	 * Expected values worked through Linux's cubic_root by hand: for
	 * W_max - cwnd = 29, a = 77770334633, fls64 37, b = (37·84 >> 8) - 1
	 * = 11, a >> 33 = 9, table 129: x = (139 << 11) >> 6 = 4448; Newton
	 * 2·4448 + a/(4448·4447) = 8896 + 3931 = 12827; 12827·341 >> 10 = 4271
	 * (exact cbrt 4268.46). Likewise 1 → 1388, 100 → 6451, 1000 → 13897. */
	ck_assert_uint_eq(cc_cubic_root(2681735677ull * 29), 4271);
	ck_assert_uint_eq(cc_cubic_root(2681735677ull), 1388);
	ck_assert_uint_eq(cc_cubic_root(2681735677ull * 100), 6451);
	ck_assert_uint_eq(cc_cubic_root(2681735677ull * 1000), 13897);
	/* below 64 the table alone: (entry + 35) >> 6 */
	ck_assert_uint_eq(cc_cubic_root(0), 0);
	ck_assert_uint_eq(cc_cubic_root(8), 2);
	ck_assert_uint_eq(cc_cubic_root(63), 4);
	/* within Linux's stated error over the range cubic uses */
	for (uint64_t a = 64; a < (1ull << 50); a = a * 3 + 7) {
		double r = cbrt((double)a), x = cc_cubic_root(a);
		ck_assert_msg(fabs(x - r) <= r * 0.01 + 1, "cbrt(%llu) = %.0f, true %.1f",
			      (unsigned long long)a, x, r);
	}
}
END_TEST

START_TEST(cubic_curve_integers)
{
	struct tcp_cc_view v = cubic_after_loss();
	cc_cubic_ops.cong_avoid(&v, 0, 1);
	struct cc_cubic_info ci = cubic_info(&v);
	ck_assert_uint_eq(ci.epoch_start, jiffies_of(T0));
	ck_assert_uint_eq(ci.origin, 100);
	ck_assert_uint_eq(ci.k, 4271); /* cubic_root(29 · 2681735677) */
	ck_assert_uint_eq(ci.delay_min_us, 10000);
	/* t = (0 + usecs_to_jiffies(10 ms) = 3) << 10 / 250 = 12, offs 4259,
	 * 410·4259³ >> 40 = 28: target 72, cnt 71 / (72 - 71) = 71 */
	ck_assert_uint_eq(ci.cnt, 71);
	/* 10 jiffies on: t = (10 + 3) << 10 / 250 = 53 (with delay_min
	 * rounded down to 2 jiffies it would be 49 and cnt still 71), 27
	 * below: target 73, cnt 35 */
	v.now_ns = T0 + 10 * 4 * MS;
	cc_cubic_ops.cong_avoid(&v, 0, 1);
	ck_assert_uint_eq(cubic_info(&v).cnt, 35);
	/* 22: t = 102, still 35. 7 jiffies later (HZ/32 = 7, cwnd unchanged)
	 * no recomputation, although t = 131 gives 26 below, target 74, cnt
	 * 23; the 8th jiffy recomputes */
	v.now_ns = T0 + 22 * 4 * MS;
	cc_cubic_ops.cong_avoid(&v, 0, 1);
	ck_assert_uint_eq(cubic_info(&v).cnt, 35);
	v.now_ns = T0 + 29 * 4 * MS;
	cc_cubic_ops.cong_avoid(&v, 0, 1);
	ck_assert_uint_eq(cubic_info(&v).cnt, 35);
	v.now_ns = T0 + 30 * 4 * MS;
	cc_cubic_ops.cong_avoid(&v, 0, 1);
	ck_assert_uint_eq(cubic_info(&v).cnt, 23);
	ck_assert_uint_eq(v.cwnd, 71);
	/* one second in: t = 253 << 10 / 250 = 1036, offs 3235, delta 12,
	 * target 88, cnt 71 / 17 = 4 */
	v.now_ns = T0 + 1000 * MS;
	cc_cubic_ops.cong_avoid(&v, 0, 1);
	ck_assert_uint_eq(cubic_info(&v).cnt, 4);
}
END_TEST

START_TEST(cubic_cnt_floor)
{
	/* W_max 100, cwnd 40, 8 s in: t = 2003 << 10 / 250 = 8204, past K
	 * 5436 by 2768: delta 7, target 107, 40 / 67 = 0, floored to 2 */
	struct tcp_cc_view v = cubic_after_loss();
	v.cwnd = v.ssthresh = 40;
	v.prior_inflight = 40 * CUBIC_MSS;
	cc_cubic_ops.cong_avoid(&v, 0, 1);
	ck_assert_uint_eq(cubic_info(&v).k, 5436);
	v.now_ns = T0 + 8000 * MS;
	v.cwnd_cnt = 0;
	cc_cubic_ops.cong_avoid(&v, 0, 1);
	ck_assert_uint_eq(cubic_info(&v).cnt, 2);
	/* cwnd back at W_max 100: K 0, origin 100, t = 12/1024 s gives a
	 * delta of 0: target 100, not above cwnd: cnt 100 · cwnd */
	v = cubic_after_loss();
	v.cwnd = v.ssthresh = 100;
	v.prior_inflight = 100 * CUBIC_MSS;
	cc_cubic_ops.cong_avoid(&v, 0, 1);
	ck_assert_uint_eq(cubic_info(&v).k, 0);
	ck_assert_uint_eq(cubic_info(&v).cnt, 10000);
	/* before any loss the curve may not grow more than 5 % a round */
	v = cubic_view(71, 71);
	cc_cubic_ops.cong_avoid(&v, 0, 1);
	ck_assert_uint_eq(cubic_info(&v).cnt, 20);
}
END_TEST

START_TEST(cubic_reno_friendly)
{
	/* The Reno estimate grows one segment each time more than
	 * (71 · 15) >> 3 = 133 segments are counted (beta_scale = 8 · 1741 / 3
	 * / 307 = 15 in integers; RFC 9438's alpha would make it 134). 933
	 * ACKed at once: 7 steps (933 - 7·133 = 2), tcp_cwnd 78, cnt capped
	 * at 71 / 7 = 10, and cwnd grows 933 / 10 = 93 with 3 left over. */
	struct tcp_cc_view v = cubic_after_loss();
	cc_cubic_ops.cong_avoid(&v, 0, 933);
	struct cc_cubic_info ci = cubic_info(&v);
	ck_assert_uint_eq(ci.tcp_cwnd, 78);
	ck_assert_uint_eq(ci.cnt, 10);
	ck_assert_uint_eq(v.cwnd, 71 + 93);
	ck_assert_uint_eq(v.cwnd_cnt, 3);
	/* exactly 7 · 133: "more than" makes it 6 steps, cnt 71 / 6 = 11 */
	v = cubic_after_loss();
	cc_cubic_ops.cong_avoid(&v, 0, 931);
	ci = cubic_info(&v);
	ck_assert_uint_eq(ci.tcp_cwnd, 77);
	ck_assert_uint_eq(ci.cnt, 11);
	ck_assert_uint_eq(v.cwnd, 71 + 931 / 11);
}
END_TEST

/* n ACKs in slow start from T0 + first_us, step_us apart, each with an RTT
 * sample; returns the 1-based ACK whose sample ended slow start, 0: none. */
static int hystart_acks(struct tcp_cc_view *v, int n, uint32_t first_us, uint32_t step_us,
			int32_t rtt_us)
{
	for (int i = 0; i < n; i++) {
		v->now_ns = T0 + (first_us + (uint64_t)i * step_us) * 1000u;
		cc_cubic_ops.pkts_acked(v, 1, rtt_us);
		if (v->ssthresh != INF_SSTH) {
			ck_assert_uint_eq(v->ssthresh, v->cwnd); /* no CSS: out at once */
			ck_assert(cubic_info(v).found);
			return i + 1;
		}
	}
	return 0;
}

START_TEST(hystart_ack_train)
{
	/* delay_min 10 ms, unpaced, no pacing rate: the train ends slow start
	 * once it spans more than 5 ms from the round's start. ACKs 0.5 ms
	 * apart from T0 + 0.5 ms: the 11th, at 5.5 ms. */
	struct tcp_cc_view v = cubic_view(20, INF_SSTH);
	ck_assert_int_eq(hystart_acks(&v, 20, 500, 500, 10000), 11);
	/* the same with SND.UNA at the round's end: not past it, the round
	 * (and the train's start) stays */
	v = cubic_view(20, INF_SSTH);
	v.snd_una = 11000;
	ck_assert_int_eq(hystart_acks(&v, 20, 500, 500, 10000), 11);
	/* hystart_ack_delay: 65536 · 4 s / 131072000 B/s = 2 ms, capped at
	 * 1 ms: (10 + 1) / 2 = 5.5 ms, passed by the 12th ACK at 6 ms */
	v = cubic_view(20, INF_SSTH);
	v.pacing_rate = 131072000;
	ck_assert_int_eq(hystart_acks(&v, 20, 500, 500, 10000), 12);
	/* a paced connection's threshold is not halved: past 11 ms, 23rd */
	v = cubic_view(20, INF_SSTH);
	v.pacing_rate = 131072000;
	v.paced = true;
	ck_assert_int_eq(hystart_acks(&v, 30, 500, 500, 10000), 23);
	/* ACKs 2.5 ms apart are no train (and the delay does not rise) */
	v = cubic_view(20, INF_SSTH);
	ck_assert_int_eq(hystart_acks(&v, 40, 2500, 2500, 10000), 0);
	/* nothing below hystart_low_window 16 */
	v = cubic_view(15, INF_SSTH);
	ck_assert_int_eq(hystart_acks(&v, 40, 500, 500, 10000), 0);
	v = cubic_view(16, INF_SSTH);
	ck_assert_int_eq(hystart_acks(&v, 40, 500, 500, 10000), 11);
}
END_TEST

START_TEST(hystart_delay)
{
	/* ACKs 3 ms apart (no train). delay_min 10 ms: the threshold is
	 * clamp(10000 >> 3, 4 ms, 16 ms) = 4 ms. */
	struct tcp_cc_view v = cubic_view(20, INF_SSTH);
	ck_assert_int_eq(hystart_acks(&v, 1, 3000, 3000, 10000), 0);
	/* SND.UNA at the round's end is not past it: the round and its
	 * minimum of 10 ms go on */
	v.snd_una = 11000;
	ck_assert_int_eq(hystart_acks(&v, 20, 6000, 3000, 14001), 0);
	/* the next round: SND.UNA passes the end of the first */
	v.snd_una = 11001;
	v.snd_nxt = 40000;
	/* 8 samples are only collected; the 9th finds a minimum of 14.001 ms
	 * above 10 + 4 */
	ck_assert_int_eq(hystart_acks(&v, 20, 66000, 3000, 14001), 9);
	/* 14 ms is not above it */
	v = cubic_view(20, INF_SSTH);
	hystart_acks(&v, 1, 3000, 3000, 10000);
	v.snd_una = 11001;
	v.snd_nxt = 40000;
	ck_assert_int_eq(hystart_acks(&v, 20, 6000, 3000, 14000), 0);
	/* a round's minimum: one low sample among high ones keeps it */
	v = cubic_view(20, INF_SSTH);
	hystart_acks(&v, 1, 3000, 3000, 10000);
	v.snd_una = 11001;
	v.snd_nxt = 40000;
	ck_assert_int_eq(hystart_acks(&v, 1, 6000, 3000, 12000), 0);
	ck_assert_int_eq(hystart_acks(&v, 20, 9000, 3000, 20000), 0);
	/* a delay of 160 ms: the threshold is capped at 16 ms */
	v = cubic_view(20, INF_SSTH);
	hystart_acks(&v, 1, 3000, 3000, 160000);
	v.snd_una = 11001;
	v.snd_nxt = 40000;
	ck_assert_int_eq(hystart_acks(&v, 20, 6000, 3000, 176000), 0);
	v.snd_una = 40001;
	v.snd_nxt = 80000;
	ck_assert_int_eq(hystart_acks(&v, 20, 66000, 3000, 176001), 9);
}
END_TEST

START_TEST(cubic_resets)
{
	/* a reduction ends the epoch, not HyStart: once found, slow start
	 * stays over until an RTO (Loss) resets curve and HyStart */
	struct tcp_cc_view v = cubic_view(20, INF_SSTH);
	ck_assert_int_eq(hystart_acks(&v, 20, 500, 500, 10000), 11);
	v.cwnd = 30;
	cc_cubic_ops.ssthresh(&v);
	ck_assert(cubic_info(&v).found);
	ck_assert_uint_eq(cubic_info(&v).last_max_cwnd, 30);
	cc_cubic_ops.set_state(&v, TCP_CA_LOSS);
	struct cc_cubic_info ci = cubic_info(&v);
	ck_assert(!ci.found);
	ck_assert_uint_eq(ci.last_max_cwnd, 0);
	ck_assert_uint_eq(ci.delay_min_us, 0);
	/* other states leave it */
	v = cubic_after_loss();
	cc_cubic_ops.cong_avoid(&v, 0, 1);
	cc_cubic_ops.set_state(&v, TCP_CA_RECOVERY);
	ck_assert_uint_eq(cubic_info(&v).epoch_start, jiffies_of(T0));
	/* the first second of an epoch gives no delay samples */
	v.now_ns = T0 + 996 * MS;
	cc_cubic_ops.pkts_acked(&v, 1, 9000);
	ck_assert_uint_eq(cubic_info(&v).delay_min_us, 10000);
	v.now_ns = T0 + 1000 * MS;
	cc_cubic_ops.pkts_acked(&v, 1, 9000);
	ck_assert_uint_eq(cubic_info(&v).delay_min_us, 9000);
}
END_TEST

START_TEST(cubic_idle_shift)
{
	/* Epoch at T0; data last sent at T0 + 400 ms, sending resumes at
	 * T0 + 1 s: the epoch moves 600 ms = 150 jiffies, the idle time since
	 * the last send, not since the last ACK (which was at T0). */
	struct tcp_cc_view v = cubic_after_loss();
	cc_cubic_ops.cong_avoid(&v, 0, 1);
	v.lsndtime_ns = T0 + 400 * MS;
	v.now_ns = T0 + 1000 * MS;
	cc_cubic_ops.cwnd_event(&v, CA_EVENT_TX_START);
	ck_assert_uint_eq(cubic_info(&v).epoch_start, jiffies_of(T0) + 150);
	/* never past now */
	v.lsndtime_ns = T0 - 2000 * MS;
	v.now_ns = T0 + 1100 * MS;
	cc_cubic_ops.cwnd_event(&v, CA_EVENT_TX_START);
	ck_assert_uint_eq(cubic_info(&v).epoch_start, jiffies_of(T0 + 1100 * MS));
	/* other events and no epoch: nothing */
	cc_cubic_ops.cwnd_event(&v, CA_EVENT_LOSS);
	ck_assert_uint_eq(cubic_info(&v).epoch_start, jiffies_of(T0 + 1100 * MS));
	v = cubic_view(20, INF_SSTH);
	v.lsndtime_ns = T0 - 400 * MS;
	cc_cubic_ops.cwnd_event(&v, CA_EVENT_TX_START);
	ck_assert_uint_eq(cubic_info(&v).epoch_start, 0);
}
END_TEST

START_TEST(last_send_time)
{
	/* the stack records each data segment's departure for the view's
	 * lsndtime_ns; pure ACKs do not move it */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	ck_assert_uint_eq(c->send.lsnd_ns, 0);
	f.now += 7 * MS;
	ck_assert_int_eq(tcp_send(f.tcp, c, seg, 100, f.now), 100);
	ck_assert_uint_eq(c->send.lsnd_ns, f.now);
	uint64_t sent = f.now;
	f.now += 5 * MS;
	struct tcp_repr a = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK, 65535);
	fx_send(&f, &a, seg, 10); /* data in: our ACK is no data segment */
	ck_assert_uint_eq(c->send.lsnd_ns, sent);
	fx_fini(&f);
}
END_TEST

START_TEST(cubic_rfc_selectable)
{
	ck_assert_ptr_eq(cc_find("cubic_rfc"), &cc_cubic_rfc_ops);
	ck_assert_ptr_eq(cc_default(), &cc_cubic_ops);
	struct cc_cubic_info ci;
	ck_assert(!cc_cubic_info_of(&cc_cubic_rfc_ops, cubic_priv, &ci));
	/* the same decrease */
	struct tcp_cc_view v = cubic_view(100, INF_SSTH);
	memset(cubic_priv, 0, sizeof(cubic_priv));
	cc_cubic_rfc_ops.init(&v);
	ck_assert_uint_eq(cc_cubic_rfc_ops.ssthresh(&v), 70);
}
END_TEST

#define US 1000ull

/* The peer's ACK of `ack` at the current time, echoing tsecr, with SACK
 * blocks [l, r) when r != l. */
static void peer_ack(struct fx *f, uint32_t ack, uint32_t tsecr, uint32_t l, uint32_t r)
{
	struct tcp_repr a = fx_repr(f->peer_seq, ack, TCP_ACK, 512);
	a.ts = true;
	a.tsval = 200;
	a.tsecr = tsecr;
	if (l != r) {
		a.nsack = 1;
		a.sack[0].l = l;
		a.sack[0].r = r;
	}
	fx_send(f, &a, NULL, 0);
}

/* Two segments leave now and two 3.3 ms later; the peer acknowledges all
 * four 10.4 ms after the first, echoing the newest's TSval (*tsval): 7.1
 * ms after the newest left. Returns snd_una after the ACK. */
static uint32_t four_acked_after_newest(struct fx *f, struct tcb *c, uint32_t *tsval)
{
	static uint8_t big[2 * 1460];
	uint32_t m = c->mss, una = c->send.una;
	uint64_t t0 = f->now;
	ck_assert_int_eq(tcp_send(f->tcp, c, big, 2 * m, f->now), (int)(2 * m));
	fx_at(f, t0 + 3300 * US);
	ck_assert_int_eq(tcp_send(f->tcp, c, big, 2 * m, f->now), (int)(2 * m));
	ck_assert_uint_eq(f->nout - f->next, 4);
	*tsval = f->out[f->next + 3].r.tsval;
	f->next = f->nout;
	fx_at(f, t0 + 10400 * US);
	peer_ack(f, una + 4 * m, *tsval, 0, 0);
	return una + 4 * m;
}

START_TEST(cubic_rtt_of_newest_segment)
{
	/* Linux gives cubic ca_rtt_us: µs since the newest segment the ACK
	 * delivered left (tcp_clean_rtx_queue), a newly SACKed one first,
	 * on duplicate ACKs too. Two segments leave at t0, two at t0 + 3.3
	 * ms; an ACK of all four at t0 + 10.4 ms is 7.1 ms after the newest
	 * left (Karn's timed segment, the first, says 10.4 ms; the echo of
	 * the newest's TSval, 7 or 8 ms). */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	ck_assert(c->flags & TCB_F_SACK);
	ck_assert(c->flags & TCB_F_TS);
	ck_assert_str_eq(c->cc.ops->name, "cubic");
	uint32_t m = c->mss;
	static uint8_t big[2 * 1460];
	uint64_t t0 = f.now;
	uint32_t tsval, una = four_acked_after_newest(&f, c, &tsval);
	struct cc_cubic_info ci;
	ck_assert(cc_cubic_info_of(c->cc.ops, c->cc.priv, &ci));
	ck_assert_uint_eq(ci.delay_min_us, 7100);
	/* Four more, two at t1 and two at t1 + 2 ms; the first is lost and
	 * a duplicate ACK at t1 + 8.5 ms SACKs the last two: 6.5 ms. */
	uint64_t t1 = t0 + 20 * MS;
	fx_at(&f, t1);
	ck_assert_int_eq(tcp_send(f.tcp, c, big, 2 * m, f.now), (int)(2 * m));
	fx_at(&f, t1 + 2 * MS);
	ck_assert_int_eq(tcp_send(f.tcp, c, big, 2 * m, f.now), (int)(2 * m));
	f.next = f.nout;
	fx_at(&f, t1 + 8500 * US);
	peer_ack(&f, una, tsval, una + 2 * m, una + 4 * m);
	ck_assert(cc_cubic_info_of(c->cc.ops, c->cc.priv, &ci));
	ck_assert_uint_eq(ci.delay_min_us, 6500);
	fx_fini(&f);
}
END_TEST

static void cfg_bbr(struct tcp_config *c)
{
	c->cc = "bbr";
}

START_TEST(bbr_rtt_is_ca_rtt)
{
	/* Linux's rate sample carries the ACK's ca_rtt_us (tcp_ack_update_rtt
	 * sets rs->rtt_us to it), which BBR's min_rtt filter reads: µs since
	 * the newest segment delivered left, and when the ACK cumulatively
	 * acknowledged only a resent segment, the timestamp echo, a 1 ms
	 * tick at least. */
	struct fx f;
	fx_init_cfg(&f, cfg_bbr);
	struct tcb *c = fx_passive(&f, true, NULL);
	ck_assert_str_eq(c->cc.ops->name, "bbr");
	ck_assert(c->flags & TCB_F_TS);
	uint32_t m = c->mss, tsval;
	static uint8_t big[1460];
	uint32_t una = four_acked_after_newest(&f, c, &tsval);
	struct cc_bbr_info bi;
	ck_assert(cc_bbr_info_of(c->cc.ops, c->cc.priv, &bi));
	ck_assert_uint_eq(bi.min_rtt_us, 7100);
	/* one segment, lost: the RTO resends it and the ACK of the resent
	 * one, 0.3 ms later, echoes its TSval */
	ck_assert_int_eq(tcp_send(f.tcp, c, big, m, f.now), (int)m);
	f.next = f.nout;
	uint64_t t1 = f.now;
	for (int i = 0; i < 400 && f.nout == f.next; i++)
		fx_at(&f, f.now + MS);
	struct fx_seg *rtx = fx_pop(&f);
	ck_assert_uint_eq(rtx->r.seq, una);
	ck_assert_uint_gt(f.now - t1, 7 * MS);
	fx_at(&f, f.now + 300 * US);
	peer_ack(&f, una + m, rtx->r.tsval, 0, 0);
	ck_assert(cc_bbr_info_of(c->cc.ops, c->cc.priv, &bi));
	ck_assert_uint_eq(bi.min_rtt_us, 1000);
	fx_fini(&f);
}
END_TEST

/* BBR driven through its view at 10 MB/s and a 10 ms path (a BDP of 100
 * segments of 1000 bytes, 100 in flight), its deliveries coming back
 * every `every` ms, `every` × 10 segments at a time, for `ms` ms. Returns
 * cwnd at the end. */
static uint32_t bbr_run_acks(uint32_t every, uint32_t ms)
{
	static uint64_t priv[TCP_CC_PRIV_SIZE / 8];
	memset(priv, 0, sizeof(priv));
	struct tcp_cc_view v = {
	    .now_ns = T0,
	    .hz = HZ,
	    .mss = 1000,
	    .srtt_us8 = 10000 * 8,
	    .min_rtt_us = 10000,
	    .cwnd = 10,
	    .cwnd_clamp = UINT32_MAX / 2,
	    .sack = true,
	    .paced = true,
	    .priv = priv,
	};
	cc_bbr_ops.init(&v);
	for (uint32_t t = every; t <= ms; t += every) {
		v.now_ns = T0 + (uint64_t)t * MS;
		uint32_t bytes = every * 10000;
		struct tcp_rate_sample rs = {
		    .delivered = 100000,
		    .interval_us = 10000,
		    .prior_delivered = v.delivered > 100000 ? v.delivered - 100000 : 0,
		    .acked_sacked = bytes,
		    .prior_in_flight = 100000,
		    .rtt_us = 10000,
		};
		v.delivered += bytes;
		v.inflight = 100000;
		cc_bbr_ops.cong_control(&v, 0, &rs);
	}
	return v.cwnd;
}

START_TEST(bbr_ack_aggregation)
{
	/* Linux's BBR (≥ 4.20, bbr_update_ack_aggregation) adds to its window
	 * what ACKs deliver in a burst beyond the estimated rate, so that a
	 * sender whose ACKs come bunched (delayed or coalesced ACKs, batching
	 * links) keeps sending through the silences between them: 2 BDP is
	 * 200 segments, the quantization budget adds 3 × 7 to 12, the
	 * aggregation 10 at an ACK a ms and 50 at one each 5 ms. */
	uint32_t smooth = bbr_run_acks(1, 2000), bunched = bbr_run_acks(5, 2000);
	ck_assert_uint_ge(smooth, 200 + 21 + 10);
	ck_assert_uint_le(smooth, 200 + 36 + 10 + 3);
	ck_assert_uint_ge(bunched, 200 + 21 + 50);
	ck_assert_uint_le(bunched, 200 + 36 + 50 + 3);
}
END_TEST

/* A DCTCP connection accepted from a peer whose SYN asked for ECN. */
static struct tcb *dctcp_conn(struct fx *f)
{
	fx_init_cfg(f, cfg_dctcp);
	struct tcb *l;
	tcp_open(f->tcp, AF_INET, &l);
	uint32_t any = 0;
	tcp_bind(f->tcp, l, &any, 80);
	tcp_listen(f->tcp, l, 4, f->now);
	struct tcp_repr syn = fx_repr(FX_PEER_ISN, 0, TCP_SYN | TCP_ECE | TCP_CWR, 65535);
	syn.mss = 1460;
	fx_send(f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(f);
	ck_assert_uint_eq(sa->r.flags, TCP_SYN | TCP_ACK | TCP_ECE);
	struct tcp_repr a = fx_repr(FX_PEER_ISN + 1, sa->r.seq + 1, TCP_ACK, 65535);
	f->now += 10 * MS;
	fx_send(f, &a, NULL, 0);
	struct tcb *c = tcp_accept(f->tcp, l);
	ck_assert_ptr_nonnull(c);
	ck_assert(c->flags & TCB_F_ECN);
	ck_assert_str_eq(c->cc.ops->name, "dctcp");
	ck_assert_int_eq(cc_dctcp_alpha(c), 1024); /* dctcp_alpha_on_init */
	f->peer_seq = FX_PEER_ISN + 1;
	return c;
}

/* The peer's next full segment with IP ECN field ecn. */
static void data_in(struct fx *f, struct tcb *c, uint8_t ecn)
{
	struct tcp_repr d = fx_repr(f->peer_seq, c->send.nxt, TCP_ACK, 65535);
	fx_send_ecn(f, &d, seg, sizeof(seg), ecn);
	f->peer_seq += sizeof(seg);
}

static void ack_out(struct fx *f, uint32_t ack, bool ece)
{
	struct fx_seg *s = fx_pop(f);
	ck_assert_uint_eq(s->r.ack, ack);
	ck_assert_uint_eq(s->r.flags, ece ? TCP_ACK | TCP_ECE : TCP_ACK);
}

START_TEST(dctcp_echo_per_segment)
{
	struct fx f;
	struct tcb *c = dctcp_conn(&f);
	uint32_t s0 = f.peer_seq, n = sizeof(seg);
	/* ECT: the ACK is delayed, as for any first segment */
	data_in(&f, c, 2);
	fx_none(&f);
	/* CE: the delayed ACK goes first without ECE, then the CE segment's
	 * ACK with ECE, at once */
	data_in(&f, c, 3);
	ack_out(&f, s0 + n, false);
	ack_out(&f, s0 + 2 * n, true);
	fx_none(&f);
	/* CE again: no change, delayed ACKs every second segment, with ECE */
	data_in(&f, c, 3);
	fx_none(&f);
	data_in(&f, c, 3);
	ack_out(&f, s0 + 4 * n, true);
	/* ECT: the mark changed back: at once, and without ECE (RFC 3168
	 * would keep echoing until CWR) */
	data_in(&f, c, 2);
	ack_out(&f, s0 + 5 * n, false);
	fx_none(&f);
	fx_fini(&f);
}
END_TEST

START_TEST(dctcp_alpha_and_cut)
{
	struct fx f;
	struct tcb *c = dctcp_conn(&f);
	int one = 1;
	tcp_setsockopt(c, 6, 1, &one, sizeof(one), false);
	uint32_t m = c->mss, una = c->send.una;
	ck_assert_uint_eq(c->cc.cwnd, 10);
	ck_assert_int_eq(tcp_send(f.tcp, c, seg, m, f.now), (int)m);
	static uint8_t big[10 * 1460];
	ck_assert_int_eq(tcp_send(f.tcp, c, big, 9 * m, f.now), (int)(9 * m));
	f.next = f.nout;
	/* The first ACK ends the window that began at the handshake: alpha
	 * decays by 1/16 with nothing marked, 1024 → 960. */
	struct tcp_repr a = fx_repr(f.peer_seq, una + 2 * m, TCP_ACK, 65535);
	fx_send(&f, &a, NULL, 0);
	ck_assert_int_eq(cc_dctcp_alpha(c), 960);
	uint32_t cw = c->cc.cwnd;
	/* ECE on the next two ACKs: one cut, cwnd × (1 − alpha/2) */
	a = fx_repr(f.peer_seq, una + 4 * m, TCP_ACK | TCP_ECE, 65535);
	fx_send(&f, &a, NULL, 0);
	ck_assert_uint_eq(c->cc.ssthresh, cw - ((cw * 960) >> 11));
	ck_assert_uint_eq(c->cc.cwnd, c->cc.ssthresh);
	uint32_t cut = c->cc.cwnd;
	a = fx_repr(f.peer_seq, una + 6 * m, TCP_ACK | TCP_ECE, 65535);
	fx_send(&f, &a, NULL, 0);
	ck_assert_uint_le(c->cc.cwnd, cut + 1); /* once per window (CWR) */
	a = fx_repr(f.peer_seq, una + 8 * m, TCP_ACK, 65535);
	fx_send(&f, &a, NULL, 0);
	ck_assert_int_eq(cc_dctcp_alpha(c), 960);
	/* the window's end: F = 4 of 8 segments, alpha = 960 − 60 + 1024 F / 16 */
	a = fx_repr(f.peer_seq, una + 10 * m, TCP_ACK, 65535);
	fx_send(&f, &a, NULL, 0);
	ck_assert_int_eq(cc_dctcp_alpha(c), 960 - 60 + (int)((4 * m) << 6) / (int)(8 * m));
	fx_fini(&f);
}
END_TEST

START_TEST(no_growth_in_cwr)
{
	/* Linux's tcp_cong_control sizes the window by tcp_cwnd_reduction
	 * (PRR) alone in CWR, never by cong_avoid: an ECE brings the window
	 * down to ssthresh over the round, and it does not grow until an ACK
	 * passes what was in flight at the ECE (the recovery point: Linux
	 * holds CWR until something above it is ACKed), then grows again.
	 * Reno on an ECN connection, ten segments: the ECE on the first ACK
	 * sets ssthresh 5; in congestion avoidance the ACKs of 8 segments
	 * would add one. */
	struct fx f;
	struct tcb *c = dctcp_conn(&f);
	ck_assert_int_eq(tcp_setsockopt(c, 6, 13, "reno", 4, false), 0);
	uint32_t m = c->mss, una = c->send.una;
	static uint8_t big[10 * 1460];
	ck_assert_int_eq(tcp_send(f.tcp, c, big, 10 * m, f.now), (int)(10 * m));
	f.next = f.nout;
	uint32_t end = c->send.max;
	struct tcp_repr a = fx_repr(f.peer_seq, una + 2 * m, TCP_ACK | TCP_ECE, 65535);
	fx_send(&f, &a, NULL, 0);
	ck_assert_uint_eq(c->cc.ssthresh, 5);
	ck_assert_uint_eq(c->cc.ca_state, TCP_CA_CWR);
	/* PRR with prior_cwnd 10: 8 in flight above ssthresh, the ACKs of
	 * 2 and 4 segments let ceil(2·5/10) and ceil(4·5/10) out (cwnd =
	 * pipe + that: 9, 8); at or below ssthresh the window is ssthresh. */
	ck_assert_uint_eq(c->cc.cwnd, 9);
	static const uint32_t want[] = {8, 5, 5};
	for (uint32_t k = 4; k <= 8; k += 2) {
		a = fx_repr(f.peer_seq, una + k * m, TCP_ACK, 65535);
		fx_send(&f, &a, NULL, 0);
		ck_assert_uint_eq(c->cc.cwnd, want[k / 2 - 2]);
	}
	a = fx_repr(f.peer_seq, end, TCP_ACK, 65535);
	fx_send(&f, &a, NULL, 0);
	ck_assert_uint_eq(c->cc.ca_state, TCP_CA_CWR);
	ck_assert_uint_eq(c->cc.cwnd, 5);
	/* past the recovery point: Open at ssthresh, and the ACKs grow it */
	f.next = f.nout;
	ck_assert_int_eq(tcp_send(f.tcp, c, big, 5 * m, f.now), (int)(5 * m));
	a = fx_repr(f.peer_seq, end + 5 * m, TCP_ACK, 65535);
	fx_send(&f, &a, NULL, 0);
	ck_assert_uint_eq(c->cc.ca_state, TCP_CA_OPEN);
	ck_assert_uint_eq(c->cc.cwnd, 6);
	fx_fini(&f);
}
END_TEST

START_TEST(cwnd_limited_for_the_window)
{
	/* Linux's tcp_is_cwnd_limited keeps what the last send saw
	 * (tcp_cwnd_validate) until the window then in flight is
	 * acknowledged: a sender that filled cwnd 10 and then had nothing
	 * more to send grows by all ten segments' ACKs in congestion
	 * avoidance, not only by the first ACK's (whose flight was still
	 * full). Reno, ssthresh 5: ten segments ACKed count cwnd to 11. */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	ck_assert_int_eq(tcp_setsockopt(c, 6, 13, "reno", 4, false), 0);
	c->cc.ssthresh = 5;
	ck_assert_uint_eq(c->cc.cwnd, 10);
	uint32_t m = c->mss, una = c->send.una;
	static uint8_t big[10 * 1460];
	ck_assert_int_eq(tcp_send(f.tcp, c, big, 10 * m, f.now), (int)(10 * m));
	f.next = f.nout;
	for (uint32_t k = 2; k <= 10; k += 2) {
		struct tcp_repr a = fx_repr(f.peer_seq, una + k * m, TCP_ACK, 65535);
		fx_send(&f, &a, NULL, 0);
	}
	ck_assert_uint_eq(c->cc.cwnd, 11);
	fx_fini(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_cc");
	TCase *tc = tcase_create("cc");
	tcase_add_test(tc, stack_default);
	tcase_add_test(tc, cubic_beta);
	tcase_add_test(tc, dctcp_echo_per_segment);
	tcase_add_test(tc, dctcp_alpha_and_cut);
	tcase_add_test(tc, no_growth_in_cwr);
	tcase_add_test(tc, cwnd_limited_for_the_window);
	suite_add_tcase(s, tc);
	TCase *cu = tcase_create("cubic");
	tcase_add_test(cu, cubic_root_table);
	tcase_add_test(cu, cubic_curve_integers);
	tcase_add_test(cu, cubic_cnt_floor);
	tcase_add_test(cu, cubic_reno_friendly);
	tcase_add_test(cu, hystart_ack_train);
	tcase_add_test(cu, hystart_delay);
	tcase_add_test(cu, cubic_resets);
	tcase_add_test(cu, cubic_idle_shift);
	tcase_add_test(cu, last_send_time);
	tcase_add_test(cu, cubic_rfc_selectable);
	tcase_add_test(cu, cubic_rtt_of_newest_segment);
	tcase_add_test(cu, bbr_rtt_is_ca_rtt);
	tcase_add_test(cu, bbr_ack_aggregation);
	suite_add_tcase(s, cu);
	return s;
}

SKOPS_CHECK_MAIN(suite)
