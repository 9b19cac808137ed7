/* tcp_hz: the TCP timers round as Linux's do at its HZ (docs/tcp.md
 * "Timers and HZ"). Every expected instant is worked out by hand from
 * Linux's formulas at HZ 250 (4 ms jiffies): a timer armed for j jiffies
 * inside jiffy n runs at the start of jiffy n + j + 1 (timer_list:
 * expires = jiffies + j, the wheel runs it one tick after, calc_index).
 * The connections are made by fx_active: our SYN at 1000 ms, the SYN-ACK
 * at 1010 ms (one 10 ms RTT sample: SRTT 10 ms, min RTT 10 ms), and act
 * at 1011 ms, inside jiffy 252 (1008..1012 ms). */
#include "check_main.h"
#include "test_tcp_fixture.h"

#define SEG 1448u /* MSS 1460 less the timestamp option */

static void hz250(struct tcp_config *c)
{
	c->hz = 250;
}

static void hz300(struct tcp_config *c)
{
	c->hz = 300;
}

static struct fx_seg *next_data(struct fx *f)
{
	while (f->next < f->nout) {
		struct fx_seg *s = fx_pop(f);
		if (s->len)
			return s;
	}
	return NULL;
}

START_TEST(conversions)
{
	struct fx f;
	fx_init_cfg(&f, hz250);
	/* usecs_to_jiffies rounds up: 201 ms is 50.25 jiffies → 51 */
	ck_assert_uint_eq(tcp_us_to_jiffies(f.tcp, 201000), 51);
	ck_assert_uint_eq(tcp_us_to_jiffies(f.tcp, 200000), 50);
	ck_assert_uint_eq(tcp_jiffies_to_us(f.tcp, 51), 204000);
	/* inside jiffy 250 (1000.5 ms): runs at jiffy 250 + 51 + 1 = 302 */
	ck_assert_uint_eq(tcp_jiffy_deadline(f.tcp, 1000 * MS + MS / 2, 51), 1208 * MS);
	/* on a boundary (1000 ms starts jiffy 250): 51 jiffies on, 1204 ms */
	ck_assert_uint_eq(tcp_jiffy_deadline(f.tcp, 1000 * MS, 51), 1204 * MS);
	fx_fini(&f);
	/* 300 Hz: jiffy k starts at k/300 s, rounded up to the ns; from 1 ns
	 * (inside jiffy 0) one jiffy runs at jiffy 2, 6666666.7 ns */
	fx_init_cfg(&f, hz300);
	ck_assert_uint_eq(tcp_jiffy_deadline(f.tcp, 0, 1), 3333334);
	ck_assert_uint_eq(tcp_jiffy_deadline(f.tcp, 1, 1), 6666667);
	ck_assert_uint_eq(tcp_us_to_jiffies(f.tcp, 1000), 1); /* 0.3 jiffy → 1 */
	ck_assert_uint_eq(tcp_jiffies_to_us(f.tcp, 1), 3333);
	fx_fini(&f);
}
END_TEST

START_TEST(default_and_invalid_hz)
{
	struct fx f;
	memset(&f, 0, sizeof(f));
	struct tcp_config c = {.xmit = fx_xmit, .arg = &f, .keys_from_seed = true};
	struct tcp *t;
	ck_assert_int_eq(tcp_create(&c, &t), 0);
	ck_assert_uint_eq(t->cfg.hz, 250); /* Debian's CONFIG_HZ */
	tcp_destroy(t);
	c.hz = 200; /* no CONFIG_HZ choice */
	ck_assert_int_eq(tcp_create(&c, &t), -EINVAL);
	c.hz = 1000;
	ck_assert_int_eq(tcp_create(&c, &t), 0);
	tcp_destroy(t);
}
END_TEST

START_TEST(rto_201ms_is_204ms)
{
	struct fx f;
	fx_init_cfg(&f, hz250);
	struct tcb *c = fx_active(&f, false); /* no SACK: no probe before the RTO */
	/* A fresh estimator fed one 1 ms sample: SRTT 1 ms, RTTVAR 0.5 ms
	 * floored at tcp_rto_min (200 ms): 201 ms, usecs_to_jiffies → 51
	 * jiffies, reported (tcpi_rto) as 204 ms. */
	c->rtt.srtt_us8 = 0;
	tcp_rtt_sample(f.tcp, c, 1000);
	ck_assert_uint_eq(c->rtt.rto_us, 204000);
	/* Data sent inside jiffy 252: the RTO runs at 252 + 51 + 1 = 304,
	 * 1216 ms (µs timers: 1212 ms). */
	f.now = 1011 * MS;
	static const uint8_t d[100];
	ck_assert_int_eq(tcp_send(f.tcp, c, d, sizeof(d), f.now), (int32_t)sizeof(d));
	uint32_t seq = next_data(&f)->r.seq;
	fx_at(&f, 1215 * MS);
	ck_assert_ptr_null(next_data(&f));
	fx_at(&f, 1216 * MS);
	struct fx_seg *r = next_data(&f);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->r.seq, seq);
	/* backed off: 102 jiffies from inside jiffy 304 (1216 ms + the
	 * handler's 0 ns: on the boundary, so 304 + 102 = 406, 1624 ms) */
	fx_at(&f, 1623 * MS);
	ck_assert_ptr_null(next_data(&f));
	fx_at(&f, 1624 * MS);
	ck_assert_ptr_nonnull(next_data(&f));
	fx_fini(&f);

	/* The same sample at HZ 1000: 201 jiffies of 1 ms, 201 ms. */
	fx_init(&f);
	c = fx_active(&f, false);
	c->rtt.srtt_us8 = 0;
	tcp_rtt_sample(f.tcp, c, 1000);
	ck_assert_uint_eq(c->rtt.rto_us, 201000);
	fx_fini(&f);
}
END_TEST

START_TEST(delayed_ack_10_jiffies)
{
	struct fx f;
	fx_init_cfg(&f, hz250);
	struct tcb *c = fx_active(&f, false);
	/* One segment from the peer inside jiffy 252: the ACK waits
	 * TCP_DELACK_MIN = HZ/25 = 10 jiffies, running at 252 + 10 + 1 = 263,
	 * 1052 ms (a 40 ms µs timer: 1051 ms). */
	f.now = 1011 * MS;
	struct tcp_repr r = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK | TCP_PSH, 65535);
	static const uint8_t d[100];
	fx_send(&f, &r, d, sizeof(d));
	fx_none(&f);
	fx_at(&f, 1051 * MS);
	fx_none(&f);
	fx_at(&f, 1052 * MS);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.flags & TCP_ACK, TCP_ACK);
	ck_assert_uint_eq(a->r.ack, f.peer_seq + sizeof(d));
	fx_fini(&f);
}
END_TEST

START_TEST(tlp_rounds_up)
{
	struct fx f;
	fx_init_cfg(&f, hz250);
	struct tcb *c = fx_active(&f, true);
	ck_assert(c->flags & TCB_F_SACK);
	ck_assert_uint_eq(c->rtt.srtt_us8, 8u * 10000u);
	/* An ISS of 2^31 or more (seed 42): a HighRxt left at 0 would lie
	 * above SND.UNA and the probe find nothing to resend (the bug
	 * tcp_rec_established fixed). */
	ck_assert_uint_ge(c->send.iss, 0x80000000u);
	/* Two segments inside jiffy 252: PTO = 2·SRTT + TCP_TIMEOUT_MIN_US =
	 * 22 ms = 5.5 jiffies → 6 (tcp_schedule_loss_probe, Linux ≥ 6.7),
	 * running at 252 + 6 + 1 = 259, 1036 ms (µs timers: 1033 ms). The
	 * RTO (210 ms → 53 jiffies, 1224 ms) is later. */
	f.now = 1011 * MS;
	static uint8_t d[3 * SEG];
	ck_assert_int_eq(tcp_send(f.tcp, c, d, 2 * SEG, f.now), (int32_t)(2 * SEG));
	ck_assert_ptr_nonnull(next_data(&f));
	ck_assert_ptr_nonnull(next_data(&f));
	ck_assert_uint_eq(c->tm.at[TCP_T_TLP], 1036 * MS);
	ck_assert_uint_eq(c->tm.at[TCP_T_RTX], 1224 * MS);
	fx_at(&f, 1035 * MS);
	ck_assert_ptr_null(next_data(&f));
	fx_at(&f, 1036 * MS);
	ck_assert_ptr_nonnull(next_data(&f)); /* the probe */
	ck_assert_uint_eq(f.tcp->stats.tlp_probes, 1);
	fx_fini(&f);
}
END_TEST

START_TEST(rack_reo_timer_rounds_up)
{
	struct fx f;
	fx_init_cfg(&f, hz250);
	struct tcb *c = fx_active(&f, true);
	ck_assert_uint_eq(c->rtt.min_us, 10000);
	f.now = 1011 * MS;
	static uint8_t d[3 * SEG];
	ck_assert_int_eq(tcp_send(f.tcp, c, d, 3 * SEG, f.now), (int32_t)(3 * SEG));
	uint32_t base = next_data(&f)->r.seq;
	ck_assert_ptr_nonnull(next_data(&f));
	ck_assert_ptr_nonnull(next_data(&f));
	/* At 1021 ms the peer SACKs segments 2 and 3 (sent at 1011 ms): RACK's
	 * RTT is 10 ms and, with no reordering seen and fewer than 3 SACKed,
	 * its window min RTT / 4 = 2.5 ms. Segment 1 has 10 + 2.5 - 10 =
	 * 2.5 ms left; tcp_rack_mark_lost arms 2500 + TCP_TIMEOUT_MIN_US =
	 * 4500 µs = 1.125 jiffies → 2 from inside jiffy 255 (1020..1024 ms):
	 * it runs at 255 + 2 + 1 = 258, 1032 ms (µs timers: 1023.5 ms). */
	f.now = 1021 * MS;
	struct tcp_repr r = fx_repr(f.peer_seq, base, TCP_ACK, 4096);
	r.ts = true;
	r.tsval = 200;
	r.tsecr = c->recv.ts_recent;
	r.nsack = 1;
	r.sack[0].l = base + SEG;
	r.sack[0].r = base + 3 * SEG;
	fx_send(&f, &r, NULL, 0);
	ck_assert_ptr_null(next_data(&f));
	ck_assert_uint_eq(c->tm.at[TCP_T_REO], 1032 * MS);
	fx_at(&f, 1031 * MS);
	ck_assert_ptr_null(next_data(&f));
	fx_at(&f, 1032 * MS);
	struct fx_seg *s = next_data(&f);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->r.seq, base); /* segment 1, deemed lost */
	ck_assert_uint_eq(f.tcp->stats.rack_lost, 1);
	fx_fini(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_hz");
	TCase *tc = tcase_create("hz");
	tcase_add_test(tc, conversions);
	tcase_add_test(tc, default_and_invalid_hz);
	tcase_add_test(tc, rto_201ms_is_204ms);
	tcase_add_test(tc, delayed_ack_10_jiffies);
	tcase_add_test(tc, tlp_rounds_up);
	tcase_add_test(tc, rack_reo_timer_rounds_up);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
