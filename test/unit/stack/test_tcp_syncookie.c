/* SYN cookies and listen-queue overflow (stack/tcp/tcp_syncookie.c,
 * docs/tcp.md "SYN cookies"): a listener with a small backlog flooded with
 * SYNs answers the excess with cookies and keeps nothing for them; the
 * final ACK of one makes a connection with the MSS, window scale and SACK
 * its SYN asked for; forged ACKs are refused; a full accept queue drops
 * SYNs and final ACKs as Linux does. */
#include "test_tcp_fixture.h"

#include "check_main.h"

#define BACKLOG	   2
#define FLOOD	   10
#define FLOOD_PORT 6000

struct syn_opts {
	uint16_t mss;
	int8_t wscale;
	bool sack, ts;
};

static const struct syn_opts all_opts = {.mss = 1460, .wscale = 7, .sack = true, .ts = true};

static struct tcb *listener(struct fx *f, int backlog)
{
	struct tcb *l;
	ck_assert_int_eq(tcp_open(f->tcp, AF_INET, &l), 0);
	uint8_t any[16] = {0};
	ck_assert_int_eq(tcp_bind(f->tcp, l, any, 80), 0);
	ck_assert_int_eq(tcp_listen(f->tcp, l, backlog, f->now), 0);
	l->sd = 0;
	return l;
}

static uint32_t isn_of(uint16_t port)
{
	return 7000000u + port * 1000u;
}

/* A SYN from port; returns its SYN-ACK (or NULL when none was sent). */
static struct fx_seg *syn_from(struct fx *f, uint16_t port, const struct syn_opts *o)
{
	f->t.rport = port;
	struct tcp_repr syn = fx_repr(isn_of(port), 0, TCP_SYN, 65535);
	syn.mss = o->mss;
	syn.wscale = o->wscale;
	syn.sack_perm = o->sack;
	syn.ts = o->ts;
	syn.tsval = 500;
	unsigned before = f->nout;
	fx_send(f, &syn, NULL, 0);
	if (f->nout == before)
		return NULL;
	struct fx_seg *sa = fx_pop(f);
	ck_assert_uint_eq(sa->r.flags & (TCP_SYN | TCP_ACK), TCP_SYN | TCP_ACK);
	ck_assert_uint_eq(sa->r.ack, isn_of(port) + 1);
	return sa;
}

static void ack_from(struct fx *f, uint16_t port, const struct fx_seg *sa, uint32_t ack, bool ts)
{
	f->t.rport = port;
	struct tcp_repr r = fx_repr(isn_of(port) + 1, ack, TCP_ACK, 1024);
	if (ts) {
		r.ts = true;
		r.tsval = 501;
		r.tsecr = sa->r.tsval;
	}
	fx_send(f, &r, NULL, 0);
}

static struct tcp_stats *stats(struct fx *f)
{
	return &f->tcp->stats;
}

START_TEST(flood_then_cookie_handshake)
{
	struct fx f;
	fx_init(&f);
	struct tcb *l = listener(&f, BACKLOG);
	struct fx_seg sas[FLOOD];
	for (unsigned i = 0; i < FLOOD; i++) {
		struct fx_seg *sa = syn_from(&f, (uint16_t)(FLOOD_PORT + i), &all_opts);
		ck_assert_ptr_nonnull(sa);
		sas[i] = *sa;
	}
	/* the queue holds BACKLOG requests; the rest were answered with
	 * cookies and nothing was kept for them */
	ck_assert_uint_eq(l->nq_syn, BACKLOG);
	ck_assert_uint_eq(tcp_conn_count(f.tcp), 1 + BACKLOG);
	ck_assert_uint_eq(stats(&f)->syncookies_sent, FLOOD - BACKLOG);
	ck_assert_uint_eq(stats(&f)->listen_drops, 0);
	/* a cookie SYN-ACK carries the options in the low bits of its TSval
	 * less the connection's offset (window scale 7, SACK) and our own
	 * options as any SYN-ACK does */
	const struct fx_seg *sa = &sas[FLOOD - 1];
	ck_assert(sa->r.ts);
	ck_assert_uint_eq((sa->r.tsval - tcp_ts_offset(f.tcp, &sa->t)) & 0x3f, 7 | 0x10);
	ck_assert(sa->r.sack_perm);
	ck_assert_int_eq(sa->r.wscale, 7);
	ck_assert_uint_eq(sa->r.mss, 1460);
	/* nothing retransmits a cookie's SYN-ACK */
	fx_at(&f, f.now + 1500 * MS);
	for (struct fx_seg *s; f.next < f.nout;) {
		s = fx_pop(&f);
		ck_assert_uint_lt(s->t.rport, FLOOD_PORT + BACKLOG);
	}
	/* the final ACK of a cookie makes the connection */
	uint16_t port = FLOOD_PORT + FLOOD - 1;
	f.now += 10 * MS;
	ack_from(&f, port, sa, sa->r.seq + 1, true);
	fx_none(&f);
	ck_assert_uint_eq(stats(&f)->syncookies_recv, 1);
	ck_assert_uint_eq(stats(&f)->syncookies_failed, 0);
	struct tcb *c = tcp_accept(f.tcp, l);
	ck_assert_ptr_nonnull(c);
	c->sd = 1;
	ck_assert_uint_eq(c->t.rport, port);
	ck_assert_uint_eq(c->state, TCP_ESTABLISHED);
	ck_assert_uint_eq(c->send.iss, sa->r.seq);
	ck_assert_uint_eq(c->recv.nxt, isn_of(port) + 1);
	ck_assert_uint_eq(c->peer_mss, 1460);
	ck_assert_uint_eq(c->mss, 1448);
	ck_assert(c->flags & TCB_F_WS);
	ck_assert_uint_eq(c->snd_wscale, 7);
	ck_assert_uint_eq(c->rcv_wscale, sa->r.wscale);
	ck_assert(c->flags & TCB_F_SACK);
	ck_assert(c->flags & TCB_F_TS);
	ck_assert_uint_eq(c->send.wnd, 1024u << 7);
	/* data both ways: full-sized segments out, and the peer's SACK taken */
	static uint8_t buf[3 * 1448];
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(tcp_send(f.tcp, c, buf, sizeof(buf), f.now), (int32_t)sizeof(buf));
	uint32_t seqs[3];
	for (int i = 0; i < 3; i++) {
		struct fx_seg *d = fx_pop(&f);
		ck_assert_uint_eq(d->len, 1448);
		ck_assert_uint_eq(d->r.seq, sa->r.seq + 1 + 1448u * (uint32_t)i);
		seqs[i] = d->r.seq;
	}
	f.now += 10 * MS;
	struct tcp_repr a = fx_repr(isn_of(port) + 1, seqs[1], TCP_ACK, 1024);
	a.ts = true;
	a.tsval = 502;
	a.tsecr = c->recv.ts_recent; /* any echo */
	a.nsack = 1;
	a.sack[0].l = seqs[2];
	a.sack[0].r = seqs[2] + 1448;
	fx_send(&f, &a, "hello", 5);
	ck_assert_uint_eq(c->send.una, seqs[1]);
	ck_assert_uint_eq(c->sb.sacked, 1448);
	uint8_t in[16];
	ck_assert_int_eq(tcp_recv(f.tcp, c, in, sizeof(in), false, f.now), 5);
	ck_assert_mem_eq(in, "hello", 5);
	fx_fini(&f);
}
END_TEST

START_TEST(forged_ack_refused)
{
	struct fx f;
	fx_init(&f);
	struct tcb *l = listener(&f, BACKLOG);
	struct fx_seg sas[BACKLOG + 1];
	for (unsigned i = 0; i < BACKLOG + 1; i++)
		sas[i] = *syn_from(&f, (uint16_t)(FLOOD_PORT + i), &all_opts);
	ck_assert_uint_eq(stats(&f)->syncookies_sent, 1);
	const struct fx_seg *sa = &sas[BACKLOG];
	uint16_t port = FLOOD_PORT + BACKLOG;
	/* a wrong cookie: refused with a RST, no connection */
	ack_from(&f, port, sa, sa->r.seq + 1 + 12345, true);
	struct fx_seg *rst = fx_pop(&f);
	ck_assert(rst->r.flags & TCP_RST);
	ck_assert_uint_eq(stats(&f)->syncookies_failed, 1);
	/* the right cookie from a port that never sent the SYN */
	ack_from(&f, port + 100, sa, sa->r.seq + 1, true);
	ck_assert(fx_pop(&f)->r.flags & TCP_RST);
	ck_assert_uint_eq(stats(&f)->syncookies_failed, 2);
	/* a cookie three minutes old */
	f.now += 180ull * 1000 * MS;
	l->cookie_ns = f.now; /* cookies were sent lately: the ACK is checked */
	ack_from(&f, port, sa, sa->r.seq + 1, true);
	ck_assert(fx_pop(&f)->r.flags & TCP_RST);
	ck_assert_uint_eq(stats(&f)->syncookies_failed, 3);
	ck_assert_uint_eq(stats(&f)->syncookies_recv, 0);
	ck_assert_ptr_null(tcp_accept(f.tcp, l));
	fx_fini(&f);
}
END_TEST

START_TEST(no_recent_cookie_no_check)
{
	/* Without a cookie sent lately an ACK to a listener is not hashed
	 * (Linux tcp_synq_no_recent_overflow): a RST, nothing counted. */
	struct fx f;
	fx_init(&f);
	listener(&f, BACKLOG);
	struct fx_seg fake;
	memset(&fake, 0, sizeof(fake));
	ack_from(&f, FLOOD_PORT, &fake, 12345, false);
	ck_assert(fx_pop(&f)->r.flags & TCP_RST);
	ck_assert_uint_eq(stats(&f)->syncookies_failed, 0);
	fx_fini(&f);
}
END_TEST

START_TEST(cookie_without_timestamps)
{
	/* Without timestamps a cookie keeps only the MSS, rounded down to
	 * its table (536, 1300, 1440, 1460): no scaling, no SACK. */
	struct fx f;
	fx_init(&f);
	struct tcb *l = listener(&f, 1);
	ck_assert_ptr_nonnull(syn_from(&f, FLOOD_PORT, &all_opts));
	static const struct syn_opts o = {.mss = 1400, .wscale = 7, .sack = true, .ts = false};
	struct fx_seg sa = *syn_from(&f, FLOOD_PORT + 1, &o);
	ck_assert_uint_eq(stats(&f)->syncookies_sent, 1);
	ck_assert(!sa.r.ts);
	ck_assert(!sa.r.sack_perm);
	ck_assert_int_eq(sa.r.wscale, -1);
	ack_from(&f, FLOOD_PORT + 1, &sa, sa.r.seq + 1, false);
	fx_none(&f);
	struct tcb *c = tcp_accept(f.tcp, l);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->peer_mss, 1300);
	ck_assert_uint_eq(c->mss, 1300);
	ck_assert(!(c->flags & (TCB_F_WS | TCB_F_SACK | TCB_F_TS)));
	ck_assert_uint_eq(c->send.wnd, 1024);
	fx_fini(&f);
}
END_TEST

START_TEST(accept_queue_overflow)
{
	struct fx f;
	fx_init(&f);
	struct tcb *l = listener(&f, 1);
	/* one request in the SYN queue, the next SYNs get cookies */
	struct fx_seg sa0 = *syn_from(&f, FLOOD_PORT, &all_opts);
	struct fx_seg sa1 = *syn_from(&f, FLOOD_PORT + 1, &all_opts);
	struct fx_seg sa2 = *syn_from(&f, FLOOD_PORT + 2, &all_opts);
	ck_assert_uint_eq(stats(&f)->syncookies_sent, 2);
	/* the request and the first cookie complete: backlog 1 holds two
	 * (Linux's sk_acceptq_is_full is ack_backlog > max_ack_backlog) */
	ack_from(&f, FLOOD_PORT, &sa0, sa0.r.seq + 1, true);
	ack_from(&f, FLOOD_PORT + 1, &sa1, sa1.r.seq + 1, true);
	fx_none(&f);
	ck_assert_uint_eq(l->nq_acc, 2);
	ck_assert_uint_eq(stats(&f)->listen_overflows, 0);
	/* the second cookie's ACK finds no room: dropped without a reply */
	ack_from(&f, FLOOD_PORT + 2, &sa2, sa2.r.seq + 1, true);
	fx_none(&f);
	ck_assert_uint_eq(stats(&f)->syncookies_recv, 2);
	ck_assert_uint_eq(stats(&f)->listen_overflows, 1);
	ck_assert_uint_eq(stats(&f)->listen_drops, 1);
	ck_assert_uint_eq(tcp_conn_count(f.tcp), 3);
	/* a new SYN is dropped too */
	ck_assert_ptr_null(syn_from(&f, FLOOD_PORT + 3, &all_opts));
	ck_assert_uint_eq(stats(&f)->listen_overflows, 2);
	ck_assert_uint_eq(stats(&f)->listen_drops, 2);
	/* once the application accepts, the peer's next ACK gets in */
	ck_assert_ptr_nonnull(tcp_accept(f.tcp, l));
	ack_from(&f, FLOOD_PORT + 2, &sa2, sa2.r.seq + 1, true);
	fx_none(&f);
	ck_assert_uint_eq(stats(&f)->syncookies_recv, 3);
	ck_assert_uint_eq(l->nq_acc, 2);
	fx_fini(&f);
}
END_TEST

START_TEST(backlog_zero_holds_one)
{
	/* listen(fd, 0): Linux keeps max_ack_backlog 0, so one connection
	 * fits (its SYN gets a cookie: the SYN queue is full at once) and the
	 * next SYN finds the accept queue full. */
	struct fx f;
	fx_init(&f);
	struct tcb *l = listener(&f, 0);
	struct fx_seg sa0 = *syn_from(&f, FLOOD_PORT, &all_opts);
	ack_from(&f, FLOOD_PORT, &sa0, sa0.r.seq + 1, true);
	fx_none(&f);
	ck_assert_uint_eq(l->nq_acc, 1);
	ck_assert_ptr_null(syn_from(&f, FLOOD_PORT + 1, &all_opts));
	ck_assert_uint_eq(stats(&f)->listen_overflows, 1);
	fx_fini(&f);
}
END_TEST

/* Backlog 2: three requests complete and fill the accept queue (it holds
 * backlog + 1, as Linux's), while port FLOOD_PORT + 1's request waits in
 * the SYN queue; its ACK then finds the queue full. */
static struct tcb *fill_accept_queue(struct fx *f, struct fx_seg sa[4])
{
	struct tcb *l = listener(f, 2);
	for (int i = 0; i < 2; i++)
		sa[i] = *syn_from(f, (uint16_t)(FLOOD_PORT + i), &all_opts);
	ack_from(f, FLOOD_PORT, &sa[0], sa[0].r.seq + 1, true);
	/* the SYN queue has room again after each completion */
	for (int i = 2; i < 4; i++) {
		sa[i] = *syn_from(f, (uint16_t)(FLOOD_PORT + i), &all_opts);
		ack_from(f, (uint16_t)(FLOOD_PORT + i), &sa[i], sa[i].r.seq + 1, true);
	}
	fx_none(f);
	ck_assert_uint_eq(l->nq_acc, 3);
	ck_assert_uint_eq(l->nq_syn, 1);
	ck_assert_uint_eq(stats(f)->listen_overflows, 0);
	return l;
}

START_TEST(request_ack_on_full_accept_queue)
{
	/* A request (not a cookie) whose ACK finds the accept queue full
	 * stays in SYN-RECEIVED and its SYN-ACK comes again (Linux
	 * listen_overflow with tcp_abort_on_overflow 0). */
	struct fx f;
	fx_init(&f);
	struct fx_seg sa[4];
	struct tcb *l = fill_accept_queue(&f, sa);
	ack_from(&f, FLOOD_PORT + 1, &sa[1], sa[1].r.seq + 1, true);
	fx_none(&f);
	ck_assert_uint_eq(stats(&f)->listen_overflows, 1);
	ck_assert_uint_eq(stats(&f)->listen_drops, 1);
	ck_assert_uint_eq(l->nq_syn, 1);
	fx_at(&f, f.now + 1100 * MS);
	struct fx_seg *again = fx_pop(&f);
	ck_assert_uint_eq(again->t.rport, FLOOD_PORT + 1);
	ck_assert_uint_eq(again->r.flags & (TCP_SYN | TCP_ACK), TCP_SYN | TCP_ACK);
	/* room again: the peer's next ACK completes it */
	ck_assert_ptr_nonnull(tcp_accept(f.tcp, l));
	ack_from(&f, FLOOD_PORT + 1, &sa[1], sa[1].r.seq + 1, true);
	ck_assert_uint_eq(l->nq_acc, 3);
	ck_assert_uint_eq(l->nq_syn, 0);
	fx_fini(&f);
}
END_TEST

static void abort_on_overflow(struct tcp_config *c)
{
	c->abort_on_overflow = true;
}

START_TEST(abort_on_overflow_resets)
{
	/* tcp_abort_on_overflow 1: the ACK is answered with a reset at the
	 * sequence number it acknowledged and the request goes. */
	struct fx f;
	fx_init_cfg(&f, abort_on_overflow);
	struct fx_seg sa[4];
	struct tcb *l = fill_accept_queue(&f, sa);
	uint32_t conns = tcp_conn_count(f.tcp);
	ack_from(&f, FLOOD_PORT + 1, &sa[1], sa[1].r.seq + 1, true);
	struct fx_seg *rst = fx_pop(&f);
	ck_assert_uint_eq(rst->t.rport, FLOOD_PORT + 1);
	ck_assert_uint_eq(rst->r.flags, TCP_RST);
	ck_assert_uint_eq(rst->r.seq, sa[1].r.seq + 1);
	fx_none(&f);
	ck_assert_uint_eq(stats(&f)->listen_overflows, 1);
	ck_assert_uint_eq(stats(&f)->listen_drops, 1);
	ck_assert_uint_eq(l->nq_syn, 0);
	ck_assert_uint_eq(l->nq_acc, 3);
	ck_assert_uint_eq(tcp_conn_count(f.tcp), conns - 1);
	fx_fini(&f);
}
END_TEST

static void no_cookies(struct tcp_config *c)
{
	c->syncookies_set = true;
	c->syncookies = 0;
}

START_TEST(cookies_off_drops)
{
	struct fx f;
	fx_init_cfg(&f, no_cookies);
	struct tcb *l = listener(&f, 1);
	ck_assert_ptr_nonnull(syn_from(&f, FLOOD_PORT, &all_opts));
	ck_assert_ptr_null(syn_from(&f, FLOOD_PORT + 1, &all_opts));
	ck_assert_uint_eq(stats(&f)->syncookies_sent, 0);
	ck_assert_uint_eq(stats(&f)->listen_drops, 1);
	ck_assert_uint_eq(stats(&f)->listen_overflows, 0);
	ck_assert_uint_eq(l->nq_syn, 1);
	fx_fini(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_syncookie");
	TCase *tc = tcase_create("cookie");
	tcase_add_test(tc, flood_then_cookie_handshake);
	tcase_add_test(tc, forged_ack_refused);
	tcase_add_test(tc, no_recent_cookie_no_check);
	tcase_add_test(tc, cookie_without_timestamps);
	tcase_add_test(tc, accept_queue_overflow);
	tcase_add_test(tc, request_ack_on_full_accept_queue);
	tcase_add_test(tc, abort_on_overflow_resets);
	tcase_add_test(tc, backlog_zero_holds_one);
	tcase_add_test(tc, cookies_off_drops);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
