/* net: the fragment queues behind IPv4 (RFC 791 §3.2) and IPv6 (RFC 8200
 * §4.5) reassembly: RFC 815's hole bookkeeping simplified to a list sorted by
 * offset, with limits in time, count and size. The family code parses its
 * headers and checks what is its own; this file keeps the queues. */
#include "net_int.h"

#include <string.h>

#include <rte_mbuf.h>

/* The per-family counters of one outcome. */
static uint64_t *frag_ok(struct net *n, uint8_t family)
{
	return family == AF_INET ? &n->st.ip4_reasm_ok : &n->st.ip6_reasm_ok;
}

static uint64_t *frag_drop(struct net *n, uint8_t family)
{
	return family == AF_INET ? &n->st.ip4_reasm_drop : &n->st.ip6_reasm_drop;
}

static void reasm_free(struct net *n, struct net_reasm *q)
{
	for (uint32_t i = 0; i < q->nfrags; i++)
		rte_pktmbuf_free(q->frags[i].m);
	n->frag_mem -= q->mem;
	memset(q, 0, sizeof(*q));
}

void net_reasm_fini(struct net *n)
{
	for (unsigned i = 0; i < NET_REASM_MAX; i++)
		if (n->reasm[i].used)
			reasm_free(n, &n->reasm[i]);
}

/* The incomplete datagram that waited longest, but keep (when not NULL). */
static struct net_reasm *reasm_oldest(struct net *n, const struct net_reasm *keep)
{
	struct net_reasm *o = NULL;
	for (unsigned i = 0; i < NET_REASM_MAX; i++) {
		struct net_reasm *q = &n->reasm[i];
		if (q->used && q != keep && (!o || q->created < o->created))
			o = q;
	}
	return o;
}

/* Gives up q for a newer datagram: no Time Exceeded, as Linux's eviction
 * (only the timer sends one). */
static void reasm_evict(struct net *n, struct net_reasm *q)
{
	n->st.reasm_evicted++;
	reasm_free(n, q);
}

/* RFC 8200 §4.5 (and RFC 1122 §3.3.2 for IPv4, a MAY Linux follows): Time
 * Exceeded code 1 to the source, only when the first fragment came, since
 * only it quotes the headers the source can match. */
static void reasm_expire(struct net *n, struct net_reasm *q)
{
	if (q->key.family == AF_INET)
		n->st.ip4_reasm_timeout++;
	else
		n->st.ip6_reasm_timeout++;
	struct net_frag *f = &q->frags[0];
	/* the headers are still in the headroom adj stepped over */
	if (q->nfrags && f->off == 0 && rte_pktmbuf_prepend(f->m, q->hdr_len)) {
		if (q->key.family == AF_INET)
			net_icmp4_error(n, f->m, ICMP_TIME_EXCEEDED, 1, 0);
		else
			net_icmp6_error(n, f->m, ICMP6_TIME_EXCEEDED, 1, 0);
	}
	reasm_free(n, q);
}

uint64_t net_reasm_timers(struct net *n)
{
	uint64_t next = UINT64_MAX;
	for (unsigned i = 0; i < NET_REASM_MAX; i++) {
		struct net_reasm *q = &n->reasm[i];
		if (q->used && q->expires <= n->now)
			reasm_expire(n, q);
		else if (q->used && q->expires < next)
			next = q->expires;
	}
	return next;
}

uint64_t net_reasm_deadline(const struct net *n)
{
	uint64_t d = UINT64_MAX;
	for (unsigned i = 0; i < NET_REASM_MAX; i++)
		if (n->reasm[i].used && n->reasm[i].expires < d)
			d = n->reasm[i].expires;
	return d;
}

/* Field by field: the struct's padding is not part of the key. */
static bool key_eq(const struct net_frag_key *a, const struct net_frag_key *b)
{
	return a->family == b->family && a->proto == b->proto && a->id == b->id &&
	       !memcmp(a->src, b->src, 16) && !memcmp(a->dst, b->dst, 16);
}

static struct net_reasm *reasm_find(struct net *n, const struct net_frag_key *k)
{
	struct net_reasm *free_slot = NULL;
	unsigned in_use = 0;
	for (unsigned i = 0; i < NET_REASM_MAX; i++) {
		struct net_reasm *e = &n->reasm[i];
		if (!e->used) {
			if (!free_slot)
				free_slot = e;
			continue;
		}
		in_use++;
		if (key_eq(&e->key, k))
			return e;
	}
	/* frag_max_datagrams counts both families: one budget. A new
	 * datagram displaces the oldest incomplete one rather than being
	 * refused (Linux evicts too): spoofed first fragments would otherwise
	 * hold every slot for the reassembly lifetime. */
	if (!free_slot || in_use >= n->cfg.frag_max_datagrams) {
		struct net_reasm *o = reasm_oldest(n, NULL);
		if (!o)
			return NULL;
		reasm_evict(n, o);
		free_slot = o;
	}
	free_slot->used = true;
	free_slot->created = n->now;
	free_slot->key = *k;
	uint32_t ms = k->family == AF_INET ? n->cfg.frag_timeout_ms : n->cfg.frag6_timeout_ms;
	free_slot->expires = n->now + ms * CLK_NS_PER_MS;
	net_timers_arm(n, free_slot->expires);
	return free_slot;
}

/* Joins the fragments of a complete queue into one chain. */
static struct rte_mbuf *reasm_join(struct net *n, struct net_reasm *q)
{
	struct rte_mbuf *head = q->frags[0].m;
	uint8_t family = q->key.family;
	for (uint32_t i = 1; i < q->nfrags; i++) {
		if (rte_pktmbuf_chain(head, q->frags[i].m)) {
			/* too many segments: what is not chained yet is freed
			 * with the queue, head with what it holds */
			memmove(&q->frags[0], &q->frags[i], (q->nfrags - i) * sizeof(q->frags[0]));
			q->nfrags -= i;
			rte_pktmbuf_free(head);
			reasm_free(n, q);
			(*frag_drop(n, family))++;
			return NULL;
		}
	}
	q->nfrags = 0;
	reasm_free(n, q);
	(*frag_ok(n, family))++;
	return head;
}

struct rte_mbuf *net_frag_add(struct net *n, const struct net_frag_key *k, struct rte_mbuf *m,
			      const struct net_frag_desc *d, uint8_t *nh_out)
{
	struct net_reasm *q = reasm_find(n, k);
	if (!q) {
		(*frag_drop(n, k->family))++;
		rte_pktmbuf_free(m);
		return NULL;
	}
	uint32_t off = d->off, len = d->len, end = off + len;
	/* every fragment but the last carries a multiple of 8 bytes */
	if ((d->more && (len % 8 || len == 0)) || end > n->cfg.frag_max_size ||
	    (q->total && (end > q->total || (!d->more && end != q->total))))
		goto drop_all;
	/* Where it goes in the list sorted by offset. An exact duplicate is
	 * ignored (RFC 8200 §4.5 allows it); any other overlap abandons the
	 * datagram (RFC 5722 for IPv6, and Linux since 4.19 for IPv4 as well:
	 * overlaps serve only to evade inspection). */
	uint32_t pos = 0;
	while (pos < q->nfrags && q->frags[pos].off < off)
		pos++;
	if (pos < q->nfrags && q->frags[pos].off == off && q->frags[pos].len == len) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	if ((pos > 0 && q->frags[pos - 1].off + q->frags[pos - 1].len > off) ||
	    (pos < q->nfrags && q->frags[pos].off < end) || q->nfrags == NET_REASM_FRAGS)
		goto drop_all;
	memmove(&q->frags[pos + 1], &q->frags[pos], (q->nfrags - pos) * sizeof(q->frags[0]));
	q->frags[pos] = (struct net_frag){.off = (uint16_t)off, .len = (uint16_t)len, .m = m};
	q->nfrags++;
	q->have += len;
	/* What the buffers cost, not the bytes they carry (Linux truesize):
	 * tiny fragments must not hold many buffers cheaply. */
	q->mem += m->buf_len;
	n->frag_mem += m->buf_len;
	if (n->frag_mem > n->cfg.frag_mem_max) {
		/* Linux ipfrag_high_thresh: evict the oldest down to 3/4 of it
		 * (ipfrag_low_thresh), this datagram last. */
		uint32_t low = n->cfg.frag_mem_max / 4 * 3;
		struct net_reasm *o;
		while (n->frag_mem > low && (o = reasm_oldest(n, q)))
			reasm_evict(n, o);
		if (n->frag_mem > n->cfg.frag_mem_max) {
			reasm_evict(n, q);
			return NULL;
		}
	}
	if (!d->more)
		q->total = end;
	if (off == 0) {
		q->nh = d->nh;
		q->hdr_len = d->hdr_len;
	}
	if (!q->total || q->have != q->total)
		return NULL;
	/* Complete: no overlaps and the byte count matches, so no holes. */
	if (nh_out)
		*nh_out = q->nh;
	return reasm_join(n, q);
drop_all:
	(*frag_drop(n, k->family))++;
	rte_pktmbuf_free(m);
	reasm_free(n, q);
	return NULL;
}
