/* Reassembly of out-of-order data: a FIN held with the segment that carried
 * it until the sequence space before it is complete (RFC 9293 §3.10.7.4
 * seventh/eighth), which bytes win where out-of-order segments overlap (as
 * Linux tcp_data_queue_ofo), and D-SACK blocks for duplicates (RFC 2883). */
#include "check_main.h"
#include "test_tcp_fixture.h"

static struct tcp_repr data_repr(struct fx *f, struct tcb *c, uint32_t off, uint8_t flags)
{
	struct tcp_repr d = fx_repr(f->peer_seq + off, c->snd_nxt, TCP_ACK | flags, 512);
	if (c->flags & TCB_F_TS) {
		d.ts = true;
		d.tsval = c->ts_recent + 1;
	}
	return d;
}

START_TEST(fin_after_hole_kept)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	/* "world" + FIN arrives before "hello" */
	struct tcp_repr d = data_repr(&f, c, 5, TCP_FIN);
	fx_send(&f, &d, "world", 5);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, f.peer_seq);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	ck_assert_uint_eq(tcp_events(c) & SKOPS_EV_RDHUP, 0);
	/* the hole fills: data and FIN are taken, ACK covers the FIN */
	d = data_repr(&f, c, 0, 0);
	fx_send(&f, &d, "hello", 5);
	a = fx_pop(&f);
	fx_none(&f);
	ck_assert_uint_eq(a->r.ack, f.peer_seq + 11);
	ck_assert_uint_eq(a->r.nsack, 0);
	ck_assert_uint_eq(c->state, TCP_CLOSE_WAIT);
	ck_assert(tcp_events(c) & SKOPS_EV_RDHUP);
	char b[16];
	ck_assert_int_eq(tcp_recv(f.tcp, c, b, sizeof(b), false, f.now), 10);
	ck_assert_mem_eq(b, "helloworld", 10);
	ck_assert_int_eq(tcp_recv(f.tcp, c, b, sizeof(b), false, f.now), 0);
	fx_fini(&f);
}
END_TEST

START_TEST(bare_fin_after_hole_kept)
{
	/* A FIN without data beyond a hole, in FIN-WAIT-2: TIME-WAIT once the
	 * missing bytes arrive. */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	tcp_shutdown(f.tcp, c, false, true, f.now);
	fx_pop(&f);
	fx_ack_all(&f, c, 1000);
	ck_assert_uint_eq(c->state, TCP_FIN_WAIT_2);
	struct tcp_repr fin = fx_repr(f.peer_seq + 3, c->snd_nxt, TCP_ACK | TCP_FIN, 1000);
	fx_send(&f, &fin, NULL, 0);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, f.peer_seq);
	ck_assert_uint_eq(c->state, TCP_FIN_WAIT_2);
	struct tcp_repr d = fx_repr(f.peer_seq, c->snd_nxt, TCP_ACK, 1000);
	fx_send(&f, &d, "abc", 3);
	a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, f.peer_seq + 4);
	ck_assert_uint_eq(c->state, TCP_TIME_WAIT);
	fx_fini(&f);
}
END_TEST

START_TEST(fin_in_order_unchanged_by_held_fin)
{
	/* A held FIN does not fire early: filling only part of the hole
	 * leaves the connection open. */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	struct tcp_repr d = data_repr(&f, c, 6, TCP_FIN);
	fx_send(&f, &d, "ghi", 3);
	d = data_repr(&f, c, 0, 0);
	fx_send(&f, &d, "abc", 3);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	ck_assert_uint_eq(c->rcv_nxt, f.peer_seq + 3);
	d = data_repr(&f, c, 3, 0);
	fx_send(&f, &d, "def", 3);
	ck_assert_uint_eq(c->rcv_nxt, f.peer_seq + 10);
	ck_assert_uint_eq(c->state, TCP_CLOSE_WAIT);
	fx_fini(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_reasm");
	TCase *tc = tcase_create("reasm");
	tcase_add_test(tc, fin_after_hole_kept);
	tcase_add_test(tc, bare_fin_after_hole_kept);
	tcase_add_test(tc, fin_in_order_unchanged_by_held_fin);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
