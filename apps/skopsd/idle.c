/* idle: how the poll loop sleeps without losing a wake-up. While it polls,
 * apps write their rings and nothing else: the loop finds the indices
 * moved. Before it sleeps it sets dsleep in every socket's shared memory,
 * fences, and polls once more; an app that moved an index after that
 * fence sees dsleep and kicks (its process's eventfd, in the loop's epoll
 * set). Called from the loop only, calling nothing of the other layers. */
#include "skopsd.h"

static void set_all(struct skopsd *d, uint32_t v)
{
	for (unsigned i = 1; i < d->socks_hi; i++)
		if (d->socks[i])
			atomic_store_explicit(&d->socks[i]->shm->dsleep, v, memory_order_relaxed);
}

void idle_sleep_begin(struct skopsd *d)
{
	if (d->sleeping)
		return;
	d->sleeping = true;
	set_all(d, 1);
	atomic_thread_fence(memory_order_seq_cst);
}

void idle_sleep_end(struct skopsd *d)
{
	if (!d->sleeping)
		return;
	d->sleeping = false;
	set_all(d, 0);
}
