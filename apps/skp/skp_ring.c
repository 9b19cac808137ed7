/* skp_ring: the checks on indices read from the other side of a ring. */
#include <errno.h>
#include <string.h>

#include "skp_proto.h"

int skp_ring_used(uint32_t head, uint32_t tail)
{
	uint32_t used = head - tail;
	return used > SKP_RING_SIZE ? -EPROTO : (int)used;
}

int skp_ring_check_tail(uint32_t head, uint32_t old_tail, uint32_t new_tail)
{
	/* unsigned distances from old_tail: the consumer may only move
	 * forward, and not past what was produced */
	if (head - old_tail > SKP_RING_SIZE)
		return -EPROTO;
	return new_tail - old_tail <= head - old_tail ? 0 : -EPROTO;
}

uint32_t skp_ring_span(uint32_t idx, uint32_t n)
{
	uint32_t off = idx & (SKP_RING_SIZE - 1);
	uint32_t room = SKP_RING_SIZE - off;
	return n < room ? n : room;
}

void skp_ring_read(const uint8_t *ring, uint32_t idx, void *dst, uint32_t n)
{
	uint8_t *p = dst;
	while (n) {
		uint32_t k = skp_ring_span(idx, n);
		memcpy(p, ring + (idx & (SKP_RING_SIZE - 1)), k);
		p += k;
		idx += k;
		n -= k;
	}
}

void skp_ring_write(uint8_t *ring, uint32_t idx, const void *src, uint32_t n)
{
	const uint8_t *p = src;
	while (n) {
		uint32_t k = skp_ring_span(idx, n);
		memcpy(ring + (idx & (SKP_RING_SIZE - 1)), p, k);
		p += k;
		idx += k;
		n -= k;
	}
}
