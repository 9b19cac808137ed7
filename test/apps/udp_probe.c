/* udp_probe HOST PORT [skops]: UDP socket behaviour against an echo server
 * at HOST:PORT (IPv4 or IPv6), the same checks on a kernel socket and under
 * the shim, so each errno and result is the kernel's own. With "skops" the
 * sockets must be skopsd's (their fd is the daemon's eventfd, not a socket).
 *  - 1000 datagrams of 0..1472 bytes echoed, content and source checked;
 *  - sendto's errors: EDESTADDRREQ, EMSGSIZE (> 65507/65527), EINVAL for a
 *    short address or port 0, EAFNOSUPPORT; getpeername ENOTCONN, shutdown
 *    ENOTCONN, listen/accept EOPNOTSUPP, a second bind EINVAL;
 *  - MSG_PEEK, MSG_DONTWAIT, MSG_TRUNC (flag out and length in), FIONREAD
 *    the next datagram's size, poll and epoll readiness, SO_TYPE,
 *    SO_PROTOCOL, SO_RCVBUF/SO_SNDBUF as the kernel doubles them;
 *  - bind to port 0 takes an ephemeral port; a connected socket (options
 *    set before its connect read back): send/recv,
 *    getpeername, a routed local address; connect AF_UNSPEC disconnects
 *    (what stays of the local name printed, compared with the kernel's);
 *  - ECONNREFUSED after an ICMP port unreachable on a connected socket
 *    (recv, poll's POLLERR, SO_ERROR read once);
 *  - sendmmsg and recvmmsg with addresses;
 *  - an 1800-byte datagram (over the veth's 1500 MTU) goes out as
 *    fragments and the echo brings it back whole, IPv4 and IPv6.
 * Exit 0 on success, 1 with a message naming the failed check. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static struct sockaddr_storage peer;
static socklen_t peer_len;
static int fam;
static int skops;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "udp_probe: %s (errno %s)\n", what, strerror(errno));
		exit(1);
	}
}

/* a call that must fail with errno e, as the kernel's */
static void fails(long rc, int e, const char *what)
{
	if (rc != -1 || errno != e) {
		fprintf(stderr, "udp_probe: %s: %ld (%s), want -1 (%s)\n", what, rc,
			rc < 0 ? strerror(errno) : "ok", strerror(e));
		exit(1);
	}
}

static int port_of(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port
					      : ((const struct sockaddr_in6 *)ss)->sin6_port);
}

static int same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family || port_of(a) != port_of(b))
		return 0;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
}

static int any_addr(const struct sockaddr_storage *a)
{
	static const struct in6_addr z;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr == 0;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &z, 16);
}

static int new_sock(void)
{
	int fd = socket(fam, SOCK_DGRAM, 0);
	check(fd >= 0, "socket");
	struct timeval tv = {.tv_sec = 2};
	check(!setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), "SO_RCVTIMEO");
	return fd;
}

/* the socket behind fd is skopsd's (an eventfd) or the kernel's */
static void where(int fd)
{
	char p[64], l[128] = "";
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(p, l, sizeof(l) - 1);
	check(n > 0, "readlink");
	l[n] = 0;
	int ev = strstr(l, "eventfd") != NULL;
	if (ev != skops) {
		fprintf(stderr, "udp_probe: fd %d is %s, want %s\n", fd, l,
			skops ? "skopsd's" : "a kernel socket");
		exit(1);
	}
}

static void fill(char *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (char)(seed * 131 + i * 7);
}

static ssize_t echo(int fd, const char *out, size_t n, char *in, size_t room,
		    struct sockaddr_storage *from)
{
	check(sendto(fd, out, n, 0, (struct sockaddr *)&peer, peer_len) == (ssize_t)n, "sendto");
	socklen_t fl = sizeof(*from);
	return recvfrom(fd, in, room, 0, (struct sockaddr *)from, &fl);
}

/* Over the link MTU: Linux fragments a datagram without IP_PMTUDISC_DO
 * (IPv4 with DF clear; IPv6 at the source); so does skops (RFC 791 §3.2,
 * RFC 8200 §4.5). 1800 bytes: over the veth's 1500 MTU, and small enough
 * that the kernel-reassembled IPv4 echo fits net_af_packet's ring frame
 * (docs/skopsd.md; IPv6 fragments reach the stack as fragments). */
static void over_mtu(int fd)
{
	static char out[1800], back[1801];
	fill(out, sizeof(out), 9);
	struct sockaddr_storage from;
	ssize_t n = echo(fd, out, sizeof(out), back, sizeof(back), &from);
	check(n == (ssize_t)sizeof(out) && !memcmp(back, out, sizeof(out)),
	      "1800-byte datagram echoed whole (sent and echoed as fragments)");
}

static void errors(int fd)
{
	static char big[65536];
	fails(send(fd, "x", 1, 0), EDESTADDRREQ, "send unconnected");
	size_t max = fam == AF_INET ? 65507 : 65527;
	fails(sendto(fd, big, max + 1, 0, (struct sockaddr *)&peer, peer_len), EMSGSIZE,
	      "sendto max+1");
	fails(sendto(fd, big, 65536, 0, (struct sockaddr *)&peer, peer_len), EMSGSIZE,
	      "sendto 65536");
	fails(sendto(fd, "x", 1, 0, (struct sockaddr *)&peer, peer_len - 5), EINVAL,
	      "sendto short address");
	struct sockaddr_storage p0 = peer;
	if (fam == AF_INET)
		((struct sockaddr_in *)&p0)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&p0)->sin6_port = 0;
	fails(sendto(fd, "x", 1, 0, (struct sockaddr *)&p0, peer_len), EINVAL, "sendto port 0");
	struct sockaddr_storage other = {.ss_family = AF_UNIX};
	/* udp_sendmsg: EAFNOSUPPORT; udpv6_sendmsg: EINVAL */
	fails(sendto(fd, "x", 1, 0, (struct sockaddr *)&other, sizeof(struct sockaddr_in6)),
	      fam == AF_INET ? EAFNOSUPPORT : EINVAL, "sendto AF_UNIX address");
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	fails(getpeername(fd, (struct sockaddr *)&ss, &l), ENOTCONN, "getpeername unconnected");
	fails(listen(fd, 1), EOPNOTSUPP, "listen");
	fails(accept(fd, NULL, NULL), EOPNOTSUPP, "accept");
	l = sizeof(ss);
	check(!getsockname(fd, (struct sockaddr *)&ss, &l), "getsockname");
	fails(bind(fd, (struct sockaddr *)&ss, l), EINVAL, "bind after sendto bound");
	char c;
	fails(recv(fd, &c, 1, MSG_DONTWAIT), EAGAIN, "recv MSG_DONTWAIT, nothing queued");
	fails(recv(fd, &c, 1, MSG_ERRQUEUE), EAGAIN, "MSG_ERRQUEUE without IP_RECVERR");
}

static int get_int(int fd, int level, int name)
{
	int v = -1;
	socklen_t l = sizeof(v);
	check(!getsockopt(fd, level, name, &v, &l) && l == sizeof(v), "getsockopt");
	return v;
}

static void options(int fd)
{
	check(get_int(fd, SOL_SOCKET, SO_TYPE) == SOCK_DGRAM, "SO_TYPE");
	check(get_int(fd, SOL_SOCKET, SO_PROTOCOL) == IPPROTO_UDP, "SO_PROTOCOL");
	check(get_int(fd, SOL_SOCKET, SO_ERROR) == 0, "SO_ERROR");
	int def = get_int(fd, SOL_SOCKET, SO_RCVBUF);
	int v = 65536;
	check(!setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)), "SO_RCVBUF set");
	check(!setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)), "SO_SNDBUF set");
	int r = get_int(fd, SOL_SOCKET, SO_RCVBUF), s = get_int(fd, SOL_SOCKET, SO_SNDBUF);
	printf("SO_RCVBUF default %d, 65536 set: SO_RCVBUF %d SO_SNDBUF %d\n", def, r, s);
	check(r == 131072 && s == 131072, "SO_RCVBUF/SO_SNDBUF not doubled as the kernel's");
	v = 0;
	check(!setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)), "SO_RCVBUF 0");
	r = get_int(fd, SOL_SOCKET, SO_RCVBUF);
	printf("SO_RCVBUF 0 set: %d\n", r);
	check(r > 0 && r < 8192, "SO_RCVBUF 0: not the kernel's minimum");
	v = 256 * 1024;
	check(!setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)), "SO_RCVBUF 256K");
}

static void flags_and_readiness(int fd)
{
	char in[256], out[100];
	struct sockaddr_storage from;
	fill(out, sizeof(out), 9);
	/* poll: writable, not readable while nothing is queued */
	struct pollfd p = {.fd = fd, .events = POLLIN | POLLOUT};
	check(poll(&p, 1, 0) == 1 && p.revents == POLLOUT, "poll idle: not POLLOUT alone");
	int ep = epoll_create1(0);
	struct epoll_event e = {.events = EPOLLIN, .data.u32 = 77}, got;
	check(!epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e), "epoll_ctl");
	check(epoll_wait(ep, &got, 1, 100) == 0, "epoll: readable with nothing queued");
	/* two datagrams: FIONREAD is the first one's size */
	check(sendto(fd, out, 5, 0, (struct sockaddr *)&peer, peer_len) == 5, "sendto 5");
	check(sendto(fd, out, 7, 0, (struct sockaddr *)&peer, peer_len) == 7, "sendto 7");
	check(epoll_wait(ep, &got, 1, 2000) == 1 && got.data.u32 == 77, "epoll: no EPOLLIN");
	usleep(200000); /* the second echo is in too */
	int q = -1;
	check(!ioctl(fd, FIONREAD, &q), "FIONREAD");
	printf("FIONREAD with 5 and 7 bytes queued: %d\n", q);
	check(q == 5, "FIONREAD is not the next datagram's size");
	check(poll(&p, 1, 0) == 1 && (p.revents & POLLIN), "poll: no POLLIN");
	/* MSG_PEEK leaves it */
	check(recv(fd, in, sizeof(in), MSG_PEEK) == 5, "MSG_PEEK");
	check(recv(fd, in, sizeof(in), 0) == 5 && !memcmp(in, out, 5), "recv after peek");
	check(recv(fd, in, sizeof(in), 0) == 7, "recv second");
	/* truncation: the rest of the datagram goes; MSG_TRUNC asks for its size */
	check(sendto(fd, out, 100, 0, (struct sockaddr *)&peer, peer_len) == 100, "sendto 100");
	struct iovec iov = {in, 10};
	struct msghdr m = {
	    .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n = recvmsg(fd, &m, 0);
	check(n == 10 && (m.msg_flags & MSG_TRUNC) && !memcmp(in, out, 10),
	      "recvmsg into 10 bytes: not 10 with MSG_TRUNC");
	check(same_addr(&from, &peer), "recvmsg: source address");
	fails(recv(fd, in, sizeof(in), MSG_DONTWAIT), EAGAIN, "the truncated rest was kept");
	check(sendto(fd, out, 100, 0, (struct sockaddr *)&peer, peer_len) == 100, "sendto 100");
	check(recv(fd, in, 10, MSG_TRUNC) == 100, "recv MSG_TRUNC: not the datagram's length");
	/* a zero-length datagram is one, and recv of 0 bytes takes one */
	check(sendto(fd, out, 0, 0, (struct sockaddr *)&peer, peer_len) == 0, "sendto 0");
	check(recv(fd, in, sizeof(in), 0) == 0, "zero-length datagram");
	check(sendto(fd, out, 3, 0, (struct sockaddr *)&peer, peer_len) == 3, "sendto 3");
	check(recv(fd, in, 0, 0) == 0, "recv of 0 bytes");
	fails(recv(fd, in, sizeof(in), MSG_DONTWAIT), EAGAIN, "recv of 0 bytes kept the datagram");
	close(ep);
}

static void many(int fd)
{
	static char out[2048], in[2048];
	struct sockaddr_storage from;
	for (unsigned i = 0; i < 1000; i++) {
		size_t n = i == 1 ? 1472 - (fam == AF_INET6 ? 20 : 0) : (i * 397) % 1400;
		fill(out, n, i);
		ssize_t r = echo(fd, out, n, in, sizeof(in), &from);
		if (r != (ssize_t)n || memcmp(in, out, n) || !same_addr(&from, &peer)) {
			fprintf(stderr, "udp_probe: datagram %u of %zu bytes: got %zd (%s)\n", i, n,
				r, r < 0 ? strerror(errno) : "content or source differs");
			exit(1);
		}
	}
	printf("1000 datagrams of 0..%d bytes echoed, sources checked\n",
	       fam == AF_INET ? 1472 : 1452);
}

static void connected(void)
{
	int fd = new_sock();
	/* set before connect: under the shim the socket is made at connect,
	 * these going with it (SO_REUSEADDR to the daemon, SO_RCVBUF kept in
	 * the shim) */
	int one = 1, rb = 65536;
	check(!setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)), "SO_REUSEADDR");
	check(!setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb)), "SO_RCVBUF");
	check(!connect(fd, (struct sockaddr *)&peer, peer_len), "connect");
	where(fd);
	printf("set before connect: SO_REUSEADDR %d, SO_RCVBUF %d\n",
	       get_int(fd, SOL_SOCKET, SO_REUSEADDR), get_int(fd, SOL_SOCKET, SO_RCVBUF));
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	check(!getpeername(fd, (struct sockaddr *)&ss, &l) && same_addr(&ss, &peer),
	      "getpeername connected");
	l = sizeof(ss);
	check(!getsockname(fd, (struct sockaddr *)&ss, &l), "getsockname connected");
	check(port_of(&ss) != 0 && !any_addr(&ss), "connected: no routed local address");
	char in[64];
	check(send(fd, "hello", 5, 0) == 5, "send connected");
	check(recv(fd, in, sizeof(in), 0) == 5 && !memcmp(in, "hello", 5), "recv connected");
	check(write(fd, "again", 5) == 5 && read(fd, in, sizeof(in)) == 5, "write/read connected");
	/* an address on a connected socket is used (Linux) */
	check(sendto(fd, "to", 2, 0, (struct sockaddr *)&peer, peer_len) == 2, "sendto connected");
	check(recv(fd, in, sizeof(in), 0) == 2, "recv of sendto connected");
	struct sockaddr un = {.sa_family = AF_UNSPEC};
	check(!connect(fd, &un, sizeof(un)), "connect AF_UNSPEC");
	l = sizeof(ss);
	fails(getpeername(fd, (struct sockaddr *)&ss, &l), ENOTCONN, "getpeername disconnected");
	fails(send(fd, "x", 1, 0), EDESTADDRREQ, "send disconnected");
	l = sizeof(ss);
	check(!getsockname(fd, (struct sockaddr *)&ss, &l), "getsockname disconnected");
	/* the address goes; a 6.x kernel keeps the port connect bound */
	printf("after connect AF_UNSPEC: local port %s, address %s\n", port_of(&ss) ? "kept" : "0",
	       any_addr(&ss) ? "any" : "kept");
	close(fd);
	printf("connected socket: send/recv, names, disconnect\n");
}

/* a connected socket whose peer port is closed: the ICMP port unreachable
 * is ECONNREFUSED once, for the next receive (or send), then SO_ERROR */
static void refused(void)
{
	struct sockaddr_storage closed = peer;
	if (fam == AF_INET)
		((struct sockaddr_in *)&closed)->sin_port = htons((uint16_t)(port_of(&peer) + 1));
	else
		((struct sockaddr_in6 *)&closed)->sin6_port = htons((uint16_t)(port_of(&peer) + 1));
	int fd = new_sock();
	check(!connect(fd, (struct sockaddr *)&closed, peer_len), "connect to a closed port");
	where(fd);
	char b[8];
	check(send(fd, "x", 1, 0) == 1, "send to a closed port");
	fails(recv(fd, b, sizeof(b), 0), ECONNREFUSED, "recv after a port unreachable");
	fails(recv(fd, b, sizeof(b), MSG_DONTWAIT), EAGAIN, "the error was not taken once");
	check(send(fd, "y", 1, 0) == 1, "second send to a closed port");
	struct pollfd p = {.fd = fd, .events = POLLIN};
	check(poll(&p, 1, 2000) == 1 && (p.revents & POLLERR), "poll: no POLLERR");
	check(get_int(fd, SOL_SOCKET, SO_ERROR) == ECONNREFUSED, "SO_ERROR not ECONNREFUSED");
	check(get_int(fd, SOL_SOCKET, SO_ERROR) == 0, "SO_ERROR not cleared by reading it");
	close(fd);
	printf("connected to a closed port: ECONNREFUSED on recv, then as SO_ERROR\n");
}

static void bound(void)
{
	int fd = new_sock();
	struct sockaddr_storage ss = {.ss_family = (sa_family_t)fam};
	socklen_t l = fam == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	check(!bind(fd, (struct sockaddr *)&ss, l), "bind port 0");
	where(fd);
	l = sizeof(ss);
	check(!getsockname(fd, (struct sockaddr *)&ss, &l) && port_of(&ss) != 0,
	      "bind port 0: no ephemeral port");
	fails(bind(fd, (struct sockaddr *)&ss, l), EINVAL, "second bind");
	/* mmsg: three out with addresses, three back with their sources */
	char a[3][8] = {"one", "two", "three"};
	struct iovec iov[3];
	struct mmsghdr v[4];
	memset(v, 0, sizeof(v));
	for (int i = 0; i < 3; i++) {
		iov[i] = (struct iovec){a[i], strlen(a[i])};
		v[i].msg_hdr = (struct msghdr){.msg_name = &peer,
					       .msg_namelen = peer_len,
					       .msg_iov = &iov[i],
					       .msg_iovlen = 1};
	}
	check(sendmmsg(fd, v, 3, 0) == 3, "sendmmsg");
	char in[4][16];
	struct sockaddr_storage from[4];
	struct iovec riov[4];
	memset(v, 0, sizeof(v));
	for (int i = 0; i < 4; i++) {
		riov[i] = (struct iovec){in[i], sizeof(in[i])};
		v[i].msg_hdr = (struct msghdr){.msg_name = &from[i],
					       .msg_namelen = sizeof(from[i]),
					       .msg_iov = &riov[i],
					       .msg_iovlen = 1};
	}
	usleep(200000);
	int n = recvmmsg(fd, v, 4, MSG_WAITFORONE, NULL);
	check(n == 3, "recvmmsg: not the three echoes");
	for (int i = 0; i < 3; i++)
		check(v[i].msg_len == strlen(a[i]) && !memcmp(in[i], a[i], v[i].msg_len) &&
			  same_addr(&from[i], &peer) && v[i].msg_hdr.msg_namelen == peer_len,
		      "recvmmsg: a message or its source");
	/* unconnected: ENOTCONN, and Linux shuts it down all the same: sends
	 * are EPIPE (no SIGPIPE for UDP), receives 0 without waiting, POLLHUP */
	fails(shutdown(fd, SHUT_RDWR), ENOTCONN, "shutdown unconnected");
	signal(SIGPIPE, SIG_IGN);
	fails(sendto(fd, "x", 1, 0, (struct sockaddr *)&peer, peer_len), EPIPE,
	      "sendto after shutdown");
	check(recv(fd, in[0], sizeof(in[0]), 0) == 0, "recv after shutdown: not 0");
	struct pollfd p = {.fd = fd, .events = POLLIN | POLLOUT};
	check(poll(&p, 1, 0) == 1, "poll after shutdown");
	printf("poll after shutdown(SHUT_RDWR): %s%s%s%s\n", p.revents & POLLIN ? "IN " : "",
	       p.revents & POLLOUT ? "OUT " : "", p.revents & POLLHUP ? "HUP " : "",
	       p.revents & POLLERR ? "ERR" : "");
	close(fd);
	printf("bind to port 0, sendmmsg/recvmmsg with addresses\n");
}

int main(int argc, char **argv)
{
	if (argc < 3)
		check(0, "usage: udp_probe HOST PORT [skops]");
	setvbuf(stdout, NULL, _IONBF, 0);
	skops = argc > 3 && !strcmp(argv[3], "skops");
	struct sockaddr_in *in = (void *)&peer;
	struct sockaddr_in6 *in6 = (void *)&peer;
	if (inet_pton(AF_INET, argv[1], &in->sin_addr) == 1) {
		fam = in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)atoi(argv[2]));
		peer_len = sizeof(*in);
	} else if (inet_pton(AF_INET6, argv[1], &in6->sin6_addr) == 1) {
		fam = in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)atoi(argv[2]));
		peer_len = sizeof(*in6);
	} else {
		check(0, "bad host");
	}
	int fd = new_sock();
	char in_b[8];
	struct sockaddr_storage from;
	/* the first sendto decides where an unbound socket goes */
	check(echo(fd, "first", 5, in_b, sizeof(in_b), &from) == 5, "first echo");
	where(fd);
	errors(fd);
	over_mtu(fd);
	options(fd);
	flags_and_readiness(fd);
	many(fd);
	close(fd);
	connected();
	refused();
	bound();
	printf("PASS\n");
	return 0;
}
