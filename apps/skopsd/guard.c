/* guard: a bound on the system calls skopsd makes on files an application
 * shares with it (a socket's eventfd, a kernel loopback listener). O_NONBLOCK
 * belongs to the open file, which SCM_RIGHTS shares: an app that clears it
 * and fills the eventfd's counter, or drains its listener, would make the
 * daemon's write or accept sleep for good, and with it every other app.
 * Linux offers no per-call "do not wait" for either (pwritev2's RWF_NOWAIT
 * is EOPNOTSUPP on an eventfd), and neither file can be opened again as a
 * description of the daemon's own. So a watchdog thread interrupts the
 * daemon's thread when one guarded call has lasted a whole tick: the call
 * fails with EINTR (the handler has no SA_RESTART), and the caller takes the
 * file as hostile. The fast path costs two atomic increments. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "skopsd.h"

#define GUARD_TICK_NS 2000000L /* a guarded call lasts at most about two ticks */

static pthread_t main_thread;
static _Atomic uint64_t seq; /* odd while a guarded call runs */

static void on_guard(int sig)
{
	(void)sig; /* its arrival is the point: the call returns EINTR */
}

static void *watch(void *arg)
{
	(void)arg;
	uint64_t last = 0;
	for (;;) {
		struct timespec t = {0, GUARD_TICK_NS};
		nanosleep(&t, NULL);
		uint64_t s = atomic_load(&seq);
		/* the same call as a tick ago, still running */
		if ((s & 1) && s == last)
			pthread_kill(main_thread, SKOPSD_GUARD_SIG);
		last = s;
	}
	return NULL;
}

int guard_init(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_guard; /* no SA_RESTART: the blocked call fails */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SKOPSD_GUARD_SIG, &sa, NULL))
		return -errno;
	main_thread = pthread_self();
	/* the watchdog itself never takes the signal */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	int rc = pthread_create(&t, NULL, watch, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -rc;
	pthread_detach(t);
	return 0;
}

void guard_begin(void)
{
	atomic_fetch_add(&seq, 1);
}

void guard_end(void)
{
	atomic_fetch_add(&seq, 1);
}
