/* shim_io: data through the socket's rings. Blocking calls wait in
 * shim_wait (no spinning core, EINTR on signals, SO_RCVTIMEO/SO_SNDTIMEO);
 * errors as the kernel's: ECONNRESET once after a reset, then EOF on
 * receive; EPIPE (and SIGPIPE unless MSG_NOSIGNAL) on send. */
/* both the plain and the 64-bit names are defined here (same ABI on 64-bit) */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "shim_entry.h"

#define EXPORT __attribute__((visibility("default")))

static size_t iov_total(const struct iovec *iov, int n)
{
	size_t t = 0;
	for (int i = 0; i < n; i++)
		t += iov[i].iov_len;
	return t;
}

/* Copies n ring bytes from index idx into the iovecs at byte offset off. */
static void ring_to_iov(const uint8_t *ring, uint32_t idx, const struct iovec *iov, int cnt,
			size_t off, uint32_t n)
{
	int i = 0;
	while (i < cnt && off >= iov[i].iov_len)
		off -= iov[i++].iov_len;
	while (n && i < cnt) {
		uint32_t k = skp_ring_span(idx, n);
		size_t room = iov[i].iov_len - off;
		if (k > room)
			k = (uint32_t)room;
		memcpy((uint8_t *)iov[i].iov_base + off, ring + (idx & (SKP_RING_SIZE - 1)), k);
		idx += k;
		n -= k;
		off += k;
		if (off == iov[i].iov_len) {
			off = 0;
			i++;
		}
	}
}

static void iov_to_ring(uint8_t *ring, uint32_t idx, const struct iovec *iov, int cnt, size_t off,
			uint32_t n)
{
	int i = 0;
	while (i < cnt && off >= iov[i].iov_len)
		off -= iov[i++].iov_len;
	while (n && i < cnt) {
		uint32_t k = skp_ring_span(idx, n);
		size_t room = iov[i].iov_len - off;
		if (k > room)
			k = (uint32_t)room;
		memcpy(ring + (idx & (SKP_RING_SIZE - 1)), (const uint8_t *)iov[i].iov_base + off,
		       k);
		idx += k;
		n -= k;
		off += k;
		if (off == iov[i].iov_len) {
			off = 0;
			i++;
		}
	}
}

static ssize_t sk_recv(int fd, struct ssock *s, const struct iovec *iov, int cnt, int flags)
{
	size_t total = iov_total(iov, cnt), got = 0;
	if (!total)
		return 0;
	pthread_mutex_lock(&s->rx_lock);
	ssize_t ret;
	for (;;) {
		struct skp_shm *m = s->shm;
		uint32_t tail = atomic_load_explicit(&m->rx.tail, memory_order_relaxed);
		uint32_t avail = atomic_load_explicit(&m->rx.head, memory_order_acquire) - tail;
		if (avail > SKP_RING_SIZE)
			avail = 0; /* never past what the daemon could have written */
		if (avail) {
			uint32_t n = avail < total - got ? avail : (uint32_t)(total - got);
			ring_to_iov(m->rxbuf, tail, iov, cnt, got, n);
			got += n;
			if (flags & MSG_PEEK) {
				ret = (ssize_t)got;
				break;
			}
			atomic_store_explicit(&m->rx.tail, tail + n, memory_order_release);
			if (atomic_exchange(&m->rx_full, 0))
				shim_kick_asleep(m);
			if (got == total || !(flags & MSG_WAITALL)) {
				ret = (ssize_t)got;
				break;
			}
			continue;
		}
		uint32_t st = atomic_load(&m->state);
		if (got || (st & SKP_ST_EOF)) {
			ret = (ssize_t)got;
			break;
		}
		if (st & SKP_ST_ERR) {
			ret = s->err_taken ? 0 : -atomic_load(&m->err);
			s->err_taken = true;
			break;
		}
		if (shim_daemon_dead()) {
			ret = -ECONNRESET;
			break;
		}
		if (!(st & SKP_ST_CONNECTED) && !s->connecting) {
			ret = -ENOTCONN;
			break;
		}
		int rc = shim_rx_block(fd, s, flags);
		if (rc) {
			ret = rc;
			break;
		}
	}
	pthread_mutex_unlock(&s->rx_lock);
	return shim_ret(ret);
}

static ssize_t sk_send(int fd, struct ssock *s, const struct iovec *iov, int cnt, int flags)
{
	size_t total = iov_total(iov, cnt), sent = 0;
	bool asked = false;
	pthread_mutex_lock(&s->tx_lock);
	ssize_t ret;
	for (;;) {
		struct skp_shm *m = s->shm;
		uint32_t st = atomic_load(&m->state);
		if (st & SKP_ST_ERR) {
			/* the reset's error once, then EPIPE */
			ret = s->err_taken ? -EPIPE : -atomic_load(&m->err);
			s->err_taken = true;
			break;
		}
		if (shim_daemon_dead() || (st & SKP_ST_WRCLOSED)) {
			ret = -EPIPE;
			break;
		}
		if (!(st & SKP_ST_CONNECTED) && !s->connecting) {
			ret = -ENOTCONN;
			break;
		}
		uint32_t head = atomic_load_explicit(&m->tx.head, memory_order_relaxed);
		uint32_t used = head - atomic_load_explicit(&m->tx.tail, memory_order_acquire);
		uint32_t room = used > SKP_RING_SIZE ? 0 : SKP_RING_SIZE - used;
		if ((st & SKP_ST_CONNECTED) && room && sent < total) {
			uint32_t n = room < total - sent ? room : (uint32_t)(total - sent);
			iov_to_ring(m->txbuf, head, iov, cnt, sent, n);
			atomic_store_explicit(&m->tx.head, head + n, memory_order_release);
			shim_kick_asleep(m);
			sent += n;
		}
		if (sent == total) {
			ret = (ssize_t)sent;
			break;
		}
		if (shim_nonblock(s) || (flags & MSG_DONTWAIT)) {
			if (!asked) { /* room may have come before the ask */
				shim_ask_out(s);
				asked = true;
				continue;
			}
			ret = sent ? (ssize_t)sent : -EAGAIN;
			break;
		}
		pthread_mutex_unlock(&s->tx_lock);
		int rc = shim_wait(fd, s, POLLOUT, s->sndtimeo_ms);
		pthread_mutex_lock(&s->tx_lock);
		if (rc) {
			ret = sent ? (ssize_t)sent : rc;
			break;
		}
	}
	pthread_mutex_unlock(&s->tx_lock);
	if (ret < 0) {
		if (ret == -EPIPE && !(flags & MSG_NOSIGNAL))
			raise(SIGPIPE);
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

/* data calls on a datagram socket: one message, named or not */
static ssize_t dg_recv_iov(int fd, struct ssock *s, const struct iovec *iov, int cnt, int flags)
{
	struct msghdr m = {.msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)cnt};
	return shim_dg_recv(fd, s, &m, flags);
}

static ssize_t dg_send_iov(int fd, struct ssock *s, const struct iovec *iov, int cnt, int flags)
{
	struct msghdr m = {.msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)cnt};
	return shim_dg_send(fd, s, &m, flags);
}

EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	struct ssock *s = shim_sock(fd);
	if (!s)
		return shim_real.read(fd, buf, len);
	struct iovec v = {buf, len};
	if (s->type == SOCK_DGRAM)
		return dg_recv_iov(fd, s, &v, 1, 0);
	return sk_recv(fd, s, &v, 1, 0);
}

EXPORT ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	(void)buflen;
	return read(fd, buf, len);
}

EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	struct ssock *s = shim_sock(fd);
	if (!s)
		return shim_real.write(fd, buf, len);
	struct iovec v = {(void *)buf, len};
	if (s->type == SOCK_DGRAM)
		return dg_send_iov(fd, s, &v, 1, 0);
	return sk_send(fd, s, &v, 1, 0);
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	struct ssock *s = shim_sock(fd);
	if (s && s->type == SOCK_DGRAM)
		return dg_recv_iov(fd, s, iov, cnt, 0);
	return s ? sk_recv(fd, s, iov, cnt, 0) : shim_real.readv(fd, iov, cnt);
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	struct ssock *s = shim_sock(fd);
	if (s && s->type == SOCK_DGRAM)
		return dg_send_iov(fd, s, iov, cnt, 0);
	return s ? sk_send(fd, s, iov, cnt, 0) : shim_real.writev(fd, iov, cnt);
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from,
			socklen_t *fromlen)
{
	struct ssock *s = shim_sock(fd);
	if (!s)
		return shim_real.recvfrom(fd, buf, len, flags, from, fromlen);
	struct iovec v = {buf, len};
	if (s->type == SOCK_DGRAM) {
		struct msghdr m = {.msg_iov = &v,
				   .msg_iovlen = 1,
				   .msg_name = fromlen ? from : NULL,
				   .msg_namelen = fromlen ? *fromlen : 0};
		ssize_t r = shim_dg_recv(fd, s, &m, flags);
		if (r >= 0 && from && fromlen)
			*fromlen = m.msg_namelen;
		return r;
	}
	if (fromlen)
		*fromlen = 0; /* a connected stream names no sender */
	return sk_recv(fd, s, &v, 1, flags);
}

EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	return recvfrom(fd, buf, len, flags, NULL, NULL);
}

EXPORT ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags)
{
	(void)buflen;
	return recvfrom(fd, buf, len, flags, NULL, NULL);
}

EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags,
			      struct sockaddr *from, socklen_t *fromlen)
{
	(void)buflen;
	return recvfrom(fd, buf, len, flags, from, fromlen);
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct ssock *s = shim_sock(fd);
	if (!s)
		return shim_real.recvmsg(fd, msg, flags);
	if (s->type == SOCK_DGRAM)
		return shim_dg_recv(fd, s, msg, flags);
	msg->msg_namelen = 0;
	msg->msg_controllen = 0;
	msg->msg_flags = 0;
	return sk_recv(fd, s, msg->msg_iov, (int)msg->msg_iovlen, flags);
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
		      socklen_t tolen)
{
	/* an undecided datagram socket sending first goes where to is */
	if (!shim_dg_decide(fd, to, tolen))
		return -1;
	struct ssock *s = shim_sock(fd);
	if (!s)
		return shim_real.sendto(fd, buf, len, flags, to, tolen);
	struct iovec v = {(void *)buf, len};
	if (s->type == SOCK_DGRAM) {
		struct msghdr m = {
		    .msg_iov = &v, .msg_iovlen = 1, .msg_name = (void *)to, .msg_namelen = tolen};
		return shim_dg_send(fd, s, &m, flags);
	}
	return sk_send(fd, s, &v, 1, flags);
}

EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	return sendto(fd, buf, len, flags, NULL, 0);
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	if (msg->msg_namelen && !shim_dg_decide(fd, msg->msg_name, msg->msg_namelen))
		return -1;
	struct ssock *s = shim_sock(fd);
	if (!s)
		return shim_real.sendmsg(fd, msg, flags);
	if (s->type == SOCK_DGRAM) {
		struct msghdr m = *msg;
		if (!m.msg_namelen)
			m.msg_name = NULL; /* as the kernel's copy_msghdr_from_user */
		return shim_dg_send(fd, s, &m, flags);
	}
	return sk_send(fd, s, msg->msg_iov, (int)msg->msg_iovlen, flags);
}

EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t count)
{
	struct ssock *s = shim_sock(out);
	if (!s)
		return shim_real.sendfile(out, in, off, count);
	static __thread uint8_t buf[64 * 1024];
	size_t n = count < sizeof(buf) ? count : sizeof(buf);
	ssize_t r = off ? pread(in, buf, n, *off) : shim_real.read(in, buf, n);
	if (r <= 0)
		return r;
	struct iovec v = {buf, (size_t)r};
	ssize_t w =
	    s->type == SOCK_DGRAM ? dg_send_iov(out, s, &v, 1, 0) : sk_send(out, s, &v, 1, 0);
	if (w > 0 && off)
		*off += w;
	else if (w > 0 && w < r)
		lseek(in, w - r, SEEK_CUR); /* the part not sent is read again */
	return w;
}

EXPORT ssize_t sendfile64(int out, int in, off_t *off, size_t count)
{
	return sendfile(out, in, off, count);
}

/* The batch calls as the kernel's stream sockets do them: one message at a
 * time; the first message's error is the call's, a later one ends the batch. */
EXPORT int sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags)
{
	if (n && v[0].msg_hdr.msg_namelen &&
	    !shim_dg_decide(fd, v[0].msg_hdr.msg_name, v[0].msg_hdr.msg_namelen))
		return -1;
	struct ssock *s = shim_sock(fd);
	if (!s) {
		static int (*real)(int, struct mmsghdr *, unsigned int, int);
		if (!real)
			real = (int (*)(int, struct mmsghdr *, unsigned int, int))dlsym(RTLD_NEXT,
											"sendmmsg");
		return real(fd, v, n, flags);
	}
	unsigned i;
	for (i = 0; i < n; i++) {
		struct msghdr m = v[i].msg_hdr;
		if (!m.msg_namelen)
			m.msg_name = NULL;
		ssize_t r = s->type == SOCK_DGRAM ? shim_dg_send(fd, s, &m, flags)
						  : sk_send(fd, s, m.msg_iov, (int)m.msg_iovlen,
							    flags | (i ? MSG_DONTWAIT : 0));
		if (r < 0)
			return i ? (int)i : -1;
		v[i].msg_len = (unsigned)r;
	}
	return (int)i;
}

EXPORT int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags, struct timespec *tmo)
{
	struct ssock *s = shim_sock(fd);
	if (!s) {
		static int (*real)(int, struct mmsghdr *, unsigned int, int, struct timespec *);
		if (!real)
			real = (int (*)(int, struct mmsghdr *, unsigned int, int,
					struct timespec *))dlsym(RTLD_NEXT, "recvmmsg");
		return real(fd, v, n, flags, tmo);
	}
	/* Linux's do_recvmmsg: the timeout is an end time checked after each
	 * message received (a wait inside one receive is the socket's own,
	 * SO_RCVTIMEO); the time left is written back; {0, 0} stops after the
	 * first message. */
	int64_t end = 0;
	if (tmo) {
		if (tmo->tv_sec < 0 || tmo->tv_nsec < 0 || tmo->tv_nsec >= 1000000000L) {
			errno = EINVAL;
			return -1;
		}
		if (tmo->tv_sec || tmo->tv_nsec)
			end = shim_now_ns() + tmo->tv_sec * 1000000000LL + tmo->tv_nsec;
	}
	/* do_recvmmsg takes a pending socket error (sock_error) before any
	 * message: after a reset the call fails at once, and the bytes that
	 * came before the reset are the next calls' (then EOF) */
	if (!(flags & MSG_ERRQUEUE) && (atomic_load(&s->shm->state) & SKP_ST_ERR) &&
	    !s->err_taken) {
		if (s->type == SOCK_STREAM)
			s->err_taken = true;
		errno = atomic_load(&s->shm->err);
		return -1;
	}
	unsigned i;
	for (i = 0; i < n; i++) {
		/* MSG_WAITFORONE: only the first waits */
		int f = flags & ~MSG_WAITFORONE;
		if (i && (flags & MSG_WAITFORONE))
			f |= MSG_DONTWAIT;
		bool taken = s->err_taken;
		ssize_t r;
		if (s->type == SOCK_DGRAM) {
			r = shim_dg_recv(fd, s, &v[i].msg_hdr, f);
		} else {
			v[i].msg_hdr.msg_namelen = 0;
			v[i].msg_hdr.msg_controllen = 0;
			v[i].msg_hdr.msg_flags = 0;
			r = sk_recv(fd, s, v[i].msg_hdr.msg_iov, (int)v[i].msg_hdr.msg_iovlen, f);
		}
		if (r < 0) {
			/* a connection error after some messages is the next
			 * call's to report (Linux puts it back in sk_err) */
			if (i && !taken)
				s->err_taken = false;
			break;
		}
		v[i].msg_len = (unsigned)r;
		if (r == 0 && s->type == SOCK_STREAM) {
			i++;
			break; /* EOF ends the batch */
		}
		if (tmo) {
			int64_t left = end - shim_now_ns();
			if (left <= 0) {
				tmo->tv_sec = tmo->tv_nsec = 0;
				i++;
				break;
			}
			tmo->tv_sec = left / 1000000000LL;
			tmo->tv_nsec = left % 1000000000LL;
		}
	}
	if (i == 0 && n)
		return -1; /* sk_recv's errno */
	return (int)i;
}
