/* dev: a seeded fault injector wrapping another device (smoltcp's
 * FaultInjector idea): per transmitted frame loss, duplication, reordering,
 * single-bit corruption, delay with jitter, a token-bucket line rate, a
 * size limit and CE marking of ECT frames above a queueing threshold. Held frames sit in a min-heap
 * by release time and are passed to the inner device from the next rx or tx call at or after that
 * time. */
#include "dev.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "../clk.h"

struct fault_held {
	uint64_t at, seq;
	struct rte_mbuf *m;
};

struct fault_dev {
	struct dev dev;
	struct dev *inner;
	const struct clk *clk;
	struct dev_fault_config cfg;
	struct rnd rnd;
	struct fault_held *heap;
	uint32_t count;
	uint64_t seq;
	uint64_t line_free_at; /* when the modelled line is idle again */
	uint32_t drop_next;    /* scripted losses still to make */
	struct dev_fault_stats stats;
};

static bool fault_less(const struct fault_held *a, const struct fault_held *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void fault_push(struct fault_dev *f, struct rte_mbuf *m, uint64_t at)
{
	uint32_t i = f->count++;
	f->heap[i] = (struct fault_held){.at = at, .seq = f->seq++, .m = m};
	while (i) {
		uint32_t p = (i - 1) / 2;
		if (!fault_less(&f->heap[i], &f->heap[p]))
			break;
		struct fault_held t = f->heap[i];
		f->heap[i] = f->heap[p];
		f->heap[p] = t;
		i = p;
	}
}

static void fault_pop(struct fault_dev *f)
{
	f->heap[0] = f->heap[--f->count];
	uint32_t i = 0;
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, s = i;
		if (l < f->count && fault_less(&f->heap[l], &f->heap[s]))
			s = l;
		if (r < f->count && fault_less(&f->heap[r], &f->heap[s]))
			s = r;
		if (s == i)
			break;
		struct fault_held t = f->heap[i];
		f->heap[i] = f->heap[s];
		f->heap[s] = t;
		i = s;
	}
}

static bool fault_hit(struct fault_dev *f, uint32_t ppm)
{
	return ppm && rnd_below(&f->rnd, 1000000) < ppm;
}

/* Hands due frames to the inner device in release order. */
static void fault_release(struct fault_dev *f)
{
	uint64_t now = clk_now(f->clk);
	while (f->count && f->heap[0].at <= now) {
		struct rte_mbuf *m = f->heap[0].m;
		if (dev_tx_burst(f->inner, &m, 1) != 1)
			return; /* inner full: retry on the next call */
		fault_pop(f);
	}
}

/* Flips one bit in a private copy: the original may be shared with a
 * retransmission queue (refcount), which must stay intact. */
static struct rte_mbuf *fault_corrupt(struct fault_dev *f, struct rte_mbuf *m)
{
	struct rte_mbuf *c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
	rte_pktmbuf_free(m);
	if (!c)
		return NULL;
	uint32_t bit = rnd_below(&f->rnd, c->data_len * 8);
	uint8_t *p = rte_pktmbuf_mtod(c, uint8_t *);
	p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	return c;
}

/* A private copy when the frame may be shared (a retransmission queue's
 * reference): what we change must not reach the sender's copy. */
static struct rte_mbuf *fault_own(struct rte_mbuf *m)
{
	if (rte_mbuf_refcnt_read(m) == 1 && RTE_MBUF_DIRECT(m))
		return m;
	struct rte_mbuf *c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
	rte_pktmbuf_free(m);
	return c;
}

/* The IP header of an Ethernet frame (one VLAN tag skipped) and its
 * version, 0 when it is neither IPv4 nor IPv6 or not in the first segment. */
static uint8_t *fault_ip(struct rte_mbuf *m, int *ver)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t off = 12;
	if (m->data_len < off + 2)
		return NULL;
	uint16_t type = (uint16_t)(p[off] << 8 | p[off + 1]);
	if (type == 0x8100) {
		off += 4;
		if (m->data_len < off + 2)
			return NULL;
		type = (uint16_t)(p[off] << 8 | p[off + 1]);
	}
	off += 2;
	*ver = type == 0x0800 ? 4 : type == 0x86dd ? 6 : 0;
	if (!*ver || m->data_len < off + (*ver == 4 ? 20u : 40u))
		return NULL;
	return p + off;
}

/* The ECN field of an IP frame: 0 Not-ECT, 1/2 ECT, 3 CE; -1 not IP. */
static int fault_ecn(struct rte_mbuf *m)
{
	int ver;
	uint8_t *ip = fault_ip(m, &ver);
	if (!ip)
		return -1;
	return ver == 4 ? ip[1] & 3 : (ip[1] >> 4) & 3;
}

/* Sets CE, keeping the IPv4 header checksum right (RFC 1624 eqn. 3). */
static void fault_set_ce(struct rte_mbuf *m)
{
	int ver;
	uint8_t *ip = fault_ip(m, &ver);
	if (!ip)
		return;
	if (ver == 6) {
		ip[1] |= 0x30; /* traffic class bits 0-1 straddle bytes 0 and 1 */
		return;
	}
	uint16_t old = (uint16_t)(ip[0] << 8 | ip[1]);
	ip[1] |= 3;
	if (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM)
		return; /* the checksum is still to be computed */
	uint16_t new = (uint16_t)(ip[0] << 8 | ip[1]);
	uint32_t hc = (uint16_t)(ip[10] << 8 | ip[11]);
	uint32_t sum = (~hc & 0xffff) + (~old & 0xffff) + new;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	hc = ~sum & 0xffff;
	ip[10] = (uint8_t)(hc >> 8);
	ip[11] = (uint8_t)hc;
}

/* CE for an ECT frame that would wait at least ce_threshold_ns behind the
 * frames ahead of it on the line, or at random (ce_ppm). */
static struct rte_mbuf *fault_mark(struct fault_dev *f, struct rte_mbuf *m, uint64_t now)
{
	if (!f->cfg.ce_threshold_ns && !f->cfg.ce_ppm)
		return m;
	int ecn = fault_ecn(m);
	if (ecn != 1 && ecn != 2)
		return m;
	f->stats.ect++;
	uint64_t wait = f->line_free_at > now ? f->line_free_at - now : 0;
	bool queued = f->cfg.ce_threshold_ns && f->cfg.rate_bps && wait >= f->cfg.ce_threshold_ns;
	if (!queued && !fault_hit(f, f->cfg.ce_ppm))
		return m;
	m = fault_own(m);
	if (!m)
		return NULL;
	fault_set_ce(m);
	f->stats.ce_marked++;
	return m;
}

static uint64_t fault_when(struct fault_dev *f, uint64_t now, uint32_t len)
{
	/* A frame leaves once the line has sent it (behind the frames queued
	 * before it) and arrives delay_ns later: serialization, then
	 * propagation, so a burst arrives spaced at the line rate. */
	uint64_t at = now;
	if (f->cfg.rate_bps) {
		uint64_t start = f->line_free_at > now ? f->line_free_at : now;
		f->line_free_at = start + (uint64_t)len * 8 * CLK_NS_PER_S / f->cfg.rate_bps;
		at = f->line_free_at;
	}
	at += f->cfg.delay_ns;
	if (f->cfg.jitter_ns)
		at += rnd_u64(&f->rnd) % f->cfg.jitter_ns;
	if (fault_hit(f, f->cfg.reorder_ppm)) {
		f->stats.reordered++;
		at += f->cfg.reorder_ns;
	}
	return at;
}

static uint16_t fault_tx(struct dev *d, struct rte_mbuf **pkts, uint16_t n)
{
	struct fault_dev *f = (struct fault_dev *)d;
	uint64_t now = clk_now(f->clk);
	fault_release(f);
	uint16_t i;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		if (f->count + 2 > f->cfg.queue_len) {
			/* A bottleneck router's tail drop: the sender learns of it
			 * as a loss. Refusing the frame instead made the stack's
			 * transmit queue the buffer, and since the stack waits
			 * for room there (tcp_outq.c) no loss ever came. */
			f->stats.drop_full++;
			rte_pktmbuf_free(m);
			continue;
		}
		f->stats.tx++;
		if (f->cfg.max_size && m->pkt_len > f->cfg.max_size) {
			f->stats.oversize++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (f->drop_next || fault_hit(f, f->cfg.loss_ppm)) {
			if (f->drop_next)
				f->drop_next--;
			f->stats.lost++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (fault_hit(f, f->cfg.dup_ppm)) {
			struct rte_mbuf *c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
			if (c) {
				f->stats.duplicated++;
				fault_push(f, c, fault_when(f, now, c->pkt_len));
			}
		}
		m = fault_mark(f, m, now);
		if (!m)
			continue;
		if (fault_hit(f, f->cfg.corrupt_ppm) && m->data_len) {
			f->stats.corrupted++;
			m = fault_corrupt(f, m);
			if (!m)
				continue;
		}
		fault_push(f, m, fault_when(f, now, m->pkt_len));
	}
	fault_release(f);
	return i;
}

static uint16_t fault_rx(struct dev *d, struct rte_mbuf **pkts, uint16_t n)
{
	struct fault_dev *f = (struct fault_dev *)d;
	fault_release(f);
	return dev_rx_burst(f->inner, pkts, n);
}

static void fault_caps(const struct dev *d, struct dev_caps *out)
{
	const struct fault_dev *f = (const struct fault_dev *)d;
	dev_caps(f->inner, out);
	/* Corruption must be caught by the receiver's checksums: offloads that
	 * would let a flipped bit through unverified are hidden. */
	if (f->cfg.corrupt_ppm) {
		out->rx_csum = false;
	}
}

static uint64_t fault_deadline(const struct dev *d)
{
	const struct fault_dev *f = (const struct fault_dev *)d;
	uint64_t in = dev_next_deadline_ns(f->inner);
	uint64_t own = f->count ? f->heap[0].at : UINT64_MAX;
	return own < in ? own : in;
}

static void fault_destroy(struct dev *d)
{
	struct fault_dev *f = (struct fault_dev *)d;
	for (uint32_t i = 0; i < f->count; i++)
		rte_pktmbuf_free(f->heap[i].m);
	free(f->heap);
	free(f);
}

static const struct dev_ops fault_ops = {
    .rx_burst = fault_rx,
    .tx_burst = fault_tx,
    .caps = fault_caps,
    .destroy = fault_destroy,
    .next_deadline_ns = fault_deadline,
};

int dev_fault_create(struct dev *inner, const struct dev_fault_config *cfg, const struct clk *clk,
		     struct dev **out)
{
	if (!inner || !cfg || !clk || !out || cfg->loss_ppm > 1000000 || cfg->dup_ppm > 1000000 ||
	    cfg->reorder_ppm > 1000000 || cfg->corrupt_ppm > 1000000 || cfg->ce_ppm > 1000000)
		return -EINVAL;
	struct fault_dev *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->cfg = *cfg;
	if (!f->cfg.queue_len)
		f->cfg.queue_len = 4096;
	if (f->cfg.queue_len < 2)
		f->cfg.queue_len = 2;
	if (!f->cfg.reorder_ns) {
		f->cfg.reorder_ns = 2 * f->cfg.delay_ns;
		if (f->cfg.reorder_ns < CLK_NS_PER_MS)
			f->cfg.reorder_ns = CLK_NS_PER_MS;
	}
	f->heap = calloc(f->cfg.queue_len, sizeof(*f->heap));
	if (!f->heap) {
		free(f);
		return -ENOMEM;
	}
	f->dev.ops = &fault_ops;
	f->inner = inner;
	f->clk = clk;
	rnd_seed(&f->rnd, cfg->seed);
	*out = &f->dev;
	return 0;
}

void dev_fault_stats(const struct dev *d, struct dev_fault_stats *out)
{
	*out = ((const struct fault_dev *)d)->stats;
}

void dev_fault_drop_next(struct dev *d, uint32_t n)
{
	((struct fault_dev *)d)->drop_next = n;
}
