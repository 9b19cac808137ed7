/* skopsd's ring checks against a hostile application: the index checks
 * alone (wrap-around at 2^32 included), then a real connection between two
 * stacks where the application side is a dsock whose shared memory the
 * test writes as an app would, honest first, then with indices out of
 * range: the daemon must reset that connection (the peer sees the reset)
 * and never read or write outside the rings. Datagram sockets: records
 * (struct skp_dgram) both ways, and hostile ones fail the socket before a
 * byte of them is used. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "../../sim/sim_harness.h"
#include "skopsd.h"

START_TEST(ring_used_bounds)
{
	ck_assert_int_eq(skp_ring_used(100, 100), 0);
	ck_assert_int_eq(skp_ring_used(100 + SKP_RING_SIZE, 100), (int)SKP_RING_SIZE);
	ck_assert_int_eq(skp_ring_used(100 + SKP_RING_SIZE + 1, 100), -EPROTO);
	ck_assert_int_eq(skp_ring_used(99, 100), -EPROTO);	/* head behind tail */
	ck_assert_int_eq(skp_ring_used(5, UINT32_MAX - 4), 10); /* across 2^32 */
	ck_assert_int_eq(skp_ring_used(UINT32_MAX, 0), -EPROTO);
}
END_TEST

START_TEST(ring_tail_bounds)
{
	/* ours: head 1000; the app last said 400 */
	ck_assert_int_eq(skp_ring_check_tail(1000, 400, 400), 0);
	ck_assert_int_eq(skp_ring_check_tail(1000, 400, 1000), 0);
	ck_assert_int_eq(skp_ring_check_tail(1000, 400, 1001), -EPROTO); /* past head */
	ck_assert_int_eq(skp_ring_check_tail(1000, 400, 399), -EPROTO);	 /* backwards */
	ck_assert_int_eq(skp_ring_check_tail(1000, 400, 400 + (1u << 31)), -EPROTO);
	ck_assert_int_eq(skp_ring_check_tail(3, UINT32_MAX - 2, 1), 0); /* across 2^32 */
	ck_assert_int_eq(skp_ring_check_tail(3, UINT32_MAX - 2, 4), -EPROTO);
	ck_assert_uint_eq(skp_ring_span(SKP_RING_SIZE - 10, 100), 10);
	ck_assert_uint_eq(skp_ring_span(3 * SKP_RING_SIZE + 5, 100), 100);
}
END_TEST

static struct sim S;
static struct skopsd D;
static struct client CL = {.pid = 1};
static int peer;    /* the accepted connection on stack b */
static unsigned id; /* the dsock on stack a */

static void run_ms(uint64_t ms)
{
	uint64_t end = S.now + ms * 1000000ull;
	for (int i = 0; i < 200000 && S.now < end; i++) {
		/* the daemon's work first: the clock moves only when all are idle */
		if (D.socks[id] && dsock_pump(&D, id) > 0) {
			stack_poll(S.a);
			stack_poll(S.b);
			continue;
		}
		if (!sim_step(&S))
			S.now = end;
	}
}

static void setup(void)
{
	ck_assert_int_eq(sim_create(&S, "skp", 7, NULL, 16, 0, false), 0);
	memset(&D, 0, sizeof(D));
	D.st = S.a;
	int l = skops_socket(S.b, AF_INET, SOCK_STREAM);
	struct sockaddr_in sin = sim_sin(S.b4, 7000);
	ck_assert_int_eq(skops_bind(S.b, l, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(skops_listen(S.b, l, 4), 0);
	int sd = skops_socket(S.a, AF_INET, SOCK_STREAM);
	int memfd;
	int rc = dsock_create(&D, &CL, sd, AF_INET, &memfd);
	ck_assert_int_gt(rc, 0);
	id = (unsigned)rc; /* memfd is the daemon's own, closed when the socket is freed */
	D.socks[id]->started = true;
	rc = skops_connect(S.a, sd, (struct sockaddr *)&sin, sizeof(sin));
	ck_assert(rc == 0 || rc == -EINPROGRESS);
	run_ms(50);
	peer = skops_accept(S.b, l, NULL, NULL);
	ck_assert_int_ge(peer, 0);
	ck_assert(atomic_load(&D.socks[id]->shm->state) & SKP_ST_CONNECTED);
	skops_close(S.b, l);
}

static void teardown(void)
{
	if (D.socks[id])
		dsock_abort(&D, id);
	dsock_pool_drop(&D, &CL); /* CL outlives D's reset in setup */
	sim_destroy(&S, false);
}

/* The app queues n bytes of c at its head, as the shim does. */
static void app_send(struct skp_shm *m, uint32_t n, char c)
{
	uint32_t h = atomic_load(&m->tx.head);
	for (uint32_t i = 0; i < n; i++)
		m->txbuf[(h + i) & (SKP_RING_SIZE - 1)] = (uint8_t)c;
	atomic_store(&m->tx.head, h + n);
}

static bool peer_reset(void)
{
	char b[4096];
	ssize_t r;
	/* what arrived before the reset is read first */
	for (int i = 0; i < 64 && (r = skops_recv(S.b, peer, b, sizeof(b), 0)) > 0; i++)
		;
	return r == -ECONNRESET;
}

START_TEST(honest_app_moves_data)
{
	struct skp_shm *m = D.socks[id]->shm;
	app_send(m, 3000, 'x');
	run_ms(50);
	char b[4096];
	ck_assert_int_eq(skops_recv(S.b, peer, b, sizeof(b), 0), 3000);
	ck_assert_uint_eq(atomic_load(&m->tx.tail), 3000);
	ck_assert_int_eq(skops_send(S.b, peer, "hello", 5, 0), 5);
	run_ms(50);
	ck_assert_uint_eq(atomic_load(&m->rx.head), 5);
	ck_assert_mem_eq(m->rxbuf, "hello", 5);
	atomic_store(&m->rx.tail, 5); /* consumed */
	ck_assert_int_eq(skops_send(S.b, peer, "again", 5, 0), 5);
	run_ms(50);
	ck_assert_uint_eq(atomic_load(&m->rx.head), 10);
	ck_assert(!(atomic_load(&m->state) & SKP_ST_ERR));
}
END_TEST

START_TEST(tx_head_past_ring_resets)
{
	struct skp_shm *m = D.socks[id]->shm;
	app_send(m, 100, 'a');
	run_ms(20);
	/* head claims more than the ring can hold */
	atomic_store(&m->tx.head, atomic_load(&m->tx.tail) + SKP_RING_SIZE + 1 + _i * 1000000u);
	run_ms(50);
	ck_assert(atomic_load(&m->state) & SKP_ST_ERR);
	ck_assert_int_eq(atomic_load(&m->err), ECONNRESET);
	ck_assert_uint_eq(atomic_load(&m->tx.tail), 100); /* nothing more was read */
	ck_assert(peer_reset());
}
END_TEST

START_TEST(rx_tail_out_of_range_resets)
{
	struct skp_shm *m = D.socks[id]->shm;
	ck_assert_int_eq(skops_send(S.b, peer, "0123456789", 10, 0), 10);
	run_ms(50);
	ck_assert_uint_eq(atomic_load(&m->rx.head), 10);
	/* 0: past what was written; 1: backwards after consuming */
	if (_i == 0) {
		atomic_store(&m->rx.tail, 11);
	} else {
		atomic_store(&m->rx.tail, 10);
		run_ms(10);
		atomic_store(&m->rx.tail, 2);
	}
	ck_assert_int_eq(skops_send(S.b, peer, "more", 4, 0), 4);
	run_ms(50);
	ck_assert(atomic_load(&m->state) & SKP_ST_ERR);
	ck_assert_uint_eq(atomic_load(&m->rx.head), 10); /* no byte written after */
	ck_assert(peer_reset());
}
END_TEST

/* ---- datagram sockets: records in the rings ---- */

static int ub; /* stack b's UDP socket, port 7100 */

/* ADOPT: only the daemon's own eventfd (the same open file, a dup of it
 * as an inherited fd is) names the socket; another eventfd, even one with
 * the same counter, or a non-eventfd names none */
START_TEST(find_file_by_identity)
{
	int dup_fd = dup(D.socks[id]->efd);
	ck_assert_int_ge(dup_fd, 0);
	ck_assert_int_eq(dsock_find_file(&D, dup_fd), (int)id);
	int other = eventfd(0, EFD_NONBLOCK);
	ck_assert_int_ge(other, 0);
	ck_assert_int_eq(dsock_find_file(&D, other), -ENOTSOCK);
	ck_assert_int_eq(dsock_find_file(&D, 0), -ENOTSOCK);
	close(other);
	close(dup_fd);
}
END_TEST

/* ADOPT's index (sorted by kcmp): among many sockets each is found by a
 * dup of its eventfd, also after others were freed; a freed one is not */
START_TEST(find_file_among_many)
{
	unsigned ids[40];
	int dups[40];
	for (int i = 0; i < 40; i++) {
		int sd = skops_socket(S.a, AF_INET, SOCK_STREAM), memfd;
		int rc = dsock_create(&D, &CL, sd, AF_INET, &memfd); /* memfd: the daemon's */
		ck_assert_int_gt(rc, 0);
		ids[i] = (unsigned)rc;
		dups[i] = dup(D.socks[rc]->efd);
	}
	for (int i = 0; i < 40; i++)
		ck_assert_int_eq(dsock_find_file(&D, dups[i]), (int)ids[i]);
	for (int i = 0; i < 40; i += 2)
		dsock_abort(&D, ids[i]);
	for (int i = 0; i < 40; i++)
		ck_assert_int_eq(dsock_find_file(&D, dups[i]), i % 2 ? (int)ids[i] : -ENOTSOCK);
	ck_assert_int_eq(dsock_find_file(&D, dup(D.socks[id]->efd)), (int)id);
	for (int i = 0; i < 40; i++) {
		if (i % 2)
			dsock_abort(&D, ids[i]);
		close(dups[i]);
	}
	ck_assert_uint_eq(D.nbyfile, 1);
}
END_TEST

/* The memfd the app maps cannot be shrunk (a SIGBUS in the daemon) */
START_TEST(memfd_sealed)
{
	int fd = D.socks[id]->mfd;
	int seals = fcntl(fd, F_GET_SEALS);
	ck_assert_int_eq(seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
			 F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	ck_assert_int_eq(ftruncate(fd, 0), -1);
	ck_assert_int_eq(errno, EPERM);
	ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, 0), -1);
}
END_TEST

/* The app clears O_NONBLOCK on the shared eventfd, fills its counter and
 * says a thread waits (so the daemon writes): the daemon's wake returns
 * within the guard's bound and the socket is reset, never written again */
/* Nobody sleeps on the socket: the daemon's change makes no write (the
 * app polling its rings finds it); a counted waiter or an epoll
 * registration gets one at each change, and wseq counts them. */
/* A freed socket's shared memory goes back to its creator only: its next
 * socket gets the same file with the header and indices reset, another
 * client a new one; a socket another process held is never reused; a
 * client that goes takes its pool with it. */
START_TEST(pool_reuse_own_only)
{
	static struct client other = {.pid = 2};
	struct stat a, b;
	int sd = skops_socket(S.a, AF_INET, SOCK_STREAM), memfd;
	int x = dsock_create(&D, &CL, sd, AF_INET, &memfd);
	ck_assert_int_gt(x, 0);
	ck_assert_int_eq(fstat(D.socks[x]->mfd, &a), 0);
	atomic_store(&D.socks[x]->shm->tx.head, 77);
	atomic_store(&D.socks[x]->shm->state, SKP_ST_ERR);
	dsock_abort(&D, (unsigned)x);
	ck_assert_uint_eq(CL.npool, 1);
	int y = dsock_create(&D, &other, skops_socket(S.a, AF_INET, SOCK_STREAM), AF_INET, &memfd);
	ck_assert_int_gt(y, 0);
	ck_assert_int_eq(fstat(D.socks[y]->mfd, &b), 0);
	ck_assert(a.st_ino != b.st_ino);
	int z = dsock_create(&D, &CL, skops_socket(S.a, AF_INET, SOCK_STREAM), AF_INET, &memfd);
	ck_assert_int_gt(z, 0);
	ck_assert_uint_eq(CL.npool, 0);
	ck_assert_int_eq(fstat(D.socks[z]->mfd, &b), 0);
	ck_assert(a.st_ino == b.st_ino);
	ck_assert_uint_eq(atomic_load(&D.socks[z]->shm->tx.head), 0);
	ck_assert_uint_eq(atomic_load(&D.socks[z]->shm->state), 0);
	ck_assert_uint_eq(D.socks[z]->shm->magic, SKP_MAGIC);
	dsock_hold(D.socks[z], &other, (unsigned)z); /* a fork's child, say */
	dsock_abort(&D, (unsigned)z);
	ck_assert_uint_eq(CL.npool, 0);
	dsock_abort(&D, (unsigned)y);
	ck_assert_uint_eq(other.npool, 1);
	dsock_pool_drop(&D, &other);
	ck_assert_uint_eq(other.npool, 0);
	ck_assert_uint_eq(D.npooled, 0);
}
END_TEST

START_TEST(wake_only_sleepers)
{
	struct dsock *s = D.socks[id];
	int efd = s->efd;
	uint64_t v;
	(void)!read(efd, &v, sizeof(v));
	uint32_t seq = atomic_load(&s->shm->wseq), chg = atomic_load(&s->shm->chg);
	wake_app(s);
	ck_assert_int_eq(read(efd, &v, sizeof(v)), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_uint_eq(atomic_load(&s->shm->wseq), seq);
	/* unwritten, the change still counts: an edge for epoll's look */
	ck_assert_uint_eq(atomic_load(&s->shm->chg), chg + 1);
	atomic_store(&s->shm->waiters, 1);
	wake_app(s);
	wake_app(s);
	ck_assert_int_eq(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	ck_assert_uint_eq(v, 2);
	ck_assert_uint_eq(atomic_load(&s->shm->wseq), seq + 2);
	atomic_store(&s->shm->waiters, 0);
	atomic_store(&s->shm->epoll_regs, 1);
	wake_app(s);
	ck_assert_int_eq(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	/* tx room: only for who asked, once */
	atomic_store(&s->shm->epoll_regs, 0);
	atomic_store(&s->shm->waiters, 1);
	wake_tx(s);
	ck_assert_int_eq(read(efd, &v, sizeof(v)), -1);
	atomic_fetch_or(&s->shm->want, SKP_WANT_OUT);
	wake_tx(s);
	ck_assert_int_eq(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	ck_assert_uint_eq(atomic_load(&s->shm->want) & SKP_WANT_OUT, 0);
	atomic_store(&s->shm->waiters, 0);
}
END_TEST

START_TEST(eventfd_blocking_app)
{
	int efd = D.socks[id]->efd;
	uint64_t full = 0xfffffffffffffffeull, v;
	(void)!read(efd, &v, sizeof(v)); /* the wakes so far: the count at 0 */
	ck_assert_int_eq(fcntl(efd, F_SETFL, 0), 0);
	ck_assert_int_eq(write(efd, &full, sizeof(full)), (ssize_t)sizeof(full));
	atomic_store(&D.socks[id]->shm->waiters, 1);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	wake_app(D.socks[id]);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	ck_assert_msg(ms < 200, "the wake took %ld ms", ms);
	ck_assert(D.socks[id]->hostile);
	dsock_pump(&D, id);
	ck_assert(atomic_load(&D.socks[id]->shm->state) & SKP_ST_ERR);
	ck_assert_int_eq(atomic_load(&D.socks[id]->shm->err), ECONNRESET);
	run_ms(50);
	ck_assert(peer_reset());
}
END_TEST

/* One uid's share, the root reserve, the kernel's errnos, slots freed */
START_TEST(quotas)
{
	static struct skopsd Q;
	memset(&Q, 0, sizeof(Q));
	quota_defaults(&Q);
	for (int i = 0; i < 512; i++)
		ck_assert_int_eq(quota_take(&Q, 1000, Q_SOCKS), 0);
	ck_assert_int_eq(quota_take(&Q, 1000, Q_SOCKS), -EMFILE);
	for (int i = 0; i < 384; i++)
		ck_assert_int_eq(quota_take(&Q, 1001, Q_SOCKS), 0);
	ck_assert_int_eq(quota_take(&Q, 1001, Q_SOCKS), -ENOBUFS); /* root's eighth left */
	for (int i = 0; i < 128; i++)
		ck_assert_int_eq(quota_take(&Q, 0, Q_SOCKS), 0);
	ck_assert_int_eq(quota_take(&Q, 0, Q_SOCKS), -ENOBUFS);
	for (int i = 0; i < 32; i++)
		ck_assert_int_eq(quota_take(&Q, 1000, Q_TICKETS), 0);
	ck_assert_int_eq(quota_take(&Q, 1000, Q_TICKETS), -EAGAIN);
	for (int i = 0; i < 128; i++)
		ck_assert_int_eq(quota_take(&Q, 1000, Q_CLIENTS), 0);
	ck_assert_int_eq(quota_take(&Q, 1000, Q_CLIENTS), -EUSERS);
	quota_put(&Q, 1000, Q_SOCKS); /* within its share, but past root's reserve */
	ck_assert_int_eq(quota_take(&Q, 1000, Q_SOCKS), -ENOBUFS);
	ck_assert_int_eq(quota_take(&Q, 0, Q_SOCKS), 0);
	quota_put(&Q, 0, Q_SOCKS);
	for (int i = 0; i < 511; i++)
		quota_put(&Q, 1000, Q_SOCKS);
	for (int i = 0; i < 32; i++)
		quota_put(&Q, 1000, Q_TICKETS);
	for (int i = 0; i < 128; i++)
		quota_put(&Q, 1000, Q_CLIENTS);
	quota_put(&Q, 1000, Q_SOCKS); /* one too many: nothing */
	ck_assert_uint_eq(Q.nuids, 2);
	ck_assert_uint_eq(Q.used.n[Q_SOCKS], 512);
}
END_TEST

static void setup_dgram(void)
{
	ck_assert_int_eq(sim_create(&S, "skp", 7, NULL, 16, 0, false), 0);
	memset(&D, 0, sizeof(D));
	D.st = S.a;
	ub = skops_socket(S.b, AF_INET, SOCK_DGRAM);
	struct sockaddr_in sin = sim_sin(S.b4, 7100);
	ck_assert_int_eq(skops_bind(S.b, ub, (struct sockaddr *)&sin, sizeof(sin)), 0);
	int sd = skops_socket(S.a, AF_INET, SOCK_DGRAM);
	int memfd;
	int rc = dsock_create(&D, &CL, sd, AF_INET, &memfd);
	ck_assert_int_gt(rc, 0);
	id = (unsigned)rc; /* memfd is the daemon's own, closed when the socket is freed */
	D.socks[id]->dgram = true;
}

/* The app publishes one record to b's port 7100, as the shim does; hdr
 * overrides what the header claims when not NULL. */
static void app_dgram(struct skp_shm *m, const char *data, uint32_t n, const struct skp_dgram *hdr)
{
	struct skp_dgram h = {.len = n, .family = AF_INET, .port = htons(7100)};
	memcpy(h.addr, &S.b4, 4);
	if (hdr)
		h = *hdr;
	uint32_t head = atomic_load(&m->tx.head);
	skp_ring_write(m->txbuf, head, &h, sizeof(h));
	skp_ring_write(m->txbuf, head + sizeof(h), data, n);
	atomic_store(&m->tx.head, head + (uint32_t)sizeof(h) + n);
}

START_TEST(dgram_records_both_ways)
{
	struct skp_shm *m = D.socks[id]->shm;
	app_dgram(m, "hello", 5, NULL);
	app_dgram(m, "", 0, NULL); /* an empty datagram is one too */
	run_ms(50);
	char b[64];
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	ck_assert_int_eq(skops_recvfrom(S.b, ub, b, sizeof(b), 0, (void *)&from, &fl), 5);
	ck_assert_mem_eq(b, "hello", 5);
	ck_assert_int_eq(skops_recvfrom(S.b, ub, b, sizeof(b), 0, NULL, NULL), 0);
	ck_assert_uint_eq(atomic_load(&m->tx.tail), 2 * sizeof(struct skp_dgram) + 5);
	/* the answer comes back as one record naming its source */
	ck_assert_int_eq(skops_sendto(S.b, ub, "world!", 6, 0, (void *)&from, fl), 6);
	run_ms(50);
	struct skp_dgram h;
	ck_assert_uint_eq(atomic_load(&m->rx.head), sizeof(h) + 6);
	skp_ring_read(m->rxbuf, 0, &h, sizeof(h));
	ck_assert_uint_eq(h.len, 6);
	ck_assert_uint_eq(h.family, AF_INET);
	ck_assert_uint_eq(ntohs(h.port), 7100);
	ck_assert_mem_eq(h.addr, &S.b4, 4);
	ck_assert_mem_eq(m->rxbuf + sizeof(h), "world!", 6);
	ck_assert(!(atomic_load(&m->state) & SKP_ST_ERR));
}
END_TEST

/* 0: a length over SKP_DGRAM_MAX; 1: more than was published; 2: a family
 * that is none; 3: a head past the ring */
START_TEST(dgram_hostile_record_fails)
{
	struct skp_shm *m = D.socks[id]->shm;
	app_dgram(m, "ok", 2, NULL);
	run_ms(20);
	uint32_t tail = atomic_load(&m->tx.tail);
	ck_assert_uint_eq(tail, sizeof(struct skp_dgram) + 2);
	struct skp_dgram h = {.len = 4, .family = AF_INET, .port = htons(7100)};
	memcpy(h.addr, &S.b4, 4);
	if (_i == 0)
		h.len = SKP_DGRAM_MAX + 1;
	if (_i == 2)
		h.family = AF_UNIX;
	app_dgram(m, "evil", 4, &h);
	if (_i == 1) /* the header claims 4, the head covers 3 */
		atomic_store(&m->tx.head, atomic_load(&m->tx.head) - 1);
	if (_i == 3)
		atomic_store(&m->tx.head, tail + SKP_RING_SIZE + 1);
	run_ms(50);
	ck_assert(atomic_load(&m->state) & SKP_ST_ERR);
	ck_assert_int_eq(atomic_load(&m->err), ECONNRESET);
	ck_assert_uint_eq(atomic_load(&m->tx.tail), tail); /* nothing of it was used */
	char b[64];
	ck_assert_int_eq(skops_recvfrom(S.b, ub, b, sizeof(b), 0, NULL, NULL), 2);
	ck_assert_int_eq(skops_recvfrom(S.b, ub, b, sizeof(b), 0, NULL, NULL), -EAGAIN);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("skp_ring");
	TCase *tc = tcase_create("index");
	tcase_add_test(tc, ring_used_bounds);
	tcase_add_test(tc, ring_tail_bounds);
	tcase_add_test(tc, quotas);
	suite_add_tcase(s, tc);
	tc = tcase_create("dsock");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, honest_app_moves_data);
	tcase_add_test(tc, find_file_by_identity);
	tcase_add_test(tc, find_file_among_many);
	tcase_add_test(tc, memfd_sealed);
	tcase_add_test(tc, wake_only_sleepers);
	tcase_add_test(tc, pool_reuse_own_only);
	tcase_add_test(tc, eventfd_blocking_app);
	tcase_add_loop_test(tc, tx_head_past_ring_resets, 0, 3);
	tcase_add_loop_test(tc, rx_tail_out_of_range_resets, 0, 2);
	suite_add_tcase(s, tc);
	tc = tcase_create("dgram");
	tcase_add_checked_fixture(tc, setup_dgram, teardown);
	tcase_add_test(tc, dgram_records_both_ways);
	tcase_add_loop_test(tc, dgram_hostile_record_fails, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	sim_eal_init("skp_ring");
	if (guard_init()) {
		fprintf(stderr, "skp_ring: guard_init failed\n");
		return EXIT_FAILURE;
	}
	SRunner *sr = srunner_create(suite());
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	rte_eal_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
