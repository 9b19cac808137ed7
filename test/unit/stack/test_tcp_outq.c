/* Output turns (stack/tcp/tcp_outq.c, issue 15): with the owner's transmit
 * room known, a connection sends at most TCP_OUT_BURST new segments a turn,
 * the ones with more take turns round-robin in tcp_output_pending, and none
 * sends into the last TCP_TX_RESERVE frames of the queue (it waits there
 * instead of being dropped at a full queue). */
#include "check_main.h"
#include "test_tcp_fixture.h"

static uint32_t room; /* what the owner's transmit queue can take */

static uint32_t tx_room(void *arg)
{
	(void)arg;
	return room;
}

static void with_room(struct tcp_config *c)
{
	c->tx_room = tx_room;
}

/* A second connection to fx_passive's listener, from peer port rport. */
static struct tcb *accept_from(struct fx *f, struct tcb *l, uint16_t rport)
{
	f->t.rport = rport;
	struct tcp_repr syn = fx_repr(FX_PEER_ISN, 0, TCP_SYN, 65535);
	syn.mss = 1460;
	syn.wscale = 7;
	syn.sack_perm = true;
	syn.ts = true;
	syn.tsval = 100;
	fx_send(f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(f);
	ck_assert_uint_eq(sa->r.flags, TCP_SYN | TCP_ACK);
	struct tcp_repr ack = fx_repr(FX_PEER_ISN + 1, sa->r.seq + 1, TCP_ACK, 512);
	ack.ts = true;
	ack.tsval = 101;
	ack.tsecr = sa->r.tsval;
	fx_send(f, &ack, NULL, 0);
	struct tcb *c = tcp_accept(f->tcp, l);
	ck_assert_ptr_nonnull(c);
	c->sd = 2;
	return c;
}

/* Room for a large flight: the turns, not the windows, limit these tests. */
static void open_windows(struct tcb *c)
{
	c->cc.cwnd = 1000;
	c->send.wnd = 1u << 24;
}

static uint8_t blob[64 * 1448];

START_TEST(turns_round_robin)
{
	struct fx f;
	fx_init_cfg(&f, with_room);
	room = 1000;
	struct tcb *l;
	struct tcb *a = fx_passive(&f, true, &l);
	struct tcb *b = accept_from(&f, l, 5001);
	open_windows(a);
	open_windows(b);
	uint32_t mss = a->mss, segs = 40;
	f.nout = f.next = 0;
	ck_assert_int_eq(tcp_send(f.tcp, a, blob, segs * mss, f.now), (int32_t)(segs * mss));
	ck_assert_uint_eq(f.nout, TCP_OUT_BURST); /* one turn, not the whole window */
	ck_assert(a->out_q);
	ck_assert_int_eq(tcp_send(f.tcp, b, blob, segs * mss, f.now), (int32_t)(segs * mss));
	ck_assert_uint_eq(f.nout, 2 * TCP_OUT_BURST);
	ck_assert_uint_eq(tcp_next_deadline(f.tcp), f.now); /* turns are due */
	int n = tcp_output_pending(f.tcp, f.now);
	ck_assert_int_eq(n, 2 * (int)segs - 2 * TCP_OUT_BURST);
	ck_assert_ptr_null(f.tcp->outq);
	/* the runs: A 16, B 16, A 16, B 16, A 8, B 8 */
	const uint32_t want[][2] = {{5000, 16}, {5001, 16}, {5000, 16},
				    {5001, 16}, {5000, 8},  {5001, 8}};
	uint32_t k = 0, next_seq[2] = {a->send.iss + 1, b->send.iss + 1};
	for (uint32_t r = 0; r < sizeof(want) / sizeof(want[0]); r++) {
		for (uint32_t i = 0; i < want[r][1]; i++, k++) {
			ck_assert_uint_lt(k, f.nout);
			struct fx_seg *s = &f.out[k];
			ck_assert_uint_eq(s->t.rport, want[r][0]);
			uint32_t *ns = &next_seq[want[r][0] - 5000];
			ck_assert_uint_eq(s->r.seq, *ns); /* in order, nothing skipped */
			ck_assert_uint_eq(s->len, mss);
			*ns += s->len;
		}
	}
	ck_assert_uint_eq(k, f.nout);
	fx_fini(&f);
}
END_TEST

START_TEST(full_queue_waits)
{
	struct fx f;
	fx_init_cfg(&f, with_room);
	room = TCP_TX_RESERVE + 3;
	struct tcb *c = fx_passive(&f, true, NULL);
	open_windows(c);
	uint32_t mss = c->mss, segs = 40;
	f.nout = f.next = 0;
	ck_assert_int_eq(tcp_send(f.tcp, c, blob, segs * mss, f.now), (int32_t)(segs * mss));
	ck_assert_uint_eq(f.nout, 3); /* the reserve stays free */
	ck_assert(c->out_q);
	room = TCP_TX_RESERVE;
	ck_assert_int_eq(tcp_output_pending(f.tcp, f.now), 0);
	ck_assert_uint_eq(f.nout, 3);
	/* the duplicate ACK out-of-order data asks for still goes at once */
	struct tcp_repr d = fx_repr(f.peer_seq + 10, c->send.una, TCP_ACK, 512);
	d.ts = true;
	d.tsval = c->recv.ts_recent + 1;
	fx_send(&f, &d, "xy", 2);
	ck_assert_uint_eq(f.nout, 4);
	ck_assert_uint_eq(f.out[3].len, 0);
	ck_assert_uint_eq(f.out[3].r.ack, f.peer_seq);
	ck_assert_uint_eq(f.out[3].r.nsack, 1);
	/* room again: the rest, in turns, nothing lost at the queue */
	room = 1000;
	/* (segments are 12 bytes shorter now: they carry a SACK block) */
	uint32_t before = f.nout;
	ck_assert_int_eq(tcp_output_pending(f.tcp, f.now), (int)(f.nout - before));
	ck_assert(!c->out_q);
	uint32_t seq = c->send.iss + 1;
	for (uint32_t i = 0; i < f.nout; i++) {
		if (!f.out[i].len)
			continue;
		ck_assert_uint_eq(f.out[i].r.seq, seq);
		seq += f.out[i].len;
	}
	ck_assert_uint_eq(seq, c->send.iss + 1 + segs * mss);
	fx_fini(&f);
}
END_TEST

/* Without tx_room (an owner that does not say) output is as before: the
 * whole window at once. */
START_TEST(no_room_callback_no_turns)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	open_windows(c);
	f.nout = f.next = 0;
	ck_assert_int_eq(tcp_send(f.tcp, c, blob, 40 * c->mss, f.now), (int32_t)(40 * c->mss));
	ck_assert_uint_eq(f.nout, 40);
	ck_assert(!c->out_q);
	fx_fini(&f);
}
END_TEST

/* A connection descheduled between two turns of its initial window finds
 * its probe timeout passed when it runs again. That flight is its own, late,
 * not a tail the peer went silent on: no tail loss probe; the turn sends the
 * rest and arms the PTO from there (the equivalence suite's initial-flight
 * row read 40 segments where the kernel sent 40 and then its probe). */
START_TEST(late_turn_is_not_a_tail)
{
	struct fx f;
	fx_init_cfg(&f, with_room);
	room = 1000;
	struct tcb *c = fx_passive(&f, true, NULL);
	open_windows(c);
	c->cc.cwnd = 40;
	c->rtt.srtt_us8 = 8 * 1000; /* PTO 2 ms + 2 ms */
	uint32_t mss = c->mss;
	f.nout = f.next = 0;
	ck_assert_int_eq(tcp_send(f.tcp, c, blob, 64 * mss, f.now), (int32_t)(64 * mss));
	ck_assert_uint_eq(f.nout, TCP_OUT_BURST);
	ck_assert(c->out_q);
	fx_at(&f, f.now + 30 * MS); /* the owner ran again late */
	ck_assert_uint_eq(f.nout, TCP_OUT_BURST);
	ck_assert_uint_eq(f.tcp->stats.tlp_probes, 0);
	tcp_output_pending(f.tcp, f.now);
	ck_assert_uint_eq(f.nout, 40); /* the rest of the window, by cwnd */
	ck_assert(c->tm.at[TCP_T_TLP] > f.now);
	/* now the peer is silent: the probe is new data beyond cwnd */
	fx_at(&f, f.now + 10 * MS);
	ck_assert_uint_eq(f.tcp->stats.tlp_probes, 1);
	ck_assert_uint_eq(f.nout, 41);
	ck_assert_uint_eq(f.out[40].r.seq, c->send.iss + 1 + 40 * mss);
	fx_fini(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_outq");
	TCase *tc = tcase_create("outq");
	tcase_add_test(tc, turns_round_robin);
	tcase_add_test(tc, full_queue_waits);
	tcase_add_test(tc, no_room_callback_no_turns);
	tcase_add_test(tc, late_turn_is_not_a_tail);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
