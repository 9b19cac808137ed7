/* cc_cubic: CUBIC as Linux 6.x runs it (net/ipv4/tcp_cubic.c), the
 * default: users who pick "cubic" expect the kernel's curve, integers
 * included. The curve is computed in jiffies at the stack's tick rate
 * (tcp_config.hz, the kernel's HZ) and in Linux's fixed point: time in
 * 1/1024 s (BICTCP_HZ), C = 410/1024 (cube_rtt_scale), K from
 * a table-seeded cube root, at most one recomputation a jiffy and, with cwnd
 * unchanged, one per HZ/32. The Reno-friendly estimate grows one segment per
 * (cwnd·15)>>3 ACKed (beta_scale, Linux's fixed 8(1+b)/3(1-b) with b
 * 717/1024), not RFC 9438 §4.3's alpha. Slow start ends at the first HyStart
 * detection (ACK train or delay), ssthresh = cwnd, no conservative phase.
 * RFC 9438 with HyStart++ stays available as "cubic_rfc" (cc_cubic_rfc.c). */
#include "cc.h"

#include <string.h>

#define BIC_BETA       717u  /* beta, in 1024ths */
#define BIC_BETA_SCALE 1024u /* BICTCP_BETA_SCALE */
#define BIC_HZ_SHIFT   10u   /* BICTCP_HZ: curve time in 1/1024 s */
/* 8 (1024 + 717) / 3 / (1024 - 717), Linux's integer steps: 15. */
#define BIC_FRIENDLY_SCALE (8u * (BIC_BETA_SCALE + BIC_BETA) / 3u / (BIC_BETA_SCALE - BIC_BETA))
/* cube_rtt_scale: bic_scale 41/1024 over the 100 ms RTT the constants
 * assume, in 1024ths: 410, C = 0.4 segments/s^3 as RFC 9438's. */
#define BIC_CUBE_RTT_SCALE 410u
/* 2^40 / 410: (W_max - cwnd) times this is K^3 in (1/1024 s)^3. */
#define BIC_CUBE_FACTOR ((1ull << (10u + 3u * BIC_HZ_SHIFT)) / BIC_CUBE_RTT_SCALE)
#define BIC_FIRST_CNT	20u /* before any loss: at most 5 % a round */

/* HyStart (Linux's hystart_detect 3: both detectors). */
#define HS_LOW_WINDOW	16u   /* hystart_low_window */
#define HS_ACK_DELTA_US 2000  /* hystart_ack_delta_us: ACKs this close form a train */
#define HS_MIN_SAMPLES	8u    /* HYSTART_MIN_SAMPLES */
#define HS_DELAY_MIN_US 4000u /* HYSTART_DELAY_MIN */
#define HS_DELAY_MAX_US 16000u
/* sk_gso_max_size on a Linux device with (software) GSO, which every
 * device has: the aggregation hystart_ack_delay allows for. */
#define HS_GSO_MAX_SIZE 65536ull

struct bic {
	uint32_t cnt;		/* segments ACKed per cwnd increment */
	uint32_t last_max_cwnd; /* W_max after fast convergence */
	uint32_t last_cwnd;	/* cwnd when cnt was last computed */
	uint32_t last_time;	/* and the jiffy it was */
	uint32_t origin;	/* bic_origin_point: the plateau */
	uint32_t k;		/* bic_K, 1/1024 s */
	uint32_t delay_min;	/* µs; 0: none */
	uint32_t epoch_start;	/* jiffies; 0: no epoch */
	uint32_t ack_cnt;	/* segments ACKed towards the Reno estimate */
	uint32_t tcp_cwnd;	/* the Reno estimate */
	uint8_t sample_cnt;	/* delay samples in this HyStart round */
	uint8_t found;		/* HyStart ended slow start */
	uint32_t round_start;	/* µs (the stack's clock, truncated as tcp_mstamp) */
	uint32_t end_seq;	/* the round ends when SND.UNA passes it */
	uint32_t last_ack;	/* µs: the last ACK of the current train */
	uint32_t curr_rtt;	/* the round's minimum RTT, µs */
};

_Static_assert(sizeof(struct bic) <= TCP_CC_PRIV_SIZE, "cubic state too large");

static uint32_t hz_of(const struct tcp_cc_view *v)
{
	return v->hz ? v->hz : TCP_HZ_DEFAULT;
}

/* Linux's tcp_jiffies32 for the stack's clock at its tick rate. Linux
 * starts jiffies 300 s before they wrap (INITIAL_JIFFIES), so that 0, which
 * cubic reads as "no epoch", is no early instant; so does this. */
static uint32_t jiffies_at(const struct tcp_cc_view *v, uint64_t ns)
{
	uint64_t hz = hz_of(v);
	uint64_t j = ns / 1000000000ull * hz + ns % 1000000000ull * hz / 1000000000ull;
	return (uint32_t)j - 300u * (uint32_t)hz;
}

/* usecs_to_jiffies: rounded up. */
static uint64_t us_to_jiffies(const struct tcp_cc_view *v, uint32_t us)
{
	return ((uint64_t)us * hz_of(v) + 999999u) / 1000000u;
}

static uint32_t clock_us(const struct tcp_cc_view *v)
{
	return (uint32_t)(v->now_ns / CC_NS_PER_US);
}

static bool after32(uint32_t a, uint32_t b)
{
	return (int32_t)(b - a) < 0;
}

/* bictcp_hystart_reset: a new round starts at the next ACK's snd_nxt. */
static void hystart_reset(struct tcp_cc_view *v, struct bic *ca)
{
	ca->round_start = ca->last_ack = clock_us(v);
	ca->end_seq = v->snd_nxt;
	ca->curr_rtt = UINT32_MAX;
	ca->sample_cnt = 0;
}

static void bic_reset(struct tcp_cc_view *v, struct bic *ca)
{
	memset(ca, 0, sizeof(*ca));
	hystart_reset(v, ca);
}

static void cubic_init(struct tcp_cc_view *v)
{
	bic_reset(v, CC_PRIV(v, struct bic));
}

/* The cube root of a, as Linux's cubic_root: the top bits of a pick a
 * first guess from a table, one Newton step refines it (about 0.2 % off). */
uint32_t cc_cubic_root(uint64_t a)
{
	/* entry i: cbrt(i << 18) - 1, hand-tuned in Linux; the guess for a
	 * 6-bit value i is (entry + 10) >> 6 */
	static const uint8_t guess[64] = {
	    0,	 54,  54,  54,	118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156,
	    157, 161, 164, 168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199,
	    200, 202, 204, 206, 209, 211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229,
	    231, 232, 234, 236, 237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
	};
	uint32_t bits = a ? 64u - (uint32_t)__builtin_clzll(a) : 0; /* fls64 */
	if (bits < 7)
		return ((uint32_t)guess[a] + 35u) >> 6;
	/* bits/3 by multiplication, minus one: the shift that brings a's top
	 * bits into the table's range */
	uint32_t b = ((bits * 84u) >> 8) - 1u;
	uint32_t x = ((uint32_t)(((uint32_t)guess[a >> (b * 3u)] + 10u) << b)) >> 6;
	/* x' = (2x + a/x^2) / 3, with x(x-1) for x^2 and 341/1024 for 1/3 */
	x = 2u * x + (uint32_t)(a / ((uint64_t)x * (uint64_t)(x - 1u)));
	return (x * 341u) >> 10;
}

/* bictcp_update: cnt, the segments ACKed per increment that takes cwnd to
 * the curve's value one minimum RTT ahead, within the Reno estimate. */
static void bic_update(struct tcp_cc_view *v, struct bic *ca, uint32_t cwnd, uint32_t acked)
{
	uint32_t now = jiffies_at(v, v->now_ns), hz = hz_of(v);
	ca->ack_cnt += acked;
	if (ca->last_cwnd == cwnd && (int32_t)(now - ca->last_time) <= (int32_t)(hz / 32u))
		return;
	/* Once a jiffy at most; a reduction clears the epoch and forces it. */
	if (!(ca->epoch_start && now == ca->last_time)) {
		ca->last_cwnd = cwnd;
		ca->last_time = now;
		if (!ca->epoch_start) {
			ca->epoch_start = now;
			ca->ack_cnt = acked;
			ca->tcp_cwnd = cwnd;
			if (ca->last_max_cwnd <= cwnd) {
				ca->k = 0;
				ca->origin = cwnd;
			} else {
				ca->k = cc_cubic_root(BIC_CUBE_FACTOR * (ca->last_max_cwnd - cwnd));
				ca->origin = ca->last_max_cwnd;
			}
		}
		/* t in 1/1024 s, one delay_min ahead; a negative elapsed time
		 * (an epoch shifted to now) is sign-extended as Linux's u64 t */
		uint64_t t = (uint64_t)(int64_t)(int32_t)(now - ca->epoch_start);
		t += us_to_jiffies(v, ca->delay_min);
		t = (t << BIC_HZ_SHIFT) / hz;
		uint64_t offs = t < ca->k ? ca->k - t : t - ca->k;
		uint32_t delta = (uint32_t)((BIC_CUBE_RTT_SCALE * offs * offs * offs) >>
					    (10u + 3u * BIC_HZ_SHIFT));
		uint32_t target = t < ca->k ? ca->origin - delta : ca->origin + delta;
		ca->cnt = target > cwnd ? cwnd / (target - cwnd) : 100u * cwnd;
		if (ca->last_max_cwnd == 0 && ca->cnt > BIC_FIRST_CNT)
			ca->cnt = BIC_FIRST_CNT;
	}
	/* tcp_friendliness: the Reno estimate gains one segment per
	 * (cwnd·15)>>3 ACKed, and cwnd grows at least as fast */
	uint32_t per = (cwnd * BIC_FRIENDLY_SCALE) >> 3;
	while (per && ca->ack_cnt > per) {
		ca->ack_cnt -= per;
		ca->tcp_cwnd++;
	}
	if (ca->tcp_cwnd > cwnd) {
		uint32_t max_cnt = cwnd / (ca->tcp_cwnd - cwnd);
		if (ca->cnt > max_cnt)
			ca->cnt = max_cnt;
	}
	/* at most one segment per two ACKed: 1.5x a round */
	if (ca->cnt < 2)
		ca->cnt = 2;
}

static void cubic_cong_avoid(struct tcp_cc_view *v, uint32_t ack, uint32_t acked)
{
	(void)ack;
	struct bic *ca = CC_PRIV(v, struct bic);
	if (!cc_is_cwnd_limited(v))
		return;
	if (v->cwnd < v->ssthresh) {
		acked = cc_slow_start(v, acked);
		if (!acked)
			return;
	}
	bic_update(v, ca, v->cwnd, acked);
	cc_cong_avoid_ai(v, ca->cnt, acked);
}

uint32_t cc_cubic_md(uint32_t cwnd, uint32_t *w_max)
{
	/* fast convergence: a window that did not get back to the previous
	 * maximum yields to newer flows (RFC 9438 §4.7, Linux's) */
	if (cwnd < *w_max)
		*w_max = cwnd * (BIC_BETA_SCALE + BIC_BETA) / (2u * BIC_BETA_SCALE);
	else
		*w_max = cwnd;
	uint32_t s = cwnd * BIC_BETA / BIC_BETA_SCALE;
	return s > 2 ? s : 2;
}

/* cubictcp_recalc_ssthresh: the epoch ends; HyStart's state stays. */
static uint32_t cubic_ssthresh(struct tcp_cc_view *v)
{
	struct bic *ca = CC_PRIV(v, struct bic);
	ca->epoch_start = 0;
	return cc_cubic_md(v->cwnd, &ca->last_max_cwnd);
}

/* cubictcp_state: an RTO starts the curve, delay_min and HyStart over. */
static void cubic_set_state(struct tcp_cc_view *v, uint8_t st)
{
	if (st == TCP_CA_LOSS)
		bic_reset(v, CC_PRIV(v, struct bic));
}

/* cubictcp_cwnd_event: time the sender sat idle (since its last data
 * segment, Linux's lsndtime) is no time on the curve. */
static void cubic_cwnd_event(struct tcp_cc_view *v, enum tcp_ca_event ev)
{
	struct bic *ca = CC_PRIV(v, struct bic);
	if (ev != CA_EVENT_TX_START)
		return;
	uint32_t now = jiffies_at(v, v->now_ns);
	int32_t idle = (int32_t)(now - jiffies_at(v, v->lsndtime_ns));
	if (ca->epoch_start && idle > 0) {
		ca->epoch_start += (uint32_t)idle;
		if (after32(ca->epoch_start, now))
			ca->epoch_start = now;
	}
}

/* hystart_ack_delay: the ACK train may stretch by the time a GSO burst
 * takes at the pacing rate (which Linux keeps whether or not it paces),
 * up to 1 ms. */
static uint32_t hystart_ack_delay(const struct tcp_cc_view *v)
{
	if (!v->pacing_rate)
		return 0;
	uint64_t d = HS_GSO_MAX_SIZE * 4u * 1000000u / v->pacing_rate;
	return d < 1000u ? (uint32_t)d : 1000u;
}

/* hystart_update: leave slow start (ssthresh = cwnd) when a round's ACKs
 * keep arriving close together for longer than half the minimum RTT (the
 * window fills the path) or its minimum RTT rose by an eighth of the
 * minimum, clamped to 4..16 ms (a queue builds). */
static void hystart_update(struct tcp_cc_view *v, struct bic *ca, uint32_t delay)
{
	if (after32(v->snd_una, ca->end_seq))
		hystart_reset(v, ca);
	if (v->cwnd < HS_LOW_WINDOW)
		return;
	uint32_t now = clock_us(v);
	if ((int32_t)(now - ca->last_ack) <= HS_ACK_DELTA_US) {
		ca->last_ack = now;
		uint32_t threshold = ca->delay_min + hystart_ack_delay(v);
		/* paced segments may leave up to half an RTT late in slow start */
		if (!v->paced)
			threshold >>= 1;
		/* unsigned, as Linux compares it: a clock behind the round's
		 * start counts as past any threshold */
		if (now - ca->round_start > threshold) {
			ca->found = 1;
			v->ssthresh = v->cwnd;
		}
	}
	if (ca->curr_rtt > delay)
		ca->curr_rtt = delay;
	if (ca->sample_cnt < HS_MIN_SAMPLES) {
		ca->sample_cnt++;
		return;
	}
	uint32_t thr = ca->delay_min >> 3;
	thr = thr < HS_DELAY_MIN_US   ? HS_DELAY_MIN_US
	      : thr > HS_DELAY_MAX_US ? HS_DELAY_MAX_US
				      : thr;
	if (ca->curr_rtt > ca->delay_min + thr) {
		ca->found = 1;
		v->ssthresh = v->cwnd;
	}
}

/* cubictcp_acked */
static void cubic_pkts_acked(struct tcp_cc_view *v, uint32_t acked, int32_t rtt_us)
{
	(void)acked;
	struct bic *ca = CC_PRIV(v, struct bic);
	if (rtt_us < 0)
		return;
	/* the first second of an epoch measures the queue the loss built */
	uint32_t now = jiffies_at(v, v->now_ns);
	if (ca->epoch_start && (int32_t)(now - ca->epoch_start) < (int32_t)hz_of(v))
		return;
	uint32_t delay = rtt_us ? (uint32_t)rtt_us : 1u;
	if (!ca->delay_min || ca->delay_min > delay)
		ca->delay_min = delay;
	if (!ca->found && v->cwnd < v->ssthresh)
		hystart_update(v, ca, delay);
}

bool cc_cubic_info_of(const struct tcp_cc_ops *ops, const void *priv, struct cc_cubic_info *out)
{
	if (ops != &cc_cubic_ops)
		return false;
	const struct bic *ca = priv;
	*out = (struct cc_cubic_info){
	    .cnt = ca->cnt,
	    .last_max_cwnd = ca->last_max_cwnd,
	    .origin = ca->origin,
	    .k = ca->k,
	    .delay_min_us = ca->delay_min,
	    .epoch_start = ca->epoch_start,
	    .tcp_cwnd = ca->tcp_cwnd,
	    .found = ca->found != 0,
	};
	return true;
}

const struct tcp_cc_ops cc_cubic_ops = {
    .init = cubic_init,
    .ssthresh = cubic_ssthresh,
    .cong_avoid = cubic_cong_avoid,
    .set_state = cubic_set_state,
    .undo_cwnd = cc_reno_undo_cwnd,
    .cwnd_event = cubic_cwnd_event,
    .pkts_acked = cubic_pkts_acked,
    .name = "cubic",
};
