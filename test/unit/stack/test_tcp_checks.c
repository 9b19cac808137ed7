/* The checks of RFC 9293 §3.10.7.4 on a synchronised connection, in their
 * order, and where each one drops the segment: the ACK check against blind
 * data injection (RFC 5961 §5.2) with challenge ACKs throttled per
 * connection and per stack (RFC 5961 §7, as Linux tcp_send_challenge_ack). */
#include "check_main.h"
#include "test_tcp_fixture.h"

/* Segments from f->next on that are pure ACKs for rcv_nxt; fails on others. */
static unsigned count_acks(struct fx *f, uint32_t ack)
{
	unsigned n = 0;
	while (f->next < f->nout) {
		struct fx_seg *s = fx_pop(f);
		ck_assert_uint_eq(s->r.flags, TCP_ACK);
		ck_assert_uint_eq(s->r.ack, ack);
		ck_assert_uint_eq(s->len, 0);
		n++;
	}
	return n;
}

START_TEST(ack_beyond_snd_nxt_drops_data_and_fin)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	uint64_t before = f.tcp->stats.in_challenge_ack;
	/* A blind injector that guessed the sequence number but not the ACK. */
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.nxt + (1u << 20), TCP_ACK | TCP_FIN, 1000);
	fx_send(&f, &d, "evil", 4);
	struct fx_seg *a = fx_pop(&f);
	fx_none(&f);
	ck_assert_uint_eq(a->r.flags, TCP_ACK);
	ck_assert_uint_eq(a->r.seq, c->send.nxt);
	ck_assert_uint_eq(a->r.ack, f.peer_seq); /* nothing taken */
	ck_assert_uint_eq(c->rcv.len, 0);
	ck_assert_uint_eq(c->recv.nxt, f.peer_seq);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	ck_assert(!(c->flags & TCB_F_FIN_RCVD));
	ck_assert_uint_eq(tcp_events(c) & (SKOPS_EV_IN | SKOPS_EV_RDHUP), 0);
	ck_assert_uint_eq(c->send.wnd, 65535); /* the window is not taken either */
	ck_assert_uint_eq(f.tcp->stats.in_challenge_ack, before + 1);
	/* The real peer's data still goes through. */
	struct tcp_repr ok = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK, 1000);
	fx_send(&f, &ok, "good", 4);
	ck_assert_uint_eq(c->rcv.len, 4);
	char b[8];
	ck_assert_int_eq(tcp_recv(f.tcp, c, b, sizeof(b), false, f.now), 4);
	ck_assert_mem_eq(b, "good", 4);
	fx_fini(&f);
}
END_TEST

START_TEST(ack_older_than_max_window_drops_data)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	int one = 1;
	tcp_setsockopt(c, 6, 1, &one, sizeof(one), false);
	/* Move snd_una 90000 bytes on, the peer offering 65535. */
	static uint8_t buf[30000];
	uint32_t queued = 0;
	for (int i = 0; i < 1000 && c->cnt.bytes_acked < 90000; i++) {
		uint32_t want = 90000 - queued < sizeof(buf) ? 90000 - queued : sizeof(buf);
		int32_t n = want ? tcp_send(f.tcp, c, buf, want, f.now) : 0;
		if (n > 0)
			queued += (uint32_t)n;
		fx_ack_all(&f, c, 65535);
		f.next = f.nout;
	}
	ck_assert_uint_eq(c->send.una, c->send.iss + 1 + 90000);
	ck_assert_uint_eq(c->send.max_wnd, 65535);
	/* SND.UNA − MAX.SND.WND − 1: older than any ACK the peer may still send. */
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.una - 65535 - 1, TCP_ACK | TCP_FIN, 1000);
	fx_send(&f, &d, "evil", 4);
	ck_assert_uint_eq(count_acks(&f, f.peer_seq), 1);
	ck_assert_uint_eq(c->rcv.len, 0);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	/* SND.UNA − MAX.SND.WND itself is an old duplicate, acceptable (RFC 5961
	 * §5.2): its data is taken. */
	f.now += 1000 * MS;
	d.ack = c->send.una - 65535;
	d.flags = TCP_ACK;
	fx_send(&f, &d, "okay", 4);
	ck_assert_uint_eq(c->rcv.len, 4);
	fx_fini(&f);
}
END_TEST

START_TEST(ack_before_iss_drops_data)
{
	/* Early in a connection fewer bytes were ever acknowledged than the
	 * window: an ACK below our ISS acknowledges nothing we sent (Linux
	 * bounds MAX.SND.WND by the bytes acked). */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.iss - 5, TCP_ACK, 1000);
	fx_send(&f, &d, "evil", 4);
	ck_assert_uint_eq(count_acks(&f, f.peer_seq), 1);
	ck_assert_uint_eq(c->rcv.len, 0);
	/* ACK = SND.UNA − 1 (= ISS) in a new connection: also never sent. */
	f.now += 1000 * MS;
	d.ack = c->send.iss;
	fx_send(&f, &d, "evil", 4);
	ck_assert_uint_eq(count_acks(&f, f.peer_seq), 1);
	ck_assert_uint_eq(c->rcv.len, 0);
	fx_fini(&f);
}
END_TEST

START_TEST(injected_timestamp_not_taken)
{
	/* A rejected segment must not move ts_recent: a huge TSval would make
	 * PAWS drop the real peer's segments afterwards. */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	uint32_t recent = c->recv.ts_recent;
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.nxt + (1u << 20), TCP_ACK, 512);
	d.ts = true;
	d.tsval = recent + 0x40000000u;
	fx_send(&f, &d, "evil", 4);
	ck_assert_uint_eq(c->recv.ts_recent, recent);
	f.next = f.nout;
	struct tcp_repr ok = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK, 512);
	ok.ts = true;
	ok.tsval = recent + 1;
	fx_send(&f, &ok, "good", 4);
	ck_assert_uint_eq(c->rcv.len, 4);
	fx_fini(&f);
}
END_TEST

START_TEST(challenge_ack_per_connection_limit)
{
	/* Linux tcp_invalid_ratelimit: one challenge ACK per connection per
	 * 500 ms, whatever its trigger. */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.nxt + (1u << 20), TCP_ACK, 1000);
	for (int i = 0; i < 10; i++) {
		fx_send(&f, &d, "evil", 4);
		f.now += 10 * MS;
	}
	ck_assert_uint_eq(count_acks(&f, f.peer_seq), 1);
	ck_assert_uint_eq(f.tcp->stats.challenge_ack_skipped, 9);
	f.now += 400 * MS; /* 500 ms after the first */
	fx_send(&f, &d, "evil", 4);
	ck_assert_uint_eq(count_acks(&f, f.peer_seq), 1);
	/* An in-window RST shares the budget (RFC 5961 §7). */
	struct tcp_repr r = fx_repr(f.peer_seq + 10, 0, TCP_RST, 0);
	fx_send(&f, &r, NULL, 0);
	fx_none(&f);
	ck_assert_uint_eq(c->rcv.len, 0);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	fx_fini(&f);
}
END_TEST

static void cfg_stack_limit(struct tcp_config *c)
{
	c->challenge_ack_limit = 4;
	c->oow_ratelimit_ms = UINT32_MAX; /* the per-connection limit off */
}

START_TEST(challenge_ack_stack_limit)
{
	/* tcp_challenge_ack_limit = 4: per second, all connections together,
	 * a random budget in [2, 5] (Linux randomises it so that the count
	 * cannot be read off by an attacker, CVE-2016-5696). */
	struct fx f;
	fx_init_cfg(&f, cfg_stack_limit);
	struct tcb *l;
	struct tcb *c1 = fx_passive(&f, false, &l);
	struct tcp_tuple t1 = f.t;
	f.t.rport = 5001;
	struct tcp_repr syn = fx_repr(FX_PEER_ISN, 0, TCP_SYN, 65535);
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(&f);
	struct tcp_repr ack = fx_repr(FX_PEER_ISN + 1, sa->r.seq + 1, TCP_ACK, 65535);
	fx_send(&f, &ack, NULL, 0);
	struct tcb *c2 = tcp_accept(f.tcp, l);
	ck_assert_ptr_nonnull(c2);
	struct tcp_tuple t2 = f.t;
	f.now = (f.now / 1000000000ull + 1) * 1000000000ull; /* the start of a second */
	unsigned sent = 0;
	for (int round = 0; round < 3; round++) {
		unsigned n = 0;
		for (int i = 0; i < 20; i++) {
			struct tcb *c = i & 1 ? c2 : c1;
			f.t = i & 1 ? t2 : t1;
			struct tcp_repr d =
			    fx_repr(FX_PEER_ISN + 1, c->send.nxt + (1u << 20), TCP_ACK, 1000);
			fx_send(&f, &d, "evil", 4);
			n += count_acks(&f, FX_PEER_ISN + 1);
			f.now += 10 * MS;
		}
		ck_assert_uint_ge(n, 2);
		ck_assert_uint_le(n, 5);
		sent += n;
		f.now += 1000 * MS; /* the next second: a new budget */
	}
	ck_assert_uint_eq(f.tcp->stats.in_challenge_ack, sent);
	ck_assert_uint_eq(f.tcp->stats.challenge_ack_skipped, 60 - sent);
	ck_assert_uint_eq(c1->rcv.len + c2->rcv.len, 0);
	fx_fini(&f);
}
END_TEST

START_TEST(syn_left_of_window_is_not_data)
{
	/* fourth, the SYN bit, comes before the text is trimmed to the window:
	 * a SYN starting left of RCV.NXT whose data reaches into the window
	 * gets a challenge ACK (RFC 5961 §4.2), none of it is taken as data. */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	uint64_t before = f.tcp->stats.in_challenge_ack;
	struct tcp_repr d = fx_repr(f.peer_seq - 1, c->send.nxt, TCP_SYN | TCP_ACK, 1000);
	fx_send(&f, &d, "abcd", 4);
	ck_assert_uint_eq(count_acks(&f, f.peer_seq), 1);
	ck_assert_uint_eq(f.tcp->stats.in_challenge_ack, before + 1);
	ck_assert_uint_eq(c->rcv.len, 0);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	fx_fini(&f);
}
END_TEST

START_TEST(syn_out_of_window_challenged)
{
	/* A SYN gets a challenge ACK whatever its sequence number (RFC 5961
	 * §4.2; Linux tcp_validate_incoming), throttled like the others. */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	uint64_t before = f.tcp->stats.in_challenge_ack;
	struct tcp_repr d = fx_repr(f.peer_seq + 1000000, 0, TCP_SYN, 1000);
	fx_send(&f, &d, NULL, 0);
	fx_send(&f, &d, NULL, 0);
	ck_assert_uint_eq(count_acks(&f, f.peer_seq), 1);
	ck_assert_uint_eq(f.tcp->stats.in_challenge_ack, before + 1);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	fx_fini(&f);
}
END_TEST

START_TEST(out_of_window_acks_throttled)
{
	/* first, the sequence number: an unacceptable segment gets an ACK,
	 * at most one per 500 ms when it carries no data (Linux
	 * tcp_oow_rate_limited: a data segment is no ACK loop). */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	struct tcp_repr a = fx_repr(f.peer_seq + 1000000, c->send.nxt, TCP_ACK, 1000);
	for (int i = 0; i < 5; i++)
		fx_send(&f, &a, NULL, 0);
	ck_assert_uint_eq(count_acks(&f, f.peer_seq), 1);
	for (int i = 0; i < 3; i++)
		fx_send(&f, &a, "data", 4);
	ck_assert_uint_eq(count_acks(&f, f.peer_seq), 3);
	f.now += 500 * MS;
	fx_send(&f, &a, NULL, 0);
	ck_assert_uint_eq(count_acks(&f, f.peer_seq), 1);
	ck_assert_uint_eq(c->rcv.len, 0);
	fx_fini(&f);
}
END_TEST

START_TEST(paws_reject_throttled_and_syn_challenged)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	struct tcp_repr a = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK, 512);
	a.ts = true;
	a.tsval = c->recv.ts_recent - 1;
	for (int i = 0; i < 4; i++)
		fx_send(&f, &a, NULL, 0);
	ck_assert_uint_eq(count_acks(&f, f.peer_seq), 1);
	ck_assert_uint_eq(f.tcp->stats.in_paws, 4);
	/* a SYN with an old timestamp: a challenge ACK (Linux), throttled */
	f.now += 500 * MS;
	uint64_t before = f.tcp->stats.in_challenge_ack;
	a.flags = TCP_SYN;
	fx_send(&f, &a, NULL, 0);
	ck_assert_uint_eq(count_acks(&f, f.peer_seq), 1);
	ck_assert_uint_eq(f.tcp->stats.in_challenge_ack, before + 1);
	fx_fini(&f);
}
END_TEST

START_TEST(duplicate_with_bad_ack_sends_one_throttled_ack)
{
	/* A retransmission (left of RCV.NXT) with an unacceptable ACK: the
	 * ACK check drops it before the text step could ask for a duplicate
	 * ACK, so only the throttled challenge ACK answers it. */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK, 1000);
	fx_send(&f, &d, "abcd", 4);
	f.next = f.nout;
	d.seq = f.peer_seq + 2;
	d.ack = c->send.nxt + (1u << 20);
	for (int i = 0; i < 3; i++)
		fx_send(&f, &d, "cdef", 4);
	ck_assert_uint_eq(count_acks(&f, f.peer_seq + 4), 1);
	ck_assert_uint_eq(c->rcv.len, 4);
	fx_fini(&f);
}
END_TEST

START_TEST(duplicate_ending_at_rcv_nxt_acks)
{
	/* Linux tcp_sequence takes a segment that ends at rcv_wup: the
	 * peer's retransmitted FIN that now ACKs our FIN ends LAST_ACK
	 * silently (as the kernel: measured by test_scenarios.sh
	 * fin_retransmitted), instead of a dup ACK and LAST_ACK kept. */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	struct tcp_repr fin = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK | TCP_FIN, 1000);
	fx_send(&f, &fin, NULL, 0);
	ck_assert_uint_eq(c->state, TCP_CLOSE_WAIT);
	tcp_shutdown(f.tcp, c, false, true, f.now);
	ck_assert_uint_eq(c->state, TCP_LAST_ACK);
	f.next = f.nout;
	fin.ack = c->send.nxt;
	fx_send(&f, &fin, NULL, 0);
	fx_none(&f);
	ck_assert_uint_eq(c->state, TCP_CLOSED);
	/* a duplicate data segment ending at rcv_nxt: its new ACK is taken
	 * and it gets a dup ACK with a D-SACK of itself (RFC 2883) */
	struct fx g;
	fx_init(&g);
	struct tcb *e = fx_passive(&g, false, NULL);
	e->flags |= TCB_F_SACK;
	int one = 1;
	tcp_setsockopt(e, 6, 1, &one, sizeof(one), false);
	ck_assert_int_eq(tcp_send(g.tcp, e, "out", 3, g.now), 3);
	struct tcp_repr d = fx_repr(g.peer_seq, e->send.una, TCP_ACK, 1000);
	fx_send(&g, &d, "abcd", 4);
	g.next = g.nout;
	d.ack = e->send.nxt;
	fx_send(&g, &d, "abcd", 4);
	ck_assert_uint_eq(e->send.una, e->send.nxt);
	struct fx_seg *a = fx_pop(&g);
	ck_assert_uint_eq(a->r.ack, g.peer_seq + 4);
	ck_assert_uint_eq(a->r.nsack, 1);
	ck_assert_uint_eq(a->r.sack[0].l, g.peer_seq);
	ck_assert_uint_eq(a->r.sack[0].r, g.peer_seq + 4);
	fx_fini(&g);
	fx_fini(&f);
}
END_TEST

START_TEST(rst_after_fin_at_rcv_nxt_minus_one)
{
	/* Linux tcp_reset_check: after the peer's FIN (CLOSE_WAIT, LAST_ACK,
	 * CLOSING) a RST carrying the FIN's sequence number resets; stacks
	 * that abort after a FIN send it so. */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	struct tcp_repr fin = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK | TCP_FIN, 1000);
	fx_send(&f, &fin, NULL, 0);
	ck_assert_uint_eq(c->state, TCP_CLOSE_WAIT);
	f.next = f.nout;
	struct tcp_repr r = fx_repr(f.peer_seq, 0, TCP_RST, 0);
	fx_send(&f, &r, NULL, 0);
	fx_none(&f);
	ck_assert_uint_eq(c->state, TCP_CLOSED);
	ck_assert_int_eq(c->err, EPIPE);
	/* in ESTABLISHED, RCV.NXT − 1 is just old: dropped */
	struct fx g;
	fx_init(&g);
	struct tcb *e = fx_passive(&g, false, NULL);
	r.seq = g.peer_seq - 1;
	fx_send(&g, &r, NULL, 0);
	fx_none(&g);
	ck_assert_uint_eq(e->state, TCP_ESTABLISHED);
	fx_fini(&g);
	fx_fini(&f);
}
END_TEST

START_TEST(rst_at_right_edge_of_sack)
{
	/* Linux: a RST at the right edge of the highest SACK block resets too
	 * (the peer's next sequence number as it sees it). */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	struct tcp_repr d = fx_repr(f.peer_seq + 100, c->send.nxt, TCP_ACK, 512);
	d.ts = true;
	d.tsval = c->recv.ts_recent + 1;
	fx_send(&f, &d, "later", 5);
	ck_assert_uint_eq(c->ooo.n, 1);
	f.next = f.nout;
	struct tcp_repr r = fx_repr(f.peer_seq + 105, 0, TCP_RST, 0);
	fx_send(&f, &r, NULL, 0);
	fx_none(&f);
	ck_assert_uint_eq(c->state, TCP_CLOSED);
	ck_assert_int_eq(c->err, ECONNRESET);
	fx_fini(&f);
}
END_TEST

START_TEST(rst_checked_before_syn_and_ack)
{
	/* second (RST) before fourth (SYN) and fifth (ACK): a RST|SYN with a
	 * wild ACK at RCV.NXT resets. */
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	struct tcp_repr r =
	    fx_repr(f.peer_seq, c->send.nxt + (1u << 20), TCP_RST | TCP_SYN | TCP_ACK, 0);
	fx_send(&f, &r, NULL, 0);
	fx_none(&f);
	ck_assert_uint_eq(c->state, TCP_CLOSED);
	fx_fini(&f);
}
END_TEST

START_TEST(new_syn_resets_half_open_request)
{
	/* RFC 9293 §3.10.7.4 fourth, SYN-RECEIVED from a passive OPEN: a SYN
	 * in the window with another ISN returns the connection to LISTEN.
	 * As Linux (tcp_check_req) the SYN is answered with a RST. */
	struct fx f;
	fx_init(&f);
	struct tcb *l;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &l), 0);
	uint32_t any = 0;
	tcp_bind(f.tcp, l, &any, 80);
	tcp_listen(f.tcp, l, 4, f.now);
	struct tcp_repr syn = fx_repr(1000, 0, TCP_SYN, 65535);
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(&f);
	ck_assert_uint_eq(sa->r.flags, TCP_SYN | TCP_ACK);
	ck_assert_uint_eq(l->nq_syn, 1);
	/* out of the window: an ACK, the request stays */
	struct tcp_repr far = fx_repr(1001 + 10000000, 0, TCP_SYN, 65535);
	fx_send(&f, &far, NULL, 0);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.flags, TCP_ACK);
	ck_assert_uint_eq(a->r.ack, 1001);
	ck_assert_uint_eq(l->nq_syn, 1);
	/* in the window, another ISN: RST for it, the request is gone */
	struct tcp_repr other = fx_repr(5000, 0, TCP_SYN, 65535);
	fx_send(&f, &other, NULL, 0);
	struct fx_seg *r = fx_pop(&f);
	fx_none(&f);
	ck_assert_uint_eq(r->r.flags, TCP_RST | TCP_ACK);
	ck_assert_uint_eq(r->r.seq, 0);
	ck_assert_uint_eq(r->r.ack, 5001);
	ck_assert_uint_eq(l->nq_syn, 0);
	ck_assert_uint_eq(tcp_conn_count(f.tcp), 1);
	ck_assert_uint_eq(l->state, TCP_LISTEN);
	/* the peer's next SYN opens afresh */
	fx_send(&f, &other, NULL, 0);
	sa = fx_pop(&f);
	ck_assert_uint_eq(sa->r.flags, TCP_SYN | TCP_ACK);
	ck_assert_uint_eq(sa->r.ack, 5001);
	ck_assert_uint_eq(l->nq_syn, 1);
	fx_fini(&f);
}
END_TEST

START_TEST(new_syn_in_simultaneous_open_challenged)
{
	/* An active open in SYN-RECEIVED (crossed SYNs) is handled as a
	 * synchronised state: challenge ACK, the connection stays. */
	struct fx f;
	fx_init(&f);
	struct tcb *c;
	ck_assert_int_eq(tcp_open(f.tcp, AF_INET, &c), 0);
	uint32_t dst = f.t.raddr.v4;
	tcp_connect(f.tcp, c, &dst, 5000, f.now);
	f.t = c->t;
	fx_pop(&f);
	struct tcp_repr syn = fx_repr(7000, 0, TCP_SYN, 2000);
	fx_send(&f, &syn, NULL, 0);
	fx_pop(&f);
	ck_assert_uint_eq(c->state, TCP_SYN_RECEIVED);
	struct tcp_repr other = fx_repr(7100, 0, TCP_SYN, 2000);
	fx_send(&f, &other, NULL, 0);
	struct fx_seg *a = fx_pop(&f);
	fx_none(&f);
	ck_assert_uint_eq(a->r.flags, TCP_ACK);
	ck_assert_uint_eq(a->r.ack, 7001);
	ck_assert_uint_eq(c->state, TCP_SYN_RECEIVED);
	fx_fini(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_checks");
	TCase *tc = tcase_create("rfc9293_3_10_7_4");
	tcase_add_test(tc, ack_beyond_snd_nxt_drops_data_and_fin);
	tcase_add_test(tc, ack_older_than_max_window_drops_data);
	tcase_add_test(tc, ack_before_iss_drops_data);
	tcase_add_test(tc, injected_timestamp_not_taken);
	tcase_add_test(tc, challenge_ack_per_connection_limit);
	tcase_add_test(tc, challenge_ack_stack_limit);
	tcase_add_test(tc, syn_left_of_window_is_not_data);
	tcase_add_test(tc, syn_out_of_window_challenged);
	tcase_add_test(tc, out_of_window_acks_throttled);
	tcase_add_test(tc, paws_reject_throttled_and_syn_challenged);
	tcase_add_test(tc, duplicate_with_bad_ack_sends_one_throttled_ack);
	tcase_add_test(tc, duplicate_ending_at_rcv_nxt_acks);
	tcase_add_test(tc, rst_after_fin_at_rcv_nxt_minus_one);
	tcase_add_test(tc, rst_at_right_edge_of_sack);
	tcase_add_test(tc, rst_checked_before_syn_and_ack);
	tcase_add_test(tc, new_syn_resets_half_open_request);
	tcase_add_test(tc, new_syn_in_simultaneous_open_challenged);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
