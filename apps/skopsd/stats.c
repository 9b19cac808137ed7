/* stats: what skopsd holds now, one line on stderr per SIGUSR1, so a test
 * (or an operator) can tell a leak from a load: the clients, sockets, fork
 * tickets and quota use it keeps, and the mbufs out of the port's pool
 * (each one a buffer some connection, ring or queue still holds), and the
 * heap in use (malloc's, every arena: RSS also counts the pool's pages
 * once touched, which a load peak leaves resident without a leak) with
 * the part of it the stack's buffer cache holds. */
#include <malloc.h>
#include <stdio.h>

#include <rte_mempool.h>

#include "skops.h"
#include "skopsd.h"

void stats_dump(struct skopsd *d, unsigned seq)
{
	unsigned clients = 0, socks = 0, listening = 0, tickets = 0;
	struct mallinfo2 mi = mallinfo2();
	struct skops_tcp_counters tc;
	if (skops_tcp_counters(d->st, &tc))
		tc.ring_cache_bytes = 0;
	for (unsigned i = 0; i < SKOPSD_MAX_CLIENTS; i++)
		clients += d->clients[i] != NULL;
	for (unsigned i = 1; i < SKOPSD_MAX_SOCKS; i++)
		if (d->socks[i]) {
			socks++;
			listening += d->socks[i]->listening;
		}
	for (unsigned i = 0; i < SKOPSD_MAX_TICKETS; i++)
		tickets += d->tickets[i] != NULL;
	fprintf(stderr,
		"skopsd: stats %u: clients %u sockets %u listening %u tickets %u uids %u "
		"quota_socks %u quota_clients %u quota_tickets %u quota_buf_kb %u quota_pending %u "
		"mbufs %u heap_kb %zu ring_cache_kb %llu\n",
		seq, clients, socks, listening, tickets, d->nuids, d->used.n[Q_SOCKS],
		d->used.n[Q_CLIENTS], d->used.n[Q_TICKETS], d->used.n[Q_BUF_KB],
		d->used.n[Q_PENDING], d->pool ? rte_mempool_in_use_count(d->pool) : 0,
		(mi.uordblks + mi.hblkhd) / 1024, (unsigned long long)tc.ring_cache_bytes / 1024);
}
