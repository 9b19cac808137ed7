/* dsock: one application socket: its shared memory and eventfd, who holds
 * it, and its life from create to close; dsock_pump runs its pump
 * (stream.c, dgram.c), and an index the app wrote out of range resets the
 * connection (the app can only hurt its own sockets). */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <linux/kcmp.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "appport.h"
#include "skops.h"
#include "skopsd.h"

#define DSOCK_CLOSE_NS (10ull * 1000000000ull) /* a close's tx flush, at most */

/* The kernel's identity of an open file: kcmp(KCMP_FILE) on two fds of
 * our own needs no privilege, and orders files (0 the same, 1 a before b,
 * 2 after), so the sockets are kept sorted by it. Every eventfd shares one
 * anonymous inode, so fstat could not tell them apart. */
static int file_cmp(int a, int b, int *err)
{
	pid_t me = getpid();
	long r = syscall(SYS_kcmp, me, me, KCMP_FILE, a, b);
	if (r < 0)
		*err = -errno;
	return r == 0 ? 0 : r == 1 ? -1 : 1;
}

/* Where fd's file is or would go in d->byfile (lower bound); -errno when
 * kcmp fails */
static int file_index_at(struct skopsd *d, int fd)
{
	unsigned lo = 0, hi = d->nbyfile;
	int err = 0;
	while (lo < hi && !err) {
		unsigned mid = (lo + hi) / 2;
		if (file_cmp(d->socks[d->byfile[mid]]->efd, fd, &err) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return err ? err : (int)lo;
}

int dsock_find_file(struct skopsd *d, int fd)
{
	int at = file_index_at(d, fd);
	if (at < 0)
		return at;
	int err = 0;
	if ((unsigned)at < d->nbyfile && file_cmp(d->socks[d->byfile[at]]->efd, fd, &err) == 0 &&
	    !err)
		return d->byfile[at];
	return -ENOTSOCK;
}

/* A socket's shared memory, new: sealed before the app sees it (a shrink
 * of the shared file would make the daemon's next access a SIGBUS). */
static int shm_new(int *mfd, struct skp_shm **shm)
{
	*mfd = memfd_create("skops-sock", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (*mfd < 0 || ftruncate(*mfd, sizeof(struct skp_shm)) ||
	    fcntl(*mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		int e = -errno;
		if (*mfd >= 0)
			close(*mfd);
		return e;
	}
	*shm = mmap(NULL, sizeof(struct skp_shm), PROT_READ | PROT_WRITE, MAP_SHARED, *mfd, 0);
	if (*shm == MAP_FAILED) {
		int e = -errno;
		close(*mfd);
		return e;
	}
	return 0;
}

/* The pool (docs/skopsd.md "Reused memory"): a connection per request
 * made and unmade 512 KiB of shared memory each time, on both sides
 * (memfd_create, ftruncate, seals, mmap, the page faults, and an munmap
 * whose TLB shootdown reached the app's core). A freed socket's memory
 * goes back to the client that made it, only when no other process ever
 * held it: the creator may still have it mapped, nobody else does. */
static bool pool_take(struct client *cl, int *mfd, struct skp_shm **shm)
{
	if (!cl->npool)
		return false;
	struct pooled p = cl->pool[--cl->npool];
	*mfd = p.mfd;
	*shm = p.shm;
	/* the header and indices start over; the rings' old bytes are the
	 * same client's and never read before they are written */
	memset(*shm, 0, offsetof(struct skp_shm, txbuf));
	return true;
}

static bool pool_put(struct skopsd *d, struct dsock *s)
{
	struct client *cl = s->owner;
	if (!cl || s->shared || s->hostile || cl->npool == SKOPSD_POOL_CLIENT ||
	    d->npooled == SKOPSD_POOL_MAX)
		return false;
	cl->pool[cl->npool++] = (struct pooled){s->mfd, s->shm};
	d->npooled++;
	return true;
}

void dsock_pool_drop(struct skopsd *d, struct client *cl)
{
	for (unsigned i = 0; i < cl->npool; i++) {
		munmap(cl->pool[i].shm, sizeof(struct skp_shm));
		close(cl->pool[i].mfd);
	}
	d->npooled -= cl->npool;
	cl->npool = 0;
	for (unsigned i = 1; i < d->socks_hi; i++)
		if (d->socks[i] && d->socks[i]->owner == cl)
			d->socks[i]->owner = NULL;
}

int dsock_create(struct skopsd *d, struct client *cl, int sd, int family, int *memfd)
{
	unsigned id;
	for (id = 1; id < SKOPSD_MAX_SOCKS && d->socks[id]; id++)
		;
	if (id == SKOPSD_MAX_SOCKS)
		return -ENOBUFS;
	int q = quota_take(d, cl->req_uid, Q_SOCKS);
	if (q)
		return q;
	struct dsock *s = calloc(1, sizeof(*s));
	if (!s) {
		quota_put(d, cl->req_uid, Q_SOCKS);
		return -ENOMEM;
	}
	int mfd;
	if (!pool_take(cl, &mfd, &s->shm)) {
		int e = shm_new(&mfd, &s->shm);
		if (e) {
			free(s);
			quota_put(d, cl->req_uid, Q_SOCKS);
			return e;
		}
	} else {
		d->npooled--;
	}
	s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->efd < 0) {
		int e = -errno;
		munmap(s->shm, sizeof(struct skp_shm));
		close(mfd);
		free(s);
		quota_put(d, cl->req_uid, Q_SOCKS);
		return e;
	}
	int at = file_index_at(d, s->efd);
	if (at < 0) {
		munmap(s->shm, sizeof(struct skp_shm));
		close(s->efd);
		close(mfd);
		free(s);
		quota_put(d, cl->req_uid, Q_SOCKS);
		return at;
	}
	memmove(&d->byfile[at + 1], &d->byfile[at], (d->nbyfile - (unsigned)at) * sizeof(uint16_t));
	d->byfile[at] = (uint16_t)id;
	d->nbyfile++;
	s->shm->magic = SKP_MAGIC;
	atomic_store(&s->shm->dsleep, d->sleeping);
	s->mfd = mfd;
	s->uid = cl->req_uid;
	s->kfd[0] = s->kfd[1] = -1;
	s->pid = cl->pid;
	s->family = family;
	s->owner = cl;
	dsock_hold(s, cl, id);
	s->sd = sd;
	d->socks[id] = s;
	if (id >= d->socks_hi)
		d->socks_hi = id + 1;
	*memfd = mfd;
	return (int)id;
}

void dsock_hold(struct dsock *s, struct client *cl, unsigned id)
{
	if (client_holds(cl, id))
		return;
	if (cl != s->owner)
		s->shared = true;
	cl->holds[id / 64] |= 1ull << (id % 64);
	s->nhold++;
}

unsigned dsock_release(struct dsock *s, struct client *cl, unsigned id)
{
	if (client_holds(cl, id)) {
		cl->holds[id / 64] &= ~(1ull << (id % 64));
		s->nhold--;
	}
	return s->nhold;
}

void dsock_log(struct skopsd *d, unsigned id, const char *why)
{
	struct dsock *s = d->socks[id];
	struct skops_tcp_info ti;
	if (!d->verbose || s->sd < 0 || s->listening || !s->started ||
	    skops_tcp_info(d->st, s->sd, &ti))
		return;
	struct sockaddr_storage la, ra;
	socklen_t ll = sizeof(la), rl = sizeof(ra);
	if (!skops_getsockname(d->st, s->sd, (struct sockaddr *)&la, &ll))
		appport_sa_str(&la, s->lname, sizeof(s->lname));
	if (!skops_getpeername(d->st, s->sd, (struct sockaddr *)&ra, &rl))
		appport_sa_str(&ra, s->rname, sizeof(s->rname));
	const char *ls = s->lname[0] ? s->lname : "?", *rs = s->rname[0] ? s->rname : "?";
	fprintf(stderr,
		"skopsd: conn %s pid %d %s %s cgroup %s state %s cb_flags %u syn_wnd %u "
		"syn_rto_ms %u rto_ms %u cwnd %u cc %s sent %llu received %llu\n",
		why, (int)s->pid, ls, rs, ti.cgroup, ti.state_name, ti.cb_flags, ti.syn_wnd,
		ti.syn_rto_ms, ti.rto_ms, ti.cwnd, ti.cc, (unsigned long long)ti.bytes_sent,
		(unsigned long long)ti.bytes_received);
}

static void dsock_free(struct skopsd *d, unsigned id)
{
	struct dsock *s = d->socks[id];
	for (unsigned i = 0; i < d->nbyfile; i++) {
		if (d->byfile[i] == id) {
			memmove(&d->byfile[i], &d->byfile[i + 1],
				(d->nbyfile - i - 1) * sizeof(uint16_t));
			d->nbyfile--;
			break;
		}
	}
	quota_put_n(d, s->uid, Q_BUF_KB, s->buf_kb[0] + s->buf_kb[1]);
	quota_put(d, s->uid, Q_SOCKS);
	quota_put_n(d, s->uid, Q_PENDING, s->pending);
	d->freed++;
	kloop_close(d, s);
	if (!pool_put(d, s)) {
		munmap(s->shm, sizeof(struct skp_shm));
		close(s->mfd);
	}
	close(s->efd);
	free(s);
	d->socks[id] = NULL;
	while (d->socks_hi > 1 && !d->socks[d->socks_hi - 1])
		d->socks_hi--;
}

int dsock_pump(struct skopsd *d, unsigned id)
{
	struct dsock *s = d->socks[id];
	if (s->hostile && s->sd >= 0) {
		if (quota_note_ok(d))
			fprintf(stderr,
				"skopsd: pid %d: socket %u: its eventfd would block (O_NONBLOCK "
				"cleared on a full counter), reset\n",
				(int)s->pid, id);
		skops_abort(d->st, s->sd);
		s->sd = -1;
		wake_fail(s, ECONNRESET);
		if (s->closing)
			dsock_free(d, id);
		return 1;
	}
	if (s->sd < 0) /* reset for a bad index: waits for the app's close */
		return 0;
	if (s->dgram) {
		bool bad = false;
		int work = dgram_pump(d, s, &bad);
		if (bad) {
			if (quota_note_ok(d))
				fprintf(stderr,
					"skopsd: pid %d: socket %u: bad datagram ring, closed\n",
					(int)s->pid, id);
			skops_close(d->st, s->sd);
			s->sd = -1;
			wake_fail(s, ECONNRESET);
		}
		if (s->closing) {
			if (s->sd >= 0)
				skops_close(d->st, s->sd);
			dsock_free(d, id);
			return work + 1;
		}
		return work;
	}
	uint32_t ev = skops_events(d->st, s->sd);
	int work = 0;
	if (s->listening) {
		if (s->kbad) {
			if (quota_note_ok(d))
				fprintf(stderr,
					"skopsd: pid %d: socket %u: a loopback listener would "
					"block (O_NONBLOCK cleared), loopback dropped\n",
					(int)s->pid, id);
			kloop_close(d, s);
			s->kbad = false;
		}
		bool acc = (ev & SKOPS_EV_IN) || s->kpend;
		if (acc != s->acc_ready) {
			s->acc_ready = acc;
			if (acc)
				atomic_fetch_or(&s->shm->state, SKP_ST_ACCEPT);
			else
				atomic_fetch_and(&s->shm->state, ~SKP_ST_ACCEPT);
			if (acc)
				wake_app(s);
			work++;
		}
		return work;
	}
	/* a socket not yet connecting is CLOSED: its "EOF" is not one */
	if (!s->started)
		return 0;
	uint32_t st = atomic_load(&s->shm->state);
	if ((ev & SKOPS_EV_OUT) && !(st & SKP_ST_CONNECTED)) {
		atomic_fetch_or(&s->shm->state, SKP_ST_CONNECTED);
		wake_app(s);
		dsock_log(d, id, "established");
		work++;
	}
	bool bad = false;
	work += stream_pump(d, s, &bad);
	if (bad) {
		if (quota_note_ok(d))
			fprintf(stderr,
				"skopsd: pid %d: socket %u: ring index out of range, reset\n",
				(int)s->pid, id);
		skops_abort(d->st, s->sd);
		s->sd = -1;
		wake_fail(s, ECONNRESET);
		if (s->closing) {
			dsock_free(d, id);
			return 1;
		}
		return 1;
	}
	if (!s->err && (ev & SKOPS_EV_ERR)) {
		int e = 0;
		socklen_t l = sizeof(e);
		skops_getsockopt(d->st, s->sd, SOL_SOCKET, SO_ERROR, &e, &l);
		/* a reset after data: the data stays readable first (stream_pump ran) */
		wake_fail(s, e ? e : ECONNRESET);
		work++;
	}
	int used = skp_ring_used(atomic_load(&s->shm->tx.head), s->tx_tail);
	if (s->shut_wr_pending && used == 0) {
		s->shut_wr_pending = false;
		skops_shutdown(d->st, s->sd, SHUT_WR);
		atomic_fetch_or(&s->shm->state, SKP_ST_WRCLOSED);
	}
	if (s->closing && (used <= 0 || s->err || stack_now_ns(d->st) > s->close_deadline_ns)) {
		dsock_log(d, id, "closed");
		skops_close(d->st, s->sd);
		dsock_free(d, id);
		return work + 1;
	}
	return work;
}

/* Received bytes the app never took: left in the rx ring (a tail out of
 * range counts as unread) or still in the stack. */
static bool rx_unread(struct skopsd *d, struct dsock *s)
{
	uint32_t t = atomic_load_explicit(&s->shm->rx.tail, memory_order_acquire);
	if (skp_ring_check_tail(s->rx_head, s->rx_tail, t) || t != s->rx_head)
		return true;
	uint8_t b;
	return skops_recv(d->st, s->sd, &b, 1, MSG_PEEK) > 0;
}

void dsock_close(struct skopsd *d, unsigned id)
{
	struct dsock *s = d->socks[id];
	if (s->dgram) { /* what the app sent before the close still goes */
		s->closing = true;
		if (s->sd >= 0)
			dsock_pump(d, id); /* frees it */
		else
			dsock_free(d, id);
		return;
	}
	/* Linux tcp_close: SO_LINGER {1, 0}, or received data never read
	 * (RFC 9293 §3.10.4, RFC 2525 §2.17), resets instead of a FIN */
	if (s->sd >= 0 && !s->listening && s->started && (s->linger0 || rx_unread(d, s))) {
		dsock_log(d, id, "reset");
		skops_abort(d->st, s->sd);
		dsock_free(d, id);
		return;
	}
	if (s->listening || s->sd < 0 || !s->started) {
		if (s->sd >= 0)
			skops_close(d->st, s->sd);
		dsock_free(d, id);
		return;
	}
	s->closing = true;
	s->close_deadline_ns = stack_now_ns(d->st) + DSOCK_CLOSE_NS;
	dsock_pump(d, id);
}

void dsock_abort(struct skopsd *d, unsigned id)
{
	struct dsock *s = d->socks[id];
	if (s->sd >= 0) {
		if (!s->linger0)
			dsock_log(d, id, "aborted");
		skops_abort(d->st, s->sd);
	}
	dsock_free(d, id);
}
