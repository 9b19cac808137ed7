/* The data path: segmentation at the MSS, cwnd-limited initial flight,
 * Nagle and TCP_NODELAY, window scaling both ways, receiving across the
 * sequence-number wrap, out-of-order reassembly with SACK blocks (RFC 2018),
 * fast retransmit / NewReno recovery (RFC 6582), ECN (RFC 3168), options. */
#include "check_main.h"
#include "test_tcp_fixture.h"

static uint8_t big[256 * 1024];

static void fill(void)
{
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + (i >> 8));
}

START_TEST(initial_flight_and_segmentation)
{
	fill();
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL); /* peer window 512 << 7 */
	int nd = 1;
	tcp_setsockopt(c, 6, 1, &nd, sizeof(nd), false);
	/* The unlocked send buffer grows as Linux's does (tcp_sndbuf_expand):
	 * 2 × max(10, cwnd) × 4096 for MSS 1448; cwnd 10 still limits the flight. */
	ck_assert_int_eq(tcp_send(f.tcp, c, big, 100000, f.now), 81920);
	unsigned n = 0;
	uint32_t seq = c->send.una;
	while (f.next < f.nout) {
		struct fx_seg *s = fx_pop(&f);
		ck_assert_uint_eq(s->r.seq, seq);
		ck_assert_mem_eq(s->data, big + (seq - c->send.una), s->len);
		ck_assert_uint_le(s->len, 1448);
		seq += s->len;
		n++;
	}
	ck_assert_uint_eq(n, 10);
	ck_assert_uint_eq(seq - c->send.una, 14480);
	ck_assert_uint_eq(c->cnt.data_segs_out, 10);
	/* the ACK grows cwnd (slow start) and releases the rest */
	fx_ack_all(&f, c, 512);
	ck_assert_uint_eq(c->cc.cwnd, 20);
	struct fx_seg *s = fx_pop(&f);
	ck_assert_uint_eq(s->len, 1448);
	fx_fini(&f);
}
END_TEST

START_TEST(nagle)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	tcp_send(f.tcp, c, "a", 1, f.now);
	ck_assert_uint_eq(fx_pop(&f)->len, 1);
	/* a small segment waits while data is unacknowledged */
	tcp_send(f.tcp, c, "b", 1, f.now);
	tcp_send(f.tcp, c, "c", 1, f.now);
	fx_none(&f);
	fx_ack_all(&f, c, 1000);
	struct fx_seg *s = fx_pop(&f);
	ck_assert_uint_eq(s->len, 2);
	ck_assert_mem_eq(s->data, "bc", 2);
	/* TCP_NODELAY sends at once */
	int one = 1;
	tcp_setsockopt(c, 6, 1, &one, sizeof(one), false);
	tcp_send(f.tcp, c, "d", 1, f.now);
	ck_assert_uint_eq(fx_pop(&f)->len, 1);
	fx_fini(&f);
}
END_TEST

START_TEST(window_scaling)
{
	fill();
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	ck_assert_uint_eq(c->snd_wscale, 7);
	ck_assert_uint_eq(c->rcv_wscale, 7);
	/* a window of 3 (<< 7 = 384 bytes) limits what we send */
	struct tcp_repr w = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK, 3);
	w.ts = true;
	w.tsval = 300;
	fx_send(&f, &w, NULL, 0);
	int one = 1;
	tcp_setsockopt(c, 6, 1, &one, sizeof(one), false);
	tcp_send(f.tcp, c, big, 1000, f.now);
	struct fx_seg *s = fx_pop(&f);
	ck_assert_uint_eq(s->len, 384);
	fx_none(&f);
	/* our advertisement is scaled too: rcv_wnd >> 7 on the wire */
	ck_assert_uint_eq((uint32_t)s->r.window << 7, c->recv.wnd);
	fx_fini(&f);
}
END_TEST

START_TEST(receive_across_wrap)
{
	fill();
	struct fx f;
	fx_init(&f);
	struct tcb *l;
	tcp_open(f.tcp, AF_INET, &l);
	uint32_t any = 0;
	tcp_bind(f.tcp, l, &any, 80);
	tcp_listen(f.tcp, l, 4, f.now);
	uint32_t isn = 0xfffff000u;
	struct tcp_repr syn = fx_repr(isn, 0, TCP_SYN, 65535);
	syn.mss = 1460;
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(&f);
	struct tcp_repr a = fx_repr(isn + 1, sa->r.seq + 1, TCP_ACK, 65535);
	fx_send(&f, &a, NULL, 0);
	struct tcb *c = tcp_accept(f.tcp, l);
	uint32_t seq = isn + 1, off = 0;
	for (int i = 0; i < 6; i++) {
		struct tcp_repr d = fx_repr(seq, c->send.nxt, TCP_ACK, 65535);
		fx_send(&f, &d, big + off, 1460);
		seq += 1460;
		off += 1460;
	}
	ck_assert_uint_eq(c->recv.nxt, isn + 1 + 6 * 1460); /* wrapped past 0 */
	ck_assert(c->recv.nxt < 0x10000u);
	uint8_t out[8760];
	ck_assert_int_eq(tcp_recv(f.tcp, c, out, sizeof(out), false, f.now), 8760);
	ck_assert_mem_eq(out, big, 8760);
	fx_fini(&f);
}
END_TEST

START_TEST(out_of_order_with_sack)
{
	fill();
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, true, NULL);
	uint32_t s0 = f.peer_seq;
	struct tcp_repr d = fx_repr(0, c->send.nxt, TCP_ACK, 512);
	d.ts = true;
	d.tsval = 500;
	/* segments 2 and 4 arrive, 1 and 3 are missing */
	d.seq = s0 + 1000;
	fx_send(&f, &d, big + 1000, 1000);
	struct fx_seg *a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, s0);
	ck_assert_uint_eq(a->r.nsack, 1);
	ck_assert_uint_eq(a->r.sack[0].l, s0 + 1000);
	ck_assert_uint_eq(a->r.sack[0].r, s0 + 2000);
	d.seq = s0 + 3000;
	fx_send(&f, &d, big + 3000, 1000);
	a = fx_pop(&f);
	ck_assert_uint_eq(a->r.nsack, 2);
	/* the most recent block first (RFC 2018 §4) */
	ck_assert_uint_eq(a->r.sack[0].l, s0 + 3000);
	ck_assert_uint_eq(a->r.sack[1].l, s0 + 1000);
	ck_assert_uint_eq(c->rcv.len, 0);
	ck_assert_uint_eq(tcp_events(c) & SKOPS_EV_IN, 0);
	/* a duplicate of an out-of-order segment changes nothing */
	d.seq = s0 + 1000;
	fx_send(&f, &d, big + 1000, 1000);
	fx_pop(&f);
	ck_assert_uint_eq(c->ooo.n, 2);
	/* the first hole fills: ACK moves to the second hole */
	d.seq = s0;
	fx_send(&f, &d, big, 1000);
	a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, s0 + 2000);
	ck_assert_uint_eq(a->r.nsack, 1);
	/* overlapping retransmission fills the rest */
	d.seq = s0 + 1500;
	fx_send(&f, &d, big + 1500, 2000);
	a = fx_pop(&f);
	ck_assert_uint_eq(a->r.ack, s0 + 4000);
	/* only the D-SACK of its old part (RFC 2883) */
	ck_assert_uint_eq(a->r.nsack, 1);
	ck_assert_uint_eq(a->r.sack[0].l, s0 + 1500);
	ck_assert_uint_eq(a->r.sack[0].r, s0 + 2000);
	uint8_t out[4000];
	ck_assert_int_eq(tcp_recv(f.tcp, c, out, sizeof(out), false, f.now), 4000);
	ck_assert_mem_eq(out, big, 4000);
	fx_fini(&f);
}
END_TEST

START_TEST(fast_retransmit_newreno)
{
	fill();
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	c->peer_mss = 1000;
	tcp_update_mss(f.tcp, c, 0);
	ck_assert_int_eq(tcp_setsockopt(c, 6, 13, "newreno", 7, false), 0);
	int one = 1;
	tcp_setsockopt(c, 6, 1, &one, sizeof(one), false);
	tcp_send(f.tcp, c, big, 10000, f.now);
	ck_assert_uint_eq(f.nout - f.next, 10);
	f.next = f.nout;
	uint32_t una = c->send.una;
	/* segment 1 lost: three duplicate ACKs */
	for (int i = 0; i < 3; i++) {
		struct tcp_repr d = fx_repr(f.peer_seq, una, TCP_ACK, 65535);
		fx_send(&f, &d, NULL, 0);
	}
	struct fx_seg *r = fx_pop(&f);
	ck_assert_uint_eq(r->r.seq, una);
	ck_assert_uint_eq(r->len, 1000);
	ck_assert(c->flags & TCB_F_IN_RECOVERY);
	ck_assert_uint_eq(c->cc.ssthresh, 5);
	ck_assert_uint_eq(c->cc.cwnd, 8);
	/* partial ACK (up to the next hole at 5000): retransmit the next one */
	struct tcp_repr p = fx_repr(f.peer_seq, una + 5000, TCP_ACK, 65535);
	fx_send(&f, &p, NULL, 0);
	r = fx_pop(&f);
	ck_assert_uint_eq(r->r.seq, una + 5000);
	ck_assert(c->flags & TCB_F_IN_RECOVERY);
	/* full ACK: recovery ends with cwnd = ssthresh */
	f.next = f.nout;
	struct tcp_repr full = fx_repr(f.peer_seq, una + 10000, TCP_ACK, 65535);
	fx_send(&f, &full, NULL, 0);
	ck_assert(!(c->flags & TCB_F_IN_RECOVERY));
	ck_assert_uint_eq(c->cc.cwnd, 5);
	fx_fini(&f);
}
END_TEST

START_TEST(ecn_echo_and_cwr)
{
	struct fx f;
	fx_init(&f);
	struct tcb *l;
	tcp_open(f.tcp, AF_INET, &l);
	uint32_t any = 0;
	tcp_bind(f.tcp, l, &any, 80);
	tcp_listen(f.tcp, l, 4, f.now);
	/* tcp_ecn's default (2) agrees to a SYN that asks, without a program */
	struct tcp_repr syn = fx_repr(1000, 0, TCP_SYN | TCP_ECE | TCP_CWR, 65535);
	fx_send(&f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(&f);
	ck_assert_uint_eq(sa->r.flags, TCP_SYN | TCP_ACK | TCP_ECE);
	struct tcp_repr a = fx_repr(1001, sa->r.seq + 1, TCP_ACK, 65535);
	fx_send(&f, &a, NULL, 0);
	struct tcb *c = tcp_accept(f.tcp, l);
	ck_assert(c->flags & TCB_F_ECN);
	ck_assert_int_eq(tcp_setsockopt(c, 6, 13, "reno", 4, false), 0); /* cw / 2 below */
	/* CE → ECE until CWR */
	struct tcp_repr d = fx_repr(1001, c->send.nxt, TCP_ACK, 65535);
	fx_send_ecn(&f, &d, "x", 1, 3);
	struct fx_seg *e = fx_pop(&f);
	ck_assert_uint_eq(e->r.flags, TCP_ACK | TCP_ECE);
	ck_assert(c->ecn_seen & 4u);
	/* our data carries ECT(0) */
	int one = 1;
	tcp_setsockopt(c, 6, 1, &one, sizeof(one), false);
	tcp_send(f.tcp, c, "y", 1, f.now);
	e = fx_pop(&f);
	ck_assert_uint_eq(e->tos & 3, 2);
	ck_assert(e->r.flags & TCP_ECE);
	/* the peer's CWR stops the echo */
	struct tcp_repr cwr = fx_repr(1002, c->send.nxt, TCP_ACK | TCP_CWR, 65535);
	fx_send_ecn(&f, &cwr, "z", 1, 2);
	f.next = f.nout;
	tcp_send_ack(f.tcp, c);
	ck_assert_uint_eq(fx_pop(&f)->r.flags, TCP_ACK);
	/* ECE from the peer halves ssthresh once and sets CWR on the next
	 * data. PRR sizes the window meanwhile, as Linux's
	 * tcp_cwnd_reduction: nothing in flight, one segment delivered and
	 * one more for the ACK that moved snd_una: 2. */
	uint32_t cw = c->cc.cwnd;
	tcp_send(f.tcp, c, "w", 1, f.now);
	f.next = f.nout;
	struct tcp_repr ece = fx_repr(1003, c->send.nxt, TCP_ACK | TCP_ECE, 65535);
	fx_send(&f, &ece, NULL, 0);
	ck_assert_uint_eq(c->cc.ssthresh, cw / 2);
	ck_assert_uint_eq(c->cc.cwnd, 2);
	tcp_send(f.tcp, c, "v", 1, f.now);
	e = fx_pop(&f);
	ck_assert(e->r.flags & TCP_CWR);
	/* its ACK is above the point: the reduction ends at ssthresh */
	ece = fx_repr(1003, c->send.nxt, TCP_ACK, 65535);
	fx_send(&f, &ece, NULL, 0);
	ck_assert_uint_eq(c->cc.cwnd, cw / 2);
	fx_fini(&f);
}
END_TEST

START_TEST(options_and_errors)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	int v = 1000;
	uint32_t len = sizeof(v);
	ck_assert_int_eq(tcp_setsockopt(c, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v), false), 0);
	ck_assert_int_eq(tcp_getsockopt(c, SOL_SOCKET, SO_SNDBUF, &v, &len), 0);
	ck_assert_int_eq(v, 4608); /* max(2 × 1000, SOCK_MIN_SNDBUF) */
	v = 100000;
	tcp_setsockopt(c, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v), false);
	tcp_getsockopt(c, SOL_SOCKET, SO_RCVBUF, &v, &len);
	ck_assert_int_eq(v, 200000);
	ck_assert_int_eq(tcp_setsockopt(c, 6, 13, "vegas", 5, false), -ENOENT);
	ck_assert_str_eq(c->cc.ops->name, "cubic"); /* the default, unchanged */
	ck_assert_int_eq(tcp_setsockopt(c, 6, 13, "newreno", 7, false), 0);
	char name[16];
	len = sizeof(name);
	ck_assert_int_eq(tcp_getsockopt(c, 6, 13, name, &len), 0);
	ck_assert_str_eq(name, "newreno");
	ck_assert_int_eq(tcp_setsockopt(c, 6, 13, "reno", 4, false), 0);
	/* the BPF-only options: IW before data only, clamp sets ssthresh */
	v = 40;
	ck_assert_int_eq(tcp_setsockopt(c, 6, HOOKS_TCP_IW, &v, sizeof(v), false), -ENOPROTOOPT);
	ck_assert_int_eq(tcp_setsockopt(c, 6, HOOKS_TCP_IW, &v, sizeof(v), true), 0);
	ck_assert_uint_eq(c->cc.cwnd, 40);
	v = 0;
	ck_assert_int_eq(tcp_setsockopt(c, 6, HOOKS_TCP_SNDCWND_CLAMP, &v, sizeof(v), true),
			 -EINVAL);
	v = 30;
	ck_assert_int_eq(tcp_setsockopt(c, 6, HOOKS_TCP_SNDCWND_CLAMP, &v, sizeof(v), true), 0);
	ck_assert_uint_eq(c->cc.ssthresh, 30);
	ck_assert_uint_eq(c->cc.cwnd, 30);
	tcp_send(f.tcp, c, "x", 1, f.now);
	v = 50;
	ck_assert_int_eq(tcp_setsockopt(c, 6, HOOKS_TCP_IW, &v, sizeof(v), true), -EINVAL);
	v = 50;
	ck_assert_int_eq(tcp_setsockopt(c, 6, 2, &v, sizeof(v), false), -EINVAL); /* MAXSEG < 88 */
	v = 300000;
	ck_assert_int_eq(tcp_setsockopt(c, 6, HOOKS_TCP_RTO_MIN, &v, sizeof(v), true), -EINVAL);
	v = 10000;
	ck_assert_int_eq(tcp_setsockopt(c, 6, HOOKS_TCP_RTO_MIN, &v, sizeof(v), true), 0);
	ck_assert_int_eq(tcp_setsockopt(c, 6, 1, &v, 2, false), -EINVAL); /* short optlen */
	fx_fini(&f);
}
END_TEST

START_TEST(buffers_on_demand)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	ck_assert_ptr_null(c->snd.buf);
	ck_assert_ptr_null(c->rcv.buf);
	tcp_send(f.tcp, c, "abc", 3, f.now);
	ck_assert_ptr_nonnull(c->snd.buf);
	fx_ack_all(&f, c, 1000);
	ck_assert_ptr_null(c->snd.buf); /* returned when drained */
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK, 1000);
	fx_send(&f, &d, "xyz", 3);
	ck_assert_ptr_nonnull(c->rcv.buf);
	char b[3];
	tcp_recv(f.tcp, c, b, 3, false, f.now);
	ck_assert_ptr_null(c->rcv.buf);
	ck_assert_uint_le(sizeof(struct tcb), 2048);
	fx_fini(&f);
}
END_TEST

/* A drained ring's buffer waits in the stack's cache for the next fill,
 * so a busy connection does not take its memory from malloc, and glibc
 * from the kernel, thousands of times a second; the cache is bounded. */
START_TEST(drained_buffers_reused)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	tcp_send(f.tcp, c, "abc", 3, f.now);
	uint8_t *b = c->snd.buf;
	fx_ack_all(&f, c, 1000);
	ck_assert_ptr_null(c->snd.buf);
	ck_assert_uint_eq(f.tcp->ring_cache.n, 1);
	ck_assert_ptr_eq(f.tcp->ring_cache.buf[0], b);
	tcp_send(f.tcp, c, "def", 3, f.now);
	ck_assert_ptr_eq(c->snd.buf, b);
	ck_assert_uint_eq(f.tcp->ring_cache.n, 0);
	fx_ack_all(&f, c, 1000);
	/* a receive ring of another size does not take it */
	c->rcvbuf = c->sndbuf + 4096;
	struct tcp_repr d = fx_repr(f.peer_seq, c->send.nxt, TCP_ACK, 1000);
	fx_send(&f, &d, "xyz", 3);
	ck_assert_ptr_ne(c->rcv.buf, b);
	ck_assert_uint_eq(f.tcp->ring_cache.n, 1);
	/* more drained buffers than the cache holds: the oldest are freed */
	struct tcp_ring r[TCP_RING_CACHE + 4] = {0};
	for (unsigned i = 0; i < TCP_RING_CACHE + 4; i++)
		ck_assert_int_eq(ring_reserve(f.tcp, &r[i], 1000 + i), 0);
	for (unsigned i = 0; i < TCP_RING_CACHE + 4; i++)
		ring_release(f.tcp, &r[i], false);
	ck_assert_uint_eq(f.tcp->ring_cache.n, TCP_RING_CACHE);
	ck_assert_uint_eq(f.tcp->ring_cache.cap[0], 1004);
	/* a ring holding bytes keeps them unless forced */
	ck_assert_int_eq(ring_reserve(f.tcp, &r[0], 1004), 0);
	ck_assert_uint_eq(ring_write_at(&r[0], 0, (const uint8_t *)"q", 1), 1);
	ring_release(f.tcp, &r[0], false);
	ck_assert_ptr_nonnull(r[0].buf);
	ring_release(f.tcp, &r[0], true);
	ck_assert_ptr_null(r[0].buf);
	fx_fini(&f); /* frees the cache (the ASan build checks) */
}
END_TEST

/* A listener whose peer's SYN announces MSS mss (timestamps if ts). */
static struct tcb *tiny_mss_conn(struct fx *f, uint16_t mss, bool ts)
{
	struct tcb *l;
	tcp_open(f->tcp, AF_INET, &l);
	uint32_t any = 0;
	tcp_bind(f->tcp, l, &any, 80);
	tcp_listen(f->tcp, l, 4, f->now);
	struct tcp_repr syn = fx_repr(1000, 0, TCP_SYN, 65535);
	syn.mss = mss;
	syn.ts = ts;
	syn.tsval = 5;
	fx_send(f, &syn, NULL, 0);
	struct fx_seg *sa = fx_pop(f);
	struct tcp_repr a = fx_repr(1001, sa->r.seq + 1, TCP_ACK, 65535);
	a.ts = ts;
	a.tsval = 6;
	a.tsecr = sa->r.tsval;
	fx_send(f, &a, NULL, 0);
	struct tcb *c = tcp_accept(f->tcp, l);
	ck_assert_ptr_nonnull(c);
	int one = 1;
	tcp_setsockopt(c, 6, 1, &one, sizeof(one), false);
	return c;
}

static uint32_t first_segment_len(struct fx *f, struct tcb *c)
{
	fill();
	ck_assert_int_eq(tcp_send(f->tcp, c, big, 1000, f->now), 1000);
	struct fx_seg *s = fx_pop(f);
	return s->len;
}

START_TEST(min_snd_mss_floor)
{
	/* Linux tcp_min_snd_mss (48): the floor of the MSS a peer can impose,
	 * before the timestamp option is taken off (as __tcp_mtu_to_mss). */
	struct fx f;
	fx_init(&f);
	struct tcb *c = tiny_mss_conn(&f, 1, false);
	ck_assert_uint_eq(c->mss, 48);
	ck_assert_uint_eq(first_segment_len(&f, c), 48);
	fx_fini(&f);
	fx_init(&f);
	c = tiny_mss_conn(&f, 1, true);
	ck_assert_uint_eq(c->mss, 36);
	ck_assert_uint_eq(first_segment_len(&f, c), 36);
	fx_fini(&f);
	/* an MSS above the floor is used as announced */
	fx_init(&f);
	c = tiny_mss_conn(&f, 100, false);
	ck_assert_uint_eq(first_segment_len(&f, c), 100);
	fx_fini(&f);
}
END_TEST

START_TEST(nagle_minshall)
{
	/* Linux tcp_minshall_check: the small tail of a write of full
	 * segments leaves with them; the next small write waits while that
	 * small segment is unacknowledged (measured against the kernel by
	 * test_scenarios.sh mss_1: 200 bytes at MSS 48 arrive whole). */
	struct fx f;
	fx_init(&f);
	struct tcb *c = tiny_mss_conn(&f, 100, false);
	int zero = 0;
	tcp_setsockopt(c, 6, 1, &zero, sizeof(zero), false);
	fill();
	ck_assert_int_eq(tcp_send(f.tcp, c, big, 250, f.now), 250);
	ck_assert_uint_eq(fx_pop(&f)->len, 100);
	ck_assert_uint_eq(fx_pop(&f)->len, 100);
	ck_assert_uint_eq(fx_pop(&f)->len, 50);
	fx_none(&f);
	tcp_send(f.tcp, c, "x", 1, f.now);
	fx_none(&f);
	/* only the full segments acknowledged: the small one still out */
	struct tcp_repr a = fx_repr(1001, c->send.una + 200, TCP_ACK, 65535);
	fx_send(&f, &a, NULL, 0);
	fx_none(&f);
	a.ack = c->send.nxt;
	fx_send(&f, &a, NULL, 0);
	ck_assert_uint_eq(fx_pop(&f)->len, 1);
	fx_fini(&f);
}
END_TEST

static void cfg_min_mss(struct tcp_config *c)
{
	c->min_snd_mss = 200;
}

START_TEST(min_snd_mss_setting)
{
	struct fx f;
	fx_init_cfg(&f, cfg_min_mss);
	struct tcb *c = tiny_mss_conn(&f, 1, false);
	ck_assert_uint_eq(first_segment_len(&f, c), 200);
	fx_fini(&f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_data");
	TCase *tc = tcase_create("data");
	tcase_add_test(tc, initial_flight_and_segmentation);
	tcase_add_test(tc, nagle);
	tcase_add_test(tc, nagle_minshall);
	tcase_add_test(tc, window_scaling);
	tcase_add_test(tc, receive_across_wrap);
	tcase_add_test(tc, out_of_order_with_sack);
	tcase_add_test(tc, fast_retransmit_newreno);
	tcase_add_test(tc, ecn_echo_and_cwr);
	tcase_add_test(tc, options_and_errors);
	tcase_add_test(tc, buffers_on_demand);
	tcase_add_test(tc, drained_buffers_reused);
	tcase_add_test(tc, min_snd_mss_floor);
	tcase_add_test(tc, min_snd_mss_setting);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
