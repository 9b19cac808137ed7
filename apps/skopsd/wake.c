/* wake: what tells the app a socket changed: its eventfd, written under
 * the guard, and a failure published in the shared memory. The bottom of
 * skopsd's socket layers: the pumps and the socket objects call it, it
 * calls nothing of theirs. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "skopsd.h"

/* The eventfd's open file is the app's too: a full counter is "already
 * signalled" (EAGAIN) while it is non-blocking; a write that would sleep
 * (the app cleared O_NONBLOCK) is cut short by the guard and the socket is
 * never written again (dsock_pump resets it). */
void wake_app(struct dsock *s)
{
	uint64_t one = 1;
	/* the change is an edge for edge-triggered epoll registrations,
	 * which look at the shared memory and need no write while awake;
	 * after what the caller published (release) */
	atomic_fetch_add_explicit(&s->shm->chg, 1, memory_order_release);
	if (s->hostile)
		return;
	/* only where a waiter may sleep (skp_proto.h): the change the caller
	 * published before this fence is what a waiter that counted itself
	 * after it finds by itself */
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load_explicit(&s->shm->epoll_regs, memory_order_relaxed) &&
	    !atomic_load_explicit(&s->shm->waiters, memory_order_relaxed))
		return;
	guard_begin();
	ssize_t w = write(s->efd, &one, sizeof(one));
	int e = errno;
	guard_end();
	/* after the write: a waiter that saw the old count before our write
	 * reads the eventfd at its next arm; one bumped before the write could
	 * be taken as read while the count was still to come */
	atomic_fetch_add_explicit(&s->shm->wseq, 1, memory_order_relaxed);
	if (w < 0 && e == EINTR)
		s->hostile = true;
	else if (w < 0 && e != EAGAIN)
		perror("skopsd: eventfd");
}

/* The app's tx ring has room again: a wake-up only for who asked (a wait
 * for POLLOUT, a send that found the ring full), once. */
void wake_tx(struct dsock *s)
{
	if (atomic_fetch_and(&s->shm->want, ~SKP_WANT_OUT) & SKP_WANT_OUT)
		wake_app(s);
}

/* The connection failed with err: the app sees SKP_ST_ERR and err once. */
void wake_fail(struct dsock *s, int err)
{
	if (s->err)
		return;
	s->err = true;
	atomic_store(&s->shm->err, err);
	atomic_fetch_or(&s->shm->state, SKP_ST_ERR);
	wake_app(s);
}
