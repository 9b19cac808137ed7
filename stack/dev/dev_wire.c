/* dev: an in-memory wire between two endpoints in one process, for unit
 * tests and the simulation. Frames move by pointer (no copy) into a bounded
 * FIFO per direction and become receivable delay_ns after transmission. */
#include "dev.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "../clk.h"

struct wire_slot {
	struct rte_mbuf *m;
	uint64_t at;
};

struct wire_fifo {
	struct wire_slot *slot;
	uint32_t cap, head, count;
};

struct wire_pair;

struct wire_end {
	struct dev dev;
	struct wire_pair *pair;
	int side;
	struct dev_wire_stats stats;
};

struct wire_pair {
	struct wire_end end[2];
	struct wire_fifo fifo[2]; /* fifo[i]: frames transmitted by end i */
	const struct clk *clk;
	struct dev_wire_config cfg;
	int alive;
};

static struct wire_end *wire_end_of(const struct dev *d)
{
	return (struct wire_end *)d;
}

static uint16_t wire_tx(struct dev *d, struct rte_mbuf **pkts, uint16_t n)
{
	struct wire_end *e = wire_end_of(d);
	struct wire_pair *w = e->pair;
	struct wire_fifo *f = &w->fifo[e->side];
	uint64_t at = clk_now(w->clk) + w->cfg.delay_ns;
	uint16_t i;
	for (i = 0; i < n; i++) {
		if (f->count == f->cap) {
			/* A full wire behaves like a full tx ring: the caller keeps the
			 * tail, as rte_eth_tx_burst. */
			e->stats.drop_full += (uint64_t)(n - i);
			break;
		}
		struct wire_slot *s = &f->slot[(f->head + f->count) % f->cap];
		s->m = pkts[i];
		s->at = at;
		f->count++;
		e->stats.tx++;
	}
	return i;
}

static uint16_t wire_rx(struct dev *d, struct rte_mbuf **pkts, uint16_t n)
{
	struct wire_end *e = wire_end_of(d);
	struct wire_pair *w = e->pair;
	struct wire_fifo *f = &w->fifo[!e->side];
	uint64_t now = clk_now(w->clk);
	uint16_t k = 0;
	while (k < n && f->count && f->slot[f->head].at <= now) {
		pkts[k++] = f->slot[f->head].m;
		f->head = (f->head + 1) % f->cap;
		f->count--;
	}
	e->stats.rx += k;
	return k;
}

static void wire_caps(const struct dev *d, struct dev_caps *out)
{
	const struct wire_end *e = wire_end_of(d);
	memset(out, 0, sizeof(*out));
	out->mtu = e->pair->cfg.mtu;
	memcpy(out->mac, e->side ? e->pair->cfg.mac_b : e->pair->cfg.mac_a, 6);
}

static uint64_t wire_deadline(const struct dev *d)
{
	const struct wire_end *e = wire_end_of(d);
	const struct wire_fifo *f = &e->pair->fifo[!e->side];
	return f->count ? f->slot[f->head].at : UINT64_MAX;
}

static void wire_fifo_fini(struct wire_fifo *f)
{
	for (uint32_t i = 0; i < f->count; i++)
		rte_pktmbuf_free(f->slot[(f->head + i) % f->cap].m);
	free(f->slot);
}

static void wire_destroy(struct dev *d)
{
	struct wire_pair *w = wire_end_of(d)->pair;
	/* The pair is freed with its second endpoint. */
	if (--w->alive)
		return;
	wire_fifo_fini(&w->fifo[0]);
	wire_fifo_fini(&w->fifo[1]);
	free(w);
}

static const struct dev_ops wire_ops = {
    .rx_burst = wire_rx,
    .tx_burst = wire_tx,
    .caps = wire_caps,
    .destroy = wire_destroy,
    .next_deadline_ns = wire_deadline,
};

int dev_wire_pair_create_cfg(const struct dev_wire_config *cfg, const struct clk *clk,
			     struct dev **a, struct dev **b)
{
	static const uint8_t zero[6];
	if (!clk || !a || !b)
		return -EINVAL;
	struct wire_pair *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	if (cfg)
		w->cfg = *cfg;
	if (!w->cfg.mtu)
		w->cfg.mtu = 1500;
	if (!w->cfg.queue_len)
		w->cfg.queue_len = 1024;
	if (!memcmp(w->cfg.mac_a, zero, 6))
		memcpy(w->cfg.mac_a, (uint8_t[6]){0x02, 0, 0, 0, 0, 0x01}, 6);
	if (!memcmp(w->cfg.mac_b, zero, 6))
		memcpy(w->cfg.mac_b, (uint8_t[6]){0x02, 0, 0, 0, 0, 0x02}, 6);
	w->clk = clk;
	for (int i = 0; i < 2; i++) {
		w->fifo[i].cap = w->cfg.queue_len;
		w->fifo[i].slot = calloc(w->cfg.queue_len, sizeof(struct wire_slot));
		w->end[i].dev.ops = &wire_ops;
		w->end[i].pair = w;
		w->end[i].side = i;
	}
	if (!w->fifo[0].slot || !w->fifo[1].slot) {
		free(w->fifo[0].slot);
		free(w->fifo[1].slot);
		free(w);
		return -ENOMEM;
	}
	w->alive = 2;
	*a = &w->end[0].dev;
	*b = &w->end[1].dev;
	return 0;
}

int dev_wire_pair_create(const struct clk *clk, struct dev **a, struct dev **b)
{
	return dev_wire_pair_create_cfg(NULL, clk, a, b);
}

void dev_wire_stats(const struct dev *d, struct dev_wire_stats *out)
{
	*out = wire_end_of(d)->stats;
}
