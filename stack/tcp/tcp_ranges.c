/* tcp_ranges: what the SACK board, the out-of-order queue and RACK's
 * transmission record share: a search of sorted sequence ranges and arrays
 * taken on first use and doubled as they fill, up to a bound, so that an
 * idle connection holds none of them. */
#include <stdlib.h>

#include "tcp_int.h"

uint32_t tcp_ranges_first_after(const struct tcp_seq_range *b, uint32_t n, uint32_t seq)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (SEQ_GT(b[mid].r, seq))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

void *tcp_grow(void *p, uint32_t *cap, uint32_t want, uint32_t min, uint32_t max, size_t size)
{
	if (want <= *cap)
		return p;
	if (want > max)
		return NULL;
	uint32_t c = *cap ? *cap : min;
	while (c < want)
		c *= 2;
	if (c > max)
		c = max;
	void *q = realloc(p, (size_t)c * size);
	if (q)
		*cap = c;
	return q;
}
