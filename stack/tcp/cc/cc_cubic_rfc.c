/* cc_cubic_rfc: "cubic_rfc", on request only ("cubic", cc_cubic.c, is
 * Linux's, whose multiplicative decrease cc_cubic_md this shares): CUBIC as
 * RFC 9438 writes it with Linux's constants (beta 717/1024, C 0.4, fast
 * convergence and the Reno-friendly region on), and HyStart++ (RFC 9406)
 * for slow start, delay-based (rounds of at least 8 RTT samples, thresholds
 * clamped to 4..16 ms, nothing below a cwnd of 16). No ACK-train
 * heuristic: RFC 9406 keeps to delay. Nor RFC 9406's per-ACK growth limit
 * L: Linux's slow start has none, and the equivalence suite compares
 * flights with the kernel's.
 *
 * Time is the stack's clock in ns; the window function is evaluated in
 * seconds with C in segments/s^3, as RFC 9438 §4.2 writes it. */
#include "cc.h"

#include <math.h>
#include <string.h>

#define CUBIC_BETA	  717u /* RFC 9438 §4.6 beta_cubic 0.7, in 1024ths as Linux */
#define CUBIC_BETA_SCALE  1024u
#define CUBIC_C		  0.4 /* RFC 9438 §5.1 */
#define CUBIC_FIRST_CNT	  20u /* Linux: at most 5% a round before any loss is known */
#define CUBIC_SKIP_RTT_NS (1000ull * CC_NS_PER_MS) /* delay samples ignored after recovery */

/* HyStart++ (RFC 9406 §4.3), with Linux's window floor. */
#define HS_N_RTT_SAMPLE	     8u
#define HS_MIN_RTT_THRESH_US 4000u
#define HS_MAX_RTT_THRESH_US 16000u
#define HS_MIN_RTT_DIVISOR   8u
#define HS_CSS_GROWTH_DIV    4u
#define HS_CSS_ROUNDS	     5u
#define HS_LOW_WINDOW	     16u /* Linux's hystart_low_window */

enum { HS_SS = 0, HS_CSS, HS_DONE };

struct cubic {
	uint64_t epoch_ns;    /* start of the congestion avoidance epoch, 0: none */
	uint64_t last_ack_ns; /* the last ACK: an idle period starts there */
	uint32_t cnt;	      /* segments ACKed per cwnd increment */
	uint32_t w_max;	      /* W_max after fast convergence (RFC 9438 §4.7) */
	uint32_t origin;      /* the plateau the curve reaches at K */
	uint32_t k_us;	      /* K (RFC 9438 §4.2 eq. 2) */
	uint32_t delay_min_us;
	uint32_t ack_cnt; /* segments ACKed since W_est last grew */
	uint32_t w_est;	  /* the Reno-friendly estimate (RFC 9438 §4.3) */
	/* HyStart++ */
	uint32_t window_end; /* the round ends once this is acknowledged */
	uint32_t last_round_min_us, cur_round_min_us, css_baseline_us;
	uint32_t css_acked; /* ACKed segments not yet turned into CSS growth */
	uint8_t samples, css_rounds, hs;
};

_Static_assert(sizeof(struct cubic) <= TCP_CC_PRIV_SIZE, "cubic state too large");

static uint64_t now_ns(const struct tcp_cc_view *v)
{
	return v->now_ns;
}

static void hystart_reset(struct tcp_cc_view *v, struct cubic *ca)
{
	ca->hs = HS_SS;
	ca->window_end = v->snd_nxt;
	ca->last_round_min_us = UINT32_MAX;
	ca->cur_round_min_us = UINT32_MAX;
	ca->css_baseline_us = UINT32_MAX;
	ca->samples = 0;
	ca->css_rounds = 0;
	ca->css_acked = 0;
}

static void cubic_reset(struct tcp_cc_view *v, struct cubic *ca)
{
	memset(ca, 0, sizeof(*ca));
	hystart_reset(v, ca);
}

static void cubic_init(struct tcp_cc_view *v)
{
	cubic_reset(v, CC_PRIV(v, struct cubic));
}

/* RFC 9438 §4.2: cnt, the ACKed segments per increment, that takes cwnd to
 * W_cubic(t + RTT) in one round, within the Reno-friendly bound (§4.3). */
static void cubic_update(struct tcp_cc_view *v, struct cubic *ca, uint32_t acked)
{
	uint64_t now = now_ns(v);
	uint32_t cwnd = v->cwnd;
	ca->ack_cnt += acked;
	if (!ca->epoch_ns) {
		ca->epoch_ns = now;
		ca->ack_cnt = acked;
		ca->w_est = cwnd;
		if (ca->w_max <= cwnd) {
			ca->k_us = 0;
			ca->origin = cwnd;
		} else {
			/* eq. 2: K = cbrt((W_max - cwnd_epoch) / C) */
			ca->k_us = (uint32_t)(cbrt((ca->w_max - cwnd) / CUBIC_C) * 1e6);
			ca->origin = ca->w_max;
		}
	}
	/* eq. 1 one RTT ahead (Linux takes the minimum RTT) */
	double t = (double)(now - ca->epoch_ns) / 1e9 + ca->delay_min_us / 1e6;
	double d = t - ca->k_us / 1e6;
	double target = ca->origin + CUBIC_C * d * d * d;
	if (target > cwnd) {
		double c = cwnd / (target - cwnd);
		ca->cnt = c > (double)UINT32_MAX ? UINT32_MAX : (uint32_t)c;
	} else {
		ca->cnt = 100 * cwnd; /* on the plateau: barely grow */
	}
	if (ca->w_max == 0 && ca->cnt > CUBIC_FIRST_CNT)
		ca->cnt = CUBIC_FIRST_CNT;
	/* §4.3: W_est grows by alpha_cubic = 3(1 - beta)/(1 + beta) segments a
	 * window ACKed, by 1 once it has passed W_max. */
	uint32_t per = ca->w_est >= ca->w_max
			   ? cwnd
			   : (uint32_t)((uint64_t)cwnd * (CUBIC_BETA_SCALE + CUBIC_BETA) /
					(3 * (CUBIC_BETA_SCALE - CUBIC_BETA)));
	if (per == 0)
		per = 1;
	while (ca->ack_cnt >= per) {
		ca->ack_cnt -= per;
		ca->w_est++;
	}
	if (ca->w_est > cwnd) {
		uint32_t max_cnt = cwnd / (ca->w_est - cwnd);
		if (ca->cnt > max_cnt)
			ca->cnt = max_cnt;
	}
	/* §4.2: target at most 1.5 cwnd, one segment per two ACKed. */
	if (ca->cnt < 2)
		ca->cnt = 2;
}

static void cubic_cong_avoid(struct tcp_cc_view *v, uint32_t ack, uint32_t acked)
{
	(void)ack;
	struct cubic *ca = CC_PRIV(v, struct cubic);
	ca->last_ack_ns = now_ns(v);
	if (!cc_is_cwnd_limited(v))
		return;
	if (v->cwnd < v->ssthresh) {
		if (ca->hs == HS_CSS) {
			/* RFC 9406 §4.3: conservative slow start grows a quarter as fast. */
			ca->css_acked += acked;
			v->cwnd += ca->css_acked / HS_CSS_GROWTH_DIV;
			ca->css_acked %= HS_CSS_GROWTH_DIV;
			if (v->cwnd > v->cwnd_clamp)
				v->cwnd = v->cwnd_clamp;
			return;
		}
		acked = cc_slow_start(v, acked);
		if (!acked)
			return;
	}
	cubic_update(v, ca, acked);
	cc_cong_avoid_ai(v, ca->cnt, acked);
}

static uint32_t cubic_ssthresh(struct tcp_cc_view *v)
{
	struct cubic *ca = CC_PRIV(v, struct cubic);
	uint32_t cwnd = v->cwnd;
	ca->epoch_ns = 0;
	ca->hs = HS_DONE; /* RFC 9406 §4.3: congestion ends slow start for good */
	/* §4.6 beta_cubic, §4.7 fast convergence */
	return cc_cubic_md(cwnd, &ca->w_max);
}

static void cubic_set_state(struct tcp_cc_view *v, uint8_t st)
{
	/* Linux: after an RTO the curve and HyStart++ start over. */
	if (st == TCP_CA_LOSS)
		cubic_reset(v, CC_PRIV(v, struct cubic));
}

static void cubic_cwnd_event(struct tcp_cc_view *v, enum tcp_ca_event ev)
{
	struct cubic *ca = CC_PRIV(v, struct cubic);
	if (ev != CA_EVENT_TX_START || !ca->epoch_ns || !ca->last_ack_ns)
		return;
	/* RFC 9438 §5.8: an application-limited pause does not count as
	 * time on the curve; shift the epoch by the idle time. */
	uint64_t now = now_ns(v);
	if (now > ca->last_ack_ns)
		ca->epoch_ns += now - ca->last_ack_ns;
	if (ca->epoch_ns > now)
		ca->epoch_ns = now;
}

/* RFC 9406 §4.3, once per ACK while in slow start. */
static void hystart_update(struct tcp_cc_view *v, struct cubic *ca, int32_t rtt_us)
{
	if (CC_SEQ_GEQ(v->snd_una, ca->window_end)) {
		/* a round ended */
		ca->window_end = v->snd_nxt;
		ca->last_round_min_us = ca->cur_round_min_us;
		ca->cur_round_min_us = UINT32_MAX;
		ca->samples = 0;
		if (ca->hs == HS_CSS && ++ca->css_rounds >= HS_CSS_ROUNDS) {
			v->ssthresh = v->cwnd;
			ca->hs = HS_DONE;
			return;
		}
	}
	if (rtt_us < 0)
		return;
	if ((uint32_t)rtt_us < ca->cur_round_min_us)
		ca->cur_round_min_us = (uint32_t)rtt_us;
	if (ca->samples < UINT8_MAX)
		ca->samples++;
	if (v->cwnd < HS_LOW_WINDOW || ca->samples < HS_N_RTT_SAMPLE ||
	    ca->last_round_min_us == UINT32_MAX || ca->cur_round_min_us == UINT32_MAX)
		return;
	if (ca->hs == HS_SS) {
		uint32_t thr = ca->last_round_min_us / HS_MIN_RTT_DIVISOR;
		if (thr < HS_MIN_RTT_THRESH_US)
			thr = HS_MIN_RTT_THRESH_US;
		if (thr > HS_MAX_RTT_THRESH_US)
			thr = HS_MAX_RTT_THRESH_US;
		if (ca->cur_round_min_us >= ca->last_round_min_us + thr) {
			ca->css_baseline_us = ca->cur_round_min_us;
			ca->css_rounds = 0;
			ca->css_acked = 0;
			ca->hs = HS_CSS;
		}
	} else if (ca->cur_round_min_us < ca->css_baseline_us) {
		/* the delay went back down: the increase was spurious */
		ca->css_baseline_us = UINT32_MAX;
		ca->hs = HS_SS;
	}
}

static void cubic_pkts_acked(struct tcp_cc_view *v, uint32_t acked, int32_t rtt_us)
{
	(void)acked;
	struct cubic *ca = CC_PRIV(v, struct cubic);
	/* Linux: delay right after a recovery reflects the queue it built. */
	if (rtt_us >= 0 && !(ca->epoch_ns && now_ns(v) - ca->epoch_ns < CUBIC_SKIP_RTT_NS)) {
		uint32_t d = rtt_us ? (uint32_t)rtt_us : 1;
		if (!ca->delay_min_us || d < ca->delay_min_us)
			ca->delay_min_us = d;
	}
	if (v->cwnd < v->ssthresh && ca->hs != HS_DONE)
		hystart_update(v, ca, rtt_us);
}

const struct tcp_cc_ops cc_cubic_rfc_ops = {
    .init = cubic_init,
    .ssthresh = cubic_ssthresh,
    .cong_avoid = cubic_cong_avoid,
    .set_state = cubic_set_state,
    .undo_cwnd = cc_reno_undo_cwnd,
    .cwnd_event = cubic_cwnd_event,
    .pkts_acked = cubic_pkts_acked,
    .name = "cubic_rfc",
};
