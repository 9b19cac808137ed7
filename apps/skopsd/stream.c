/* stream: a TCP socket's bytes between its rings and the stack, both
 * ways; every index read from the app is checked (skp_ring_*). dsock.c
 * decides what a bad one costs. */
#include <errno.h>
#include <sys/socket.h>

#include "skops.h"
#include "skopsd.h"

/* The app's bytes into the stack. */
static int pump_tx(struct skopsd *d, struct dsock *s, bool *bad)
{
	int used =
	    skp_ring_used(atomic_load_explicit(&s->shm->tx.head, memory_order_acquire), s->tx_tail);
	if (used < 0) {
		*bad = true;
		return 0;
	}
	int work = 0;
	while (used > 0 && !s->err) {
		uint32_t n = skp_ring_span(s->tx_tail, (uint32_t)used);
		ssize_t w = skops_send(d->st, s->sd,
				       s->shm->txbuf + (s->tx_tail & (SKP_RING_SIZE - 1)), n, 0);
		if (w <= 0) {
			if (w != -EAGAIN && w != -ENOTCONN)
				wake_fail(s, (int)-w);
			break;
		}
		s->tx_tail += (uint32_t)w;
		used -= (int)w;
		work += (int)w;
	}
	if (work) {
		atomic_store_explicit(&s->shm->tx.tail, s->tx_tail, memory_order_release);
		wake_tx(s);
	}
	return work;
}

/* The stack's bytes into the app's ring. */
static int pump_rx(struct skopsd *d, struct dsock *s, bool *bad)
{
	uint32_t t = atomic_load_explicit(&s->shm->rx.tail, memory_order_acquire);
	if (skp_ring_check_tail(s->rx_head, s->rx_tail, t)) {
		*bad = true;
		return 0;
	}
	s->rx_tail = t;
	int work = 0;
	while (!s->eof && !s->err) {
		uint32_t room = SKP_RING_SIZE - (s->rx_head - s->rx_tail);
		if (!room) {
			atomic_store(&s->shm->rx_full, 1);
			break;
		}
		uint32_t n = skp_ring_span(s->rx_head, room);
		ssize_t r = skops_recv(d->st, s->sd,
				       s->shm->rxbuf + (s->rx_head & (SKP_RING_SIZE - 1)), n, 0);
		if (r == -EAGAIN || r == -ENOTCONN)
			break;
		if (r < 0) {
			wake_fail(s, (int)-r);
			break;
		}
		if (r == 0) {
			s->eof = true;
			atomic_fetch_or(&s->shm->state, SKP_ST_EOF);
			work++;
			break;
		}
		s->rx_head += (uint32_t)r;
		work += (int)r;
	}
	if (work) {
		atomic_store_explicit(&s->shm->rx.head, s->rx_head, memory_order_release);
		wake_app(s);
	}
	return work;
}

int stream_pump(struct skopsd *d, struct dsock *s, bool *bad)
{
	int work = pump_tx(d, s, bad);
	/* closed: what arrives now stays in the stack, where skops_close finds
	 * it unread and resets (as data after a kernel close) */
	if (!s->closing)
		work += pump_rx(d, s, bad);
	return work;
}
