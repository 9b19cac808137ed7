/* Pacing (stack/tcp/tcp_pacing.c, docs/tcp.md "Pacing") at the tcb level:
 * a congestion control with TCP_CC_NEEDS_PACING turns pacing on where the
 * same window without it leaves at once; a paced connection waits on
 * TCP_T_PACE (the timer wheel reports it as its next deadline) and sends on
 * when it fires; SO_MAX_PACING_RATE through the program path (an int, ~0U
 * for no limit) and inheritance by a listener's children. The departure
 * gaps and the rates over time are test/sim/test_sim_pacing.c's. */
#include "test_tcp_fixture.h"

#include "check_main.h"

#define SEGS 20

/* The peer ACKs the initial window of an established connection whose
 * send queue holds SEGS segments; returns how many leave at that instant. */
static unsigned after_first_ack(struct fx *f, struct tcb *c)
{
	static uint8_t buf[SEGS * 1448];
	ck_assert_int_eq(tcp_send(f->tcp, c, buf, SEGS * c->mss, f->now), (int32_t)(SEGS * c->mss));
	ck_assert_uint_eq(f->nout - f->next, 10); /* the initial window, unpaced */
	f->next = f->nout;
	f->now += 10 * MS;
	fx_ack_all(f, c, 512);
	return f->nout - f->next;
}

START_TEST(cc_flag_turns_pacing_on)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	ck_assert(!tcp_pace_on(f.tcp, c));
	/* without pacing the grown window goes out at once */
	ck_assert_uint_eq(after_first_ack(&f, c), SEGS - 10);
	fx_fini(&f);

	fx_init(&f);
	c = fx_passive(&f, true, NULL);
	struct tcp_cc_ops paced = cc_reno_ops;
	paced.flags |= TCP_CC_NEEDS_PACING;
	c->cc.ops = &paced;
	ck_assert(tcp_pace_on(f.tcp, c));
	unsigned burst = after_first_ack(&f, c);
	/* rate: 200 % of cwnd 20 × MSS per SRTT 10 ms (cwnd < ssthresh / 2) */
	uint64_t want = (uint64_t)c->mss * 20 * 2 * 1000000 / 10000;
	ck_assert_uint_le(c->pace.rate, want + want / 100);
	ck_assert_uint_ge(c->pace.rate, want - want / 100);
	/* one tick of credit: 1 ms at that rate, and the segment that starts it */
	unsigned tick = (unsigned)(want / 1000 / c->mss) + 1;
	ck_assert_uint_ge(burst, 1);
	ck_assert_uint_le(burst, tick);
	ck_assert_uint_gt(c->tm.at[TCP_T_PACE], f.now);
	ck_assert_uint_eq(c->tm.at[TCP_T_PACE], c->pace.next_ns);
	/* the stack sleeps until the slot's tick, not "now" */
	uint64_t d = tcp_next_deadline(f.tcp);
	ck_assert_uint_gt(d, f.now);
	ck_assert_uint_le(d, c->pace.next_ns + MS);
	/* each tick releases about a tick's worth until all have left */
	unsigned sent = burst, wakes = 0;
	while (sent < SEGS - 10 && wakes < 20) {
		fx_at(&f, tcp_next_deadline(f.tcp));
		unsigned n = f.nout - f.next - sent;
		ck_assert_uint_le(n, tick);
		sent += n;
		wakes++;
	}
	ck_assert_uint_eq(sent, SEGS - 10);
	ck_assert_uint_ge(wakes, (SEGS - 10) / tick - 1);
	fx_fini(&f);
}
END_TEST

START_TEST(max_rate_from_program_and_inherited)
{
	struct fx f;
	fx_init(&f);
	struct tcb *l;
	struct tcb *c = fx_passive(&f, true, &l);
	ck_assert_uint_eq(c->pace.max_rate, UINT64_MAX);
	ck_assert(!c->pace.req);
	/* bpf_setsockopt passes an int: 1000000 caps, ~0U lifts the cap */
	int v = 1000000;
	ck_assert_int_eq(tcp_setsockopt(c, SOL_SOCKET, SO_MAX_PACING_RATE, &v, sizeof(v), true), 0);
	ck_assert_uint_eq(c->pace.max_rate, 1000000);
	ck_assert_uint_le(c->pace.rate, 1000000);
	ck_assert(tcp_pace_on(f.tcp, c));
	v = -1;
	ck_assert_int_eq(tcp_setsockopt(c, SOL_SOCKET, SO_MAX_PACING_RATE, &v, sizeof(v), true), 0);
	ck_assert_uint_eq(c->pace.max_rate, UINT64_MAX);
	ck_assert(tcp_pace_on(f.tcp, c)); /* sticky, as sk_pacing_status */
	uint32_t len = sizeof(v);
	ck_assert_int_eq(tcp_getsockopt(c, SOL_SOCKET, SO_MAX_PACING_RATE, &v, &len), 0);
	ck_assert_int_eq(v, -1);
	/* the listener's cap goes to the connections it accepts */
	v = 500000;
	ck_assert_int_eq(tcp_setsockopt(l, SOL_SOCKET, SO_MAX_PACING_RATE, &v, sizeof(v), false),
			 0);
	f.t.rport++;
	struct tcp_repr syn = fx_repr(FX_PEER_ISN, 0, TCP_SYN, 65535);
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(&f);
	struct tcp_repr ack = fx_repr(FX_PEER_ISN + 1, sa->r.seq + 1, TCP_ACK, 65535);
	fx_send(&f, &ack, NULL, 0);
	struct tcb *c2 = tcp_accept(f.tcp, l);
	ck_assert_ptr_nonnull(c2);
	ck_assert_uint_eq(c2->pace.max_rate, 500000);
	ck_assert_uint_le(c2->pace.rate, 500000);
	ck_assert(tcp_pace_on(f.tcp, c2));
	fx_fini(&f);
}
END_TEST

/* A capped connection (one segment per 2 ms) sends SEGS - 10 paced
 * segments after the first ACK, woken at each deadline; the wake numbered
 * late comes late_ns after its deadline (the process was not running).
 * Returns when the last segment left; checks that no wake sends more
 * than two (the catch-up runs at most at twice the rate). */
static uint64_t paced_run(unsigned late, uint64_t late_ns)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	uint64_t slot = 2 * MS;
	tcp_pace_set_max(c, (uint64_t)c->mss * CLK_NS_PER_S / slot);
	unsigned burst = after_first_ack(&f, c);
	ck_assert_uint_le(burst, 1);
	unsigned sent = burst, wakes = 0;
	while (sent < SEGS - 10 && wakes < 40) {
		uint64_t d = tcp_next_deadline(f.tcp);
		ck_assert_uint_ne(d, UINT64_MAX);
		fx_at(&f, d + (wakes == late ? late_ns : 0));
		ck_assert_uint_le(f.nout - f.next - sent, 2);
		sent = f.nout - f.next;
		wakes++;
	}
	ck_assert_uint_eq(sent, SEGS - 10);
	uint64_t last = f.out[f.nout - 1].at - f.out[f.next].at;
	fx_fini(&f);
	return last;
}

START_TEST(late_wake_is_caught_up)
{
	uint64_t on_time = paced_run(UINT32_MAX, 0);
	/* SEGS - 11 slots after the first, each served within its tick */
	ck_assert_uint_ge(on_time, (SEGS - 12) * 2 * MS);
	ck_assert_uint_le(on_time, (SEGS - 10) * 2 * MS);
	/* 5 ms late once: one tick is the slot's allowed lag, the other 4 ms
	 * are owed and earned back within the run (they were lost for good,
	 * the rate 15 % under the cap on a loaded host against the kernel) */
	uint64_t late = paced_run(2, 5 * MS);
	ck_assert_uint_le(late, on_time + MS);
}
END_TEST

static void stack_pacing(struct tcp_config *cfg)
{
	cfg->pacing = true;
	cfg->pacing_ca_ratio = 150;
}

START_TEST(stack_pacing_and_ratio)
{
	struct fx f;
	fx_init_cfg(&f, stack_pacing);
	struct tcb *c = fx_passive(&f, true, NULL);
	ck_assert(tcp_pace_on(f.tcp, c));
	/* at or above ssthresh / 2 the CA ratio applies */
	c->cc.ssthresh = c->cc.cwnd;
	tcp_pace_update(f.tcp, c);
	uint64_t want = (uint64_t)c->mss * c->cc.cwnd * 150 * 10000 / (c->rtt.srtt_us8 >> 3);
	ck_assert_uint_le(c->pace.rate, want + want / 100);
	ck_assert_uint_ge(c->pace.rate, want - want / 100);
	fx_fini(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_pacing");
	TCase *tc = tcase_create("pacing");
	tcase_add_test(tc, cc_flag_turns_pacing_on);
	tcase_add_test(tc, max_rate_from_program_and_inherited);
	tcase_add_test(tc, stack_pacing_and_ratio);
	tcase_add_test(tc, late_wake_is_caught_up);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
