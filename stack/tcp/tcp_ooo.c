/* tcp_ooo: the receiver's out-of-order ranges and the SACK blocks that
 * describe them (RFC 2018 §4). The bytes sit in the receive ring at their
 * offsets; this file keeps which ranges beyond rcv_nxt are held. The array
 * grows with the holes, as Linux's tcp_data_queue_ofo keeps any number of
 * segments within the receive buffer: with 4 ranges a lossy megabyte window
 * made the receiver drop segments past the fourth hole, the sender resend
 * them, and our SACK blocks could not name the holes. The receive buffer
 * bounds the bytes; TCP_OOO_MAX bounds the ranges whatever the peer sends.
 * A connection without holes holds no array. */
#include <stdlib.h>
#include <string.h>

#include "tcp_int.h"

void tcp_ooo_free(struct tcb *tcb)
{
	free(tcb->ooo.r);
	tcb->ooo.r = NULL;
	tcb->ooo.n = 0;
	tcb->ooo.cap = 0;
	tcb->ooo.hist_n = 0;
}

/* The first range that ends after seq (ooo_n when none). */
uint32_t tcp_ooo_first_after(const struct tcb *tcb, uint32_t seq)
{
	return tcp_ranges_first_after(tcb->ooo.r, tcb->ooo.n, seq);
}

/* Room for one more range; false at TCP_OOO_MAX or when memory is short. */
static bool ooo_room(struct tcb *tcb)
{
	struct tcp_seq_range *b = tcp_grow(tcb->ooo.r, &tcb->ooo.cap, tcb->ooo.n + 1, TCP_OOO_MIN,
					   TCP_OOO_MAX, sizeof(*b));
	if (b)
		tcb->ooo.r = b;
	return b != NULL;
}

/* Whether [l, r) can be remembered: it touches a held range, or there is
 * room for one more. Asked before its bytes are written, so a segment that
 * cannot be kept leaves the ring as it was. */
bool tcp_ooo_fits(struct tcb *tcb, uint32_t l, uint32_t r)
{
	uint32_t i = tcp_ooo_first_after(tcb, l - 1); /* the first ending at l or later */
	if (i < tcb->ooo.n && SEQ_LEQ(tcb->ooo.r[i].l, r))
		return true;
	return ooo_room(tcb);
}

bool tcp_ooo_insert(struct tcb *tcb, uint32_t l, uint32_t r)
{
	uint32_t i = tcp_ooo_first_after(tcb, l - 1);
	struct tcp_seq_range *o = tcb->ooo.r;
	if (i < tcb->ooo.n && SEQ_LEQ(o[i].l, r)) {
		/* Overlaps or touches o[i]: widen it, then swallow followers. */
		if (SEQ_LT(l, o[i].l))
			o[i].l = l;
		if (SEQ_GT(r, o[i].r))
			o[i].r = r;
		uint32_t k = i + 1;
		while (k < tcb->ooo.n && SEQ_LEQ(o[k].l, o[i].r)) {
			if (SEQ_GT(o[k].r, o[i].r))
				o[i].r = o[k].r;
			k++;
		}
		if (k > i + 1) {
			memmove(&o[i + 1], &o[k], (tcb->ooo.n - k) * sizeof(o[0]));
			tcb->ooo.n -= k - (i + 1);
		}
		return true;
	}
	if (!ooo_room(tcb))
		return false;
	o = tcb->ooo.r;
	memmove(&o[i + 1], &o[i], (tcb->ooo.n - i) * sizeof(o[0]));
	o[i].l = l;
	o[i].r = r;
	tcb->ooo.n++;
	return true;
}

uint32_t tcp_ooo_pull(struct tcb *tcb, bool *filled)
{
	uint32_t k = 0, more = 0, nxt = tcb->recv.nxt;
	while (k < tcb->ooo.n && SEQ_LEQ(tcb->ooo.r[k].l, nxt)) {
		if (SEQ_GT(tcb->ooo.r[k].r, nxt)) {
			more += tcb->ooo.r[k].r - nxt;
			nxt = tcb->ooo.r[k].r;
		}
		k++;
	}
	*filled = k > 0;
	if (k == tcb->ooo.n) {
		if (k)
			tcp_ooo_free(tcb); /* the last hole filled: idle again */
	} else if (k) {
		memmove(&tcb->ooo.r[0], &tcb->ooo.r[k], (tcb->ooo.n - k) * sizeof(tcb->ooo.r[0]));
		tcb->ooo.n -= k;
	}
	return more;
}

void tcp_ooo_arrived(struct tcb *tcb, uint32_t seq)
{
	if (tcb->ooo.n || tcb->recv.ooo_fin) {
		/* the previous arrival still may name a block: remember it */
		memmove(&tcb->ooo.hist[1], &tcb->ooo.hist[0],
			(TCP_OOO_HIST - 1) * sizeof(tcb->ooo.hist[0]));
		tcb->ooo.hist[0] = tcb->ooo.recent;
		if (tcb->ooo.hist_n < TCP_OOO_HIST)
			tcb->ooo.hist_n++;
	}
	tcb->ooo.recent = seq;
}

/* A FIN held beyond a hole occupies a sequence number: the block that ends
 * at it reaches past it, else it is a block of its own (Linux's blocks end
 * at end_seq). */
static bool fin_alone(const struct tcb *tcb, uint32_t *pos)
{
	if (!tcb->recv.ooo_fin)
		return false;
	uint32_t p = tcp_ooo_first_after(tcb, tcb->recv.ooo_fin_seq);
	*pos = p;
	return !(p > 0 && tcb->ooo.r[p - 1].r == tcb->recv.ooo_fin_seq);
}

static struct tcp_seq_range range_block(const struct tcb *tcb, uint32_t i)
{
	struct tcp_seq_range b = tcb->ooo.r[i];
	if (tcb->recv.ooo_fin && b.r == tcb->recv.ooo_fin_seq)
		b.r++;
	return b;
}

/* The block holding seq, if any. */
static bool block_of(const struct tcb *tcb, uint32_t seq, struct tcp_seq_range *b)
{
	if (SEQ_LT(seq, tcb->recv.nxt))
		return false;
	uint32_t i = tcp_ooo_first_after(tcb, seq);
	if (i < tcb->ooo.n && SEQ_LEQ(tcb->ooo.r[i].l, seq)) {
		*b = range_block(tcb, i);
		return true;
	}
	if (tcb->recv.ooo_fin && seq == tcb->recv.ooo_fin_seq) {
		if (i > 0 && tcb->ooo.r[i - 1].r == seq)
			*b = range_block(tcb, i - 1);
		else
			*b = (struct tcp_seq_range){seq, seq + 1};
		return true;
	}
	return false;
}

/* The k-th block in sequence order. */
static struct tcp_seq_range sorted_block(const struct tcb *tcb, uint32_t k, bool alone,
					 uint32_t pos)
{
	if (!alone || k < pos)
		return range_block(tcb, k);
	if (k == pos)
		return (struct tcp_seq_range){tcb->recv.ooo_fin_seq, tcb->recv.ooo_fin_seq + 1};
	return range_block(tcb, k - 1);
}

static bool add_block(struct tcp_seq_range *out, uint32_t *n, struct tcp_seq_range b)
{
	for (uint32_t i = 0; i < *n; i++)
		if (out[i].l == b.l)
			return false; /* blocks are disjoint: the left edge names one */
	out[(*n)++] = b;
	return true;
}

/* RFC 2018 §4: the first block holds the most recent segment; then, when
 * not all fit, the blocks of the arrivals before it (so each is reported in
 * several ACKs, as Linux's selective_acks rotate), then the lowest others.
 * When all fit they follow the first in sequence order. */
uint32_t tcp_ooo_blocks(const struct tcb *tcb, struct tcp_seq_range *out, uint32_t max)
{
	uint32_t pos = 0;
	bool alone = fin_alone(tcb, &pos);
	uint32_t nb = tcb->ooo.n + (alone ? 1u : 0u);
	uint32_t n = 0;
	if (nb == 0 || max == 0)
		return 0;
	struct tcp_seq_range b;
	if (block_of(tcb, tcb->ooo.recent, &b))
		add_block(out, &n, b);
	if (nb > max)
		for (uint32_t h = 0; h < tcb->ooo.hist_n && n < max; h++)
			if (block_of(tcb, tcb->ooo.hist[h], &b))
				add_block(out, &n, b);
	for (uint32_t k = 0; k < nb && n < max; k++)
		add_block(out, &n, sorted_block(tcb, k, alone, pos));
	return n;
}
