/* SACK loss recovery (RFC 6675, RFC 6937, RFC 3042) against a scripted
 * peer that SACKs what it holds: which segments the sender resends, that
 * hostile blocks change nothing, that the scoreboard stays bounded. The
 * same under loss patterns between two stacks: test_tcp_recovery_sim.c. */
#include <stdio.h>

#include "test_tcp_fixture.h"

/* ---- scripted peer -------------------------------------------------- */

#define NSEG 24
#define SEG  1448u /* MSS 1460 less the timestamp option */

struct sp {
	struct fx f;
	struct tcb *c;
	uint32_t base; /* our first data byte */
	bool have[NSEG];
	uint32_t rtx[64]; /* data segments sent again, by index */
	unsigned nrtx;
	uint32_t high; /* highest end sent */
	unsigned last;
	bool ece; /* the peer's ACKs echo a CE mark */
};

static void sp_collect(struct sp *p)
{
	for (; p->f.next < p->f.nout; p->f.next++) {
		struct fx_seg *s = &p->f.out[p->f.next];
		if (!s->len)
			continue;
		if (SEQ_LT(s->r.seq, p->high)) {
			ck_assert_uint_lt(p->nrtx, 64);
			p->rtx[p->nrtx++] = (s->r.seq - p->base) / SEG;
		} else {
			p->high = s->r.seq + s->len;
		}
	}
}

static void sp_init_rack(struct sp *p, unsigned nsegs_queued, bool rack)
{
	memset(p, 0, sizeof(*p));
	fx_init(&p->f);
	p->f.tcp->cfg.no_rack = !rack;
	p->c = fx_active(&p->f, true);
	/* The scripts count on Reno's halving (PRR's budget); the stack's
	 * default is cubic. */
	ck_assert_int_eq(tcp_setsockopt(p->c, 6, 13, "reno", 4, false), 0);
	ck_assert(p->c->flags & TCB_F_SACK);
	ck_assert_uint_eq(p->c->mss, SEG);
	p->base = p->c->send.nxt;
	p->high = p->base;
	static uint8_t buf[NSEG * SEG];
	p->c->sndbuf = sizeof(buf);
	ck_assert_int_eq(tcp_send(p->f.tcp, p->c, buf, nsegs_queued * SEG, p->f.now),
			 (int32_t)(nsegs_queued * SEG));
	sp_collect(p);
}

static void sp_init(struct sp *p, unsigned nsegs_queued)
{
	/* The scripts check RFC 6675's DupThresh rules, which RACK replaces
	 * (tcp_recovery = 0); RACK is checked over time in
	 * test_tcp_recovery_sim.c. */
	sp_init_rack(p, nsegs_queued, false);
}

/* The peer sends an ACK for what it holds with SACK blocks (the range of
 * the segment that just came first, RFC 2018 §4), as a receiver would. */
static void sp_ack(struct sp *p, unsigned just)
{
	unsigned a = 0;
	while (a < NSEG && p->have[a])
		a++;
	struct tcp_repr r =
	    fx_repr(p->f.peer_seq, p->base + a * SEG, TCP_ACK | (p->ece ? TCP_ECE : 0), 4096);
	r.ts = true;
	r.tsval = (uint32_t)(p->f.now / MS);
	r.tsecr = p->c->recv.ts_recent;
	unsigned i = a;
	/* the block holding `just` first, then the others in order */
	uint32_t bl[NSEG][2];
	unsigned nb = 0, first = NSEG;
	while (i < NSEG) {
		while (i < NSEG && !p->have[i])
			i++;
		if (i == NSEG)
			break;
		unsigned j = i;
		while (j < NSEG && p->have[j])
			j++;
		if (just >= i && just < j)
			first = nb;
		bl[nb][0] = p->base + i * SEG;
		bl[nb][1] = p->base + j * SEG;
		nb++;
		i = j;
	}
	if (first < nb) {
		r.sack[r.nsack].l = bl[first][0];
		r.sack[r.nsack++].r = bl[first][1];
	}
	for (unsigned k = 0; k < nb && r.nsack < 3; k++)
		if (k != first) {
			r.sack[r.nsack].l = bl[k][0];
			r.sack[r.nsack++].r = bl[k][1];
		}
	fx_send(&p->f, &r, NULL, 0);
	sp_collect(p);
}

static void sp_rx(struct sp *p, unsigned idx)
{
	p->have[idx] = true;
	sp_ack(p, idx);
}

/* The same, the segment CE-marked on the way: the ACK echoes ECE. */
static void sp_rx_ece(struct sp *p, unsigned idx)
{
	p->ece = true;
	sp_rx(p, idx);
	p->ece = false;
}

/* The retransmission timer goes off: the connection is in loss recovery. */
static void sp_rto(struct sp *p)
{
	uint64_t rto = p->c->tm.at[TCP_T_RTX];
	ck_assert_uint_gt(rto, 0);
	fx_at(&p->f, rto);
	sp_collect(p);
	ck_assert_uint_eq(p->c->rec.mode, TCP_SB_LOSS);
}

static bool rtx_has(const struct sp *p, unsigned idx)
{
	for (unsigned i = 0; i < p->nrtx; i++)
		if (p->rtx[i] == idx)
			return true;
	return false;
}

/* Segments 1 and 5 of 10 lost: the fast retransmit resends 1, then 5 once
 * three segments above it are SACKed; nothing else is sent twice. The first
 * two duplicate ACKs each let one new segment out (RFC 3042). */
START_TEST(only_holes_resent)
{
	struct sp p;
	sp_init(&p, 16);
	ck_assert_uint_eq((p.high - p.base) / SEG, 10); /* the initial window */
	sp_rx(&p, 0);
	unsigned sent_before = (p.high - p.base) / SEG;
	sp_rx(&p, 2);
	ck_assert_uint_eq((p.high - p.base) / SEG, sent_before + 1); /* limited transmit */
	sp_rx(&p, 3);
	ck_assert_uint_eq((p.high - p.base) / SEG, sent_before + 2);
	ck_assert_uint_eq(p.nrtx, 0);
	sp_rx(&p, 4); /* 3 segments SACKed above 1: lost (RFC 6675 IsLost) */
	ck_assert_uint_eq(p.c->rec.mode, TCP_SB_RECOVERY);
	ck_assert(p.c->flags & TCB_F_IN_RECOVERY);
	ck_assert_uint_eq(p.nrtx, 1);
	ck_assert_uint_eq(p.rtx[0], 1);
	sp_rx(&p, 6);
	sp_rx(&p, 7);
	ck_assert(!rtx_has(&p, 5)); /* two above it: not lost yet */
	/* PRR lets about one segment out per two delivered (ssthresh is
	 * half the flight): 5 goes within the next ACKs. */
	for (unsigned i = 8; i < 12; i++)
		sp_rx(&p, i);
	ck_assert(rtx_has(&p, 5));
	/* what limited transmit and recovery sent as new data arrives too */
	for (unsigned i = 12; i < (p.high - p.base) / SEG; i++)
		sp_rx(&p, i);
	sp_rx(&p, 1);
	sp_rx(&p, 5);
	ck_assert_uint_eq(p.nrtx, 2);
	ck_assert_uint_eq(p.c->rec.mode, TCP_SB_OPEN);
	ck_assert_uint_eq(p.c->cc.cwnd, p.c->cc.ssthresh); /* PRR ends at ssthresh */
	ck_assert_uint_eq(p.c->sb.n, 0);
	fx_fini(&p.f);
}
END_TEST

/* Segments 0..8 lost, 9 arrives: one SACK, no fast retransmit. The RTO
 * resends 0..8 in slow start and never 9, which the peer SACKed (go-back-N
 * would). */
START_TEST(rto_keeps_sacked)
{
	struct sp p;
	sp_init(&p, 10);
	/* The tail probe due first (2·SRTT after the flight) would resend
	 * segment 8 and restart the RTO, as Linux's does: this script is
	 * about the RTO alone. */
	p.f.tcp->cfg.no_tlp = true;
	sp_rx(&p, 9);
	ck_assert_uint_eq(p.c->sb.n, 1);
	ck_assert_uint_eq(p.nrtx, 0);
	sp_rto(&p);
	ck_assert_uint_eq(p.nrtx, 1);
	ck_assert_uint_eq(p.rtx[0], 0);
	for (unsigned i = 0; i < 9 && p.c->send.una != p.c->send.max; i++) {
		p.f.now += 20 * MS;
		/* every resent segment arrives */
		unsigned n = p.nrtx;
		for (unsigned k = 0; k < n; k++)
			if (!p.have[p.rtx[k]])
				sp_rx(&p, p.rtx[k]);
	}
	ck_assert_uint_eq(p.c->send.una, p.c->send.max);
	ck_assert_uint_eq(p.nrtx, 9);
	ck_assert(!rtx_has(&p, 9));
	ck_assert_uint_eq(p.c->rec.mode, TCP_SB_OPEN);
	fx_fini(&p.f);
}
END_TEST

/* Blocks a hostile or broken peer may send: beyond what we sent, reversed,
 * empty, wrapping, below snd_una, straddling it. None changes the board,
 * none triggers a retransmission (Linux tcp_is_sackblock_valid). */
START_TEST(hostile_blocks_ignored)
{
	struct sp p;
	sp_init(&p, 10);
	uint32_t una = p.c->send.una, max = p.c->send.max;
	uint32_t bad[][2] = {
	    {max, max + 1000},		   /* beyond snd_max */
	    {max - 100, max + 1},	   /* ends beyond */
	    {una + 3000, una + 2000},	   /* reversed */
	    {una + 3000, una + 3000},	   /* empty */
	    {una + 1, una - 1},		   /* wraps: ends far beyond */
	    {una - 2000000000u, una - 10}, /* ancient D-SACK-shaped */
	    {una, una + 5000},		   /* starts at snd_una */
	    {una - 10, una + 5000},	   /* straddles snd_una */
	    {0x80000000u + una, 0x80000000u + una + 10},
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (int dup = 0; dup < 4; dup++) {
			struct tcp_repr r = fx_repr(p.f.peer_seq, una, TCP_ACK, 4096);
			r.ts = true;
			r.tsval = (uint32_t)(p.f.now / MS);
			r.tsecr = p.c->recv.ts_recent;
			r.nsack = 1;
			r.sack[0].l = bad[i][0];
			r.sack[0].r = bad[i][1];
			fx_send(&p.f, &r, NULL, 0);
			sp_collect(&p);
			ck_assert_msg(p.c->sb.n == 0, "block %u: [%u, %u) taken", i, bad[i][0],
				      bad[i][1]);
			ck_assert_uint_eq(p.c->sb.sacked, 0);
		}
	}
	ck_assert_uint_eq(p.nrtx, 0);
	ck_assert_uint_eq(p.c->rec.mode, TCP_SB_OPEN);
	fx_fini(&p.f);
}
END_TEST

/* Many distinct one-byte blocks, more than the board may hold: it grows to
 * TCP_SB_MAX ranges, no further, and counts right; the ones it had no room
 * for count as un-SACKed. */
START_TEST(board_bounded)
{
	enum { K = TCP_SB_MAX + TCP_SB_MAX / 2 };
	struct sp p;
	sp_init(&p, 10);
	uint32_t una = p.c->send.una;
	ck_assert(SEQ_GT(p.c->send.max, una + 2 * K + 2));
	for (unsigned i = 0; i < K; i++) {
		struct tcp_repr r = fx_repr(p.f.peer_seq, una, TCP_ACK, 4096);
		r.nsack = 1;
		r.sack[0].l = una + 1 + 2 * (K - i);
		r.sack[0].r = r.sack[0].l + 1;
		fx_send(&p.f, &r, NULL, 0);
		ck_assert_uint_le(p.c->sb.n, TCP_SB_MAX);
		ck_assert_uint_eq(p.c->sb.n, i < TCP_SB_MAX ? i + 1 : TCP_SB_MAX);
		if (i % 512 && i != K - 1)
			continue;
		uint32_t sum = 0;
		for (unsigned k = 0; k < p.c->sb.n; k++) {
			ck_assert(SEQ_LT(p.c->sb.b[k].l, p.c->sb.b[k].r));
			if (k)
				ck_assert(SEQ_GT(p.c->sb.b[k].l, p.c->sb.b[k - 1].r));
			sum += p.c->sb.b[k].r - p.c->sb.b[k].l;
		}
		ck_assert_uint_eq(sum, p.c->sb.sacked);
	}
	ck_assert_uint_eq(p.c->sb.n, TCP_SB_MAX);
	/* a block covering them all merges them into one */
	struct tcp_repr r = fx_repr(p.f.peer_seq, una, TCP_ACK, 4096);
	r.nsack = 1;
	r.sack[0].l = una + 1;
	r.sack[0].r = una + 2 * K + 2;
	fx_send(&p.f, &r, NULL, 0);
	ck_assert_uint_eq(p.c->sb.n, 1);
	ck_assert_uint_eq(p.c->sb.sacked, 2 * K + 1);
	fx_fini(&p.f);
}
END_TEST

/* A receiver that drops SACKed data (reneging, RFC 2018 §8): the cumulative
 * ACK stops at the start of a SACKed range; the board is forgotten so the
 * data is sent again instead of the connection stalling. */
START_TEST(reneging_forgets)
{
	struct sp p;
	sp_init(&p, 10);
	sp_rx(&p, 2);
	ck_assert_uint_eq(p.c->sb.n, 1);
	memset(p.have, 0, sizeof(p.have));
	p.have[0] = p.have[1] = true; /* 2 was dropped by the peer */
	sp_ack(&p, 1);
	ck_assert_uint_eq(p.c->send.una, p.base + 2 * SEG);
	ck_assert_uint_eq(p.c->sb.n, 0);
	fx_fini(&p.f);
}
END_TEST

/* Segment 1 only late, not lost: the fast retransmit was spurious. The
 * original arrives, recovery ends, then the retransmission arrives as a
 * duplicate and the peer reports it in a D-SACK: the reduction is undone
 * (RFC 2883 §5, Linux tcp_try_undo_dsack). */
START_TEST(dsack_undoes_spurious)
{
	struct sp p;
	sp_init(&p, 16);
	sp_rx(&p, 0);
	uint32_t cwnd0 = p.c->cc.cwnd, ss0 = p.c->cc.ssthresh;
	sp_rx(&p, 2);
	sp_rx(&p, 3);
	sp_rx(&p, 4);
	ck_assert_uint_eq(p.c->rec.mode, TCP_SB_RECOVERY);
	ck_assert(rtx_has(&p, 1));
	ck_assert_uint_lt(p.c->cc.ssthresh, ss0);
	sp_rx(&p, 1);
	for (unsigned i = 5; i < (p.high - p.base) / SEG; i++)
		sp_rx(&p, i);
	ck_assert_uint_eq(p.c->rec.mode, TCP_SB_OPEN);
	ck_assert_uint_lt(p.c->cc.cwnd, cwnd0);
	ck_assert_uint_eq(p.c->rec.undos, 0);
	/* every retransmission (the fast one and RFC 6675's rescue of the
	 * tail) arrives as a duplicate */
	ck_assert_uint_ge(p.nrtx, 1);
	for (unsigned i = 0; i < p.nrtx; i++) {
		struct tcp_repr r = fx_repr(p.f.peer_seq, p.c->send.una, TCP_ACK, 4096);
		r.nsack = 1;
		r.sack[0].l = p.base + p.rtx[i] * SEG;
		r.sack[0].r = r.sack[0].l + SEG;
		ck_assert_uint_eq(p.c->rec.undos, 0);
		fx_send(&p.f, &r, NULL, 0);
	}
	ck_assert_uint_eq(p.c->rec.undos, 1);
	ck_assert_uint_ge(p.c->cc.cwnd, cwnd0);
	ck_assert_uint_eq(p.c->cc.ssthresh, ss0);
	fx_fini(&p.f);
}
END_TEST

/* A D-SACK for data never retransmitted (a duplicate the network made)
 * undoes nothing after a real loss. */
START_TEST(dsack_no_undo_after_loss)
{
	struct sp p;
	sp_init(&p, 16);
	sp_rx(&p, 0);
	uint32_t ss0 = p.c->cc.ssthresh;
	sp_rx(&p, 2);
	sp_rx(&p, 3);
	sp_rx(&p, 4);
	ck_assert(rtx_has(&p, 1));
	/* the retransmission of 1 arrives (the original was lost) */
	for (unsigned i = 1; i < (p.high - p.base) / SEG; i++)
		if (!p.have[i])
			sp_rx(&p, i);
	struct tcp_repr r = fx_repr(p.f.peer_seq, p.c->send.una, TCP_ACK, 4096);
	r.nsack = 1;
	r.sack[0].l = p.base + 3 * SEG; /* a network duplicate of 3 */
	r.sack[0].r = p.base + 4 * SEG;
	fx_send(&p.f, &r, NULL, 0);
	ck_assert_uint_eq(p.c->rec.undos, 0);
	ck_assert_uint_lt(p.c->cc.ssthresh, ss0);
	fx_fini(&p.f);
}
END_TEST

/* Limited transmit (RFC 3042) holds without SACK too: each of the first
 * two duplicate ACKs sends one new segment, the third the fast retransmit
 * (NewReno). */
START_TEST(limited_transmit_without_sack)
{
	struct fx f;
	fx_init(&f);
	struct tcb *c = fx_passive(&f, false, NULL);
	ck_assert(!(c->flags & TCB_F_SACK));
	c->peer_mss = 1000;
	tcp_update_mss(f.tcp, c, 0);
	static uint8_t buf[14000];
	ck_assert_int_eq(tcp_send(f.tcp, c, buf, sizeof(buf), f.now), (int32_t)sizeof(buf));
	ck_assert_uint_eq(f.nout - f.next, 10);
	f.next = f.nout;
	uint32_t una = c->send.una;
	for (uint32_t i = 0; i < 2; i++) {
		struct tcp_repr d = fx_repr(f.peer_seq, una, TCP_ACK, 65535);
		fx_send(&f, &d, NULL, 0);
		struct fx_seg *n = fx_pop(&f);
		ck_assert_uint_eq(n->r.seq, una + 10000 + 1000 * i);
		ck_assert_uint_eq(n->len, 1000);
		fx_none(&f);
	}
	struct tcp_repr d = fx_repr(f.peer_seq, una, TCP_ACK, 65535);
	fx_send(&f, &d, NULL, 0);
	struct fx_seg *r = fx_pop(&f);
	ck_assert_uint_eq(r->r.seq, una);
	ck_assert(c->flags & TCB_F_IN_RECOVERY);
	fx_fini(&f);
}
END_TEST

/* Segment 1 lost after the ACK of 0 and limited transmit grew the flight
 * past cwnd: while more is in flight than ssthresh, PRR lets out
 * CEIL(ssthresh · delivered / prior_cwnd) in all, the window at the
 * reduction's start as Linux's tcp_cwnd_reduction divides by, not the
 * larger flight (RFC 6937's RecoverFS), which lets out less. */
START_TEST(prr_spreads_over_prior_cwnd)
{
	struct sp p;
	sp_init(&p, NSEG);
	sp_rx(&p, 0);
	sp_rx(&p, 2);
	sp_rx(&p, 3);
	/* growth counted towards the next segment goes with the reduction
	 * (Linux tcp_init_cwnd_reduction) */
	p.c->cc.cwnd_cnt = 3;
	sp_rx(&p, 4);
	ck_assert_uint_eq(p.c->rec.mode, TCP_SB_RECOVERY);
	ck_assert_uint_eq(p.c->cc.cwnd_cnt, 0);
	uint32_t prior = p.c->cc.prior_cwnd, ss = p.c->cc.ssthresh;
	uint32_t flight = (p.c->rec.recover - p.c->send.una) / SEG;
	ck_assert_uint_gt(flight, prior);
	bool differ = false;
	unsigned steps = 0;
	/* each ACK SACKs one segment of the pipe before PRR looks at it */
	for (unsigned i = 5; i < 14 && tcp_sb_pipe(p.c) > (ss + 1) * SEG; i++, steps++) {
		sp_rx(&p, i);
		uint32_t d = p.c->rec.prr_delivered / SEG;
		uint32_t want = (ss * d + prior - 1) / prior;
		ck_assert_uint_eq(p.c->rec.prr_out / SEG, want > 1 ? want : 1);
		differ |= want != (ss * d + flight - 1) / flight;
	}
	ck_assert_uint_ge(steps, 4);
	ck_assert(differ); /* the flight's proportion would have sent less */
	fx_fini(&p.f);
}
END_TEST

/* Segments 1..7 lost: once less is in flight than ssthresh, an ACK that
 * only SACKs sends what it delivered and no segment more (Linux's
 * tcp_cwnd_reduction adds one only when snd_una moves and nothing was
 * newly marked lost): one retransmission per SACKed segment. */
START_TEST(prr_no_extra_on_sack_only)
{
	struct sp p;
	sp_init(&p, NSEG);
	sp_rx(&p, 0);
	sp_rx(&p, 8);
	sp_rx(&p, 9);
	ck_assert_uint_eq(p.nrtx, 0);
	sp_rx(&p, 10); /* three SACKed above 1..7: all lost */
	ck_assert_uint_eq(p.c->rec.mode, TCP_SB_RECOVERY);
	uint32_t ss = p.c->cc.ssthresh;
	ck_assert_uint_lt(tcp_sb_pipe(p.c), ss * SEG);
	ck_assert_uint_eq(p.nrtx, 1);
	sp_rx(&p, 11);
	ck_assert_uint_eq(p.nrtx, 2);
	sp_rx(&p, 12);
	ck_assert_uint_eq(p.nrtx, 3);
	/* an ACK that moves snd_una (1 arrives) and marks nothing new may
	 * send one more than it delivered, up to ssthresh (1's retransmission
	 * leaves the pipe) */
	uint32_t pipe = tcp_sb_pipe(p.c) / SEG - 1;
	sp_rx(&p, 1);
	uint32_t more = ss - pipe < 2 ? ss - pipe : 2;

	ck_assert_uint_eq(p.nrtx, 3 + more);
	fx_fini(&p.f);
}
END_TEST

/* Segment 1 arrives after 2: the ACK that fills the hole delivered one
 * segment and grows the window by one (Linux's acked_sacked), not by the
 * two it acknowledges; the SACK of 2 grew nothing (it ACKed no data). */
START_TEST(growth_counts_delivered)
{
	struct sp p;
	sp_init(&p, NSEG);
	sp_rx(&p, 0);
	uint32_t cw = p.c->cc.cwnd;
	ck_assert_uint_lt(cw, p.c->cc.ssthresh); /* slow start: one per segment */
	sp_rx(&p, 2);
	ck_assert_uint_eq(p.c->cc.cwnd, cw);
	sp_rx(&p, 1);
	ck_assert_uint_eq(p.c->rec.mode, TCP_SB_OPEN);
	ck_assert_uint_eq(p.c->cc.cwnd, cw + 1);
	fx_fini(&p.f);
}
END_TEST

/* A recovery that ends with a new hole below SACKed data: segment 14, sent
 * in it, is lost and one ACK SACKs 15 and 16 (a receiver's ACK of two,
 * fewer than DupThresh). Outside recovery the window counts what is in the
 * network (pipe), as Linux's tcp_cwnd_test counts tcp_packets_in_flight in
 * its Disorder state: two segments left it, two new ones go. Counting every
 * byte past snd_una, only limited transmit's one segment went (RFC 3042),
 * and under RACK, which waits a reordering window before it marks, SACKed
 * data held the window shut until the next recovery. */
START_TEST(open_window_counts_pipe)
{
	struct sp p;
	sp_init(&p, NSEG);
	sp_rx(&p, 0);
	for (unsigned i = 2; i < 14; i++)
		sp_rx(&p, i);
	ck_assert_uint_eq(p.c->rec.mode, TCP_SB_RECOVERY);
	ck_assert_uint_eq((p.c->rec.recover - p.base) / SEG, 14);
	sp_rx(&p, 1);
	ck_assert_uint_eq(p.c->rec.mode, TCP_SB_OPEN);
	ck_assert_uint_eq(p.c->send.una, p.base + 14 * SEG);
	uint32_t cwnd = p.c->cc.cwnd, high = p.high;
	ck_assert_uint_eq(high - p.c->send.una, cwnd * SEG); /* the window is full */
	p.have[15] = p.have[16] = true;
	sp_ack(&p, 15);
	ck_assert_uint_eq(p.c->rec.mode, TCP_SB_OPEN);
	ck_assert_uint_eq(p.c->cc.cwnd, cwnd);
	ck_assert_uint_eq(p.high, high + 2 * SEG);
	ck_assert_uint_eq(tcp_sb_pipe(p.c), cwnd * SEG);
	fx_fini(&p.f);
}
END_TEST

/* Linux tcp_enter_recovery: a loss found during an ECE's reduction (CWR)
 * continues it: the same ssthresh, PRR's counts from the ECE on, its
 * recovery point, and no undo (an ECE is never undone). RACK marks segment
 * 4 lost once three segments above it are SACKed. */
START_TEST(loss_in_cwr_keeps_its_reduction)
{
	struct sp p;
	sp_init_rack(&p, NSEG, true);
	p.c->flags |= TCB_F_ECN; /* negotiated: test_tcp_ecn.c */
	p.f.now += 10 * MS;
	sp_rx_ece(&p, 0);
	ck_assert_uint_eq(p.c->cc.ca_state, TCP_CA_CWR);
	uint32_t ss = p.c->cc.ssthresh, prior = p.c->cc.prior_cwnd, point = p.c->rec.recover;
	ck_assert_uint_eq(prior, 10);
	ck_assert_uint_eq(ss, 5);
	for (unsigned i = 1; i < 4; i++)
		sp_rx(&p, i);
	ck_assert_uint_eq(p.c->cc.ca_state, TCP_CA_CWR);
	ck_assert_uint_eq(p.c->rec.prr_delivered, 4 * SEG);
	ck_assert_uint_lt(p.c->cc.cwnd, prior); /* PRR brings it down */
	for (unsigned i = 5; i < 8; i++)
		sp_rx(&p, i);
	ck_assert_uint_eq(p.c->rec.mode, TCP_SB_RECOVERY);
	ck_assert_uint_eq(p.c->cc.ssthresh, ss);
	ck_assert_uint_eq(p.c->cc.prior_cwnd, prior);
	ck_assert_uint_eq(p.c->rec.recover, point);
	ck_assert_uint_eq(p.c->rec.prr_delivered, 7 * SEG);
	ck_assert(!p.c->rec.undo);
	/* The pipe (8-12) is at ssthresh and PRR has sent before: the
	 * retransmission waits for the next delivery, as in Linux, whose
	 * fast retransmit is forced only while prr_out is 0. */
	ck_assert(!rtx_has(&p, 4));
	sp_rx(&p, 8);
	ck_assert(rtx_has(&p, 4));
	fx_fini(&p.f);
}
END_TEST

/* Linux tcp_enter_loss: a timeout during a recovery keeps the ssthresh the
 * recovery took (ssthresh is taken once a window), with a loss window of
 * one; a second timeout without progress keeps it too. */
START_TEST(rto_in_recovery_keeps_ssthresh)
{
	struct sp p;
	sp_init(&p, NSEG);
	p.f.tcp->cfg.no_tlp = true;
	sp_rx(&p, 0);
	for (unsigned i = 2; i < 10; i++)
		sp_rx(&p, i);
	ck_assert_uint_eq(p.c->rec.mode, TCP_SB_RECOVERY);
	uint32_t ss = p.c->cc.ssthresh;
	ck_assert_uint_eq(ss, 5);
	ck_assert_uint_lt(p.c->cc.cwnd, 2 * ss); /* a fresh cut would take less */
	for (int k = 0; k < 2; k++) {
		sp_rto(&p);
		ck_assert_uint_eq(p.c->cc.cwnd, 1);
		ck_assert_uint_eq(p.c->cc.ssthresh, ss);
	}
	fx_fini(&p.f);
}
END_TEST

/* An RTO during an ECE's reduction keeps its ssthresh and arms no undo
 * (Linux's tcp_enter_cwr clears undo_marker, tcp_enter_loss arms one only
 * with a reduction of its own): an ACK that shows the timeout spurious
 * (Eifel: it echoes a timestamp from before the retransmission) restores
 * nothing, where an undo would have restored the window before the ECE. */
START_TEST(rto_in_cwr_no_undo)
{
	struct sp p;
	sp_init(&p, 10);
	p.f.tcp->cfg.no_tlp = true;
	p.c->flags |= TCB_F_ECN; /* negotiated: test_tcp_ecn.c */
	p.f.now += 10 * MS;
	sp_rx_ece(&p, 0);
	ck_assert_uint_eq(p.c->cc.ca_state, TCP_CA_CWR);
	uint32_t ss = p.c->cc.ssthresh;
	ck_assert_uint_eq(ss, 5);
	uint32_t echo = tcp_ts_now(p.f.tcp, p.c); /* before the retransmission */
	sp_rto(&p);
	ck_assert_uint_eq(p.c->cc.ssthresh, ss);
	/* the original of segment 1 arrives after all */
	p.have[1] = true;
	struct tcp_repr r = fx_repr(p.f.peer_seq, p.base + 2 * SEG, TCP_ACK, 4096);
	r.ts = true;
	r.tsval = (uint32_t)(p.f.now / MS);
	r.tsecr = echo - 1;
	fx_send(&p.f, &r, NULL, 0);
	ck_assert_uint_eq(p.c->rec.undos, 0);
	ck_assert_uint_eq(p.c->cc.ssthresh, ss);
	fx_fini(&p.f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("recovery");
	TCase *tc = tcase_create("scripted");
	tcase_add_test(tc, only_holes_resent);
	tcase_add_test(tc, rto_keeps_sacked);
	tcase_add_test(tc, hostile_blocks_ignored);
	tcase_add_test(tc, board_bounded);
	tcase_add_test(tc, reneging_forgets);
	tcase_add_test(tc, dsack_undoes_spurious);
	tcase_add_test(tc, dsack_no_undo_after_loss);
	tcase_add_test(tc, limited_transmit_without_sack);
	tcase_add_test(tc, prr_spreads_over_prior_cwnd);
	tcase_add_test(tc, prr_no_extra_on_sack_only);
	tcase_add_test(tc, growth_counts_delivered);
	tcase_add_test(tc, open_window_counts_pipe);
	tcase_add_test(tc, loss_in_cwr_keeps_its_reduction);
	tcase_add_test(tc, rto_in_recovery_keeps_ssthresh);
	tcase_add_test(tc, rto_in_cwr_no_undo);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
