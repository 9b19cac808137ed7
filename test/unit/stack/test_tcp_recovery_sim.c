/* Loss recovery between two stacks over a simulated path: 10 ms each way,
 * 100 Mbit/s each way, a loss pattern on the data direction (random,
 * bursty, the tail of the transfer, one segment) or on the ACKs, or
 * reordering. 4 MiB go from A to B; checked: the stream, the retransmitted
 * bytes against what the path dropped (SACK resends holes, not windows),
 * recovery time against the RTT, and A's sequence and scoreboard invariants
 * after every event. Seeded and deterministic; SKOPS_REC_REPORT=1 prints
 * the numbers of every run. */
#include <arpa/inet.h>
#include <errno.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "skops.h"
#include "tcp/tcp_int.h"
#include "test_tcp_path.h"

#define MS	  1000000ull
#define DELAY_NS  (10 * MS)
#define RATE_BPS  100000000ull
#define TOTAL	  (4u << 20)
#define RTT_NS	  (2 * DELAY_NS)
#define MSS_BYTES 1448u

struct pattern {
	const char *name;
	uint32_t loss_ppm;	       /* data segments, independently */
	uint32_t burst_ppm, burst_len; /* a run of burst_len data segments */
	uint32_t ack_loss_ppm;	       /* pure ACKs from B */
	uint32_t reorder_ppm;	       /* data segments held back reorder_ns */
	uint64_t reorder_ns;
	uint32_t tail; /* first sending of the last tail segments */
	uint32_t one;  /* the one-th data segment, once (0: none) */
	bool one_rtx;  /* and its first retransmission */
	bool no_rack;  /* DupThresh marks losses (tcp_recovery = 0) */
	bool no_tlp;   /* no tail loss probe (tcp_early_retrans = 0) */
	/* A is frozen for freeze_ns once it has sent freeze_at data
	 * segments: it neither sends nor reads; then its timers run first
	 * and the ACKs queued meanwhile arrive after them. */
	uint32_t freeze_at;
	uint64_t freeze_ns;
};

struct path {
	struct tpath w; /* the clock, both stacks, the segments in flight */
	struct tcb *c[2];
	const struct pattern *pat;
	uint64_t rng;
	uint32_t burst_left;
	uint32_t high; /* highest data end A sent */
	uint32_t end;  /* A's last data byte + 1 */
	uint64_t data_segs, lost_segs, lost_bytes, acks_lost;
	/* the one-segment loss: when it was dropped and when A's snd_una passed it */
	uint32_t one_seq;
	bool one_rtx_dropped;
	uint64_t frozen_until;	   /* A frozen before this (0: not) */
	uint64_t rtx_after_freeze; /* A's bytes_retrans when it froze */
	bool woke;
	uint64_t one_drop_at, one_done_at, one_q_drop, one_q_rtx;
	char bad[200];
};

static uint32_t rnd_ppm(struct path *p)
{
	p->rng ^= p->rng << 13;
	p->rng ^= p->rng >> 7;
	p->rng ^= p->rng << 17;
	return (uint32_t)(p->rng % 1000000u);
}

static uint8_t pat_byte(uint64_t off)
{
	uint64_t x = (off / 8) * 0x9e3779b97f4a7c15ull;
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	return (uint8_t)(x >> ((off % 8) * 8));
}

/* Whether the path drops this segment (decided once, at sending). */
static bool drop(struct path *p, int from, const struct tcp_repr *r, uint32_t len)
{
	const struct pattern *pt = p->pat;
	if (r->flags & (TCP_SYN | TCP_RST))
		return false;
	if (from == 1)
		return len == 0 && pt->ack_loss_ppm && rnd_ppm(p) < pt->ack_loss_ppm &&
		       (p->acks_lost++, true);
	if (!len)
		return false;
	bool first = !SEQ_LT(r->seq, p->high);
	p->data_segs++;
	if (pt->freeze_at && p->data_segs == pt->freeze_at && !p->frozen_until) {
		p->frozen_until = p->w.now + pt->freeze_ns;
		p->rtx_after_freeze = p->c[0]->cnt.bytes_retrans;
	}
	bool d = false;
	if (p->burst_left) {
		p->burst_left--;
		d = true;
	} else if (pt->burst_ppm && rnd_ppm(p) < pt->burst_ppm) {
		p->burst_left = pt->burst_len - 1;
		d = true;
	}
	if (pt->loss_ppm && rnd_ppm(p) < pt->loss_ppm)
		d = true;
	if (pt->tail && first && p->end && SEQ_GT(r->seq + len, p->end - pt->tail * MSS_BYTES))
		d = true;
	if (pt->one && first && p->data_segs == pt->one && !p->one_drop_at) {
		p->one_seq = r->seq;
		p->one_drop_at = p->w.now;
		d = true;
	} else if (pt->one_rtx && !first && p->one_drop_at && r->seq == p->one_seq &&
		   !p->one_rtx_dropped) {
		p->one_rtx_dropped = true;
		d = true;
	}
	if (d) {
		p->lost_segs++;
		p->lost_bytes += len;
	}
	return d;
}

static int path_xmit(void *arg, const struct tcp_tuple *t, uint8_t tos, const struct tcp_repr *r,
		     const struct tcp_iov *d)
{
	(void)tos;
	struct tpath_end *e = arg;
	struct path *p = TPATH_OWNER(e, struct path, w);
	uint32_t len = d->n[0] + d->n[1];
	bool lost = drop(p, e->idx, r, len);
	if (e->idx == 0 && len && SEQ_GT(r->seq + len, p->high))
		p->high = r->seq + len;
	uint64_t start, gone = tpath_line(&p->w, e->idx, len, &start);
	/* the queue the lost segment and its first retransmission waited in */
	if (e->idx == 0 && len && p->one_drop_at && r->seq == p->one_seq) {
		if (lost && !p->one_q_drop)
			p->one_q_drop = start - p->w.now + 1;
		else if (!lost && !p->one_q_rtx)
			p->one_q_rtx = start - p->w.now + 1;
	}
	if (lost)
		return 0;
	uint64_t at = gone + DELAY_NS;
	if (e->idx == 0 && len && p->pat->reorder_ppm && rnd_ppm(p) < p->pat->reorder_ppm)
		at += p->pat->reorder_ns;
	tpath_put(&p->w, e->idx, at, t, r, d);
	return 0;
}

/* A's sequence space and scoreboard (docs/tcp.md): checked after every event. */
static void check_inv(void *arg)
{
	struct path *p = arg;
	struct tcb *c = p->c[0];
	if (!c || p->bad[0])
		return;
	bool ok = SEQ_LEQ(c->send.una, c->send.nxt) && SEQ_LEQ(c->send.nxt, c->send.max) &&
		  c->sb.n <= TCP_SB_MAX;
	uint32_t sum = 0;
	for (unsigned i = 0; ok && i < c->sb.n; i++) {
		ok = SEQ_LT(c->sb.b[i].l, c->sb.b[i].r) && SEQ_GT(c->sb.b[i].l, c->send.una) &&
		     SEQ_LEQ(c->sb.b[i].r, c->send.max) &&
		     (i == 0 || SEQ_GT(c->sb.b[i].l, c->sb.b[i - 1].r));
		sum += c->sb.b[i].r - c->sb.b[i].l;
	}
	if (!ok || sum != c->sb.sacked)
		snprintf(p->bad, sizeof(p->bad),
			 "invariant at %llu ns: una %u nxt %u max %u, %u blocks, %u sacked",
			 (unsigned long long)p->w.now, c->send.una, c->send.nxt, c->send.max,
			 c->sb.n, c->sb.sacked);
}

struct result {
	bool ok;
	uint64_t ns, retrans_bytes, lost_bytes, data_segs;
	uint64_t discarded_bytes; /* arrived, but beyond what B's reassembly holds */
	uint32_t fast, rto, acks_lost, undos, lost_segs;
	uint64_t rack_lost, tlp_probes, tlp_recovered, frto_spurious;
	uint64_t freeze_retrans_bytes; /* resent after the freeze began */
	struct skops_tcp_info ti;      /* A's, at the end */
	uint64_t one_ns, one_queued_ns;
	uint32_t srtt_us, rto_us;
};

/* Two stacks on the scripted path: B listening, A connecting with the
 * pattern's recovery options. Returns B's listener. */
static struct tcb *path_open(struct path *p, const struct pattern *pt, uint64_t seed)
{
	for (int i = 0; i < 2; i++) {
		struct tcp_config cfg;
		memset(&cfg, 0, sizeof(cfg));
		cfg.seed = seed + (uint64_t)i;
		cfg.keys_from_seed = true; /* ISNs replay: drops are scripted by sequence */
		cfg.max_conns = 8;
		cfg.wmem_default = 4u << 20;
		cfg.rmem_default = 512u << 10;
		cfg.xmit = path_xmit;
		/* SKOPS_REC_NORACK=1: DupThresh as before RACK, to compare */
		cfg.no_rack = pt->no_rack || getenv("SKOPS_REC_NORACK") != NULL;
		cfg.no_tlp = pt->no_tlp;
		cfg.no_frto = getenv("SKOPS_REC_NOFRTO") != NULL; /* to compare */
		tpath_stack(&p->w, i, &cfg);
	}
	uint32_t b4 = inet_addr("198.18.0.2");
	struct tcb *l;
	ck_assert_int_eq(tcp_open(p->w.tcp[1], AF_INET, &l), 0);
	l->sd = 0;
	ck_assert_int_eq(tcp_bind(p->w.tcp[1], l, &b4, 5001), 0);
	ck_assert_int_eq(tcp_listen(p->w.tcp[1], l, 4, p->w.now), 0);
	ck_assert_int_eq(tcp_open(p->w.tcp[0], AF_INET, &p->c[0]), 0);
	p->c[0]->sd = 0;
	p->c[0]->sndbuf = 4u << 20;
	ck_assert_int_eq(tcp_connect(p->w.tcp[0], p->c[0], &b4, 5001, p->w.now), -EINPROGRESS);
	return l;
}

/* When the next thing happens: a delivery or a timer. While A is frozen,
 * what it would send or time out waits until it wakes. */
static uint64_t next_event(struct path *p, bool frozen)
{
	uint64_t next = UINT64_MAX;
	for (unsigned i = 0; i < p->w.nq; i++) {
		uint64_t at = p->w.q[i].at;
		if (frozen && p->w.q[i].to == 0 && at < p->frozen_until)
			at = p->frozen_until;
		if (at < next)
			next = at;
	}
	for (int i = 0; i < 2; i++) {
		uint64_t d = tcp_next_deadline(p->w.tcp[i]);
		if (frozen && i == 0 && d < p->frozen_until)
			d = p->frozen_until;
		if (d < next)
			next = d;
	}
	return next;
}

/* What the run measured, from the path and A's connection and stack. */
static void result_fill(struct result *res, struct path *p, uint64_t rcvd, uint64_t t0)
{
	struct tcb *a = p->c[0];
	res->ok = !p->bad[0] && rcvd == TOTAL;
	res->ns = p->w.now - t0;
	res->retrans_bytes = a->cnt.bytes_retrans;
	res->lost_bytes = p->lost_bytes;
	res->data_segs = p->data_segs;
	res->fast = (uint32_t)p->w.tcp[0]->stats.fast_retrans;
	res->rto = (uint32_t)p->w.tcp[0]->stats.rto;
	res->rack_lost = p->w.tcp[0]->stats.rack_lost;
	res->tlp_probes = p->w.tcp[0]->stats.tlp_probes;
	res->tlp_recovered = p->w.tcp[0]->stats.tlp_recovered;
	res->frto_spurious = p->w.tcp[0]->stats.frto_spurious;
	res->freeze_retrans_bytes = a->cnt.bytes_retrans - p->rtx_after_freeze;
	tcp_get_info(a, &res->ti);
	res->acks_lost = (uint32_t)p->acks_lost;
	res->undos = a->rec.undos;
	res->discarded_bytes = p->w.tcp[1]->stats.ooo_drop * MSS_BYTES;
	res->lost_segs = (uint32_t)p->lost_segs;
	res->one_ns = p->one_done_at ? p->one_done_at - p->one_drop_at : 0;
	res->srtt_us = a->rtt.srtt_us8 >> 3;
	res->one_queued_ns = p->one_q_drop + p->one_q_rtx;
	res->rto_us = a->rtt.rto_us;
}

static void result_print(const struct result *res, const struct pattern *pt, uint64_t seed,
			 const struct path *p)
{
	if (getenv("SKOPS_REC_REPORT") || !res->ok)
		printf("recovery: %-10s seed %llu %s: %.3f s, goodput %.1f Mbit/s, lost %llu B in "
		       "%llu segs, discarded %llu B, retrans %llu B, fast %u, rto %u, undone %u, "
		       "rack lost %llu, tlp %llu/%llu, frto %llu, acks lost %u, one "
		       "%.1f ms "
		       "(queued %.1f), "
		       "srtt %u us%s%s\n",
		       pt->name, (unsigned long long)seed, res->ok ? "ok" : "FAILED",
		       (double)res->ns / 1e9, (double)TOTAL * 8 / ((double)res->ns / 1e9) / 1e6,
		       (unsigned long long)res->lost_bytes, (unsigned long long)p->lost_segs,
		       (unsigned long long)res->discarded_bytes,
		       (unsigned long long)res->retrans_bytes, res->fast, res->rto, res->undos,
		       (unsigned long long)res->rack_lost, (unsigned long long)res->tlp_probes,
		       (unsigned long long)res->tlp_recovered,
		       (unsigned long long)res->frto_spurious, res->acks_lost,
		       (double)res->one_ns / 1e6, (double)res->one_queued_ns / 1e6, res->srtt_us,
		       p->bad[0] ? ": " : "", p->bad);
}

static struct result run(const struct pattern *pt, uint64_t seed)
{
	struct result res;
	memset(&res, 0, sizeof(res));
	struct path *p = calloc(1, sizeof(*p));
	ck_assert_ptr_nonnull(p);
	tpath_init(&p->w, RATE_BPS);
	p->pat = pt;
	p->rng = seed * 0x9e3779b97f4a7c15ull + 1;
	struct tcb *l = path_open(p, pt, seed);
	static uint8_t buf[65536];
	uint64_t sent = 0, rcvd = 0, t0 = 0;
	bool one_seen = false;
	for (uint64_t steps = 0; steps < 20000000ull && !p->bad[0]; steps++) {
		struct tcb *a = p->c[0];
		if (!p->c[1]) {
			p->c[1] = tcp_accept(p->w.tcp[1], l);
			if (p->c[1])
				p->c[1]->sd = 1;
		}
		bool frozen = p->frozen_until && p->w.now < p->frozen_until;
		if (a->state == TCP_ESTABLISHED && sent < TOTAL && !frozen) {
			if (!t0) {
				t0 = p->w.now;
				p->end = a->send.una + TOTAL;
			}
			uint32_t n =
			    TOTAL - sent < sizeof(buf) ? (uint32_t)(TOTAL - sent) : sizeof(buf);
			for (uint32_t k = 0; k < n; k++)
				buf[k] = pat_byte(sent + k);
			int32_t w = tcp_send(p->w.tcp[0], a, buf, n, p->w.now);
			if (w > 0)
				sent += (uint64_t)w;
		}
		if (p->c[1]) {
			int32_t r;
			while ((r = tcp_recv(p->w.tcp[1], p->c[1], buf, sizeof(buf), false,
					     p->w.now)) > 0) {
				for (int32_t k = 0; k < r; k++)
					if (buf[k] != pat_byte(rcvd + (uint64_t)k) && !p->bad[0])
						snprintf(p->bad, sizeof(p->bad), "byte %llu wrong",
							 (unsigned long long)(rcvd + (uint64_t)k));
				rcvd += (uint64_t)r;
			}
		}
		if (p->one_drop_at && !one_seen && SEQ_GT(a->send.una, p->one_seq)) {
			one_seen = true;
			p->one_done_at = p->w.now;
		}
		if (rcvd == TOTAL && a->send.una == a->send.max)
			break;
		if (a->state != TCP_ESTABLISHED && a->state != TCP_SYN_SENT) {
			snprintf(p->bad, sizeof(p->bad), "connection left ESTABLISHED (%s)",
				 tcp_state_name(a->state));
			break;
		}
		uint64_t next = next_event(p, frozen);
		if (next == UINT64_MAX) {
			snprintf(p->bad, sizeof(p->bad), "stalled: nothing left to happen");
			break;
		}
		if (next > p->w.now)
			p->w.now = next;
		if (p->w.now - 1000 * MS > 600ull * 1000 * MS) {
			snprintf(p->bad, sizeof(p->bad), "600 s of simulated time");
			break;
		}
		frozen = p->frozen_until && p->w.now < p->frozen_until;
		bool waking = p->frozen_until && p->w.now >= p->frozen_until && !p->woke;
		if (waking) {
			/* the clock moved on while A slept: its timers see it first */
			p->woke = true;
			tcp_timers(p->w.tcp[0], p->w.now);
			check_inv(p);
		}
		tpath_deliver(&p->w, frozen ? 0 : -1, check_inv, p);
		for (int i = frozen ? 1 : 0; i < 2; i++)
			tcp_timers(p->w.tcp[i], p->w.now);
		check_inv(p);
	}
	result_fill(&res, p, rcvd, t0);
	result_print(&res, pt, seed, p);
	ck_assert_msg(res.ok, "%s seed %llu: %s (received %llu of %u)", pt->name,
		      (unsigned long long)seed, p->bad[0] ? p->bad : "incomplete",
		      (unsigned long long)rcvd, TOTAL);
	tpath_fini(&p->w);
	free(p);
	return res;
}

/* With SACK only holes go again: what the path dropped and what B could not
 * keep (its reassembly holds TCP_OOO_MAX ranges; a segment that would need
 * another is discarded), plus per recovery episode at most two segments
 * sent on suspicion (RFC 6675 rules 3 and 4, a reordered one), plus per RTO
 * per_rto_segs segments whose SACK was still to come. */
static void check_bound(const struct pattern *pt, uint64_t seed, const struct result *r,
			uint32_t per_rto_segs)
{
	uint64_t bound = r->lost_bytes + r->discarded_bytes + (uint64_t)MSS_BYTES * (2u * r->fast) +
			 (uint64_t)MSS_BYTES * per_rto_segs * r->rto;
	ck_assert_msg(r->retrans_bytes <= bound,
		      "%s seed %llu: %llu bytes resent, bound %llu (lost %llu, discarded %llu, %u "
		      "recoveries, %u RTOs)",
		      pt->name, (unsigned long long)seed, (unsigned long long)r->retrans_bytes,
		      (unsigned long long)bound, (unsigned long long)r->lost_bytes,
		      (unsigned long long)r->discarded_bytes, r->fast, r->rto);
}

static const struct pattern random_loss[] = {
    {.name = "loss0.1%", .loss_ppm = 1000},
    {.name = "loss1%", .loss_ppm = 10000},
    {.name = "loss5%", .loss_ppm = 50000},
    {.name = "loss10%", .loss_ppm = 100000},
};

START_TEST(random_loss_holes_only)
{
	const struct pattern *pt = &random_loss[_i];
	for (uint64_t seed = 1; seed <= 2; seed++) {
		struct result r = run(pt, seed);
		check_bound(pt, seed, &r, 1);
		/* SACK repairs a loss without the timer; RACK repairs a lost
		 * repair too and the tail loss probe a lost tail (RFC 8985):
		 * one RTO per 20 losses at most (DupThresh alone needed one
		 * per 13 to 17 at 5-10 %, NewReno with go-back-N one per 2 to
		 * 5). */
		ck_assert_msg(r.rto * 20 <= r.lost_segs, "%s seed %llu: %u RTOs for %u losses",
			      pt->name, (unsigned long long)seed, r.rto, r.lost_segs);
	}
}
END_TEST

START_TEST(bursty_loss)
{
	static const struct pattern pt = {.name = "burst8", .burst_ppm = 2000, .burst_len = 8};
	for (uint64_t seed = 1; seed <= 2; seed++) {
		struct result r = run(&pt, seed);
		check_bound(&pt, seed, &r, 4);
	}
}
END_TEST

START_TEST(ack_loss)
{
	/* No data is lost: cumulative ACKs cover for the lost ones. */
	static const struct pattern pt = {.name = "ackloss20%", .ack_loss_ppm = 200000};
	struct result r = run(&pt, 1);
	ck_assert_uint_eq(r.lost_bytes, 0);
	ck_assert_uint_eq(r.rto, 0);
	check_bound(&pt, 1, &r, 4);
}
END_TEST

START_TEST(reordering)
{
	/* 2 % of the data 3 ms late (about 25 segments at this rate): no
	 * timeout, and what goes again on suspicion stays per episode. */
	static const struct pattern pt = {
	    .name = "reorder2%", .reorder_ppm = 20000, .reorder_ns = 3 * MS};
	struct result r = run(&pt, 1);
	ck_assert_uint_eq(r.rto, 0);
	check_bound(&pt, 1, &r, 0);
	/* RACK (RFC 8985 §6.2): until reordering is seen, DupThresh SACKed
	 * segments mark a hole lost at once, so the first displacement is
	 * resent; its D-SACK shows reordering, after which a displacement
	 * shorter than reo_wnd (min_rtt/4 = 5 ms here) is waited for.
	 * DupThresh resent about 45 segments in 24 spurious recoveries. */
	ck_assert_msg(r.fast <= 1 && r.retrans_bytes <= 2 * MSS_BYTES,
		      "%u recoveries, %llu bytes resent with nothing lost", r.fast,
		      (unsigned long long)r.retrans_bytes);
}
END_TEST

START_TEST(reordering_dupthresh_undone)
{
	/* Without RACK every such reduction is spurious: its
	 * retransmissions come back as D-SACKs and it is undone (RFC 2883
	 * §5), unless the next one began before they did. */
	static const struct pattern pt = {
	    .name = "reorder-dt", .reorder_ppm = 20000, .reorder_ns = 3 * MS, .no_rack = true};
	struct result r = run(&pt, 1);
	ck_assert_uint_eq(r.rto, 0);
	check_bound(&pt, 1, &r, 0);
	ck_assert_msg(r.undos * 2 >= r.fast, "%u of %u reductions undone", r.undos, r.fast);
}
END_TEST

START_TEST(lost_retransmission)
{
	/* One segment and its fast retransmission: RACK sees segments sent
	 * after the retransmission delivered and resends it again (RFC 8985
	 * §6.2) instead of waiting for the RTO as DupThresh must. */
	static const struct pattern pt = {.name = "one-rtx", .one = 300, .one_rtx = true};
	struct result r = run(&pt, 1);
	ck_assert_uint_eq(r.lost_segs, 2);
	ck_assert_uint_eq(r.rto, 0);
	ck_assert_uint_ge(r.rack_lost, 2);
	ck_assert_uint_le(r.retrans_bytes, 2 * MSS_BYTES);
	ck_assert_msg(r.one_ns < r.rto_us * 1000ull, "repaired after %llu ns, rto %u us",
		      (unsigned long long)r.one_ns, r.rto_us);
}
END_TEST

START_TEST(tail_loss)
{
	/* The last 3 segments: nothing above them to SACK. The tail loss
	 * probe (RFC 8985 §7) resends the last one about 2 SRTT after the
	 * ACKs stop, its SACK lets RACK mark the others lost, and no RTO is
	 * needed (before: one RTO, 250 ms later). Only lost segments go
	 * again. */
	static const struct pattern pt = {.name = "tail3", .tail = 3};
	struct result r = run(&pt, 1);
	ck_assert_uint_ge(r.lost_bytes, 3 * MSS_BYTES);
	ck_assert_uint_le(r.lost_bytes, 4 * MSS_BYTES); /* the last one may straddle */
	ck_assert_uint_le(r.retrans_bytes, r.lost_bytes);
	ck_assert_uint_eq(r.rto, 0);
	ck_assert_uint_eq(r.tlp_probes, 1);
	ck_assert_uint_ge(r.rack_lost, 2);
	/* per connection too, for skcat --info */
	ck_assert_uint_eq(r.ti.tlp_probes, 1);
	ck_assert_uint_eq(r.ti.rack_lost, r.rack_lost);
}
END_TEST

/* A sender frozen (by the machine) for 400 ms, past its RTO of about
 * 220 ms, with nothing lost: on waking its RTO fires before it reads the
 * ACKs that came meanwhile. F-RTO (RFC 5682 §3.1) resends the first
 * segment only; the next ACK covers data never resent and the RTO is
 * undone (Linux tcp_try_undo_loss). Before F-RTO the whole flight not yet
 * acknowledged went again. */
static void frozen_check(const struct pattern *pt, const struct result *r)
{
	ck_assert_uint_eq(r->lost_segs, 0);
	ck_assert_msg(r->freeze_retrans_bytes <= MSS_BYTES,
		      "%s: %llu bytes resent after the freeze", pt->name,
		      (unsigned long long)r->freeze_retrans_bytes);
}

START_TEST(frozen_sender_frto)
{
	static const struct pattern pt = {
	    .name = "frozen", .freeze_at = 400, .freeze_ns = 400 * MS, .no_tlp = true};
	struct result r = run(&pt, 1);
	frozen_check(&pt, &r);
	ck_assert_uint_eq(r.rto, 1);
	ck_assert_uint_eq(r.frto_spurious, 1);
	ck_assert_uint_eq(r.ti.spurious_rtos, 1);
	ck_assert_uint_ge(r.undos, 1);
}
END_TEST

START_TEST(frozen_sender_tlp)
{
	/* With the tail loss probe the PTO, due with the RTO, goes first:
	 * one probe, of new data when there is some, and no RTO at all. */
	static const struct pattern pt = {
	    .name = "frozen-tlp", .freeze_at = 400, .freeze_ns = 400 * MS};
	struct result r = run(&pt, 1);
	frozen_check(&pt, &r);
	ck_assert_uint_eq(r.rto, 0);
	ck_assert_uint_eq(r.tlp_probes, 1);
}
END_TEST

START_TEST(one_loss_recovery_time)
{
	/* One segment mid-transfer: resent on the duplicate ACKs and repaired
	 * within 2 RTTs of the path plus what the segment and its
	 * retransmission waited in the line's queue, and 1 ms for the
	 * segments after it that make the duplicate ACKs: the RTO (above
	 * 200 ms, 10 RTTs) plays no part. */
	static const struct pattern pt = {.name = "one", .one = 300};
	struct result r = run(&pt, 1);
	ck_assert_uint_eq(r.lost_bytes, MSS_BYTES);
	ck_assert_uint_eq(r.retrans_bytes, MSS_BYTES);
	ck_assert_uint_eq(r.rto, 0);
	ck_assert_uint_eq(r.fast, 1);
	ck_assert_uint_gt(r.one_ns, 0);
	uint64_t bound = 4 * DELAY_NS + r.one_queued_ns + MS;
	ck_assert_msg(r.one_ns <= bound && r.one_ns < r.rto_us * 1000ull,
		      "repaired after %llu ns, bound %llu ns, rto %u us",
		      (unsigned long long)r.one_ns, (unsigned long long)bound, r.rto_us);
}
END_TEST

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	Suite *s = suite_create("recovery_sim");
	TCase *tc = tcase_create("path");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, random_loss_holes_only, 0,
			    (int)(sizeof(random_loss) / sizeof(random_loss[0])));
	tcase_add_test(tc, bursty_loss);
	tcase_add_test(tc, ack_loss);
	tcase_add_test(tc, reordering);
	tcase_add_test(tc, reordering_dupthresh_undone);
	tcase_add_test(tc, lost_retransmission);
	tcase_add_test(tc, frozen_sender_frto);
	tcase_add_test(tc, frozen_sender_tlp);
	tcase_add_test(tc, tail_loss);
	tcase_add_test(tc, one_loss_recovery_time);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
