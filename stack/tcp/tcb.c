/* tcb: the connection pool (no allocation per packet or per connection after
 * tcp_create) and the byte rings behind send and receive buffers. Ring memory
 * is taken on first use and returned when the ring drains, so an idle
 * established connection costs its tcb only (the ≤ 2 KiB target).
 *
 * A busy connection drains its rings thousands of times a second. Handing
 * each buffer (a few hundred KiB) back to malloc made glibc return the top
 * of its heap to the kernel and fault fresh zeroed pages in on the next
 * segment: with 4 bulk flows a receiver spent half its time in brk and page
 * faults and moved 8x less than with one. Drained buffers therefore go to a
 * small per-stack cache first (TCP_RING_CACHE, the oldest freed when full),
 * which idle connections do not grow. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tcp_int.h"

/* A full pool ends the oldest-found orphaned TIME_WAIT connection to make
 * room, as Linux keeps no more than tcp_max_tw_buckets of them and closes
 * the rest at once: a connection rate above max_conns / 2 MSL (17k/s on a
 * 16k pool with a 1 s MSL) must not stop new connections. The search goes
 * round from where the last one stopped, so a pool of TIME_WAITs costs one
 * step per allocation. */
static struct tcb *tw_recycle(struct tcp *tcp)
{
	uint32_t n = tcp->cfg.max_conns;
	for (uint32_t i = 0; i < n; i++) {
		struct tcb *t = &tcp->pool[(tcp->tw_cursor + i) % n];
		if (t->tcp && t->state == TCP_TIME_WAIT && (t->flags & TCB_F_ORPHAN) &&
		    !t->parent) {
			tcp->tw_cursor = (tcp->tw_cursor + i + 1) % n;
			tcp->stats.tw_recycled++;
			tcp_done(tcp, t, 0);
			return tcp->free_list;
		}
	}
	return NULL;
}

struct tcb *tcb_alloc(struct tcp *tcp, int family)
{
	struct tcb *tcb = tcp->free_list;
	if (!tcb)
		tcb = tw_recycle(tcp);
	if (!tcb) {
		tcp->stats.pool_empty++;
		return NULL;
	}
	tcp->free_list = tcb->next;
	memset(tcb, 0, sizeof(*tcb));
	tcb->tcp = tcp;
	tcb->t.family = (uint8_t)family;
	tcb->sk_family = (uint8_t)family;
	tcb->sd = -1;
	tcb->state = TCP_CLOSED;
	tcp_pace_init(tcb);
	tcp_pathopt_init(tcp, tcb);
	tcp->nconn++;
	return tcb;
}

void tcb_free(struct tcp *tcp, struct tcb *tcb)
{
	ring_release(tcp, &tcb->snd, true);
	ring_release(tcp, &tcb->rcv, true);
	tcp_sb_free(tcb);
	free(tcb->saved_syn);
	tcp_so_syn_free(tcb);
	tcp_ooo_free(tcb);
	tcp_rack_free(tcb);
	memset(tcb, 0, sizeof(*tcb));
	tcb->next = tcp->free_list;
	tcp->free_list = tcb;
	tcp->nconn--;
}

/* A cached buffer of exactly cap bytes (a ring holds what its buffer size
 * asks, no more), else a new one; the newest first, its pages are warm. */
static uint8_t *buf_get(struct tcp *tcp, uint32_t cap)
{
	for (uint32_t i = tcp->ring_cache.n; i-- > 0;) {
		if (tcp->ring_cache.cap[i] != cap)
			continue;
		uint8_t *b = tcp->ring_cache.buf[i];
		uint32_t rest = --tcp->ring_cache.n - i;
		memmove(&tcp->ring_cache.buf[i], &tcp->ring_cache.buf[i + 1], rest * sizeof(b));
		memmove(&tcp->ring_cache.cap[i], &tcp->ring_cache.cap[i + 1], rest * sizeof(cap));
		return b;
	}
	return malloc(cap);
}

static void buf_put(struct tcp *tcp, uint8_t *b, uint32_t cap)
{
	if (!b)
		return;
	if (tcp->ring_cache.n == TCP_RING_CACHE) {
		free(tcp->ring_cache.buf[0]);
		uint32_t rest = --tcp->ring_cache.n;
		memmove(&tcp->ring_cache.buf[0], &tcp->ring_cache.buf[1], rest * sizeof(b));
		memmove(&tcp->ring_cache.cap[0], &tcp->ring_cache.cap[1], rest * sizeof(cap));
	}
	tcp->ring_cache.buf[tcp->ring_cache.n] = b;
	tcp->ring_cache.cap[tcp->ring_cache.n++] = cap;
}

void ring_cache_free(struct tcp *tcp)
{
	for (uint32_t i = 0; i < tcp->ring_cache.n; i++)
		free(tcp->ring_cache.buf[i]);
	tcp->ring_cache.n = 0;
}

int ring_reserve(struct tcp *tcp, struct tcp_ring *r, uint32_t cap)
{
	if (r->cap >= cap)
		return 0;
	uint8_t *nb = buf_get(tcp, cap);
	if (!nb)
		return -ENOMEM;
	/* Linearise the old memory at the start of the new, all of it: a
	 * receive ring also holds out-of-order bytes beyond len, at their
	 * offsets from head. */
	if (r->cap) {
		uint32_t first = r->cap - r->head;
		memcpy(nb, r->buf + r->head, first);
		memcpy(nb + first, r->buf, r->head);
	}
	buf_put(tcp, r->buf, r->cap);
	r->buf = nb;
	r->cap = cap;
	r->head = 0;
	return 0;
}

int ring_reserve_grow(struct tcp *tcp, struct tcp_ring *r, uint32_t cap, uint32_t max)
{
	if (r->cap >= cap)
		return 0;
	/* tcp_sndbuf_expand raises the buffer with each cwnd step: growing the
	 * ring to each new size copied the whole ring into fresh pages every
	 * time, a third of a jumbo-frame sender's time (docs/bench.md "Bulk
	 * over memif"). Doubling makes it a handful of copies. */
	uint64_t twice = 2ull * r->cap;
	if (r->cap && twice > cap)
		cap = (uint32_t)(twice < max ? twice : (max > cap ? max : cap));
	return ring_reserve(tcp, r, cap);
}

void ring_release(struct tcp *tcp, struct tcp_ring *r, bool force)
{
	if ((r->len == 0 || force) && r->buf) {
		buf_put(tcp, r->buf, r->cap);
		*r = (struct tcp_ring){0};
	}
}

/* Writes n bytes at offset off from head (within cap); len grows to cover
 * them only when they are contiguous with it (out-of-order bytes are placed
 * but not counted until the gap fills). */
uint32_t ring_write_at(struct tcp_ring *r, uint32_t off, const uint8_t *p, uint32_t n)
{
	if (off >= r->cap)
		return 0;
	if (n > r->cap - off)
		n = r->cap - off;
	uint32_t pos = (r->head + off) % r->cap;
	uint32_t first = r->cap - pos;
	if (first > n)
		first = n;
	memcpy(r->buf + pos, p, first);
	memcpy(r->buf, p + first, n - first);
	if (off <= r->len && off + n > r->len)
		r->len = off + n;
	tcp_check_ring(r);
	return n;
}

uint32_t ring_read(struct tcp_ring *r, uint8_t *p, uint32_t n, bool consume)
{
	if (n > r->len)
		n = r->len;
	if (n == 0)
		return 0;
	uint32_t first = r->cap - r->head;
	if (first > n)
		first = n;
	memcpy(p, r->buf + r->head, first);
	memcpy(p + first, r->buf, n - first);
	if (consume)
		ring_drop(r, n);
	return n;
}

void ring_drop(struct tcp_ring *r, uint32_t n)
{
	if (n > r->len)
		n = r->len;
	r->len -= n;
	/* head keeps moving even when empty: out-of-order bytes beyond len
	 * are placed relative to it */
	if (r->cap)
		r->head = (r->head + n) % r->cap;
}

void ring_iov(const struct tcp_ring *r, uint32_t off, uint32_t n, struct tcp_iov *iov)
{
	memset(iov, 0, sizeof(*iov));
	if (n == 0)
		return;
	TCP_INV(off + n <= r->len);
	uint32_t pos = (r->head + off) % r->cap;
	uint32_t first = r->cap - pos;
	if (first > n)
		first = n;
	iov->p[0] = r->buf + pos;
	iov->n[0] = first;
	if (n > first) {
		iov->p[1] = r->buf;
		iov->n[1] = n - first;
	}
}

/* ---- what the socket layer reads (tcp.h) ---- */

int tcp_tcb_sd(const struct tcb *tcb)
{
	return tcb->sd;
}

void tcp_tcb_set_sd(struct tcb *tcb, int sd)
{
	tcb->sd = sd;
}

enum tcp_state tcp_tcb_state(const struct tcb *tcb)
{
	return (enum tcp_state)tcb->state;
}

const struct tcp_tuple *tcp_tcb_tuple(const struct tcb *tcb)
{
	return &tcb->t;
}

int tcp_tcb_family(const struct tcb *tcb)
{
	return tcb->sk_family;
}

bool tcp_tcb_v6only(const struct tcb *tcb)
{
	return tcb->v6only;
}
