/* Reassembly of out-of-order data: a FIN held with the segment that carried
 * it until the sequence space before it is complete (RFC 9293 §3.10.7.4
 * seventh/eighth), which bytes win where out-of-order segments overlap (as
 * Linux tcp_data_queue_ofo), and D-SACK blocks for duplicates (RFC 2883). */
#include "check_main.h"
#include "test_tcp_fixture.h"

static struct tcp_repr data_repr(struct fx *f, struct tcb *c, uint32_t off, uint8_t flags)
{
	struct tcp_repr d = fx_repr(f->peer_seq + off, c->send.nxt, TCP_ACK | flags, 512);
	if (c->flags & TCB_F_TS) {
		d.ts = true;
		d.tsval = c->recv.ts_recent + 1;
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

START_TEST(sack_blocks_count_a_held_fin)
{
	/* Linux's SACK blocks end at end_seq, which counts a FIN: "world" +
	 * FIN beyond a hole is SACKed as 6 sequence numbers; a bare FIN beyond
	 * a hole is a block of 1; a duplicate FIN a D-SACK of 1. */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	struct tcp_repr d = data_repr(&f, c, 5, TCP_FIN);
	fx_send(&f, &d, "world", 5);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.nsack, 1);
	ck_assert_uint_eq(a->r.sack[0].l, f.peer_seq + 5);
	ck_assert_uint_eq(a->r.sack[0].r, f.peer_seq + 11);
	fx_fini(&f);
	fx_init(&f);
	c = fx_passive(&f, true, NULL);
	d = data_repr(&f, c, 3, 0);
	fx_send(&f, &d, "xy", 2);
	d = data_repr(&f, c, 8, TCP_FIN);
	fx_send(&f, &d, NULL, 0);
	fx_pop(&f);
	a = fx_pop(&f);
	ck_assert_uint_eq(a->r.nsack, 2);
	ck_assert_uint_eq(a->r.sack[0].l, f.peer_seq + 8); /* the most recent first */
	ck_assert_uint_eq(a->r.sack[0].r, f.peer_seq + 9);
	ck_assert_uint_eq(a->r.sack[1].l, f.peer_seq + 3);
	ck_assert_uint_eq(a->r.sack[1].r, f.peer_seq + 5);
	/* the hole fills: the FIN is taken, no block is left */
	d = data_repr(&f, c, 0, 0);
	fx_send(&f, &d, "abc", 3);
	d = data_repr(&f, c, 5, 0);
	fx_send(&f, &d, "def", 3);
	f.next = f.nout - 1;
	a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, f.peer_seq + 9);
	ck_assert_uint_eq(a->r.nsack, 0);
	ck_assert_uint_eq(c->state, TCP_CLOSE_WAIT);
	/* the FIN again: a D-SACK of its one sequence number */
	d = data_repr(&f, c, 8, TCP_FIN);
	d.tsval++;
	fx_send(&f, &d, NULL, 0);
	a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, f.peer_seq + 9);
	ck_assert_uint_eq(a->r.nsack, 1);
	ck_assert_uint_eq(a->r.sack[0].l, f.peer_seq + 8);
	ck_assert_uint_eq(a->r.sack[0].r, f.peer_seq + 9);
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
	struct tcp_repr fin = fx_repr(f.peer_seq + 3, c->send.nxt, TCP_ACK | TCP_FIN, 1000);
	fx_send(&f, &fin, NULL, 0);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, f.peer_seq);
	ck_assert_uint_eq(c->state, TCP_FIN_WAIT_2);
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK, 1000);
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
	ck_assert_uint_eq(c->recv.nxt, f.peer_seq + 3);
	d = data_repr(&f, c, 3, 0);
	fx_send(&f, &d, "def", 3);
	ck_assert_uint_eq(c->recv.nxt, f.peer_seq + 10);
	ck_assert_uint_eq(c->state, TCP_CLOSE_WAIT);
	fx_fini(&f);
}
END_TEST

/* Sends each (offset, byte, length) as one out-of-order segment of that
 * byte repeated, then the first 10 bytes "0123456789", and returns what the
 * application reads (n bytes). */
struct piece {
	uint32_t off;
	char c;
	uint32_t len;
};

static void overlap_run(const struct piece *p, unsigned np, const char *want)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	for (unsigned i = 0; i < np; i++) {
		char buf[64];
		memset(buf, p[i].c, p[i].len);
		struct tcp_repr d = data_repr(&f, c, p[i].off, 0);
		fx_send(&f, &d, buf, p[i].len);
	}
	struct tcp_repr d = data_repr(&f, c, 0, 0);
	fx_send(&f, &d, "0123456789", 10);
	uint32_t n = (uint32_t)strlen(want);
	ck_assert_uint_eq(c->recv.nxt, f.peer_seq + n);
	char out[64] = {0};
	ck_assert_int_eq(tcp_recv(f.tcp, c, out, sizeof(out), false, f.now), (int)n);
	ck_assert_str_eq(out, want);
	fx_fini(&f);
}

START_TEST(overlap_later_start_keeps_first)
{
	/* B starts inside A: A's bytes stay where they overlap. */
	const struct piece p[] = {{10, 'A', 10}, {15, 'B', 10}};
	overlap_run(p, 2, "0123456789AAAAAAAAAABBBBB");
}
END_TEST

START_TEST(overlap_inside_keeps_first)
{
	const struct piece p[] = {{10, 'A', 10}, {12, 'B', 4}};
	overlap_run(p, 2, "0123456789AAAAAAAAAA");
	/* the same start, not longer: still A */
	const struct piece q[] = {{10, 'A', 10}, {10, 'B', 6}};
	overlap_run(q, 2, "0123456789AAAAAAAAAA");
}
END_TEST

START_TEST(overlap_earlier_start_wins_as_linux)
{
	/* Linux reads its out-of-order queue in sequence order: a segment
	 * that starts before an earlier one, or at the same place and ends
	 * beyond it, is read first where they overlap. */
	const struct piece p[] = {{15, 'A', 10}, {10, 'B', 10}};
	overlap_run(p, 2, "0123456789BBBBBBBBBBAAAAA");
	const struct piece q[] = {{10, 'A', 5}, {10, 'B', 10}};
	overlap_run(q, 2, "0123456789BBBBBBBBBB");
}
END_TEST

START_TEST(overlap_spanning_ranges)
{
	/* B starts inside A and covers C beyond a gap: A keeps its bytes, B's
	 * replace C's (B starts before C), as Linux. */
	const struct piece p[] = {{10, 'A', 4}, {18, 'C', 4}, {12, 'B', 12}};
	overlap_run(p, 3, "0123456789AAAABBBBBBBBBB");
}
END_TEST

START_TEST(dsack_old_duplicate)
{
	/* RFC 2883 §4: a duplicate below RCV.NXT is reported in the first SACK
	 * block of the ACK it triggers, once. */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	uint32_t s0 = f.peer_seq;
	struct tcp_repr d = data_repr(&f, c, 0, 0);
	fx_send(&f, &d, "abcd", 4);
	f.next = f.nout;
	fx_send(&f, &d, "abcd", 4);
	struct fx_seg *a = fx_pop(&f);
	fx_none(&f);
	ck_assert_uint_eq(a->r.ack, s0 + 4);
	ck_assert_uint_eq(a->r.nsack, 1);
	ck_assert_uint_eq(a->r.sack[0].l, s0);
	ck_assert_uint_eq(a->r.sack[0].r, s0 + 4);
	/* partly old: the old part is reported, the new part taken */
	d = data_repr(&f, c, 2, 0);
	fx_send(&f, &d, "cdef", 4);
	a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, s0 + 6);
	ck_assert_uint_eq(a->r.nsack, 1);
	ck_assert_uint_eq(a->r.sack[0].l, s0 + 2);
	ck_assert_uint_eq(a->r.sack[0].r, s0 + 4);
	/* the next ACK carries no D-SACK */
	f.next = f.nout;
	tcp_send_ack(f.tcp, c);
	a = fx_pop(&f);
	ck_assert_uint_eq(a->r.nsack, 0);
	fx_fini(&f);
}
END_TEST

START_TEST(dsack_out_of_order_duplicate)
{
	/* A duplicate of held data: the D-SACK block first, then the SACK
	 * block that contains it (RFC 2883 §4.1.2). */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	uint32_t s0 = f.peer_seq;
	struct tcp_repr d = data_repr(&f, c, 10, 0);
	fx_send(&f, &d, "xyz", 3);
	d = data_repr(&f, c, 20, 0);
	fx_send(&f, &d, "uvw", 3);
	f.next = f.nout;
	d = data_repr(&f, c, 10, 0);
	fx_send(&f, &d, "xyz", 3);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, s0);
	ck_assert_uint_eq(a->r.nsack, 3);
	ck_assert_uint_eq(a->r.sack[0].l, s0 + 10);
	ck_assert_uint_eq(a->r.sack[0].r, s0 + 13);
	ck_assert_uint_eq(a->r.sack[1].l, s0 + 10);
	ck_assert_uint_eq(a->r.sack[1].r, s0 + 13);
	ck_assert_uint_eq(a->r.sack[2].l, s0 + 20);
	/* a retransmission that fills the hole and repeats held bytes */
	f.next = f.nout;
	d = data_repr(&f, c, 0, 0);
	fx_send(&f, &d, "0123456789xy", 12);
	a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, s0 + 13);
	ck_assert_uint_eq(a->r.sack[0].l, s0 + 10);
	ck_assert_uint_eq(a->r.sack[0].r, s0 + 12);
	ck_assert_uint_eq(a->r.nsack, 2);
	ck_assert_uint_eq(a->r.sack[1].l, s0 + 20);
	fx_fini(&f);
}
END_TEST

START_TEST(dsack_needs_sack)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK, 1000);
	fx_send(&f, &d, "abcd", 4);
	f.next = f.nout;
	fx_send(&f, &d, "abcd", 4);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.nsack, 0);
	fx_fini(&f);
}
END_TEST

/* Issue 14: 200 holes in one window are all held (4 were, and the
 * segment past the fourth hole was dropped), the ACKs name the newest
 * arrivals (RFC 2018 §4), and the stream reassembles byte for byte. */
#define HOLES 200u

/* Feeds one segment, keeping only the segments it makes us send (more ACKs
 * than the fixture records come back in these tests). */
static void send_one(struct fx *f, const struct tcp_repr *d, const void *p, uint32_t n)
{
	f->nout = f->next = 0;
	fx_send(f, d, p, n);
}
START_TEST(many_holes_kept)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	static uint8_t want[8 * HOLES];
	for (uint32_t i = 0; i < sizeof(want); i++)
		want[i] = (uint8_t)(i * 7 + i / 251);
	/* bytes [8i + 4, 8i + 8) first: a hole of 4 before each */
	for (uint32_t i = 0; i < HOLES; i++) {
		struct tcp_repr d = data_repr(&f, c, 8 * i + 4, 0);
		send_one(&f, &d, want + 8 * i + 4, 4);
	}
	ck_assert_uint_eq(c->ooo.n, HOLES);
	ck_assert_uint_eq(f.tcp->stats.ooo_drop, 0);
	f.next = f.nout - 1;
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, f.peer_seq);
	/* timestamps leave room for 3 blocks: the three newest arrivals */
	ck_assert_uint_eq(a->r.nsack, 3);
	for (uint32_t k = 0; k < 3; k++) {
		ck_assert_uint_eq(a->r.sack[k].l, f.peer_seq + 8 * (HOLES - 1 - k) + 4);
		ck_assert_uint_eq(a->r.sack[k].r, f.peer_seq + 8 * (HOLES - 1 - k) + 8);
	}
	/* the holes fill from the top: each merges two ranges */
	for (uint32_t i = HOLES - 1; i >= 1; i--) {
		struct tcp_repr d = data_repr(&f, c, 8 * i, 0);
		send_one(&f, &d, want + 8 * i, 4);
		ck_assert_uint_eq(c->ooo.n, i);
	}
	struct tcp_repr d = data_repr(&f, c, 0, 0);
	send_one(&f, &d, want, 4);
	f.next = f.nout - 1;
	a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, f.peer_seq + sizeof(want));
	ck_assert_uint_eq(a->r.nsack, 0);
	ck_assert_uint_eq(c->ooo.n, 0);
	ck_assert_ptr_null(c->ooo.r); /* no holes: the array is returned */
	static uint8_t got[sizeof(want) + 1];
	ck_assert_int_eq(tcp_recv(f.tcp, c, got, sizeof(got), false, f.now), (int)sizeof(want));
	ck_assert_mem_eq(got, want, sizeof(want));
	fx_fini(&f);
}
END_TEST

/* The ranges stop at TCP_OOO_MAX whatever the peer sends: a segment that
 * needs one more is dropped and counted, one that extends a range is kept. */
START_TEST(holes_bounded)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	c->rcvbuf = 4 * TCP_OOO_MAX + 64;
	c->recv.ssthresh = c->rcvbuf;
	c->opt.window_clamp = c->rcvbuf;
	tcp_send_ack(f.tcp, c); /* offer the window */
	const uint8_t x = 'x';
	for (uint32_t i = 0; i < TCP_OOO_MAX; i++) {
		struct tcp_repr d = data_repr(&f, c, 2 * i + 1, 0);
		send_one(&f, &d, &x, 1);
	}
	ck_assert_uint_eq(c->ooo.n, TCP_OOO_MAX);
	ck_assert_uint_eq(f.tcp->stats.ooo_drop, 0);
	struct tcp_repr d = data_repr(&f, c, 2 * TCP_OOO_MAX + 1, 0);
	send_one(&f, &d, &x, 1);
	ck_assert_uint_eq(c->ooo.n, TCP_OOO_MAX);
	ck_assert_uint_eq(f.tcp->stats.ooo_drop, 1);
	d = data_repr(&f, c, 2 * TCP_OOO_MAX, 0); /* touches the last range */
	send_one(&f, &d, &x, 1);
	ck_assert_uint_eq(c->ooo.n, TCP_OOO_MAX);
	ck_assert_uint_eq(f.tcp->stats.ooo_drop, 1);
	ck_assert_uint_eq(c->ooo.r[TCP_OOO_MAX - 1].r, f.peer_seq + 2 * TCP_OOO_MAX + 1);
	fx_fini(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_reasm");
	TCase *tc = tcase_create("reasm");
	tcase_add_test(tc, fin_after_hole_kept);
	tcase_add_test(tc, sack_blocks_count_a_held_fin);
	tcase_add_test(tc, bare_fin_after_hole_kept);
	tcase_add_test(tc, fin_in_order_unchanged_by_held_fin);
	tcase_add_test(tc, overlap_later_start_keeps_first);
	tcase_add_test(tc, overlap_inside_keeps_first);
	tcase_add_test(tc, overlap_earlier_start_wins_as_linux);
	tcase_add_test(tc, overlap_spanning_ranges);
	tcase_add_test(tc, dsack_old_duplicate);
	tcase_add_test(tc, dsack_out_of_order_duplicate);
	tcase_add_test(tc, dsack_needs_sack);
	tcase_add_test(tc, many_holes_kept);
	tcase_add_test(tc, holes_bounded);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
