/* shim_loop: loopback-listen (skopsd's setting, in HELLO's flags). skops
 * has no loopback device, so a program listening on 0.0.0.0 or [::] would
 * not be reached at 127.0.0.1 or ::1 as on the kernel. With the setting on,
 * listen() on a wildcard skops socket also makes kernel listeners on the
 * loopback addresses and the same port, here (in the program's own network
 * namespace), and skopsd keeps them with the skops listener (kloop.c):
 * accept takes from both, readiness is both, close closes both. */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include "shim_fdtab.h"

static int sock_rpc(struct ssock *s, struct skp_req *req, struct skp_rep *rep)
{
	req->id = s->id;
	return shim_rpc(req, rep, NULL, NULL);
}

/* the skops socket's local address */
static int local(struct ssock *s, struct sockaddr_in6 *sa)
{
	struct skp_req req = {.op = SKP_GETSOCKNAME};
	struct skp_rep rep;
	int rc = sock_rpc(s, &req, &rep);
	if (rc)
		return rc;
	memset(sa, 0, sizeof(*sa));
	memcpy(sa, rep.data, rep.len < sizeof(*sa) ? rep.len : sizeof(*sa));
	return 0;
}

/* One kernel listener on addr (a loopback address) and port, or -errno. */
static int kernel_listener(int family, const void *addr, uint16_t port, bool v6only, int backlog)
{
	struct sockaddr_in6 sa6 = {.sin6_family = AF_INET6, .sin6_port = port};
	struct sockaddr_in sa4 = {.sin_family = AF_INET, .sin_port = port};
	int one = 1, only = v6only;
	int fd = shim_real.socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (family == AF_INET6)
		memcpy(&sa6.sin6_addr, addr, 16);
	else
		memcpy(&sa4.sin_addr, addr, 4);
	/* SO_REUSEADDR: a restarted server is not kept off by old loopback
	 * connections in TIME_WAIT (the wildcard listener's own, on the kernel) */
	if (shim_real.setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (family == AF_INET6 &&
	     shim_real.setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &only, sizeof(only))) ||
	    shim_real.bind(fd,
			   family == AF_INET6 ? (struct sockaddr *)&sa6 : (struct sockaddr *)&sa4,
			   family == AF_INET6 ? sizeof(sa6) : sizeof(sa4)) ||
	    shim_real.listen(fd, backlog)) {
		int e = errno;
		shim_real.close(fd);
		return -e;
	}
	return fd;
}

int shim_loop_listen(struct ssock *s, int backlog, int fds[2])
{
	if (!(shim_hello_flags() & SKP_F_LOOPBACK_LISTEN) || s->type != SOCK_STREAM)
		return 0;
	struct sockaddr_in6 sa;
	int rc = local(s, &sa);
	if (rc)
		return rc;
	const struct sockaddr_in *sa4 = (const void *)&sa;
	static const uint8_t mapped_any[16] = {[10] = 0xff, [11] = 0xff};
	bool mapped = s->family == AF_INET6 && !memcmp(&sa.sin6_addr, mapped_any, 16);
	if (s->family == AF_INET ? sa4->sin_addr.s_addr != 0
				 : !IN6_IS_ADDR_UNSPECIFIED(&sa.sin6_addr) && !mapped)
		return 0; /* a specific address: nothing of loopback's */
	if (!sa.sin6_port) {
		/* listen would take an ephemeral port: take it now, so the
		 * kernel listeners can have the same (bind to port 0) */
		struct sockaddr_in6 any = {.sin6_family = (sa_family_t)s->family};
		struct skp_req req = {.op = SKP_BIND,
				      .len = s->family == AF_INET6 ? sizeof(any)
								   : sizeof(struct sockaddr_in)};
		memcpy(req.data, &any, req.len);
		struct skp_rep rep;
		if ((rc = sock_rpc(s, &req, &rep)) || (rc = local(s, &sa)))
			return rc;
	}
	int v6only = 0;
	if (s->family == AF_INET6 && !mapped) {
		struct skp_req req = {
		    .op = SKP_GETSOCKOPT, .a = IPPROTO_IPV6, .b = IPV6_V6ONLY, .len = sizeof(int)};
		struct skp_rep rep;
		if (!sock_rpc(s, &req, &rep) && rep.len >= sizeof(int))
			memcpy(&v6only, rep.data, sizeof(int));
	}
	/* what the wildcard takes from loopback: 127.0.0.1 (named ::ffff:127.0.0.1
	 * on a dual-stack AF_INET6 socket, as the kernel names it), ::1 */
	static const uint8_t lo4[4] = {127, 0, 0, 1};
	static const uint8_t lo4m[16] = {[10] = 0xff, [11] = 0xff, 127, 0, 0, 1};
	static const uint8_t lo6[16] = {[15] = 1};
	struct want {
		int family;
		const void *addr;
		bool v6only;
	} want[2];
	int nw = 0;
	if (s->family == AF_INET)
		want[nw++] = (struct want){AF_INET, lo4, false};
	else if (!v6only)
		want[nw++] = (struct want){AF_INET6, lo4m, false};
	if (s->family == AF_INET6 && !mapped)
		want[nw++] = (struct want){AF_INET6, lo6, true};
	int n = 0;
	for (int i = 0; i < nw; i++) {
		int fd = kernel_listener(want[i].family, want[i].addr, sa.sin6_port, want[i].v6only,
					 backlog);
		if (fd == -EADDRNOTAVAIL || fd == -EAFNOSUPPORT)
			continue; /* no such loopback here (lo down, IPv6 off) */
		if (fd < 0) {
			while (n)
				shim_real.close(fds[--n]);
			return fd; /* EADDRINUSE: a kernel listener on loopback has the port */
		}
		fds[n++] = fd;
	}
	return n;
}
