/* cc_bbr: BBR v1 (Cardwell et al., "BBR: Congestion-Based Congestion
 * Control", ACM Queue 2016; draft-cardwell-iccrg-bbr-congestion-control-00)
 * as Linux's tcp_bbr.c runs it. BBR ignores loss as a signal (save for
 * packet conservation in the first round of a recovery) and models the
 * path instead: the bottleneck bandwidth, the windowed maximum of the
 * delivery-rate samples of tcp_rate.c over 10 round trips, and the
 * propagation delay, the minimum RTT over 10 s. It paces at a gain times
 * that bandwidth and caps what is in flight at a gain times their product
 * (the BDP):
 *
 *   STARTUP   gain 2/ln 2 both, until the bandwidth grew by less than 25 %
 *             in 3 rounds that were not application-limited (full pipe);
 *   DRAIN     pacing gain ln 2/2 until what is in flight is one BDP;
 *   PROBE_BW  cwnd gain 2, pacing gains cycling 5/4, 3/4, then 1 for six
 *             phases of a min_rtt each, starting at a random phase;
 *   PROBE_RTT when min_rtt was not refreshed for 10 s: at most 4 segments
 *             in flight for 200 ms and a round trip, so that queues drain
 *             and the minimum is measured again.
 *
 * A token-bucket policer drops what exceeds its rate however short the
 * queue: when intervals of heavy loss deliver at one steady rate, BBR uses
 * that long-term rate at gain 1 for a while instead (lt_*, below).
 *
 * Rates are kept in bytes a µs << BW_SCALE (Linux keeps segments; this
 * stack's rate samples are bytes). */
#include "cc.h"

#define BW_SCALE       16 /* bandwidth in bytes/µs << BW_SCALE */
#define BW_UNIT	       (1ull << BW_SCALE)
#define BBR_SCALE      8 /* gains in 256ths */
#define BBR_UNIT       (1u << BBR_SCALE)
#define HIGH_GAIN      (BBR_UNIT * 2885 / 1000 + 1) /* 2/ln 2: doubles a round trip */
#define DRAIN_GAIN     (BBR_UNIT * 1000 / 2885)	    /* its inverse: drains STARTUP's queue */
#define CWND_GAIN      (BBR_UNIT * 2)
#define CYCLE_LEN      8
#define BW_WIN_ROUNDS  10		  /* the max filter's window, in round trips */
#define MIN_RTT_WIN_MS 10000u		  /* min_rtt's window */
#define PROBE_RTT_MS   200u		  /* time in PROBE_RTT at the floor */
#define CWND_MIN       4u		  /* segments: the floor, and PROBE_RTT's cap */
#define FULL_BW_THRESH (BBR_UNIT * 5 / 4) /* growth that counts as growth */
#define FULL_BW_ROUNDS 3
#define PACING_MARGIN  1u /* percent below the estimate, to drain queues */
#define MIN_RTT_NONE   UINT32_MAX
/* ACK aggregation (Linux's bbr_extra_acked_*): gain 1, the max over 5 to
 * 10 rounds, at most 100 ms of the estimate; an epoch that counted 2^20
 * segments starts over. */
#define EXTRA_ACKED_GAIN     BBR_UNIT
#define EXTRA_ACKED_WIN_RTTS 5u
#define EXTRA_ACKED_MAX_US   100000u
#define ACK_EPOCH_MAX	     0xFFFFFu
/* The long-term model (Linux's bbr_lt_*): an interval of 4 to 16 rounds,
 * not application-limited, that ends in a loss and lost at least 50/256
 * (20 %) of what it delivered measures a rate; two in a row within 1/8
 * (or 4 kbit/s) of each other are the policer's, used for 48 rounds. */
#define LT_INTVL_MIN_RTTS 4u
#define LT_LOSS_THRESH	  50u
#define LT_BW_RATIO	  (BBR_UNIT / 8)
#define LT_BW_DIFF	  (4000u / 8) /* bytes a second */
#define LT_BW_MAX_RTTS	  48u
#define LT_KIB_SHIFT	  10 /* lt_last_delivered in KiB: no wrap in an interval */
/* Round counts are 8 bits (the state fits cc_priv): a sample's age stops
 * at AGE_MAX, past the window, so that it never wraps back into it. */
#define AGE_MAX 64u

enum bbr_mode { BBR_STARTUP, BBR_DRAIN, BBR_PROBE_BW, BBR_PROBE_RTT };

static const uint16_t pacing_gain[CYCLE_LEN] = {
    BBR_UNIT * 5 / 4, BBR_UNIT * 3 / 4, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT,
};

/* The bandwidth filter is a windowed maximum kept as the best three
 * samples of the window, each younger than the one before (Kathleen
 * Nichols' algorithm, as Linux's lib/minmax.c): the best expires when the
 * window passes it and the next takes over. Its times are round trips. */
struct bbr {
	uint32_t bw[3];		     /* the three samples, best first */
	uint8_t bw_t[3];	     /* and the rounds they were taken in */
	uint8_t rtt_cnt;	     /* round trips counted, mod 256 */
	uint32_t min_rtt_us;	     /* MIN_RTT_NONE before the first sample */
	uint32_t min_rtt_stamp_ms;   /* when it was taken (ms of the stack clock) */
	uint32_t probe_rtt_done_ms;  /* PROBE_RTT ends after it; 0: not timing */
	uint32_t next_rtt_delivered; /* the round ends when delivered passes it (low bits) */
	uint32_t cycle_stamp_us;     /* when the current gain phase began */
	uint32_t prior_cwnd;	     /* before recovery or PROBE_RTT */
	uint32_t full_bw;	     /* bandwidth when growth was last seen */
	uint32_t ack_epoch_us;	     /* when the ACK-aggregation epoch began */
	uint16_t extra_acked[2];     /* segments beyond the estimate, two windows */
	uint32_t lt_bw;		     /* the long-term rate; 0: none measured */
	uint32_t lt_last_delivered;  /* at the interval's start: KiB delivered */
	uint32_t lt_last_lost;	     /* segments lost */
	uint32_t lt_last_stamp_ms;   /* when delivered last grew */
	/* bit-fields: the state fits the 80 bytes of cc_priv */
	uint32_t ack_epoch_acked : 20; /* segments delivered in the epoch */
	uint32_t extra_acked_win_rtts : 5, extra_acked_win_idx : 1;
	uint32_t lt_rtt_cnt : 6, lt_is_sampling : 1, lt_use_bw : 1;
	uint32_t mode : 2, cycle_idx : 3;
	uint32_t pacing_gain : 10, cwnd_gain : 10;
	uint32_t prev_ca_state : 3, full_bw_cnt : 2;
	uint32_t packet_conservation : 1, round_start : 1, idle_restart : 1;
	uint32_t probe_rtt_round_done : 1, full_bw_reached : 1, has_seen_rtt : 1;
};
_Static_assert(sizeof(struct bbr) <= TCP_CC_PRIV_SIZE, "bbr state exceeds cc_priv");

static const struct bbr *cpriv(const struct tcp_cc_view *v)
{
	const void *priv = v->priv;
	return priv;
}

static uint32_t ms_now(const struct tcp_cc_view *v)
{
	return (uint32_t)(v->now_ns / CC_NS_PER_MS);
}

static uint32_t us_now(const struct tcp_cc_view *v)
{
	return (uint32_t)(v->now_ns / CC_NS_PER_US);
}

static uint32_t mss_of(const struct tcp_cc_view *v)
{
	return v->mss ? v->mss : CC_MSS_DEFAULT;
}

static uint32_t segs_of(const struct tcp_cc_view *v, uint64_t bytes)
{
	return (uint32_t)((bytes + mss_of(v) - 1) / mss_of(v));
}

static uint32_t max_bw(const struct bbr *b)
{
	return b->bw[0];
}

/* The bandwidth the model uses (Linux's bbr_bw): the policer's when one
 * was found, else the filter's. */
static uint32_t model_bw(const struct bbr *b)
{
	return b->lt_use_bw ? b->lt_bw : max_bw(b);
}

static void bw_set(struct bbr *b, int i, uint8_t t, uint32_t v)
{
	b->bw_t[i] = t;
	b->bw[i] = v;
}

static void bw_move(struct bbr *b, int to, int from)
{
	bw_set(b, to, b->bw_t[from], b->bw[from]);
}

static uint8_t bw_age(const struct bbr *b, int i)
{
	return (uint8_t)(b->rtt_cnt - b->bw_t[i]);
}

/* A new round: ages past AGE_MAX stay there. */
static void bw_round(struct bbr *b)
{
	b->rtt_cnt++;
	for (int i = 0; i < 3; i++)
		if (bw_age(b, i) > AGE_MAX)
			b->bw_t[i] = (uint8_t)(b->rtt_cnt - AGE_MAX);
}

/* A sample of this round. */
static void bw_update(struct bbr *b, uint32_t v)
{
	uint8_t t = b->rtt_cnt;
	if (v >= b->bw[0] || bw_age(b, 2) > BW_WIN_ROUNDS) {
		/* a new best, or nothing in the window is left */
		for (int i = 0; i < 3; i++)
			bw_set(b, i, t, v);
		return;
	}
	if (v >= b->bw[1]) {
		bw_set(b, 1, t, v);
		bw_set(b, 2, t, v);
	} else if (v >= b->bw[2]) {
		bw_set(b, 2, t, v);
	}
	uint8_t age = bw_age(b, 0);
	if (age > BW_WIN_ROUNDS) {
		/* the best left the window: the others move up */
		bw_move(b, 0, 1);
		bw_move(b, 1, 2);
		bw_set(b, 2, t, v);
		if (bw_age(b, 0) > BW_WIN_ROUNDS) {
			bw_move(b, 0, 1);
			bw_move(b, 1, 2);
		}
	} else if (b->bw_t[1] == b->bw_t[0] && age > BW_WIN_ROUNDS / 4) {
		/* a quarter of the window without a second best: take one */
		bw_set(b, 1, t, v);
		bw_set(b, 2, t, v);
	} else if (b->bw_t[2] == b->bw_t[1] && age > BW_WIN_ROUNDS / 2) {
		bw_set(b, 2, t, v);
	}
}

/* gain × bandwidth as bytes a second, less the margin. */
static uint64_t pacing_rate_of(uint64_t bw, uint32_t gain)
{
	uint64_t r = bw * gain >> BBR_SCALE;
	r = r * 1000000u >> BW_SCALE;
	return r * (100u - PACING_MARGIN) / 100u;
}

/* Before any bandwidth sample: the initial window over the RTT (1 ms
 * without one), at the high gain. */
static void init_pacing_rate(struct tcp_cc_view *v)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	uint32_t rtt_us = 1000;
	if (v->srtt_us8) {
		rtt_us = v->srtt_us8 >> 3 ? v->srtt_us8 >> 3 : 1;
		b->has_seen_rtt = true;
	}
	uint64_t bw = (uint64_t)v->cwnd * mss_of(v) * BW_UNIT / rtt_us;
	v->pacing_rate = pacing_rate_of(bw, HIGH_GAIN);
}

static void set_pacing_rate(struct tcp_cc_view *v, uint32_t bw, uint32_t gain)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	uint64_t rate = pacing_rate_of(bw, gain);
	if (!b->has_seen_rtt && v->srtt_us8)
		init_pacing_rate(v);
	/* Until the pipe is full the rate only grows: an early low sample
	 * must not throttle STARTUP. */
	if (b->full_bw_reached || rate > v->pacing_rate)
		v->pacing_rate = rate;
}

/* Segments to send per pacing release: Linux sizes TSO bursts at about a
 * millisecond of the rate (sk_pacing_shift 10), at least two segments
 * above 1.2 Mbit/s, one below, at most 127. */
static uint32_t tso_segs_goal(const struct tcp_cc_view *v)
{
	uint64_t rate = v->pacing_rate == UINT64_MAX ? 0 : v->pacing_rate;
	uint32_t min = rate < (1200000u / 8) ? 1u : 2u;
	uint64_t segs = (rate >> 10) / mss_of(v);
	return segs < min ? min : segs > 127 ? 127u : (uint32_t)segs;
}

/* gain × BDP in segments; the initial window without an RTT. */
static uint32_t bdp(const struct tcp_cc_view *v, uint32_t bw, uint32_t gain)
{
	const struct bbr *b = cpriv(v);
	if (b->min_rtt_us == MIN_RTT_NONE)
		return v->initial_cwnd ? v->initial_cwnd : CC_INIT_CWND;
	uint64_t w = (uint64_t)bw * b->min_rtt_us;
	uint64_t bytes = ((w * gain >> BBR_SCALE) + BW_UNIT - 1) >> BW_SCALE;
	return segs_of(v, bytes);
}

/* Room for the sender's and the receiver's batching (TSO bursts, delayed
 * ACKs), even, and two more in the 5/4 phase so that it can probe. */
static uint32_t quantization_budget(const struct tcp_cc_view *v, uint32_t cwnd)
{
	const struct bbr *b = cpriv(v);
	cwnd += 3 * tso_segs_goal(v);
	cwnd = (cwnd + 1) & ~1u;
	if (b->mode == BBR_PROBE_BW && b->cycle_idx == 0)
		cwnd += 2;
	return cwnd;
}

static uint32_t inflight_target(const struct tcp_cc_view *v, uint32_t bw, uint32_t gain)
{
	return quantization_budget(v, bdp(v, bw, gain));
}

static void save_cwnd(struct tcp_cc_view *v)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	if (b->prev_ca_state < TCP_CA_RECOVERY && b->mode != BBR_PROBE_RTT)
		b->prior_cwnd = v->cwnd;
	else if (v->cwnd > b->prior_cwnd)
		b->prior_cwnd = v->cwnd; /* a reduction already ran: keep the larger */
}

static void advance_cycle(struct tcp_cc_view *v)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	b->cycle_idx = (uint8_t)((b->cycle_idx + 1) % CYCLE_LEN);
	b->cycle_stamp_us = us_now(v);
}

static void enter_probe_bw(struct tcp_cc_view *v)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	b->mode = BBR_PROBE_BW;
	/* Any phase but 3/4 first (so as not to start by draining), chosen
	 * per connection so that flows sharing a bottleneck probe apart; from
	 * the ISN, which the stack's seed makes reproducible. */
	b->cycle_idx = (uint8_t)(CYCLE_LEN - 1 - (v->iss % (CYCLE_LEN - 1)));
	advance_cycle(v);
}

static void enter_startup(struct tcp_cc_view *v)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	b->mode = BBR_STARTUP;
}

static void reset_mode(struct tcp_cc_view *v)
{
	if (cpriv(v)->full_bw_reached)
		enter_probe_bw(v);
	else
		enter_startup(v);
}

static uint32_t inflight_segs(struct tcp_cc_view *v)
{
	return segs_of(v, v->inflight);
}

static void lt_reset_interval(struct tcp_cc_view *v)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	b->lt_last_stamp_ms = (uint32_t)(v->delivered_ns / CC_NS_PER_MS);
	b->lt_last_delivered = (uint32_t)(v->delivered >> LT_KIB_SHIFT);
	b->lt_last_lost = v->lost;
	b->lt_rtt_cnt = 0;
}

static void lt_reset(struct tcp_cc_view *v)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	b->lt_bw = 0;
	b->lt_use_bw = false;
	b->lt_is_sampling = false;
	lt_reset_interval(v);
}

/* An interval measured bw: a policer if the last one measured the same. */
static void lt_interval_done(struct tcp_cc_view *v, uint32_t bw)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	if (b->lt_bw) {
		uint32_t diff = bw > b->lt_bw ? bw - b->lt_bw : b->lt_bw - bw;
		if ((uint64_t)diff * BBR_UNIT <= (uint64_t)LT_BW_RATIO * b->lt_bw ||
		    pacing_rate_of(diff, BBR_UNIT) <= LT_BW_DIFF) {
			b->lt_bw = (uint32_t)(((uint64_t)bw + b->lt_bw) >> 1);
			b->lt_use_bw = true;
			b->pacing_gain = BBR_UNIT; /* try to avoid drops */
			b->lt_rtt_cnt = 0;
			return;
		}
	}
	b->lt_bw = bw;
	lt_reset_interval(v);
}

/* Linux's bbr_lt_bw_sampling, on each rate sample after the round count. */
static void lt_sample(struct tcp_cc_view *v, const struct tcp_rate_sample *rs)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	if (b->lt_use_bw) {
		/* after 48 rounds at the policer's rate, probe again */
		if (b->mode == BBR_PROBE_BW && b->round_start &&
		    ++b->lt_rtt_cnt >= LT_BW_MAX_RTTS) {
			lt_reset(v);
			enter_probe_bw(v);
		}
		return;
	}
	/* The first loss says the policer's tokens are spent: intervals
	 * that begin earlier measure its burst, not its rate. */
	if (!b->lt_is_sampling) {
		if (!rs->losses)
			return;
		lt_reset_interval(v);
		b->lt_is_sampling = true;
	}
	if (rs->is_app_limited) {
		lt_reset(v); /* it would measure the application */
		return;
	}
	if (b->round_start)
		b->lt_rtt_cnt++;
	if (b->lt_rtt_cnt < LT_INTVL_MIN_RTTS)
		return;
	if (b->lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS) {
		lt_reset(v);
		return;
	}
	if (!rs->losses)
		return; /* the interval ends at a loss: the tokens are spent */
	uint64_t lost = (uint64_t)(v->lost - b->lt_last_lost) * mss_of(v);
	uint64_t delivered =
	    (uint64_t)((uint32_t)(v->delivered >> LT_KIB_SHIFT) - b->lt_last_delivered)
	    << LT_KIB_SHIFT;
	if (!delivered || (lost << BBR_SCALE) < LT_LOSS_THRESH * delivered)
		return;
	uint32_t t = (uint32_t)(v->delivered_ns / CC_NS_PER_MS) - b->lt_last_stamp_ms;
	if ((int32_t)t < 1)
		return; /* under a millisecond: wait */
	if (t >= UINT32_MAX / 1000u) {
		lt_reset(v);
		return;
	}
	uint64_t bw = delivered * BW_UNIT / ((uint64_t)t * 1000u);
	lt_interval_done(v, bw < UINT32_MAX ? (uint32_t)bw : UINT32_MAX);
}

static void update_bw(struct tcp_cc_view *v, const struct tcp_rate_sample *rs)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	b->round_start = false;
	if (rs->delivered < 0 || rs->interval_us <= 0)
		return;
	/* A round trip ends when a segment sent after the last one's end is
	 * delivered. */
	if ((int32_t)((uint32_t)rs->prior_delivered - b->next_rtt_delivered) >= 0) {
		b->next_rtt_delivered = (uint32_t)v->delivered;
		bw_round(b);
		b->round_start = true;
		b->packet_conservation = false;
	}
	lt_sample(v, rs);
	uint64_t bw = (uint64_t)rs->delivered * BW_UNIT / (uint64_t)rs->interval_us;
	if (bw > UINT32_MAX)
		bw = UINT32_MAX;
	/* An application-limited sample shows less than the path can do,
	 * unless it beats the estimate anyway. */
	if (!rs->is_app_limited || bw >= max_bw(b))
		bw_update(b, (uint32_t)bw);
}

/* Whether the stack paces this connection at v->pacing_rate: with SACK
 * (its TCP_CC_NEEDS_PACING counts only then, tcp_pace_on). Without, the window must carry
 * the pacing gain: sending at the delivery rate, an ACK-clocked sender
 * drains a queue only by lowering what it has in flight, so DRAIN would
 * never end and PROBE_BW's 2 BDP would keep a BDP queued. */
static bool paced(const struct tcp_cc_view *v)
{
	return v->sack;
}

/* ACK aggregation (Linux's bbr_update_ack_aggregation): receivers that
 * delay or coalesce ACKs, and links that batch, deliver in bursts after
 * silences in which the sender had to keep sending; the window must hold
 * what a burst brings beyond the estimate's rate, or the line idles. An
 * epoch runs while deliveries stay ahead of the estimate; what they are
 * ahead by, at most a window, is kept as a max over 5 to 10 rounds. */
static void update_ack_aggregation(struct tcp_cc_view *v, const struct tcp_rate_sample *rs)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	if (!rs->acked_sacked || rs->delivered < 0 || rs->interval_us <= 0)
		return;
	if (b->round_start) {
		if (b->extra_acked_win_rtts < 31)
			b->extra_acked_win_rtts++;
		if (b->extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS) {
			b->extra_acked_win_rtts = 0;
			b->extra_acked_win_idx ^= 1u;
			b->extra_acked[b->extra_acked_win_idx] = 0;
		}
	}
	uint32_t now = us_now(v), acked = segs_of(v, rs->acked_sacked);
	uint64_t expected =
	    ((uint64_t)model_bw(b) * (now - b->ack_epoch_us) >> BW_SCALE) / mss_of(v);
	if (b->ack_epoch_acked <= expected || b->ack_epoch_acked + acked > ACK_EPOCH_MAX) {
		b->ack_epoch_acked = 0; /* slower than the estimate: a new epoch */
		b->ack_epoch_us = now;
		expected = 0;
	}
	uint32_t sum = b->ack_epoch_acked + acked;
	b->ack_epoch_acked = sum < ACK_EPOCH_MAX ? sum : ACK_EPOCH_MAX;
	uint64_t extra = b->ack_epoch_acked - expected;
	if (extra > v->cwnd)
		extra = v->cwnd;
	if (extra > UINT16_MAX)
		extra = UINT16_MAX;
	if (extra > b->extra_acked[b->extra_acked_win_idx])
		b->extra_acked[b->extra_acked_win_idx] = (uint16_t)extra;
}

/* Segments the window holds for aggregation once the pipe is full: the
 * larger window's excess at gain 1, at most 100 ms of the estimate. */
static uint32_t ack_aggregation_cwnd(const struct tcp_cc_view *v)
{
	const struct bbr *b = cpriv(v);
	/* Unpaced (no SACK) the records see only cumulative ACKs, and the
	 * one that fills a hole delivers a round at once: no aggregation of
	 * the path's (Linux counts each duplicate ACK as delivered). Added to
	 * an unpaced window it overflowed the queue in the simulation. */
	if (!b->full_bw_reached || !paced(v))
		return 0;
	uint32_t extra =
	    b->extra_acked[0] > b->extra_acked[1] ? b->extra_acked[0] : b->extra_acked[1];
	uint64_t cap = ((uint64_t)model_bw(b) * EXTRA_ACKED_MAX_US >> BW_SCALE) / mss_of(v);
	uint64_t w = (uint64_t)EXTRA_ACKED_GAIN * extra >> BBR_SCALE;
	return (uint32_t)(w < cap ? w : cap);
}

static bool next_cycle_phase(struct tcp_cc_view *v, const struct tcp_rate_sample *rs)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	bool full_length = us_now(v) - b->cycle_stamp_us > b->min_rtt_us;
	if (b->pacing_gain == BBR_UNIT)
		return full_length;
	uint32_t inflight = segs_of(v, rs->prior_in_flight);
	/* Probing up lasts until the queue it builds shows (inflight at 5/4
	 * BDP) or loss says there is no room; draining ends once inflight is
	 * down to a BDP, or after a min_rtt at the latest. */
	if (b->pacing_gain > BBR_UNIT)
		return full_length &&
		       (rs->losses || inflight >= inflight_target(v, max_bw(b), b->pacing_gain));
	return full_length || inflight <= inflight_target(v, max_bw(b), BBR_UNIT);
}

static void check_full_bw(struct tcp_cc_view *v, const struct tcp_rate_sample *rs)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	if (b->full_bw_reached || !b->round_start || rs->is_app_limited)
		return;
	if ((uint64_t)max_bw(b) * BBR_UNIT >= (uint64_t)b->full_bw * FULL_BW_THRESH) {
		b->full_bw = max_bw(b);
		b->full_bw_cnt = 0;
		return;
	}
	b->full_bw_reached = ++b->full_bw_cnt >= FULL_BW_ROUNDS;
}

static void check_drain(struct tcp_cc_view *v)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	if (b->mode == BBR_STARTUP && b->full_bw_reached) {
		b->mode = BBR_DRAIN;
		/* ssthresh shows the estimate (tcp_info), as Linux's does */
		v->ssthresh = inflight_target(v, max_bw(b), BBR_UNIT);
	}
	if (b->mode == BBR_DRAIN && inflight_segs(v) <= inflight_target(v, max_bw(b), BBR_UNIT))
		enter_probe_bw(v);
}

static void check_probe_rtt_done(struct tcp_cc_view *v)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	if (!b->probe_rtt_done_ms || (int32_t)(ms_now(v) - b->probe_rtt_done_ms) <= 0)
		return;
	b->min_rtt_stamp_ms = ms_now(v); /* the next probe is 10 s away */
	if (b->prior_cwnd > v->cwnd)
		v->cwnd = b->prior_cwnd;
	reset_mode(v);
}

static void update_min_rtt(struct tcp_cc_view *v, const struct tcp_rate_sample *rs)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	bool expired = (int32_t)(ms_now(v) - (b->min_rtt_stamp_ms + MIN_RTT_WIN_MS)) > 0;
	if (rs->rtt_us >= 0 && ((uint32_t)rs->rtt_us < b->min_rtt_us || expired)) {
		b->min_rtt_us = (uint32_t)rs->rtt_us;
		b->min_rtt_stamp_ms = ms_now(v);
	}
	if (expired && !b->idle_restart && b->mode != BBR_PROBE_RTT) {
		b->mode = BBR_PROBE_RTT;
		save_cwnd(v);
		b->probe_rtt_done_ms = 0;
	}
	if (b->mode == BBR_PROBE_RTT) {
		/* The bubble PROBE_RTT leaves is not the path's: no rate
		 * sample from it may lower the estimate. */
		uint32_t pipe = v->inflight;
		v->app_limited = v->delivered + pipe ? v->delivered + pipe : 1;
		if (!b->probe_rtt_done_ms && inflight_segs(v) <= CWND_MIN) {
			b->probe_rtt_done_ms = ms_now(v) + PROBE_RTT_MS;
			if (!b->probe_rtt_done_ms)
				b->probe_rtt_done_ms = 1;
			b->probe_rtt_round_done = false;
			b->next_rtt_delivered = (uint32_t)v->delivered;
		} else if (b->probe_rtt_done_ms) {
			if (b->round_start)
				b->probe_rtt_round_done = true;
			if (b->probe_rtt_round_done)
				check_probe_rtt_done(v);
		}
	}
	if (rs->delivered > 0)
		b->idle_restart = false;
}

static void update_gains(struct tcp_cc_view *v)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	switch (b->mode) {
	case BBR_STARTUP:
		b->pacing_gain = HIGH_GAIN;
		b->cwnd_gain = HIGH_GAIN;
		break;
	case BBR_DRAIN:
		b->pacing_gain = DRAIN_GAIN;
		b->cwnd_gain = HIGH_GAIN; /* keep the window: only the rate drains */
		break;
	case BBR_PROBE_BW:
		b->pacing_gain = b->lt_use_bw ? BBR_UNIT : pacing_gain[b->cycle_idx];
		b->cwnd_gain = CWND_GAIN;
		break;
	default:
		b->pacing_gain = BBR_UNIT;
		b->cwnd_gain = BBR_UNIT;
		break;
	}
}

/* Loss: the losses come off the window; the first round of a recovery
 * sends one segment per segment delivered (packet conservation); leaving
 * recovery or a loss restores the window from before it. true: cwnd is
 * set for this ACK. */
static bool recover_or_restore(struct tcp_cc_view *v, const struct tcp_rate_sample *rs,
			       uint32_t acked, uint32_t *cwnd_out)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	uint8_t prev = b->prev_ca_state, st = v->ca_state;
	uint32_t cwnd = v->cwnd;
	uint32_t losses = segs_of(v, rs->losses);
	cwnd = cwnd > losses ? cwnd - losses : 1;
	if (st == TCP_CA_RECOVERY && prev != TCP_CA_RECOVERY) {
		b->packet_conservation = true;
		b->next_rtt_delivered = (uint32_t)v->delivered;
		cwnd = inflight_segs(v) + acked;
	} else if (prev >= TCP_CA_RECOVERY && st < TCP_CA_RECOVERY) {
		if (b->prior_cwnd > cwnd)
			cwnd = b->prior_cwnd;
		b->packet_conservation = false;
	}
	b->prev_ca_state = st;
	if (b->packet_conservation) {
		uint32_t floor = inflight_segs(v) + acked;
		*cwnd_out = cwnd > floor ? cwnd : floor;
		return true;
	}
	*cwnd_out = cwnd;
	return false;
}

/* The window's gain: cwnd_gain when paced; else the pacing gain, at
 * least 1 (a window below the BDP would leave the line idle). */
static uint32_t window_gain(const struct tcp_cc_view *v)
{
	const struct bbr *b = cpriv(v);
	if (paced(v))
		return b->cwnd_gain;
	uint32_t g = b->pacing_gain > BBR_UNIT ? b->pacing_gain : BBR_UNIT;
	return g < b->cwnd_gain ? g : b->cwnd_gain;
}

static void set_cwnd(struct tcp_cc_view *v, const struct tcp_rate_sample *rs, uint32_t bw)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	uint32_t acked = rs->acked_sacked ? segs_of(v, rs->acked_sacked) : 0;
	uint32_t cwnd = v->cwnd;
	if (acked && !recover_or_restore(v, rs, acked, &cwnd)) {
		uint32_t target =
		    quantization_budget(v, bdp(v, bw, window_gain(v)) + ack_aggregation_cwnd(v));
		if (b->full_bw_reached) {
			/* grow towards the target, cut to it at once */
			cwnd = cwnd + acked < target ? cwnd + acked : target;
		} else if (cwnd < target || v->delivered < (uint64_t)CC_INIT_CWND * mss_of(v)) {
			cwnd += acked; /* STARTUP: slow start, never cut */
		}
		if (cwnd < CWND_MIN)
			cwnd = CWND_MIN;
	}
	v->cwnd = cwnd < v->cwnd_clamp ? cwnd : v->cwnd_clamp;
	if (b->mode == BBR_PROBE_RTT && v->cwnd > CWND_MIN)
		v->cwnd = CWND_MIN;
}

static void bbr_cong_control(struct tcp_cc_view *v, uint32_t ack, const struct tcp_rate_sample *rs)
{
	(void)ack;
	struct bbr *b = CC_PRIV(v, struct bbr);
	update_bw(v, rs);
	update_ack_aggregation(v, rs);
	if (b->mode == BBR_PROBE_BW && next_cycle_phase(v, rs))
		advance_cycle(v);
	check_full_bw(v, rs);
	check_drain(v);
	update_min_rtt(v, rs);
	update_gains(v);
	set_pacing_rate(v, model_bw(b), b->pacing_gain);
	set_cwnd(v, rs, model_bw(b));
}

static void bbr_init(struct tcp_cc_view *v)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	*b = (struct bbr){0};
	b->min_rtt_us = v->min_rtt_us ? v->min_rtt_us : MIN_RTT_NONE;
	b->min_rtt_stamp_ms = ms_now(v);
	b->next_rtt_delivered = (uint32_t)v->delivered;
	b->prev_ca_state = TCP_CA_OPEN;
	b->cycle_stamp_us = us_now(v);
	b->ack_epoch_us = us_now(v);
	v->pacing_rate = 0;
	init_pacing_rate(v);
	lt_reset(v);
	enter_startup(v);
	update_gains(v);
}

static uint32_t bbr_ssthresh(struct tcp_cc_view *v)
{
	/* Loss is no signal of BBR's: ssthresh stays, the window is
	 * remembered for when recovery ends. */
	save_cwnd(v);
	return v->ssthresh;
}

static uint32_t bbr_undo_cwnd(struct tcp_cc_view *v)
{
	/* The loss was spurious: growth may have stalled because of it, so
	 * the full-pipe count starts over. */
	struct bbr *b = CC_PRIV(v, struct bbr);
	b->full_bw = 0;
	b->full_bw_cnt = 0;
	lt_reset(v);
	return v->cwnd;
}

static void bbr_set_state(struct tcp_cc_view *v, uint8_t st)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	if (st == TCP_CA_LOSS) {
		/* An RTO: the next ACK starts a round, growth is measured
		 * anew, and it counts as a loss for the long-term model. */
		struct tcp_rate_sample rs = {.losses = 1};
		b->prev_ca_state = TCP_CA_LOSS;
		b->full_bw = 0;
		b->round_start = true;
		lt_sample(v, &rs);
	}
}

static void bbr_cwnd_event(struct tcp_cc_view *v, enum tcp_ca_event ev)
{
	struct bbr *b = CC_PRIV(v, struct bbr);
	if (ev != CA_EVENT_TX_START || !v->app_limited)
		return;
	/* Restarting after idle: pace at the estimate, not above it, and
	 * let a PROBE_RTT that is due end now. */
	b->idle_restart = true;
	if (b->mode == BBR_PROBE_BW)
		set_pacing_rate(v, model_bw(b), BBR_UNIT);
	else if (b->mode == BBR_PROBE_RTT)
		check_probe_rtt_done(v);
}

bool cc_bbr_info_of(const struct tcp_cc_ops *ops, const void *priv, struct cc_bbr_info *out)
{
	if (!ops || ops->init != cc_bbr_ops.init) /* bbr, or a table wrapping it */
		return false;
	const struct bbr *b = priv;
	out->bw = (uint64_t)model_bw(b) * 1000000u >> BW_SCALE;
	out->min_rtt_us = b->min_rtt_us;
	out->min_rtt_stamp_ms = b->min_rtt_stamp_ms;
	out->pacing_gain = b->pacing_gain;
	out->cwnd_gain = b->cwnd_gain;
	out->mode = b->mode;
	out->lt_use_bw = b->lt_use_bw;
	return true;
}

const struct tcp_cc_ops cc_bbr_ops = {
    .ssthresh = bbr_ssthresh,
    .cong_control = bbr_cong_control,
    .set_state = bbr_set_state,
    .cwnd_event = bbr_cwnd_event,
    .undo_cwnd = bbr_undo_cwnd,
    .flags = TCP_CC_NEEDS_PACING,
    .name = "bbr",
    .init = bbr_init,
};
