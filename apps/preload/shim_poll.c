/* shim_poll: poll/select/epoll over kernel fds and skops sockets in one
 * kernel wait. A skops socket's fd is its eventfd: before a wait the shim
 * arms it (cleared, set again when the socket is ready for what is asked),
 * the daemon writes it on each change, and after the wait the shim reports
 * the socket's real readiness, dropping wake-ups that were not for the
 * caller and waiting again for the time left. */
/* both the plain and the 64-bit names are defined here (same ABI on 64-bit) */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "shim_entry.h"

#define EXPORT __attribute__((visibility("default")))

/* ns left until end (-1: forever) as a timespec for ppoll */
static const struct timespec *left(int64_t end, struct timespec *ts)
{
	if (end < 0)
		return NULL;
	int64_t l = end - shim_now_ns();
	if (l < 0)
		l = 0;
	ts->tv_sec = l / 1000000000;
	ts->tv_nsec = l % 1000000000;
	return ts;
}

static int poll_core(struct pollfd *fds, nfds_t n, int64_t end, const sigset_t *mask)
{
	bool any = false;
	for (nfds_t i = 0; i < n && !any; i++)
		any = shim_sock(fds[i].fd) != NULL;
	struct timespec ts;
	if (!any)
		return shim_real.ppoll(fds, n, left(end, &ts), mask);
	/* one more entry: the control connection, whose hang-up (the daemon
	 * died) makes every skops fd ready; its POLLIN (a reply another
	 * thread waits for) is not asked */
	struct pollfd *k = malloc((n + 1) * sizeof(*k));
	/* the sockets this wait counts itself a waiter of (shim_sleep_begin) */
	struct ssock **counted = calloc(n, sizeof(*counted));
	if (!k || !counted) {
		free(k);
		free(counted);
		errno = ENOMEM;
		return -1;
	}
	int ret;
	for (bool first = true;; first = false) {
		int ready = 0;
		for (nfds_t i = 0; i < n; i++) {
			struct ssock *s = shim_sock(fds[i].fd);
			k[i] = fds[i];
			if (!s)
				continue;
			short want = fds[i].events | POLLERR | POLLHUP;
			fds[i].revents = shim_ready(s) & want;
			if (!fds[i].revents) {
				shim_arm(fds[i].fd, s, fds[i].events, false);
				shim_sock_hold(s); /* a close in another thread waits for us */
				shim_sleep_begin(s);
				counted[i] = s;
			}
			fds[i].revents = shim_ready(s) & want;
			ready += fds[i].revents != 0;
			k[i].events = POLLIN;
			if (fds[i].revents)
				k[i].fd = -1; /* already known: only the kernel fds are asked */
		}
		struct timespec zero = {0, 0};
		k[n] = (struct pollfd){.fd = shim_ctl_live(), .events = POLLRDHUP};
		int r = shim_real.ppoll(k, n + 1, ready ? &zero : left(end, &ts), mask);
		for (nfds_t i = 0; i < n; i++)
			if (counted[i]) {
				shim_sleep_end(counted[i]);
				shim_sock_put(counted[i]);
				counted[i] = NULL;
			}
		if (r < 0) {
			ret = -1;
			break;
		}
		if (k[n].fd >= 0 && (k[n].revents & (POLLRDHUP | POLLHUP | POLLERR)))
			shim_ctl_hangup();
		int count = 0;
		for (nfds_t i = 0; i < n; i++) {
			struct ssock *s = shim_sock(fds[i].fd);
			if (s) {
				if (!fds[i].revents)
					fds[i].revents =
					    shim_ready(s) & (fds[i].events | POLLERR | POLLHUP);
			} else {
				fds[i].revents = k[i].revents;
			}
			count += fds[i].revents != 0;
		}
		if (count || (r == 0 && !first) || (end >= 0 && shim_now_ns() >= end)) {
			ret = count;
			break;
		}
	}
	free(k);
	free(counted);
	return ret;
}

EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	shim_init();
	return poll_core(fds, n, timeout < 0 ? -1 : shim_now_ns() + (int64_t)timeout * 1000000,
			 NULL);
}

EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen)
{
	(void)fdslen;
	return poll(fds, n, timeout);
}

EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo, const sigset_t *mask)
{
	shim_init();
	int64_t end = tmo ? shim_now_ns() + tmo->tv_sec * 1000000000LL + tmo->tv_nsec : -1;
	return poll_core(fds, n, end, mask);
}

static int select_core(int nfds, fd_set *r, fd_set *w, fd_set *x, int64_t end, const sigset_t *mask,
		       const struct timespec *tmo)
{
	bool any = false;
	for (int fd = 0; fd < nfds && fd < FD_SETSIZE && !any; fd++)
		any = ((r && FD_ISSET(fd, r)) || (w && FD_ISSET(fd, w))) && shim_sock(fd);
	if (!any)
		return shim_real.pselect(nfds, r, w, x, tmo, mask);
	struct pollfd *p = calloc((size_t)nfds, sizeof(*p));
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	nfds_t n = 0;
	for (int fd = 0; fd < nfds && fd < FD_SETSIZE; fd++) {
		short ev = (r && FD_ISSET(fd, r) ? POLLIN : 0) |
			   (w && FD_ISSET(fd, w) ? POLLOUT : 0) |
			   (x && FD_ISSET(fd, x) ? POLLPRI : 0);
		if (ev)
			p[n++] = (struct pollfd){.fd = fd, .events = ev};
	}
	int rc = poll_core(p, n, end, mask);
	if (rc >= 0) {
		rc = 0;
		if (r)
			FD_ZERO(r);
		if (w)
			FD_ZERO(w);
		if (x)
			FD_ZERO(x);
		for (nfds_t i = 0; i < n; i++) {
			short e = p[i].revents;
			if (e & POLLNVAL) {
				free(p);
				errno = EBADF;
				return -1;
			}
			if (r && (p[i].events & POLLIN) && (e & (POLLIN | POLLHUP | POLLERR))) {
				FD_SET(p[i].fd, r);
				rc++;
			}
			if (w && (p[i].events & POLLOUT) && (e & (POLLOUT | POLLERR))) {
				FD_SET(p[i].fd, w);
				rc++;
			}
			if (x && (p[i].events & POLLPRI) && (e & POLLPRI)) {
				FD_SET(p[i].fd, x);
				rc++;
			}
		}
	}
	free(p);
	return rc;
}

EXPORT int select(int nfds, fd_set *r, fd_set *w, fd_set *x, struct timeval *tv)
{
	shim_init();
	struct timespec ts, *tp = NULL;
	if (tv) {
		ts.tv_sec = tv->tv_sec;
		ts.tv_nsec = tv->tv_usec * 1000;
		tp = &ts;
	}
	int64_t end = tv ? shim_now_ns() + tv->tv_sec * 1000000000LL + tv->tv_usec * 1000LL : -1;
	return select_core(nfds, r, w, x, end, NULL, tp);
}

EXPORT int pselect(int nfds, fd_set *r, fd_set *w, fd_set *x, const struct timespec *tmo,
		   const sigset_t *mask)
{
	shim_init();
	int64_t end = tmo ? shim_now_ns() + tmo->tv_sec * 1000000000LL + tmo->tv_nsec : -1;
	return select_core(nfds, r, w, x, end, mask, tmo);
}

/* ---- epoll: skops fds are registered with a record of ours as data ---- */

struct ereg {
	struct ereg *next;
	int epfd, fd;
	struct ssock *s;
	uint32_t events;
	epoll_data_t data;
	/* edge-triggered: the socket's chg at the last look, and an edge
	 * not yet looked at (ADD, MOD, the daemon's death); one-shot: it
	 * fired, and sleeps until a MOD */
	uint32_t chg_seen;
	bool edge, off;
};

static pthread_mutex_t ep_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ereg *regs;
/* epoll data of the control connection in a set holding skops fds */
static char ctl_mark;

/* The daemon's death must wake a wait on the set: the control connection
 * joins it (once: EEXIST otherwise), one-shot, since after the hang-up it
 * would be ready for good and the sockets report the death themselves. */
static void watch_ctl(int epfd)
{
	int c = shim_ctl_live();
	struct epoll_event k = {.events = EPOLLRDHUP | EPOLLONESHOT, .data.ptr = &ctl_mark};
	if (c >= 0)
		(void)shim_real.epoll_ctl(epfd, EPOLL_CTL_ADD, c, &k);
}

static struct ereg **find(int epfd, int fd)
{
	struct ereg **p = &regs;
	while (*p && ((*p)->epfd != epfd || (*p)->fd != fd))
		p = &(*p)->next;
	return p;
}

/* The fd is about to close. Its placeholder's open file stays open in
 * skopsd, so closing the fd does not take it out of an epoll set as closing
 * the last reference would: the kernel would go on reporting it with our
 * record, freed here, as data (nginx, which closes without EPOLL_CTL_DEL,
 * took that for one of its connections and crashed). Remove it first. */
void shim_epoll_forget(int fd)
{
	pthread_mutex_lock(&ep_lock);
	for (struct ereg **p = &regs; *p;) {
		if ((*p)->fd == fd) {
			struct ereg *r = *p;
			*p = r->next;
			(void)shim_real.epoll_ctl(r->epfd, EPOLL_CTL_DEL, fd, NULL);
			free(r);
		} else {
			p = &(*p)->next;
		}
	}
	pthread_mutex_unlock(&ep_lock);
}

/* Every registration but an exclusive one is reported from the shared
 * memory (level, edge and one-shot alike); the kernel's set holds its
 * eventfd only to end a sleep, written while the wait counts itself a
 * waiter of the socket. EPOLLEXCLUSIVE asks the kernel to wake one of
 * several waiters, which only the kernel can choose: those keep the
 * eventfd's edges, written at every change (epoll_regs). */
static bool fast(uint32_t events)
{
	return !(events & EPOLLEXCLUSIVE);
}

EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	shim_init();
	struct ssock *s = shim_sock(fd);
	if (!s)
		return shim_real.epoll_ctl(epfd, op, fd, ev);
	pthread_mutex_lock(&ep_lock);
	struct ereg **p = find(epfd, fd), *r = *p;
	int rc;
	if (op == EPOLL_CTL_DEL) {
		rc = shim_real.epoll_ctl(epfd, op, fd, ev);
		if (r) {
			*p = r->next;
			free(r);
		}
	} else {
		bool add = op == EPOLL_CTL_ADD;
		if (add && !r)
			r = calloc(1, sizeof(*r));
		if (!r) {
			pthread_mutex_unlock(&ep_lock);
			errno = add ? ENOMEM : ENOENT;
			return -1;
		}
		/* a fast one's eventfd is edge-triggered in the kernel's set:
		 * each daemon write ends a sleep, and the count it leaves
		 * needs no read (a system call) before the next one */
		struct epoll_event k = {.events = EPOLLIN | EPOLLET, .data.ptr = r};
		if (!fast(ev->events))
			k.events =
			    EPOLLIN | (ev->events & (EPOLLET | EPOLLONESHOT | EPOLLEXCLUSIVE));
		rc = shim_real.epoll_ctl(epfd, op, fd, &k);
		if (rc && add && !*p) {
			free(r);
		} else if (!rc) {
			r->epfd = epfd;
			r->fd = fd;
			r->s = s;
			r->events = ev->events;
			r->data = ev->data;
			/* as the kernel's ep_insert/ep_modify: ready now is
			 * reported, edge or not */
			r->chg_seen = atomic_load_explicit(&s->shm->chg, memory_order_acquire);
			r->edge = true;
			r->off = false;
			if (add && !*p) {
				r->next = regs;
				regs = r;
			}
			if (!fast(ev->events)) {
				atomic_store(&s->shm->epoll_regs, 1);
				shim_arm(fd, s, (short)(ev->events & (EPOLLIN | EPOLLOUT)), true);
			}
			watch_ctl(epfd);
		}
	}
	pthread_mutex_unlock(&ep_lock);
	return rc;
}

static uint32_t reg_ready(const struct ereg *r)
{
	return (uint32_t)shim_ready(r->s) & (r->events | EPOLLERR | EPOLLHUP | EPOLLRDHUP);
}

/* What a fast registration reports now, taking its edge or its one shot
 * when it reports (ep_send_events: an edge-triggered item leaves the
 * ready list whether or not it was ready when looked at). */
static uint32_t reg_take(struct ereg *r)
{
	if (r->off)
		return 0;
	if (r->events & EPOLLET) {
		/* acquire: the change counted is visible with it */
		uint32_t c = atomic_load_explicit(&r->s->shm->chg, memory_order_acquire);
		if (c == r->chg_seen && !r->edge)
			return 0;
		r->chg_seen = c;
		r->edge = false;
	}
	uint32_t e = reg_ready(r);
	if (e && (r->events & EPOLLONESHOT))
		r->off = true;
	return e;
}

/* The fast registrations of epfd that report, into evs (up to max).
 * *any: epfd holds a skops fd. Called with ep_lock. */
static int ready_regs(int epfd, struct epoll_event *evs, int max, bool *any)
{
	int out = 0;
	*any = false;
	for (struct ereg *r = regs; r && out < max; r = r->next) {
		if (r->epfd != epfd)
			continue;
		*any = true;
		if (!fast(r->events))
			continue;
		uint32_t e = reg_take(r);
		if (e) {
			evs[out].events = e;
			evs[out].data = r->data;
			out++;
		}
	}
	for (struct ereg *r = regs; r && !*any; r = r->next)
		*any = r->epfd == epfd;
	return out;
}

/* Before a kernel wait on epfd: this wait counted a waiter of each fast
 * registration's socket (shim_sleep_begin: the daemon writes the eventfd,
 * an edge in the kernel's set, at each change until shim_sleep_end), the
 * sockets held into *held (*n of them; an array of the caller's to free
 * unless it is buf). NULL: out of memory. Called with ep_lock. */
static struct ssock **count_sleep(int epfd, struct ssock **buf, int room, int *n)
{
	int k = 0;
	for (struct ereg *r = regs; r; r = r->next)
		k += r->epfd == epfd && fast(r->events) && !r->off;
	struct ssock **held = k <= room ? buf : malloc((size_t)k * sizeof(*held));
	if (!held)
		return NULL;
	*n = 0;
	for (struct ereg *r = regs; r; r = r->next) {
		if (r->epfd != epfd || !fast(r->events) || r->off)
			continue;
		/* send space is asked for only where it is missing (tcp_poll's
		 * SOCK_NOSPACE), so a writable socket's drains wake nobody;
		 * edge-triggered ones get theirs from the send that found the
		 * ring full (shim_ask_out), as the kernel's EPOLLOUT edge */
		if ((r->events & (EPOLLOUT | EPOLLET)) == EPOLLOUT && !(shim_ready(r->s) & POLLOUT))
			shim_ask_out(r->s);
		shim_sock_hold(r->s); /* a close in another thread waits for us */
		shim_sleep_begin(r->s);
		held[(*n)++] = r->s;
	}
	return held;
}

static void uncount_sleep(struct ssock **held, int n, struct ssock **buf)
{
	for (int i = 0; i < n; i++) {
		shim_sleep_end(held[i]);
		shim_sock_put(held[i]);
	}
	if (held != buf)
		free(held);
}

/* The kernel's n events at evs[from..from+n) made the caller's, after the
 * out already there: exclusive skops registrations with their real
 * readiness, wake-ups of fast ones (reported from the shared memory) and
 * ones not for the caller dropped; *died: the daemon's connection hung
 * up. Called with ep_lock. */
static int kernel_events(struct epoll_event *evs, int out, int from, int n, bool any, bool *died)
{
	for (int i = from; i < from + n; i++) {
		if (evs[i].data.ptr == &ctl_mark) {
			*died = true;
			continue;
		}
		if (!any) {
			evs[out++] = evs[i];
			continue;
		}
		struct ereg *r = regs;
		while (r && (void *)r != evs[i].data.ptr)
			r = r->next;
		if (!r) {
			evs[out++] = evs[i];
			continue;
		}
		uint32_t e = fast(r->events) ? 0 : reg_ready(r);
		if (!e)
			continue;
		evs[out].events = e;
		evs[out].data = r->data;
		out++;
	}
	return out;
}

/* After a kernel wait on epfd: every skops fd of the set is ready once the
 * daemon died (shim_ready): an edge for each fast registration, and the
 * exclusive ones' eventfds set. Called with ep_lock. */
static void daemon_died(int epfd)
{
	shim_ctl_hangup();
	for (struct ereg *r = regs; r; r = r->next)
		if (r->epfd == epfd) {
			r->edge = true;
			if (!fast(r->events))
				shim_arm(r->fd, r->s, (short)(r->events & (EPOLLIN | EPOLLOUT)),
					 true);
		}
}

/* One look at epfd: the fast registrations that report, then what the
 * kernel has (kernel fds, exclusive skops registrations), waiting tmo ms
 * for it when nothing was found (with sleep: counted a waiter of each
 * fast registration's socket meanwhile). */
static int epoll_look(int epfd, struct epoll_event *evs, int max, bool sleep, int tmo,
		      const sigset_t *mask)
{
	bool any, died = false;
	struct ssock *buf[64], **held = NULL;
	int nheld = 0;
	pthread_mutex_lock(&ep_lock);
	if (sleep && !(held = count_sleep(epfd, buf, 64, &nheld))) {
		pthread_mutex_unlock(&ep_lock);
		errno = ENOMEM;
		return -1;
	}
	/* after the count: a change from here on writes the eventfd */
	int out = ready_regs(epfd, evs, max, &any);
	pthread_mutex_unlock(&ep_lock);
	if (out)
		tmo = 0;
	int n = out < max ? shim_real.epoll_pwait(epfd, evs + out, max - out, tmo, mask) : 0;
	if (held)
		uncount_sleep(held, nheld, buf);
	if (n < 0)
		return out ? out : -1;
	pthread_mutex_lock(&ep_lock);
	out = kernel_events(evs, out, out, n, any, &died);
	if (died)
		daemon_died(epfd);
	pthread_mutex_unlock(&ep_lock);
	return out;
}

static int epoll_core(int epfd, struct epoll_event *evs, int max, int64_t end, const sigset_t *mask)
{
	if (max <= 0) {
		errno = EINVAL;
		return -1;
	}
	/* SKOPS_POLL_USEC: look without sleeping first; the kernel's own fds
	 * are asked every 20 us of it (a system call each) */
	int64_t spin = shim_poll_ns(), now = shim_now_ns();
	if (spin && (end < 0 || end > now)) {
		int64_t until = now + spin, next_kernel = now;
		if (end >= 0 && end < until)
			until = end;
		for (unsigned i = 0;; i++) {
			int n;
			if (now >= next_kernel) {
				n = epoll_look(epfd, evs, max, false, 0, mask);
				next_kernel = now + 20000;
			} else {
				bool any;
				pthread_mutex_lock(&ep_lock);
				n = ready_regs(epfd, evs, max, &any);
				pthread_mutex_unlock(&ep_lock);
				if (!any)
					break; /* no skops fd: the kernel's wait alone */
			}
			if (n)
				return n;
			__builtin_ia32_pause();
			if (!(i & 15)) {
				if ((now = shim_now_ns()) >= until)
					break;
				sched_yield(); /* a daemon sharing our core: its turn */
			}
		}
	}
	for (;;) {
		int tmo = end < 0 ? -1 : (int)((end - shim_now_ns() + 999999) / 1000000);
		if (tmo < -1 || (end >= 0 && tmo < 0))
			tmo = 0;
		int n = epoll_look(epfd, evs, max, true, tmo, mask);
		if (n || (end >= 0 && shim_now_ns() >= end))
			return n;
	}
}

static int64_t end_of(int timeout)
{
	return timeout < 0 ? -1 : shim_now_ns() + (int64_t)timeout * 1000000;
}

EXPORT int epoll_wait(int epfd, struct epoll_event *evs, int max, int timeout)
{
	shim_init();
	return epoll_core(epfd, evs, max, end_of(timeout), NULL);
}

EXPORT int epoll_pwait(int epfd, struct epoll_event *evs, int max, int timeout,
		       const sigset_t *mask)
{
	shim_init();
	return epoll_core(epfd, evs, max, end_of(timeout), mask);
}

EXPORT int epoll_pwait2(int epfd, struct epoll_event *evs, int max, const struct timespec *tmo,
			const sigset_t *mask)
{
	shim_init();
	int64_t end = tmo ? shim_now_ns() + tmo->tv_sec * 1000000000LL + tmo->tv_nsec : -1;
	return epoll_core(epfd, evs, max, end, mask);
}
