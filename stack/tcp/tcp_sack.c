/* tcp_sack: the sender's SACK scoreboard of RFC 6675: the peer's SACK blocks
 * (RFC 2018) checked as Linux's tcp_is_sackblock_valid and kept as sorted,
 * disjoint ranges above snd_una; IsLost (§4), the pipe estimate SetPipe
 * (§4) and the retransmission choices of NextSeg (§4 rules 1, 3, 4). The
 * board grows with the holes up to TCP_SB_MAX ranges whatever the peer
 * sends: a block that would need more is dropped, which only makes the
 * sender resend data the peer already has. An idle connection holds no
 * board. */
#include <stdlib.h>
#include <string.h>

#include "tcp_int.h"

#define DUPTHRESH 3u /* RFC 6675 §2 DupThresh */

static uint32_t seq_min(uint32_t a, uint32_t b)
{
	return SEQ_LT(a, b) ? a : b;
}

static uint32_t seq_max(uint32_t a, uint32_t b)
{
	return SEQ_GT(a, b) ? a : b;
}

void tcp_sb_clear(struct tcb *tcb)
{
	tcb->sb.n = 0;
	tcb->sb.sacked = 0;
}

void tcp_sb_free(struct tcb *tcb)
{
	free(tcb->sb.b);
	tcb->sb.b = NULL;
	tcb->sb.n = 0;
	tcb->sb.cap = 0;
	tcb->sb.sacked = 0;
}

/* Room for one more range; false when the board is at TCP_SB_MAX or
 * memory is short (the block is then ignored, which is safe). */
static bool sb_room(struct tcp_sack_sb *sb)
{
	struct tcp_seq_range *b =
	    tcp_grow(sb->b, &sb->cap, sb->n + 1, TCP_SB_MIN, TCP_SB_MAX, sizeof(*b));
	if (b)
		sb->b = b;
	return b != NULL;
}

/* The first range that ends after seq (n when none). */
static uint32_t sb_first_after(const struct tcp_sack_sb *sb, uint32_t seq)
{
	return tcp_ranges_first_after(sb->b, sb->n, seq);
}

/* Drops what snd_una now covers. */
static void sb_trim(struct tcb *tcb)
{
	struct tcp_sack_sb *sb = &tcb->sb;
	uint32_t k = 0;
	while (k < sb->n && SEQ_LEQ(sb->b[k].r, tcb->send.una)) {
		sb->sacked -= sb->b[k].r - sb->b[k].l;
		k++;
	}
	if (k) {
		memmove(&sb->b[0], &sb->b[k], (sb->n - k) * sizeof(sb->b[0]));
		sb->n = (uint16_t)(sb->n - k);
	}
	if (sb->n && SEQ_LT(sb->b[0].l, tcb->send.una)) {
		sb->sacked -= tcb->send.una - sb->b[0].l;
		sb->b[0].l = tcb->send.una;
	}
	if (!sb->n && tcb->send.una == tcb->send.max)
		tcp_sb_free(tcb); /* all acknowledged: the connection may idle */
}

/* Merges [l, r) (inside (snd_una, snd_max]) into the board. */
static void sb_insert(struct tcb *tcb, uint32_t l, uint32_t r)
{
	struct tcp_sack_sb *sb = &tcb->sb;
	uint32_t i = sb_first_after(sb, l - 1); /* the first that ends at l or later */
	if (i < sb->n && SEQ_LEQ(sb->b[i].l, r)) {
		/* Overlaps or touches b[i]: widen it, then swallow followers. */
		uint32_t nl = seq_min(l, sb->b[i].l), nr = seq_max(r, sb->b[i].r);
		sb->sacked += (sb->b[i].l - nl) + (nr - sb->b[i].r);
		sb->b[i].l = nl;
		sb->b[i].r = nr;
		while (i + 1 < sb->n && SEQ_LEQ(sb->b[i + 1].l, sb->b[i].r)) {
			uint32_t fl = sb->b[i + 1].l, fr = sb->b[i + 1].r;
			/* the follower's bytes were counted; count only the overlap once */
			sb->sacked -= seq_min(fr, sb->b[i].r) - fl;
			if (SEQ_GT(fr, sb->b[i].r))
				sb->b[i].r = fr;
			memmove(&sb->b[i + 1], &sb->b[i + 2], (sb->n - i - 2) * sizeof(sb->b[0]));
			sb->n--;
		}
		return;
	}
	if (!sb_room(sb))
		return;
	memmove(&sb->b[i + 1], &sb->b[i], (sb->n - i) * sizeof(sb->b[0]));
	sb->b[i].l = l;
	sb->b[i].r = r;
	sb->n++;
	sb->sacked += r - l;
}

/* Linux tcp_check_dsack: the first block is a D-SACK (RFC 2883 §4) when it
 * lies below the cumulative ACK or inside the second block. */
static bool first_is_dsack(const struct tcp_repr *h)
{
	if (h->nsack == 0)
		return false;
	if (SEQ_LT(h->sack[0].l, h->ack))
		return true;
	return h->nsack > 1 && SEQ_GEQ(h->sack[0].l, h->sack[1].l) &&
	       SEQ_LEQ(h->sack[0].r, h->sack[1].r);
}

/* Linux tcp_is_sackblock_valid with snd_max for snd_nxt: a block must lie
 * within what we sent and above snd_una; a D-SACK may lie below snd_una,
 * but no further back than the largest window the peer offered. */
static bool block_valid(const struct tcb *tcb, bool dsack, uint32_t l, uint32_t r)
{
	if (SEQ_GT(r, tcb->send.max) || !SEQ_LT(l, r))
		return false;
	if (SEQ_GT(l, tcb->send.una))
		return true;
	if (!dsack || SEQ_GT(r, tcb->send.una))
		return false;
	uint32_t maxw = tcb->send.max_wnd ? tcb->send.max_wnd : 65535u;
	return r - l <= maxw && SEQ_GEQ(l, tcb->send.una - maxw - (r - l));
}

void tcp_sb_update(struct tcb *tcb, const struct tcp_repr *h, uint32_t prior_sacked,
		   struct tcp_sb_res *res)
{
	struct tcp_sack_sb *sb = &tcb->sb;
	memset(res, 0, sizeof(*res));
	sb_trim(tcb);
	/* RFC 2018 §8: a block that starts at snd_una after the cumulative
	 * ACK stopped there was dropped by the receiver (reneging); forget
	 * the board as Linux does (tcp_check_sack_reneging) and resend. */
	if (sb->n && sb->b[0].l == tcb->send.una) {
		tcp_sb_clear(tcb);
		res->reneged = true;
	}
	uint32_t before = sb->sacked;
	unsigned n = h->nsack > TCP_SACK_MAX ? TCP_SACK_MAX : h->nsack;
	bool dsack = first_is_dsack(h);
	for (unsigned i = 0; i < n; i++) {
		uint32_t l = h->sack[i].l, r = h->sack[i].r;
		bool d = dsack && i == 0;
		if (!block_valid(tcb, d, l, r)) {
			res->invalid++;
			continue;
		}
		if (d) {
			res->dsack = true;
			res->dsack_l = l;
			res->dsack_r = r;
			sb->dsacks++;
			continue;
		}
		sb_insert(tcb, l, r);
	}
	res->newly_sacked = sb->sacked - before;
	/* RFC 6937 DeliveredData's SACK part: the change in SACKed bytes, so
	 * SACKed bytes that the cumulative ACK now covers count once. */
	res->sacked_delta = (int64_t)sb->sacked - (int64_t)prior_sacked;
}

/* SACKed bytes inside [l, r). */
uint32_t tcp_sb_sacked_in(const struct tcb *tcb, uint32_t l, uint32_t r)
{
	uint32_t sum = 0;
	for (uint32_t i = sb_first_after(&tcb->sb, l); i < tcb->sb.n && SEQ_LT(tcb->sb.b[i].l, r);
	     i++) {
		uint32_t a = seq_max(l, tcb->sb.b[i].l), b = seq_min(r, tcb->sb.b[i].r);
		if (SEQ_LT(a, b))
			sum += b - a;
	}
	return sum;
}

static uint32_t unsacked(const struct tcb *tcb, uint32_t l, uint32_t r)
{
	if (!SEQ_LT(l, r))
		return 0;
	return (r - l) - tcp_sb_sacked_in(tcb, l, r);
}

/* Every un-SACKed sequence number below the edge is lost (IsLost, RFC 6675
 * §4): above it are DupThresh SACKed ranges or more than (DupThresh − 1) ·
 * SMSS SACKed bytes. After an RTO everything sent before it is lost too
 * (§5.1, Linux tcp_timeout_mark_lost). */
uint32_t tcp_sb_lost_edge(const struct tcb *tcb)
{
	const struct tcp_sack_sb *sb = &tcb->sb;
	uint32_t edge = tcb->send.una, above = 0;
	/* With RACK (tcp_rack.c) time decides, not counts (Linux with
	 * tcp_recovery=1 marks nothing by DupThresh). */
	for (uint32_t k = tcp_rack_on(tcb) ? 0 : sb->n; k-- > 0;) {
		above += sb->b[k].r - sb->b[k].l;
		if (sb->n - k >= DUPTHRESH || above > (DUPTHRESH - 1) * (uint32_t)tcb->mss) {
			edge = sb->b[k].l;
			break;
		}
	}
	if (tcb->rec.mode != TCP_SB_OPEN && SEQ_GT(tcb->rec.lost_high, edge))
		edge = seq_min(tcb->rec.lost_high, tcb->send.max);
	return edge;
}

bool tcp_sb_is_lost(const struct tcb *tcb, uint32_t seq)
{
	return SEQ_LT(seq, tcp_sb_lost_edge(tcb)) && !tcp_sb_sacked_in(tcb, seq, seq + 1);
}

/* SetPipe (RFC 6675 §4): un-SACKed bytes not deemed lost, plus those
 * retransmitted (below HighRxt) once more. With RACK the records say what
 * is lost and not yet resent (Linux: packets_out − sacked − lost + retrans,
 * a resent segment counting once). */
uint32_t tcp_sb_pipe(struct tcb *tcb)
{
	if (tcp_rack_on(tcb)) {
		uint32_t un = unsacked(tcb, tcb->send.una, tcb->send.max);
		uint32_t lost = tcp_rack_lost_bytes(tcb);
		return un > lost ? un - lost : 0;
	}
	uint32_t edge = tcp_sb_lost_edge(tcb);
	uint32_t pipe = unsacked(tcb, seq_max(edge, tcb->send.una), tcb->send.max);
	if (tcb->rec.mode != TCP_SB_OPEN)
		pipe += unsacked(tcb, tcb->send.una, seq_min(tcb->rec.high_rxt, tcb->send.max));
	return pipe;
}

/* The first un-SACKed sequence number at or after seq, and the end of its
 * hole (the next block's start, or snd_max). false: none below snd_max. */
bool tcp_sb_hole_from(const struct tcb *tcb, uint32_t seq, uint32_t *s, uint32_t *e)
{
	uint32_t x = seq_max(seq, tcb->send.una);
	for (uint32_t i = sb_first_after(&tcb->sb, x); i < tcb->sb.n; i++) {
		if (SEQ_LT(x, tcb->sb.b[i].l)) {
			*s = x;
			*e = tcb->sb.b[i].l;
			return true;
		}
		x = tcb->sb.b[i].r;
	}
	if (!SEQ_LT(x, tcb->send.max))
		return false;
	*s = x;
	*e = tcb->send.max;
	return true;
}

/* Shapes [s, e) into one segment of at most room payload bytes; our FIN
 * rides with the data that ends at it. */
static void shape(const struct tcb *tcb, uint32_t s, uint32_t e, uint32_t room,
		  struct tcp_sb_seg *out)
{
	uint32_t data_end = e;
	bool fin_in = (tcb->flags & TCB_F_FIN_SENT) && SEQ_GT(e, tcb->fin_seq);
	if (fin_in)
		data_end = tcb->fin_seq;
	uint32_t len = SEQ_GT(data_end, s) ? data_end - s : 0;
	out->seq = s;
	out->fin = false;
	if (len > room) {
		len = room;
	} else if (fin_in) {
		out->fin = true;
	}
	out->len = len;
}

bool tcp_sb_next_lost(struct tcb *tcb, uint32_t room, struct tcp_sb_seg *out)
{
	/* Rule 1: the first un-SACKed, lost sequence number above HighRxt;
	 * or below it a retransmission RACK found lost, if that comes first. */
	uint32_t s, e, rs, re;
	bool edge =
	    tcp_sb_hole_from(tcb, tcb->rec.high_rxt, &s, &e) && SEQ_LT(s, tcp_sb_lost_edge(tcb));
	if (tcp_rack_next_lost(tcb, &rs, &re) && (!edge || SEQ_LT(rs, s))) {
		s = rs;
		e = re;
		edge = true;
	}
	if (!edge)
		return false;
	shape(tcb, s, e, room, out);
	return out->len || out->fin;
}

bool tcp_sb_next_unsacked(const struct tcb *tcb, uint32_t room, struct tcp_sb_seg *out)
{
	/* Rule 3: an un-SACKed sequence number above HighRxt with SACKed data
	 * above it, not yet deemed lost. */
	uint32_t s, e;
	/* Not with RACK: the reordering window decides (RFC 8985 §6). */
	if (tcp_rack_on(tcb) || !tcb->sb.n || !tcp_sb_hole_from(tcb, tcb->rec.high_rxt, &s, &e))
		return false;
	if (!SEQ_LT(s, tcb->sb.b[tcb->sb.n - 1].l))
		return false;
	shape(tcb, s, e, room, out);
	return out->len || out->fin;
}

/* The last un-SACKed segment below end, not below HighRxt. */
static bool last_unsacked(const struct tcb *tcb, uint32_t end, uint32_t room,
			  struct tcp_sb_seg *out)
{
	uint32_t hs = 0, he = 0, s, e, from = tcb->send.una;
	bool any = false;
	while (tcp_sb_hole_from(tcb, from, &s, &e) && SEQ_LT(s, end)) {
		hs = s;
		he = seq_min(e, end);
		any = true;
		from = e;
	}
	if (!any)
		return false;
	uint32_t data_end = he;
	if ((tcb->flags & TCB_F_FIN_SENT) && SEQ_GT(he, tcb->fin_seq))
		data_end = tcb->fin_seq;
	uint32_t start = hs;
	if (SEQ_GT(data_end, hs) && data_end - hs > room)
		start = data_end - room;
	/* not what rule 1 or 3 resent already */
	if (SEQ_LT(start, tcb->rec.high_rxt))
		start = tcb->rec.high_rxt;
	if (!SEQ_LT(start, he))
		return false;
	shape(tcb, start, he, room, out);
	return out->len || out->fin;
}

bool tcp_sb_rescue(const struct tcb *tcb, uint32_t room, struct tcp_sb_seg *out)
{
	/* Rule 4: once per recovery, the last un-SACKed segment before the
	 * recovery point, so that a lost tail is resent without waiting for
	 * the RTO. */
	return last_unsacked(tcb, seq_min(tcb->rec.recover, tcb->send.max), room, out);
}

bool tcp_sb_last_unsacked(const struct tcb *tcb, uint32_t room, struct tcp_sb_seg *out)
{
	return last_unsacked(tcb, tcb->send.max, room, out);
}

#ifdef SKOPS_INVARIANTS
void tcp_sb_check(const struct tcb *tcb)
{
	const struct tcp_sack_sb *sb = &tcb->sb;
	TCP_INV(sb->n <= sb->cap && sb->cap <= TCP_SB_MAX);
	uint32_t sum = 0;
	for (uint32_t i = 0; i < sb->n; i++) {
		TCP_INV(SEQ_LT(sb->b[i].l, sb->b[i].r));
		TCP_INV(SEQ_GT(sb->b[i].l, tcb->send.una));
		TCP_INV(SEQ_LEQ(sb->b[i].r, tcb->send.max));
		if (i)
			TCP_INV(SEQ_GT(sb->b[i].l, sb->b[i - 1].r));
		sum += sb->b[i].r - sb->b[i].l;
	}
	TCP_INV(sum == sb->sacked);
}
#endif
