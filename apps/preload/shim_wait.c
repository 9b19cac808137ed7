/* shim_wait: the bottom of the shim, with shim_ctl.c: a socket's
 * readiness as its shared memory says (stream and datagram rings), arming
 * its eventfd for a kernel wait, and blocking waits: a short spin, then
 * the kernel's poll on the socket's eventfd, so a blocked call holds no
 * core and signals interrupt it. Which signal interrupted a wait is the
 * signal wrappers' to say (shim_transport_up). */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <time.h>

#include "shim_transport.h"

#include <sched.h>
#include <stdlib.h>

/* How long a wait polls the shared memory before it sleeps in the kernel
 * (SKOPS_POLL_USEC, Onload's EF_POLL_USEC): a reply that lands within it
 * costs no wake-up, one that does not costs this much of a core. */
#define SHIM_POLL_USEC_DEFAULT 50
#define SHIM_POLL_USEC_MAX     1000000

static struct shim_up up; /* the layers above, set once at load */
static int64_t poll_ns = SHIM_POLL_USEC_DEFAULT * 1000;

void shim_wait_up(const struct shim_up *u)
{
	up = *u;
	const char *v = getenv("SKOPS_POLL_USEC");
	if (v && *v) {
		char *end;
		long us = strtol(v, &end, 10);
		if (*end || us < 0 || us > SHIM_POLL_USEC_MAX)
			fprintf(stderr, "skops: SKOPS_POLL_USEC=%s: not 0..%d, using %d\n", v,
				SHIM_POLL_USEC_MAX, SHIM_POLL_USEC_DEFAULT);
		else
			poll_ns = us * 1000;
	}
}

int64_t shim_poll_ns(void)
{
	return poll_ns;
}

int shim_dg_soft_err(struct ssock *s, bool take)
{
	uint32_t seq = atomic_load_explicit(&s->shm->err_seq, memory_order_acquire);
	if (seq == s->err_seen)
		return 0;
	if (take)
		s->err_seen = seq;
	return atomic_load(&s->shm->soft_err);
}

short shim_dg_ready(struct ssock *s, bool dead)
{
	struct skp_shm *m = s->shm;
	bool err = atomic_load(&m->state) & SKP_ST_ERR;
	bool soft = shim_dg_soft_err(s, false) != 0;
	short ev = 0;
	if (atomic_load_explicit(&m->rx.head, memory_order_acquire) != atomic_load(&m->rx.tail) ||
	    err || dead)
		ev |= POLLIN;
	uint32_t used =
	    atomic_load(&m->tx.head) - atomic_load_explicit(&m->tx.tail, memory_order_acquire);
	if (err || dead || (used <= SKP_RING_SIZE && SKP_RING_SIZE - used >= SKP_DGRAM_ROOM))
		ev |= POLLOUT;
	if (err || soft || dead)
		ev |= POLLERR;
	if (s->shut_rd) /* datagram_poll */
		ev |= POLLIN | POLLRDHUP;
	if (dead || (s->shut_rd && s->shut_wr))
		ev |= POLLHUP;
	return ev;
}

short shim_ready(struct ssock *s)
{
	struct skp_shm *m = s->shm;
	uint32_t st = atomic_load_explicit(&m->state, memory_order_acquire);
	bool dead = shim_daemon_dead();
	if (s->type == SOCK_DGRAM)
		return shim_dg_ready(s, dead);
	short ev = 0;
	if (atomic_load_explicit(&m->rx.head, memory_order_acquire) != atomic_load(&m->rx.tail) ||
	    (st & (SKP_ST_EOF | SKP_ST_ERR | SKP_ST_ACCEPT)) || dead)
		ev |= POLLIN;
	uint32_t used =
	    atomic_load(&m->tx.head) - atomic_load_explicit(&m->tx.tail, memory_order_acquire);
	if ((st & SKP_ST_ERR) || dead ||
	    ((st & SKP_ST_CONNECTED) && !(st & SKP_ST_WRCLOSED) && used < SKP_RING_SIZE))
		ev |= POLLOUT;
	if ((st & SKP_ST_ERR) || dead)
		ev |= POLLERR | POLLHUP;
	else if ((st & SKP_ST_EOF) && (st & SKP_ST_WRCLOSED))
		ev |= POLLHUP;
	if (st & SKP_ST_EOF)
		ev |= POLLRDHUP;
	return ev;
}

void shim_ask_out(struct ssock *s)
{
	/* an RMW, as the daemon's taking of the flag after it moved tx.tail:
	 * whichever comes second sees the other's (the caller looks at the
	 * ring again) */
	atomic_fetch_or(&s->shm->want, SKP_WANT_OUT);
}

void shim_arm(int fd, struct ssock *s, short want, bool rewrite)
{
	struct skp_shm *m = s->shm;
	uint64_t v;
	if (want & POLLOUT)
		atomic_fetch_or(&m->want, SKP_WANT_OUT);
	/* the placeholder is the daemon's eventfd, opened non-blocking; it
	 * holds a count only if a write came since our last read (wseq) */
	uint32_t w = atomic_load_explicit(&m->wseq, memory_order_relaxed);
	if (w != atomic_load_explicit(&s->wseq_seen, memory_order_relaxed)) {
		(void)!shim_real.read(fd, &v, sizeof(v));
		atomic_store_explicit(&s->wseq_seen, w, memory_order_relaxed);
	}
	if (rewrite && (shim_ready(s) & (want | POLLERR | POLLHUP))) {
		v = 1;
		(void)!shim_real.write(fd, &v, sizeof(v));
		atomic_fetch_add_explicit(&m->wseq, 1, memory_order_relaxed); /* after: wake.c */
	}
}

void shim_sleep_begin(struct ssock *s)
{
	/* the daemon writes the eventfd at each change while we count; what
	 * changed before this fence the caller's readiness check finds */
	atomic_fetch_add_explicit(&s->shm->waiters, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
}

void shim_sleep_end(struct ssock *s)
{
	atomic_fetch_sub_explicit(&s->shm->waiters, 1, memory_order_relaxed);
}

int shim_wait(int fd, struct ssock *s, short want, int timeout_ms)
{
	want |= POLLERR | POLLHUP;
	if (shim_ready(s) & want)
		return 0;
	if (poll_ns) {
		int64_t until = shim_now_ns() + poll_ns;
		for (unsigned i = 1;; i++) {
			if (shim_ready(s) & want)
				return 0;
			__builtin_ia32_pause();
			if (!(i & 63)) {
				if (shim_now_ns() >= until)
					break;
				/* a daemon sharing our core gets it for its turn:
				 * what we poll for is its work */
				sched_yield();
			}
		}
	}
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += timeout_ms / 1000;
	end.tv_nsec += (timeout_ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		if (up.sig_clear)
			up.sig_clear();
		struct timespec left, now, *tp = NULL;
		if (timeout_ms > 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			left.tv_sec = end.tv_sec - now.tv_sec;
			left.tv_nsec = end.tv_nsec - now.tv_nsec;
			if (left.tv_nsec < 0) {
				left.tv_sec--;
				left.tv_nsec += 1000000000L;
			}
			tp = &left;
		}
		shim_arm(fd, s, want, false);
		shim_sleep_begin(s);
		if (shim_ready(s) & want) {
			shim_sleep_end(s);
			return 0;
		}
		if (tp && left.tv_sec < 0) {
			shim_sleep_end(s);
			return -EAGAIN;
		}
		int ctl_fd = shim_ctl_fd();
		struct pollfd p[2] = {{.fd = fd, .events = POLLIN},
				      {.fd = ctl_fd, .events = POLLRDHUP}};
		int n = shim_real.ppoll(p, ctl_fd >= 0 ? 2 : 1, tp, NULL);
		shim_sleep_end(s);
		/* the kernel restarts an untimed socket wait for an SA_RESTART
		 * handler (sock_intr_errno), a timed one gives EINTR */
		if (n < 0 && errno == EINTR &&
		    (timeout_ms > 0 || !up.sig_restart || !up.sig_restart()))
			return -EINTR;
		if (n == 0)
			return -EAGAIN;
		if (n > 0 && (p[1].revents & (POLLHUP | POLLRDHUP | POLLERR)))
			shim_ctl_hangup();
	}
}

int shim_rx_block(int fd, struct ssock *s, int flags)
{
	if (shim_nonblock(s) || (flags & MSG_DONTWAIT))
		return -EAGAIN;
	pthread_mutex_unlock(&s->rx_lock);
	int rc = shim_wait(fd, s, POLLIN, s->rcvtimeo_ms);
	pthread_mutex_lock(&s->rx_lock);
	return rc;
}
