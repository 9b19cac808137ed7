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
 * file as hostile. The fast path costs two atomic increments and a load.
 * An idle daemon must not wake a core 500 times a second: after a second
 * without guarded calls the watchdog sleeps on a futex until the next one. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "skopsd.h"

#define GUARD_TICK_NS	 2000000L /* a guarded call lasts at most about two ticks */
#define GUARD_IDLE_TICKS 500	  /* a second without guarded calls: sleep */

static pthread_t main_thread;
static _Atomic uint32_t seq;  /* odd while a guarded call runs; a futex word */
static _Atomic bool sleeping; /* the watchdog waits on seq */

static void on_guard(int sig)
{
	(void)sig; /* its arrival is the point: the call returns EINTR */
}

static void *watch(void *arg)
{
	(void)arg;
	uint32_t last = 0;
	unsigned idle = 0;
	for (;;) {
		struct timespec t = {0, GUARD_TICK_NS};
		nanosleep(&t, NULL);
		uint32_t s = atomic_load(&seq);
		/* the same call as a tick ago, still running */
		if ((s & 1) && s == last)
			pthread_kill(main_thread, SKOPSD_GUARD_SIG);
		idle = s == last ? idle + 1 : 0;
		last = s;
		if (idle < GUARD_IDLE_TICKS || (s & 1))
			continue;
		/* Announce the sleep before the futex checks seq: a guard_begin
		 * either sees the flag and wakes us, or changed seq first and
		 * the wait returns at once. */
		atomic_store(&sleeping, true);
		syscall(SYS_futex, &seq, FUTEX_WAIT_PRIVATE, s, NULL, NULL, 0);
		atomic_store(&sleeping, false);
		idle = 0;
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
	if (atomic_load(&sleeping))
		syscall(SYS_futex, &seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void guard_end(void)
{
	atomic_fetch_add(&seq, 1);
}
