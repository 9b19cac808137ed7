/* tcp_rack: RACK loss detection (RFC 8985 §6) for SACK connections, as
 * Linux's tcp_recovery=1: a segment is lost when one sent after it has
 * been delivered and more than RACK.rtt + reo_wnd has passed since it was
 * sent, which also finds lost retransmissions, which DupThresh cannot.
 * What needs a send time is kept in a compact record of the segments in
 * flight (struct tcp_rack in tcp.h); the SACK scoreboard (tcp_sack.c)
 * stays the truth about what the peer holds. The records also carry the
 * delivery-rate state of tcp_rate.c. */
#include <stdlib.h>
#include <string.h>

#include "tcp_int.h"

static struct tcp_rack_seg *rec(struct tcb *tcb, uint32_t i)
{
	return &tcb->rack.s[tcb->rack.head + i];
}

void tcp_rack_free(struct tcb *tcb)
{
	struct tcp_rack *r = &tcb->rack;
	free(r->s);
	r->s = NULL;
	r->head = r->n = r->cap = r->nlost = 0;
	r->whole = false;
}

bool tcp_rack_on(const struct tcb *tcb)
{
	return tcb->rack.whole && (tcb->flags & TCB_F_SACK) && !tcb->tcp->cfg.no_rack;
}

/* The records no longer describe the flight: DupThresh takes over until
 * the connection idles. */
static void give_up(struct tcb *tcb)
{
	struct tcp_rack *r = &tcb->rack;
	r->whole = false;
	r->nlost = 0;
	for (uint32_t i = 0; i < r->n; i++)
		rec(tcb, i)->flags &= ~TCP_RS_LOST;
}

/* Room for k more records at the end of the array. */
static bool room(struct tcb *tcb, uint32_t k)
{
	struct tcp_rack *r = &tcb->rack;
	if (r->head + r->n + k <= r->cap)
		return true;
	if (r->head) {
		memmove(r->s, r->s + r->head, r->n * sizeof(*r->s));
		r->head = 0;
		if (r->n + k <= r->cap)
			return true;
	}
	struct tcp_rack_seg *s =
	    tcp_grow(r->s, &r->cap, r->n + k, TCP_RACK_MIN, TCP_RACK_MAX, sizeof(*s));
	if (s)
		r->s = s;
	return s != NULL;
}

/* The first record that ends after seq (n when none). */
static uint32_t first_after(struct tcb *tcb, uint32_t seq)
{
	uint32_t lo = 0, hi = tcb->rack.n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (SEQ_GT(rec(tcb, mid)->end, seq))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Makes seq a record boundary; false when no record can be added. */
static bool split_at(struct tcb *tcb, uint32_t seq)
{
	struct tcp_rack *r = &tcb->rack;
	uint32_t i = first_after(tcb, seq);
	if (i == r->n || !SEQ_LT(rec(tcb, i)->seq, seq))
		return true;
	if (!room(tcb, 1))
		return false;
	struct tcp_rack_seg *a = rec(tcb, i);
	memmove(a + 1, a, (r->n - i) * sizeof(*a));
	r->n++;
	a[0].end = seq;
	a[1].seq = seq;
	if (a->flags & TCP_RS_LOST)
		r->nlost++;
	return true;
}

void tcp_rack_sent(struct tcp *tcp, struct tcb *tcb, uint32_t seq, uint32_t end)
{
	struct tcp_rack *r = &tcb->rack;
	if (!tcp_rate_on(tcp, tcb) || !SEQ_LT(seq, end))
		return;
	/* The stack's clock stands still for a poll, in which new data and
	 * a retransmission may both leave: a stamp 1 ns past the last one
	 * keeps the order they left in (RFC 8985 needs it; sequence numbers
	 * would put the retransmission first). */
	uint64_t now = tcp->now > r->last_ns ? tcp->now : r->last_ns + 1;
	r->last_ns = now;
	if (tcb->send.una == tcb->send.max) {
		/* Leaving idle: the records start anew. */
		r->head = r->n = r->nlost = 0;
		r->whole = true;
		r->fack = tcb->send.una; /* all before it was delivered */
		r->rtx_hi = tcb->send.una;
		tcp_rate_idle(tcb, now);
	}
	if (!r->whole)
		return;
	uint32_t rtx_end = SEQ_LT(end, tcb->send.max) ? end : tcb->send.max;
	if (SEQ_LT(seq, rtx_end)) {
		if (!split_at(tcb, seq) || !split_at(tcb, rtx_end)) {
			give_up(tcb);
			return;
		}
		if (SEQ_GT(rtx_end, r->rtx_hi))
			r->rtx_hi = rtx_end;
		for (uint32_t i = first_after(tcb, seq);
		     i < r->n && SEQ_LEQ(rec(tcb, i)->end, rtx_end); i++) {
			struct tcp_rack_seg *g = rec(tcb, i);
			if (g->flags & TCP_RS_LOST)
				r->nlost--;
			g->flags = (g->flags & ~TCP_RS_LOST) | TCP_RS_RTX;
			g->xmit_ns = now;
			tcp_rate_sent(tcb, g);
		}
	}
	if (SEQ_GT(end, tcb->send.max)) {
		if (!room(tcb, 1)) {
			give_up(tcb);
			return;
		}
		struct tcp_rack_seg *g = rec(tcb, r->n++);
		g->seq = SEQ_GT(seq, tcb->send.max) ? seq : tcb->send.max;
		g->end = end;
		g->xmit_ns = now;
		g->flags = 0;
		tcp_rate_sent(tcb, g);
	}
}

/* Linux tcp_skb_sent_after: t1/s1 left after t2/s2. */
/* A record is deemed lost: counted in flight's lost part, and in the
 * segments ever lost (Linux's tp->lost, whether RACK or a timeout marked
 * it). */
static void mark_lost(struct tcp_rack *r, struct tcp_rack_seg *g)
{
	g->flags |= TCP_RS_LOST;
	r->nlost++;
	r->lost++;
}

static bool sent_after(uint64_t t1, uint32_t s1, uint64_t t2, uint32_t s2)
{
	return t1 > t2 || (t1 == t2 && SEQ_GT(s1, s2));
}

/* RFC 8985 §6.2 step 2 (Linux tcp_rack_advance) for a segment delivered
 * by this ACK; step 3: one delivered below what was already delivered
 * without having been resent shows reordering. */
static void delivered(struct tcp *tcp, struct tcb *tcb, const struct tcp_rack_seg *g,
		      struct tcp_rack_ack *out)
{
	struct tcp_rack *r = &tcb->rack;
	tcp_rate_delivered(tcb, g);
	if (!(g->flags & TCP_RS_RTX)) {
		if (SEQ_LT(g->end, r->fack))
			r->reord = true;
		if (SEQ_LEQ(g->end, tcb->rec.recover))
			out->orig_acked = true;
	}
	if (SEQ_GT(g->end, r->fack))
		r->fack = g->end;
	uint64_t rtt_ns = tcp->now - g->xmit_ns;
	/* Linux tcp_rack_advance: a resent segment SACKed sooner than any
	 * round trip was the original's delivery. (Not RFC 8985's TSecr test:
	 * a receiver echoes the timestamp of in-order data only, so a SACKed
	 * retransmission echoes an older one.) */
	if ((g->flags & TCP_RS_RTX) && rtt_ns < (uint64_t)tcb->rtt.min_us * CLK_NS_PER_US)
		return;
	out->advanced = true;
	r->rtt_us = (uint32_t)(rtt_ns / CLK_NS_PER_US);
	if (sent_after(g->xmit_ns, g->end, r->xmit_ns, r->end_seq)) {
		r->xmit_ns = g->xmit_ns;
		r->end_seq = g->end;
	}
}

/* Linux tcp_rack_reo_wnd: until reordering is seen, none once recovery
 * runs or DupThresh segments are SACKed; then min_rtt/4 per step, at most
 * SRTT. */
static uint64_t reo_wnd_ns(const struct tcb *tcb)
{
	const struct tcp_rack *r = &tcb->rack;
	uint32_t mss = tcb->mss ? tcb->mss : TCP_MSS_DEFAULT;
	if (!r->reord && (tcb->rec.mode != TCP_SB_OPEN || tcb->sb.sacked >= 3u * mss))
		return 0;
	uint64_t w = (uint64_t)(tcb->rtt.min_us / 4) * (r->reo_steps ? r->reo_steps : 1u);
	uint64_t srtt = tcb->rtt.srtt_us8 >> 3;
	return (w < srtt ? w : srtt) * CLK_NS_PER_US;
}

/* RFC 8985 §6.2 step 5 (Linux tcp_rack_detect_loss). */
void tcp_rack_detect(struct tcp *tcp, struct tcb *tcb)
{
	struct tcp_rack *r = &tcb->rack;
	if (!tcp_rack_on(tcb) || !r->xmit_ns)
		return;
	int64_t wait = (int64_t)r->rtt_us * (int64_t)CLK_NS_PER_US + (int64_t)reo_wnd_ns(tcb);
	int64_t timeout = 0;
	for (uint32_t i = 0; i < r->n; i++) {
		struct tcp_rack_seg *g = rec(tcb, i);
		if (!sent_after(r->xmit_ns, r->end_seq, g->xmit_ns, g->end)) {
			/* From rtx_hi on the records were sent once, in sequence
			 * order, so none after this one left before RACK.xmit_ts
			 * either: stop, as Linux's walk of its send-time ordered
			 * list does. Scanning the whole flight on every ACK cost
			 * a fifth of a bulk sender's time. */
			if (SEQ_GEQ(g->seq, r->rtx_hi))
				break;
			continue;
		}
		if (g->flags & (TCP_RS_SACKED | TCP_RS_LOST))
			continue;
		int64_t remaining = wait - (int64_t)(tcp->now - g->xmit_ns);
		if (remaining <= 0) {
			mark_lost(r, g);
			tcp->stats.rack_lost++;
		} else if (remaining > timeout) {
			timeout = remaining;
		}
	}
	/* §6.3: those not old enough yet are looked at again when they are,
	 * as Linux ≥ 6.7's tcp_rack_mark_lost: the wait in µs (rounded up
	 * here, whole µs there) plus TCP_TIMEOUT_MIN_US, in jiffies rounded
	 * up. */
	if (timeout)
		tcp_timer_set_us(tcp, tcb, TCP_T_REO,
				 ((uint64_t)timeout + CLK_NS_PER_US - 1) / CLK_NS_PER_US +
				     TCP_TIMEOUT_MIN_US);
	else
		tcp_timer_clear(tcp, tcb, TCP_T_REO);
}

void tcp_rack_ack(struct tcp *tcp, struct tcb *tcb, const struct tcp_repr *h,
		  const struct tcp_sb_res *res, struct tcp_rack_ack *out)
{
	struct tcp_rack *r = &tcb->rack;
	memset(out, 0, sizeof(*out));
	if (!r->whole)
		goto trimmed;
	/* RFC 8985 §6.2 step 4: a D-SACK says a retransmission was spurious;
	 * widen the window a step, at most once a round trip (Linux
	 * tcp_rack_update_reo_wnd), and keep it for 16 recoveries. The
	 * original arrived after all: that is reordering seen too. */
	if (res->dsack) {
		r->reord = true;
		uint64_t srtt_ns = (uint64_t)(tcb->rtt.srtt_us8 >> 3) * CLK_NS_PER_US;
		if (!r->dsack_ns || tcp->now - r->dsack_ns >= srtt_ns) {
			if (r->reo_steps < 0xff)
				r->reo_steps = (uint8_t)(r->reo_steps ? r->reo_steps + 1 : 2);
			r->dsack_ns = tcp->now;
		}
		r->reo_persist = 16;
	}
	/* Cumulatively acknowledged: delivered unless SACKed before. */
	uint32_t k = 0;
	while (k < r->n && SEQ_LEQ(rec(tcb, k)->end, tcb->send.una)) {
		struct tcp_rack_seg *g = rec(tcb, k);
		if (!(g->flags & TCP_RS_SACKED))
			delivered(tcp, tcb, g, out);
		else if (g->flags & TCP_RS_RTX)
			tcp_rate_rtx_acked(tcb);
		if (g->flags & TCP_RS_LOST)
			r->nlost--;
		k++;
	}
	r->head += k;
	r->n -= k;
	/* kept within the flight: one left 2^31 behind would compare as ahead of every record */
	if (SEQ_LT(r->rtx_hi, tcb->send.una))
		r->rtx_hi = tcb->send.una;
	if (r->n && SEQ_LT(rec(tcb, 0)->seq, tcb->send.una))
		rec(tcb, 0)->seq = tcb->send.una;
	/* Newly SACKed: records the scoreboard now holds whole. */
	unsigned nb = h->nsack > TCP_SACK_MAX ? TCP_SACK_MAX : h->nsack;
	for (unsigned b = 0; b < nb; b++) {
		for (uint32_t i = first_after(tcb, h->sack[b].l);
		     i < r->n && SEQ_LT(rec(tcb, i)->seq, h->sack[b].r); i++) {
			struct tcp_rack_seg *g = rec(tcb, i);
			if (g->flags & TCP_RS_SACKED)
				continue;
			if (tcp_sb_sacked_in(tcb, g->seq, g->end) != g->end - g->seq)
				continue;
			g->flags |= TCP_RS_SACKED;
			if (g->flags & TCP_RS_LOST) {
				g->flags &= ~TCP_RS_LOST;
				r->nlost--;
			}
			delivered(tcp, tcb, g, out);
		}
	}
	if (res->reneged) {
		/* The board was forgotten: so is what it said. */
		for (uint32_t i = 0; i < r->n; i++)
			rec(tcb, i)->flags &= ~TCP_RS_SACKED;
	}
	/* Step 5 on every ACK: time passes for those not delivered. */
	tcp_rack_detect(tcp, tcb);
trimmed:
	if (tcb->send.una == tcb->send.max) {
		/* All acknowledged: the connection may idle without the array. */
		free(r->s);
		r->s = NULL;
		r->head = r->n = r->cap = r->nlost = 0;
		tcp_timer_clear(tcp, tcb, TCP_T_REO);
	}
}

void tcp_rack_mark_all_lost(struct tcp *tcp, struct tcb *tcb)
{
	(void)tcp;
	struct tcp_rack *r = &tcb->rack;
	if (!tcp_rack_on(tcb))
		return;
	for (uint32_t i = 0; i < r->n; i++) {
		struct tcp_rack_seg *g = rec(tcb, i);
		/* The board may have been forgotten (a third timeout). */
		if ((g->flags & TCP_RS_SACKED) &&
		    tcp_sb_sacked_in(tcb, g->seq, g->end) != g->end - g->seq)
			g->flags &= ~TCP_RS_SACKED;
		if (!(g->flags & (TCP_RS_SACKED | TCP_RS_LOST)))
			mark_lost(r, g);
	}
	tcp_timer_clear(tcp, tcb, TCP_T_REO);
}

void tcp_rack_unmark(struct tcb *tcb)
{
	struct tcp_rack *r = &tcb->rack;
	for (uint32_t i = 0; i < r->n; i++)
		rec(tcb, i)->flags &= ~TCP_RS_LOST;
	r->nlost = 0;
}

void tcp_rack_recovery_end(struct tcb *tcb)
{
	struct tcp_rack *r = &tcb->rack;
	/* Linux reo_wnd_persist: a window widened by D-SACKs shrinks back
	 * after 16 recoveries without one. */
	if (r->reo_persist && --r->reo_persist == 0)
		r->reo_steps = 1;
}

uint32_t tcp_rack_lost_bytes(struct tcb *tcb)
{
	struct tcp_rack *r = &tcb->rack;
	uint32_t sum = 0;
	if (!r->nlost)
		return 0;
	for (uint32_t i = 0; i < r->n; i++) {
		struct tcp_rack_seg *g = rec(tcb, i);
		if (g->flags & TCP_RS_LOST)
			sum += (g->end - g->seq) - tcp_sb_sacked_in(tcb, g->seq, g->end);
	}
	return sum;
}

bool tcp_rack_next_lost(struct tcb *tcb, uint32_t *s, uint32_t *e)
{
	struct tcp_rack *r = &tcb->rack;
	if (!r->nlost || !tcp_rack_on(tcb))
		return false;
	for (uint32_t i = 0; i < r->n; i++) {
		struct tcp_rack_seg *g = rec(tcb, i);
		if (!(g->flags & TCP_RS_LOST))
			continue;
		uint32_t hs, he;
		if (!tcp_sb_hole_from(tcb, g->seq, &hs, &he))
			return false;
		if (!SEQ_LT(hs, g->end))
			continue;
		*s = hs;
		*e = SEQ_LT(he, g->end) ? he : g->end;
		return true;
	}
	return false;
}

void tcp_rack_timeout(struct tcp *tcp, struct tcb *tcb)
{
	tcp_rack_detect(tcp, tcb);
	if (tcb->rack.nlost && tcp_rack_on(tcb)) {
		tcp_rec_rack_lost(tcp, tcb);
		tcp_output(tcp, tcb);
	}
}

#ifdef SKOPS_INVARIANTS
void tcp_rack_check(const struct tcb *tcb)
{
	const struct tcp_rack *r = &tcb->rack;
	TCP_INV(r->head + r->n <= r->cap);
	if (!r->whole || !tcp_rack_on(tcb) || tcb->send.una == tcb->send.max)
		return;
	/* Whole: the records tile [snd_una, snd_max) in order. */
	uint32_t at = tcb->send.una, lost = 0;
	const struct tcp_rack_seg *prev = NULL;
	for (uint32_t i = 0; i < r->n; i++) {
		const struct tcp_rack_seg *g = &r->s[r->head + i];
		TCP_INV(g->seq == at && SEQ_LT(g->seq, g->end));
		/* tcp_rack_detect's early stop relies on this order */
		if (SEQ_GEQ(g->seq, r->rtx_hi)) {
			TCP_INV(!(g->flags & TCP_RS_RTX));
			TCP_INV(!prev || sent_after(g->xmit_ns, g->end, prev->xmit_ns, prev->end));
			prev = g;
		}
		at = g->end;
		lost += (g->flags & TCP_RS_LOST) != 0;
	}
	TCP_INV(at == tcb->send.max);
	TCP_INV(lost == r->nlost);
}
#endif
