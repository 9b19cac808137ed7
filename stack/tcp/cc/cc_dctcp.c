/* cc_dctcp: DCTCP (RFC 8257) as Linux's tcp_dctcp: alpha, the estimate of
 * the fraction of bytes the network marked, updated once a window with gain
 * g = 1/2^dctcp_shift_g (4) from dctcp_alpha_on_init (1024, all marked);
 * the window cut by alpha/2 once per window of ECE (§3.3); the receiver's
 * ECE follows the CE mark of each segment, with an immediate ACK whenever
 * the mark changes (§3.2, Linux's dctcp_ece_ack_update). Reno grows the
 * window. A connection without negotiated ECN falls back to Reno as
 * "dctcp-reno", as Linux does. */
#include "cc.h"

#define DCTCP_MAX_ALPHA	    1024u /* alpha 1.0 */
#define DCTCP_SHIFT_G	    4u	  /* Linux's dctcp_shift_g: g = 1/16 */
#define DCTCP_ALPHA_ON_INIT DCTCP_MAX_ALPHA

struct dctcp {
	uint32_t alpha;	   /* in 1024ths */
	uint32_t next_seq; /* the observation window ends here (§3.3) */
	uint32_t prior_snd_una;
	uint32_t acked_bytes_total, acked_bytes_ecn;
	uint32_t loss_cwnd;
	uint8_t ce_state; /* the CE mark of the last data segment received */
};

_Static_assert(sizeof(struct dctcp) <= TCP_CC_PRIV_SIZE, "dctcp state too large");

static void dctcp_reset_window(const struct tcp_cc_view *v, struct dctcp *ca)
{
	ca->next_seq = v->snd_nxt;
	ca->acked_bytes_ecn = 0;
	ca->acked_bytes_total = 0;
}

static const struct tcp_cc_ops cc_dctcp_reno_ops = {
    .ssthresh = cc_reno_ssthresh,
    .cong_avoid = cc_reno_cong_avoid,
    .undo_cwnd = cc_reno_undo_cwnd,
    .name = "dctcp-reno",
};

static void dctcp_init(struct tcp_cc_view *v)
{
	if (!v->ecn) {
		/* RFC 8257 §3: DCTCP needs ECN at both ends; without it the
		 * connection is plain Reno, and sends no ECT (ECN is off). */
		v->fallback = &cc_dctcp_reno_ops;
		return;
	}
	struct dctcp *ca = CC_PRIV(v, struct dctcp);
	ca->alpha = DCTCP_ALPHA_ON_INIT;
	ca->prior_snd_una = v->snd_una;
	ca->loss_cwnd = 0;
	ca->ce_state = 0;
	dctcp_reset_window(v, ca);
}

/* §3.3: cwnd × (1 − alpha/2). */
static uint32_t dctcp_ssthresh(struct tcp_cc_view *v)
{
	struct dctcp *ca = CC_PRIV(v, struct dctcp);
	ca->loss_cwnd = v->cwnd;
	uint32_t cut = (uint32_t)(((uint64_t)v->cwnd * ca->alpha) >> 11);
	uint32_t s = v->cwnd - cut;
	return s > 2 ? s : 2;
}

/* §3.3: the fraction of bytes ACKed with ECE, folded into alpha once a
 * window: alpha = (1 − g) alpha + g F. */
static void dctcp_in_ack_event(struct tcp_cc_view *v, uint32_t ack, uint32_t flags)
{
	struct dctcp *ca = CC_PRIV(v, struct dctcp);
	uint32_t acked = ack - ca->prior_snd_una;
	/* Linux: a duplicate ACK counts as an MSS of data (it reports a
	 * segment that arrived); a pure window update counts nothing. */
	if (acked == 0 && !(flags & CC_ACK_WIN_UPDATE))
		acked = v->mss;
	if (acked) {
		ca->acked_bytes_total += acked;
		ca->prior_snd_una = ack;
		if (flags & CC_ACK_ECE)
			ca->acked_bytes_ecn += acked;
	}
	if (CC_SEQ_LT(ack, ca->next_seq))
		return;
	uint32_t alpha = ca->alpha;
	uint32_t dec = alpha >> DCTCP_SHIFT_G;
	alpha -= dec ? dec : alpha; /* Linux's min_not_zero: decays to 0 */
	if (ca->acked_bytes_ecn) {
		uint64_t f = (uint64_t)ca->acked_bytes_ecn << (10 - DCTCP_SHIFT_G);
		uint32_t tot = ca->acked_bytes_total ? ca->acked_bytes_total : 1;
		alpha += (uint32_t)(f / tot);
		if (alpha > DCTCP_MAX_ALPHA)
			alpha = DCTCP_MAX_ALPHA;
	}
	ca->alpha = alpha;
	dctcp_reset_window(v, ca);
}

/* A loss halves the window as Reno (RFC 8257 §3.4). */
static void dctcp_react_to_loss(struct tcp_cc_view *v)
{
	struct dctcp *ca = CC_PRIV(v, struct dctcp);
	ca->loss_cwnd = v->cwnd;
	uint32_t h = v->cwnd >> 1;
	v->ssthresh = h > 2 ? h : 2;
}

static void dctcp_set_state(struct tcp_cc_view *v, uint8_t st)
{
	if (st == TCP_CA_RECOVERY && st != v->ca_state)
		dctcp_react_to_loss(v);
}

/* RFC 8257 §3.2: ECE on an ACK says whether the segments it acknowledges
 * were CE. When the mark changes while an ACK is being delayed, that ACK
 * (for what came before, with the old mark) goes out first; the new mark
 * is then reported at once. Called before the segment's data is taken, so
 * rcv_nxt is still where the delayed ACK stands. */
static void dctcp_ece_update(struct tcp_cc_view *v, uint8_t ce)
{
	struct dctcp *ca = CC_PRIV(v, struct dctcp);
	if (ca->ce_state != ce) {
		if (v->delack) {
			v->flush_ack = true;
			v->flush_ece = ca->ce_state != 0;
		}
		v->ack_now = true;
	}
	ca->ce_state = ce;
	v->ece = ce != 0;
}

static void dctcp_cwnd_event(struct tcp_cc_view *v, enum tcp_ca_event ev)
{
	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
		dctcp_ece_update(v, 1);
		break;
	case CA_EVENT_ECN_NO_CE:
		dctcp_ece_update(v, 0);
		break;
	case CA_EVENT_LOSS:
		/* raised only by an RTO that reduces (tcp_cc_rto), as Linux's
		 * tcp_enter_loss: a backed-off one keeps the first's ssthresh */
		dctcp_react_to_loss(v);
		break;
	default:
		break;
	}
}

static uint32_t dctcp_undo_cwnd(struct tcp_cc_view *v)
{
	struct dctcp *ca = CC_PRIV(v, struct dctcp);
	return v->cwnd > ca->loss_cwnd ? v->cwnd : ca->loss_cwnd;
}

const struct tcp_cc_ops cc_dctcp_ops = {
    .init = dctcp_init,
    .ssthresh = dctcp_ssthresh,
    .cong_avoid = cc_reno_cong_avoid,
    .set_state = dctcp_set_state,
    .cwnd_event = dctcp_cwnd_event,
    .in_ack_event = dctcp_in_ack_event,
    .undo_cwnd = dctcp_undo_cwnd,
    .flags = TCP_CC_NEEDS_ECN,
    .name = "dctcp",
};

int32_t cc_dctcp_alpha_of(const struct tcp_cc_ops *ops, const void *priv)
{
	if (ops != &cc_dctcp_ops)
		return -1;
	const struct dctcp *ca = priv;
	return (int32_t)ca->alpha;
}
