/* Binding and listening on both families through the native API, on two
 * stacks over a dev_wire, each with IPv4 and IPv6 addresses: the bind
 * conflict matrix of Linux (AF_INET/AF_INET6, wildcards, v4-mapped
 * addresses, IPV6_V6ONLY, SO_REUSEADDR, bound and listening holders; the
 * expected answers are those a Linux 6.x kernel gives for the same
 * sequence of calls), IPV6_V6ONLY's own rules, an AF_INET6 listener taking
 * IPv4 (v4-mapped names) and IPv6 connections at once, an IPV6_V6ONLY
 * listener refusing IPv4, and a connect to ::ffff:a.b.c.d; for UDP the
 * same matrix and option rules, a dual-stack socket receiving and
 * answering both families, IPV6_V6ONLY refusing IPv4, v4-mapped peers and
 * binds. */
#include <check.h>
#include <errno.h>

#include "../../sim/sim_harness.h"

static struct sim S;
static const char *const A6 = "fd00:1::1", *const B6 = "fd00:1::2";
#define B4	 "198.18.0.2"
#define B4_OTHER "198.18.0.3"

static void add_addr(struct net_config *c, const char *a, uint8_t plen)
{
	struct net_addr *n = &c->addrs[c->naddrs++];
	n->prefix_len = plen;
	if (inet_pton(AF_INET, a, &n->addr.v4) == 1) {
		n->family = AF_INET;
	} else {
		n->family = AF_INET6;
		ck_assert_int_eq(inet_pton(AF_INET6, a, n->addr.v6), 1);
	}
}

static void setup(void)
{
	memset(&S, 0, sizeof(S));
	S.now = 1000000000ull;
	clk_init_manual(&S.clk, &S.now);
	S.pool =
	    rte_pktmbuf_pool_create("bind", 4095, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	ck_assert_ptr_nonnull(S.pool);
	struct dev_wire_config wc = {.mtu = 1500, .delay_ns = 1000000, .queue_len = 1024};
	ck_assert_int_eq(dev_wire_pair_create_cfg(&wc, &S.clk, &S.wa, &S.wb), 0);
	S.a4 = inet_addr("198.18.0.1");
	S.b4 = inet_addr(B4);
	struct stack_config ca, cb;
	memset(&ca, 0, sizeof(ca));
	sim_net_cfg(&S, &ca.net, S.wa, S.a4);
	add_addr(&ca.net, A6, 64);
	ca.net.seed = ca.seed = 11;
	ca.keys_from_seed = true;
	ca.max_conns = 32;
	cb = ca;
	sim_net_cfg(&S, &cb.net, S.wb, S.b4);
	add_addr(&cb.net, B4_OTHER, 24);
	add_addr(&cb.net, B6, 64);
	cb.net.seed = cb.seed = 12;
	cb.keys_from_seed = true;
	ck_assert_int_eq(stack_create(&ca, &S.a), 0);
	ck_assert_int_eq(stack_create(&cb, &S.b), 0);
}

static void teardown(void)
{
	sim_destroy(&S, false);
}

static void run_ms(uint64_t ms)
{
	uint64_t end = S.now + ms * 1000000ull;
	for (int i = 0; i < 1000000 && S.now < end; i++)
		if (!sim_step(&S))
			S.now = end;
}

/* A sockaddr for "a" of family fam ("::ffff:x" and "::" are AF_INET6). */
static socklen_t sa_of(int fam, const char *a, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (fam == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;
		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		ck_assert_int_eq(inet_pton(AF_INET, a, &s->sin_addr), 1);
		return sizeof(*s);
	}
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;
	s->sin6_family = AF_INET6;
	s->sin6_port = htons(port);
	ck_assert_int_eq(inet_pton(AF_INET6, a, &s->sin6_addr), 1);
	return sizeof(*s);
}

/* "a:port" or "[a]:port" as the sockaddr names it. */
static const char *sa_name(const struct sockaddr_storage *ss, char *buf, size_t n)
{
	char a[INET6_ADDRSTRLEN];
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)ss;
		inet_ntop(AF_INET, &s->sin_addr, a, sizeof(a));
		snprintf(buf, n, "%s:%u", a, ntohs(s->sin_port));
	} else {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &s->sin6_addr, a, sizeof(a));
		snprintf(buf, n, "[%s]:%u", a, ntohs(s->sin6_port));
	}
	return buf;
}

/* v6only: -1 leaves the default (AF_INET sockets), else IPV6_V6ONLY. */
struct bspec {
	int fam;
	const char *addr;
	int v6only;
};

static int bind_typed(struct stack *st, int type, const struct bspec *b, uint16_t port, bool reuse,
		      int *sd)
{
	*sd = skops_socket(st, b->fam, type);
	ck_assert_int_ge(*sd, 0);
	int one = 1;
	if (reuse)
		ck_assert_int_eq(skops_setsockopt(st, *sd, SOL_SOCKET, SO_REUSEADDR, &one, 4), 0);
	if (b->v6only >= 0)
		ck_assert_int_eq(
		    skops_setsockopt(st, *sd, SOL_IPV6, IPV6_V6ONLY, &b->v6only, sizeof(int)), 0);
	struct sockaddr_storage ss;
	socklen_t l = sa_of(b->fam, b->addr, port, &ss);
	return skops_bind(st, *sd, (struct sockaddr *)&ss, l);
}

static int bind_one(struct stack *st, const struct bspec *b, uint16_t port, bool reuse, int *sd)
{
	return bind_typed(st, SOCK_STREAM, b, port, reuse, sd);
}

/* The second socket's bind after the first bound (and listened when
 * listening): pairs whose addresses overlap answer EADDRINUSE unless both
 * have SO_REUSEADDR and the first does not listen; the others always bind.
 * UDP sockets (Linux udp_lib_lport_inuse: the same inet_rcv_saddr_equal)
 * answer the same, and have no listening state. */
static const struct {
	struct bspec first, second;
	bool overlap;
} matrix[] = {
    {{AF_INET, "0.0.0.0", -1}, {AF_INET6, "::", 0}, true},
    {{AF_INET, "0.0.0.0", -1}, {AF_INET6, "::", 1}, false},
    {{AF_INET6, "::", 0}, {AF_INET, "0.0.0.0", -1}, true},
    {{AF_INET6, "::", 1}, {AF_INET, "0.0.0.0", -1}, false},
    {{AF_INET6, "::", 1}, {AF_INET6, "::", 1}, true},
    {{AF_INET6, "::", 1}, {AF_INET6, "::", 0}, true},
    {{AF_INET, B4, -1}, {AF_INET6, "::", 0}, true},
    {{AF_INET, B4, -1}, {AF_INET6, "::", 1}, false},
    {{AF_INET6, "::ffff:" B4, 0}, {AF_INET, B4, -1}, true},
    {{AF_INET6, "::ffff:" B4, 0}, {AF_INET, "0.0.0.0", -1}, true},
    {{AF_INET6, "::ffff:" B4, 0}, {AF_INET6, "::", 1}, false},
    {{AF_INET6, "::ffff:" B4, 0}, {AF_INET6, "::", 0}, true},
    {{AF_INET6, "fd00:1::2", -1}, {AF_INET6, "::", 0}, true},
    {{AF_INET6, "fd00:1::2", -1}, {AF_INET, "0.0.0.0", -1}, false},
    {{AF_INET, B4, -1}, {AF_INET, B4_OTHER, -1}, false},
    {{AF_INET, "0.0.0.0", -1}, {AF_INET6, "::ffff:0.0.0.0", 0}, true},
    {{AF_INET, B4, -1}, {AF_INET, B4, -1}, true},
    {{AF_INET6, "fd00:1::2", -1}, {AF_INET6, "fd00:1::2", -1}, true},
    {{AF_INET6, "::ffff:" B4, 0}, {AF_INET6, "::ffff:" B4_OTHER, 0}, false},
};

START_TEST(bind_conflict_matrix)
{
	int type = _i ? SOCK_DGRAM : SOCK_STREAM;
	uint16_t port = 7000;
	for (unsigned i = 0; i < sizeof(matrix) / sizeof(matrix[0]); i++) {
		for (int v = 0; v < (type == SOCK_DGRAM ? 2 : 4); v++, port++) {
			bool reuse = v & 1, listen = v & 2;
			int s1, s2;
			ck_assert_int_eq(bind_typed(S.b, type, &matrix[i].first, port, reuse, &s1),
					 0);
			if (listen)
				ck_assert_int_eq(skops_listen(S.b, s1, 4), 0);
			int rc = bind_typed(S.b, type, &matrix[i].second, port, reuse, &s2);
			int want = matrix[i].overlap && !(reuse && !listen) ? -EADDRINUSE : 0;
			ck_assert_msg(rc == want,
				      "%s case %u (%s %s, then %s %s)%s%s: bind %d, want %d",
				      type == SOCK_DGRAM ? "UDP" : "TCP", i,
				      matrix[i].first.fam == AF_INET ? "AF_INET" : "AF_INET6",
				      matrix[i].first.addr,
				      matrix[i].second.fam == AF_INET ? "AF_INET" : "AF_INET6",
				      matrix[i].second.addr, reuse ? " SO_REUSEADDR" : "",
				      listen ? " first listening" : "", rc, want);
			/* both bound with SO_REUSEADDR: only one may listen */
			if (!rc && type == SOCK_STREAM && matrix[i].overlap && !listen) {
				ck_assert_int_eq(skops_listen(S.b, s1, 4), 0);
				ck_assert_int_eq(skops_listen(S.b, s2, 4), -EADDRINUSE);
			} else if (!rc && type == SOCK_STREAM) {
				ck_assert_int_eq(skops_listen(S.b, s2, 4), 0);
			}
			skops_close(S.b, s1);
			skops_close(S.b, s2);
		}
	}
	/* a closed holder leaves the port free */
	int s;
	struct bspec any4 = {AF_INET, "0.0.0.0", -1};
	ck_assert_int_eq(bind_typed(S.b, type, &any4, 7000, false, &s), 0);
	skops_close(S.b, s);
}
END_TEST

START_TEST(v6only_option_rules)
{
	int type = _i ? SOCK_DGRAM : SOCK_STREAM;
	int v, one = 1, zero = 0;
	socklen_t l = sizeof(v);
	int s6 = skops_socket(S.b, AF_INET6, type);
	ck_assert_int_eq(skops_getsockopt(S.b, s6, SOL_IPV6, IPV6_V6ONLY, &v, &l), 0);
	ck_assert_int_eq(v, 0); /* net.ipv6.bindv6only = 0 */
	ck_assert_int_eq(skops_setsockopt(S.b, s6, SOL_IPV6, IPV6_V6ONLY, &one, 1), -EINVAL);
	/* a mapped address on an IPV6_V6ONLY socket makes no sense */
	ck_assert_int_eq(skops_setsockopt(S.b, s6, SOL_IPV6, IPV6_V6ONLY, &one, 4), 0);
	struct sockaddr_storage ss;
	socklen_t sl = sa_of(AF_INET6, "::ffff:" B4, 7500, &ss);
	ck_assert_int_eq(skops_bind(S.b, s6, (struct sockaddr *)&ss, sl), -EINVAL);
	skops_close(S.b, s6);
	/* a specific IPv6 address makes the socket IPv6-only, fixed after bind */
	s6 = skops_socket(S.b, AF_INET6, type);
	sl = sa_of(AF_INET6, B6, 7500, &ss);
	ck_assert_int_eq(skops_bind(S.b, s6, (struct sockaddr *)&ss, sl), 0);
	l = sizeof(v);
	ck_assert_int_eq(skops_getsockopt(S.b, s6, SOL_IPV6, IPV6_V6ONLY, &v, &l), 0);
	ck_assert_int_eq(v, 1);
	ck_assert_int_eq(skops_setsockopt(S.b, s6, SOL_IPV6, IPV6_V6ONLY, &zero, 4), -EINVAL);
	skops_close(S.b, s6);
	/* not an AF_INET socket's option */
	int s4 = skops_socket(S.b, AF_INET, type);
	ck_assert_int_eq(skops_setsockopt(S.b, s4, SOL_IPV6, IPV6_V6ONLY, &one, 4), -ENOPROTOOPT);
	l = sizeof(v);
	ck_assert_int_eq(skops_getsockopt(S.b, s4, SOL_IPV6, IPV6_V6ONLY, &v, &l), -EOPNOTSUPP);
	/* a mapped address that is not ours */
	s6 = skops_socket(S.b, AF_INET6, type);
	sl = sa_of(AF_INET6, "::ffff:192.0.2.1", 7500, &ss);
	ck_assert_int_eq(skops_bind(S.b, s6, (struct sockaddr *)&ss, sl), -EADDRNOTAVAIL);
	skops_close(S.b, s6);
	skops_close(S.b, s4);
}
END_TEST

/* A connects from family fam to "to"; returns A's socket. */
static int dial(int fam, const char *to, uint16_t port)
{
	int c = skops_socket(S.a, fam, SOCK_STREAM);
	struct sockaddr_storage ss;
	socklen_t l = sa_of(fam, to, port, &ss);
	ck_assert_int_eq(skops_connect(S.a, c, (struct sockaddr *)&ss, l), -EINPROGRESS);
	return c;
}

/* B accepts one connection on l and checks the names accept, getpeername
 * and getsockname give; then a byte each way. */
static int take(int l, const char *peer, const char *local, int c)
{
	struct sockaddr_storage p, g, n;
	socklen_t pl = sizeof(p), gl = sizeof(g), nl = sizeof(n);
	char buf[80];
	int s = skops_accept(S.b, l, (struct sockaddr *)&p, &pl);
	ck_assert_int_ge(s, 0);
	ck_assert_str_eq(sa_name(&p, buf, sizeof(buf)), peer);
	ck_assert_uint_eq(pl, p.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						      : sizeof(struct sockaddr_in));
	ck_assert_int_eq(skops_getpeername(S.b, s, (struct sockaddr *)&g, &gl), 0);
	ck_assert_str_eq(sa_name(&g, buf, sizeof(buf)), peer);
	ck_assert_int_eq(skops_getsockname(S.b, s, (struct sockaddr *)&n, &nl), 0);
	ck_assert_str_eq(sa_name(&n, buf, sizeof(buf)), local);
	ck_assert_int_eq(skops_send(S.a, c, "q", 1, 0), 1);
	ck_assert_int_eq(skops_send(S.b, s, "r", 1, 0), 1);
	run_ms(20);
	char x;
	ck_assert_int_eq(skops_recv(S.b, s, &x, 1, 0), 1);
	ck_assert_int_eq(x, 'q');
	ck_assert_int_eq(skops_recv(S.a, c, &x, 1, 0), 1);
	ck_assert_int_eq(x, 'r');
	return s;
}

static char *name(const char *fmt, uint16_t port, char *buf)
{
	snprintf(buf, 80, fmt, port);
	return buf;
}

START_TEST(dual_stack_listener_takes_both)
{
	int l, c4, c6;
	struct bspec any = {AF_INET6, "::", 0};
	ck_assert_int_eq(bind_one(S.b, &any, 8080, false, &l), 0);
	ck_assert_int_eq(skops_listen(S.b, l, 4), 0);
	c4 = dial(AF_INET, B4, 8080);
	c6 = dial(AF_INET6, B6, 8080);
	run_ms(20);
	ck_assert(skops_events(S.a, c4) & SKOPS_EV_OUT);
	ck_assert(skops_events(S.a, c6) & SKOPS_EV_OUT);
	/* the accept order is the order of the handshakes */
	struct sockaddr_storage me4, me6;
	socklen_t l4 = sizeof(me4), l6 = sizeof(me6);
	skops_getsockname(S.a, c4, (struct sockaddr *)&me4, &l4);
	skops_getsockname(S.a, c6, (struct sockaddr *)&me6, &l6);
	uint16_t p4 = ntohs(((struct sockaddr_in *)&me4)->sin_port);
	uint16_t p6 = ntohs(((struct sockaddr_in6 *)&me6)->sin6_port);
	char b1[80], b2[80];
	int s4 = take(l, name("[::ffff:198.18.0.1]:%u", p4, b1), "[::ffff:" B4 "]:8080", c4);
	int s6 = take(l, name("[fd00:1::1]:%u", p6, b2), "[fd00:1::2]:8080", c6);
	ck_assert_int_eq(skops_accept(S.b, l, NULL, NULL), -EAGAIN);
	/* the listener itself is [::]:8080 */
	struct sockaddr_storage ln;
	socklen_t lnl = sizeof(ln);
	ck_assert_int_eq(skops_getsockname(S.b, l, (struct sockaddr *)&ln, &lnl), 0);
	ck_assert_str_eq(sa_name(&ln, b1, sizeof(b1)), "[::]:8080");
	struct skops_tcp_info ti;
	ck_assert_int_eq(skops_tcp_info(S.b, s4, &ti), 0);
	ck_assert_uint_eq(ti.rcv_mss, 1460); /* an IPv4 connection: 20-byte header */
	ck_assert_int_eq(skops_tcp_info(S.b, s6, &ti), 0);
	ck_assert_uint_eq(ti.rcv_mss, 1440);
	skops_close(S.b, s4);
	skops_close(S.b, s6);
	skops_close(S.a, c4);
	skops_close(S.a, c6);
	skops_close(S.b, l);
}
END_TEST

START_TEST(v6only_listener_refuses_ipv4)
{
	int l, err = 0;
	struct bspec any = {AF_INET6, "::", 1};
	ck_assert_int_eq(bind_one(S.b, &any, 8081, false, &l), 0);
	ck_assert_int_eq(skops_listen(S.b, l, 4), 0);
	int c4 = dial(AF_INET, B4, 8081);
	int c6 = dial(AF_INET6, B6, 8081);
	run_ms(20);
	socklen_t el = sizeof(err);
	ck_assert_int_eq(skops_getsockopt(S.a, c4, SOL_SOCKET, SO_ERROR, &err, &el), 0);
	ck_assert_int_eq(err, ECONNREFUSED);
	ck_assert(skops_events(S.a, c6) & SKOPS_EV_OUT);
	/* an AF_INET listener now shares the port and takes IPv4 as AF_INET */
	int l4;
	struct bspec any4 = {AF_INET, "0.0.0.0", -1};
	ck_assert_int_eq(bind_one(S.b, &any4, 8081, false, &l4), 0);
	ck_assert_int_eq(skops_listen(S.b, l4, 4), 0);
	int c4b = dial(AF_INET, B4, 8081);
	run_ms(20);
	struct sockaddr_storage me;
	socklen_t ml = sizeof(me);
	skops_getsockname(S.a, c4b, (struct sockaddr *)&me, &ml);
	char b[80];
	int s = take(l4, name("198.18.0.1:%u", ntohs(((struct sockaddr_in *)&me)->sin_port), b),
		     B4 ":8081", c4b);
	ck_assert_int_eq(skops_accept(S.b, l, NULL, NULL) >= 0, 1); /* the IPv6 one */
	skops_close(S.b, s);
	skops_close(S.a, c4);
	skops_close(S.a, c6);
	skops_close(S.a, c4b);
	skops_close(S.b, l);
	skops_close(S.b, l4);
}
END_TEST

/* IPv4 SYNs go to the most specific listener, AF_INET before AF_INET6 of
 * the same rank (Linux compute_score). */
START_TEST(ipv4_picks_most_specific_listener)
{
	int lw, lm;
	struct bspec any = {AF_INET6, "::", 0}, mapped = {AF_INET6, "::ffff:" B4_OTHER, 0};
	ck_assert_int_eq(bind_one(S.b, &any, 8082, true, &lw), 0);
	ck_assert_int_eq(bind_one(S.b, &mapped, 8082, true, &lm), 0);
	ck_assert_int_eq(skops_listen(S.b, lw, 4), 0);
	ck_assert_int_eq(skops_listen(S.b, lm, 4), -EADDRINUSE); /* overlaps a listener */
	skops_close(S.b, lm);
	skops_close(S.b, lw);
	/* a mapped listener and a v6only wildcard do not overlap */
	struct bspec any6 = {AF_INET6, "::", 1};
	ck_assert_int_eq(bind_one(S.b, &mapped, 8082, false, &lm), 0);
	ck_assert_int_eq(bind_one(S.b, &any6, 8082, false, &lw), 0);
	ck_assert_int_eq(skops_listen(S.b, lm, 4), 0);
	ck_assert_int_eq(skops_listen(S.b, lw, 4), 0);
	int c = dial(AF_INET, B4_OTHER, 8082);
	int r = dial(AF_INET, B4, 8082); /* nobody takes IPv4 to .2 */
	run_ms(20);
	ck_assert(skops_events(S.a, c) & SKOPS_EV_OUT);
	ck_assert(skops_events(S.a, r) & SKOPS_EV_ERR);
	int s = skops_accept(S.b, lm, NULL, NULL);
	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(skops_accept(S.b, lw, NULL, NULL), -EAGAIN);
	skops_close(S.b, s);
	skops_close(S.a, c);
	skops_close(S.a, r);
	skops_close(S.b, lm);
	skops_close(S.b, lw);
}
END_TEST

START_TEST(connect_to_v4_mapped)
{
	int l;
	struct bspec any4 = {AF_INET, "0.0.0.0", -1};
	ck_assert_int_eq(bind_one(S.b, &any4, 8083, false, &l), 0);
	ck_assert_int_eq(skops_listen(S.b, l, 4), 0);
	int c = dial(AF_INET6, "::ffff:" B4, 8083);
	run_ms(20);
	ck_assert(skops_events(S.a, c) & SKOPS_EV_OUT);
	struct sockaddr_storage me, peer;
	socklen_t ml = sizeof(me), pl = sizeof(peer);
	char b[80];
	ck_assert_int_eq(skops_getsockname(S.a, c, (struct sockaddr *)&me, &ml), 0);
	ck_assert_int_eq(me.ss_family, AF_INET6);
	ck_assert_str_eq(
	    sa_name(&me, b, sizeof(b)),
	    name("[::ffff:198.18.0.1]:%u", ntohs(((struct sockaddr_in6 *)&me)->sin6_port), b + 40));
	ck_assert_int_eq(skops_getpeername(S.a, c, (struct sockaddr *)&peer, &pl), 0);
	ck_assert_str_eq(sa_name(&peer, b, sizeof(b)), "[::ffff:" B4 "]:8083");
	char nb[80];
	int s = take(l, name("198.18.0.1:%u", ntohs(((struct sockaddr_in6 *)&me)->sin6_port), nb),
		     B4 ":8083", c);
	/* an IPV6_V6ONLY socket cannot reach IPv4 */
	int d = skops_socket(S.a, AF_INET6, SOCK_STREAM);
	int one = 1;
	ck_assert_int_eq(skops_setsockopt(S.a, d, SOL_IPV6, IPV6_V6ONLY, &one, 4), 0);
	struct sockaddr_storage to;
	socklen_t tl = sa_of(AF_INET6, "::ffff:" B4, 8083, &to);
	ck_assert_int_eq(skops_connect(S.a, d, (struct sockaddr *)&to, tl), -ENETUNREACH);
	skops_close(S.a, d);
	skops_close(S.b, s);
	skops_close(S.a, c);
	skops_close(S.b, l);
}
END_TEST

/* UDP: sendto from st's socket sd to "to":port, one byte c. */
static void udp_to(struct stack *st, int sd, int fam, const char *to, uint16_t port, char c)
{
	struct sockaddr_storage ss;
	socklen_t l = sa_of(fam, to, port, &ss);
	ck_assert_int_eq(skops_sendto(st, sd, &c, 1, 0, (struct sockaddr *)&ss, l), 1);
}

/* UDP: the next datagram on st's sd is byte c from "from" */
static void udp_from(struct stack *st, int sd, char c, const char *from)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	char x, buf[80];
	ck_assert_int_eq(skops_recvfrom(st, sd, &x, 1, 0, (struct sockaddr *)&ss, &l), 1);
	ck_assert_int_eq(x, c);
	ck_assert_str_eq(sa_name(&ss, buf, sizeof(buf)), from);
	ck_assert_uint_eq(l, ss.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						      : sizeof(struct sockaddr_in));
}

static uint16_t udp_port(struct stack *st, int sd)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	ck_assert_int_eq(skops_getsockname(st, sd, (struct sockaddr *)&ss, &l), 0);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port); /* same offset in sin6 */
}

/* An AF_INET6 UDP socket on [::] takes IPv4 (named ::ffff:a.b.c.d) and
 * IPv6 datagrams, answers each through the name it got; IPV6_V6ONLY on it
 * leaves IPv4 to port unreachable (a connected IPv4 sender's
 * ECONNREFUSED) and refuses v4-mapped destinations. */
START_TEST(udp_dual_stack_socket)
{
	int u, c4 = skops_socket(S.a, AF_INET, SOCK_DGRAM),
	       c6 = skops_socket(S.a, AF_INET6, SOCK_DGRAM);
	struct bspec any = {AF_INET6, "::", 0};
	ck_assert_int_eq(bind_typed(S.b, SOCK_DGRAM, &any, 9000, false, &u), 0);
	udp_to(S.a, c4, AF_INET, B4, 9000, '4');
	udp_to(S.a, c6, AF_INET6, B6, 9000, '6');
	run_ms(20);
	char b1[80], b2[80];
	udp_from(S.b, u, '4', name("[::ffff:198.18.0.1]:%u", udp_port(S.a, c4), b1));
	udp_from(S.b, u, '6', name("[fd00:1::1]:%u", udp_port(S.a, c6), b2));
	udp_to(S.b, u, AF_INET6, "::ffff:198.18.0.1", udp_port(S.a, c4), 'r');
	udp_to(S.b, u, AF_INET6, "fd00:1::1", udp_port(S.a, c6), 's');
	run_ms(20);
	udp_from(S.a, c4, 'r', B4 ":9000");
	udp_from(S.a, c6, 's', "[fd00:1::2]:9000");
	struct sockaddr_storage ln;
	socklen_t lnl = sizeof(ln);
	ck_assert_int_eq(skops_getsockname(S.b, u, (struct sockaddr *)&ln, &lnl), 0);
	ck_assert_str_eq(sa_name(&ln, b1, sizeof(b1)), "[::]:9000");
	skops_close(S.b, u);

	struct bspec only = {AF_INET6, "::", 1};
	ck_assert_int_eq(bind_typed(S.b, SOCK_DGRAM, &only, 9001, false, &u), 0);
	struct sockaddr_storage to;
	socklen_t tl = sa_of(AF_INET, B4, 9001, &to);
	ck_assert_int_eq(skops_connect(S.a, c4, (struct sockaddr *)&to, tl), 0);
	ck_assert_int_eq(skops_send(S.a, c4, "x", 1, 0), 1);
	udp_to(S.a, c6, AF_INET6, B6, 9001, '6');
	run_ms(20);
	udp_from(S.b, u, '6', name("[fd00:1::1]:%u", udp_port(S.a, c6), b2));
	char x;
	ck_assert_int_eq(skops_recv(S.b, u, &x, 1, 0), -EAGAIN);
	int e;
	socklen_t el = sizeof(e);
	ck_assert_int_eq(skops_getsockopt(S.a, c4, SOL_SOCKET, SO_ERROR, &e, &el), 0);
	ck_assert_int_eq(e, ECONNREFUSED);
	tl = sa_of(AF_INET6, "::ffff:198.18.0.1", 9, &to);
	ck_assert_int_eq(skops_sendto(S.b, u, "x", 1, 0, (struct sockaddr *)&to, tl), -ENETUNREACH);
	ck_assert_int_eq(skops_connect(S.b, u, (struct sockaddr *)&to, tl), -ENETUNREACH);
	skops_close(S.b, u);
	skops_close(S.a, c4);
	skops_close(S.a, c6);
}
END_TEST

/* A dual-stack UDP socket connected to ::ffff:a.b.c.d talks IPv4 and names
 * its peer v4-mapped; one bound to ::ffff:a.b.c.d is an IPv4 socket (IPv6
 * datagrams to its port find nobody). A port taken by sendto's autobind
 * fixes IPV6_V6ONLY as bind does. */
START_TEST(udp_v4_mapped_peer_and_bind)
{
	int k4, u = skops_socket(S.a, AF_INET6, SOCK_DGRAM);
	struct bspec b4 = {AF_INET, B4, -1};
	ck_assert_int_eq(bind_typed(S.b, SOCK_DGRAM, &b4, 9002, false, &k4), 0);
	struct sockaddr_storage to, pn;
	socklen_t tl = sa_of(AF_INET6, "::ffff:" B4, 9002, &to), pl = sizeof(pn);
	ck_assert_int_eq(skops_connect(S.a, u, (struct sockaddr *)&to, tl), 0);
	ck_assert_int_eq(skops_getpeername(S.a, u, (struct sockaddr *)&pn, &pl), 0);
	char b1[80];
	ck_assert_str_eq(sa_name(&pn, b1, sizeof(b1)), "[::ffff:" B4 "]:9002");
	ck_assert_int_eq(skops_send(S.a, u, "m", 1, 0), 1);
	run_ms(20);
	udp_from(S.b, k4, 'm', name("198.18.0.1:%u", udp_port(S.a, u), b1));
	udp_to(S.b, k4, AF_INET, "198.18.0.1", udp_port(S.a, u), 'n');
	run_ms(20);
	udp_from(S.a, u, 'n', "[::ffff:" B4 "]:9002");
	int one = 1;
	ck_assert_int_eq(skops_setsockopt(S.a, u, SOL_IPV6, IPV6_V6ONLY, &one, 4), -EINVAL);
	skops_close(S.a, u);
	skops_close(S.b, k4);

	int m, c4 = skops_socket(S.a, AF_INET, SOCK_DGRAM),
	       c6 = skops_socket(S.a, AF_INET6, SOCK_DGRAM);
	struct bspec mapped = {AF_INET6, "::ffff:" B4, 0};
	ck_assert_int_eq(bind_typed(S.b, SOCK_DGRAM, &mapped, 9003, false, &m), 0);
	udp_to(S.a, c6, AF_INET6, B6, 9003, '6');
	udp_to(S.a, c4, AF_INET, B4, 9003, '4');
	run_ms(20);
	udp_from(S.b, m, '4', name("[::ffff:198.18.0.1]:%u", udp_port(S.a, c4), b1));
	char x;
	ck_assert_int_eq(skops_recv(S.b, m, &x, 1, 0), -EAGAIN);
	/* an AF_INET socket on the other address shares the port */
	struct bspec other = {AF_INET, B4_OTHER, -1};
	int o;
	ck_assert_int_eq(bind_typed(S.b, SOCK_DGRAM, &other, 9003, false, &o), 0);
	skops_close(S.b, o);
	skops_close(S.b, m);
	skops_close(S.a, c4);
	skops_close(S.a, c6);
}
END_TEST

/* st's UDP socket of owner uid with SO_REUSEPORT: bind's answer */
static int udp_reuseport_bind(struct stack *st, uint32_t uid, uint16_t port, int *sd)
{
	int one = 1;
	*sd = skops_socket(st, AF_INET, SOCK_DGRAM);
	ck_assert_int_ge(*sd, 0);
	ck_assert_int_eq(skops_set_owner(st, *sd, uid), 0);
	ck_assert_int_eq(skops_setsockopt(st, *sd, SOL_SOCKET, SO_REUSEPORT, &one, 4), 0);
	struct sockaddr_storage ss;
	socklen_t l = sa_of(AF_INET, "0.0.0.0", port, &ss);
	return skops_bind(st, *sd, (struct sockaddr *)&ss, l);
}

/* UDP sockets sharing a port: with SO_REUSEADDR the newest binding takes
 * the datagrams (Linux's chain order), with SO_REUSEPORT each source keeps
 * to one member and several sources reach both. */
START_TEST(udp_reuse_delivery)
{
	int u1, u2;
	struct bspec any4 = {AF_INET, "0.0.0.0", -1}, any6 = {AF_INET6, "::", 0};
	ck_assert_int_eq(bind_typed(S.b, SOCK_DGRAM, &any4, 9010, true, &u1), 0);
	ck_assert_int_eq(bind_typed(S.b, SOCK_DGRAM, &any6, 9010, true, &u2), 0);
	int c = skops_socket(S.a, AF_INET, SOCK_DGRAM);
	udp_to(S.a, c, AF_INET, B4, 9010, 'a'); /* AF_INET scores higher than dual [::] */
	run_ms(20);
	char x, b1[80];
	udp_from(S.b, u1, 'a', name("198.18.0.1:%u", udp_port(S.a, c), b1));
	skops_close(S.b, u1);
	ck_assert_int_eq(bind_typed(S.b, SOCK_DGRAM, &any6, 9010, true, &u1), 0);
	udp_to(S.a, c, AF_INET, B4, 9010, 'b'); /* two equals: the newest */
	run_ms(20);
	udp_from(S.b, u1, 'b', name("[::ffff:198.18.0.1]:%u", udp_port(S.a, c), b1));
	ck_assert_int_eq(skops_recv(S.b, u2, &x, 1, 0), -EAGAIN);
	skops_close(S.b, u1);
	skops_close(S.b, u2);
	skops_close(S.a, c);

	int g[2], got[2] = {0, 0};
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(udp_reuseport_bind(S.b, 0, 9011, &g[i]), 0);
	for (int k = 0; k < 16; k++) {
		c = skops_socket(S.a, AF_INET, SOCK_DGRAM);
		udp_to(S.a, c, AF_INET, B4, 9011, 'p');
		udp_to(S.a, c, AF_INET, B4, 9011, 'q');
		run_ms(10);
		int n[2] = {0, 0};
		for (int i = 0; i < 2; i++)
			while (skops_recv(S.b, g[i], &x, 1, 0) == 1)
				n[i]++;
		ck_assert_msg((n[0] == 2 && !n[1]) || (n[1] == 2 && !n[0]),
			      "source %d: %d and %d datagrams", k, n[0], n[1]);
		got[n[1] == 2]++;
		skops_close(S.a, c);
	}
	ck_assert_msg(got[0] && got[1], "16 sources: %d and %d to each member", got[0], got[1]);
	skops_close(S.b, g[0]);
	skops_close(S.b, g[1]);
}
END_TEST

/* st's UDP socket sd connected to "to":port */
static void udp_connect(struct stack *st, int sd, int fam, const char *to, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t l = sa_of(fam, to, port, &ss);
	ck_assert_int_eq(skops_connect(st, sd, (struct sockaddr *)&ss, l), 0);
}

/* A connected UDP socket takes datagrams from its peer only (a v4-mapped
 * peer of a dual-stack socket too), ahead of a newer unconnected socket on
 * the port; another source goes to that one, or with none gets port
 * unreachable; connect(AF_UNSPEC) takes any IPv4 source again, and IPv6
 * ones from the old peer's address only (Linux keeps sk_v6_daddr, here
 * ::ffff:A4, which no IPv6 source is). */
START_TEST(udp_connected_takes_its_peer_only)
{
	struct bspec any6 = {AF_INET6, "::", 0};
	int u, w, c1 = skops_socket(S.a, AF_INET, SOCK_DGRAM),
		  c2 = skops_socket(S.a, AF_INET, SOCK_DGRAM);
	int c6 = skops_socket(S.a, AF_INET6, SOCK_DGRAM);
	char x, b1[80];
	ck_assert_int_eq(bind_typed(S.b, SOCK_DGRAM, &any6, 9020, true, &u), 0);
	udp_to(S.a, c1, AF_INET, B4, 9020, '1'); /* c1 gets its port */
	run_ms(20);
	udp_from(S.b, u, '1', name("[::ffff:198.18.0.1]:%u", udp_port(S.a, c1), b1));
	udp_connect(S.b, u, AF_INET6, "::ffff:198.18.0.1", udp_port(S.a, c1));
	udp_connect(S.a, c2, AF_INET, B4, 9020);
	ck_assert_int_eq(skops_send(S.a, c2, "2", 1, 0), 1);
	run_ms(20);
	ck_assert_int_eq(skops_recv(S.b, u, &x, 1, 0), -EAGAIN);
	int e;
	socklen_t el = sizeof(e);
	ck_assert_int_eq(skops_getsockopt(S.a, c2, SOL_SOCKET, SO_ERROR, &e, &el), 0);
	ck_assert_int_eq(e, ECONNREFUSED);
	udp_to(S.a, c6, AF_INET6, B6, 9020, '6');
	run_ms(20);
	ck_assert_int_eq(skops_recv(S.b, u, &x, 1, 0), -EAGAIN);

	ck_assert_int_eq(bind_typed(S.b, SOCK_DGRAM, &any6, 9020, true, &w), 0);
	udp_to(S.a, c1, AF_INET, B4, 9020, 'a');
	ck_assert_int_eq(skops_send(S.a, c2, "b", 1, 0), 1);
	run_ms(20);
	udp_from(S.b, u, 'a', name("[::ffff:198.18.0.1]:%u", udp_port(S.a, c1), b1));
	udp_from(S.b, w, 'b', name("[::ffff:198.18.0.1]:%u", udp_port(S.a, c2), b1));
	ck_assert_int_eq(skops_recv(S.b, u, &x, 1, 0), -EAGAIN);

	skops_close(S.b, w);
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};
	ck_assert_int_eq(skops_connect(S.b, u, &unspec, sizeof(unspec)), 0);
	ck_assert_int_eq(skops_send(S.a, c2, "c", 1, 0), 1);
	udp_to(S.a, c6, AF_INET6, B6, 9020, 'd');
	run_ms(20);
	udp_from(S.b, u, 'c', name("[::ffff:198.18.0.1]:%u", udp_port(S.a, c2), b1));
	ck_assert_int_eq(skops_recv(S.b, u, &x, 1, 0), -EAGAIN);
	skops_close(S.b, u);
	skops_close(S.a, c1);
	skops_close(S.a, c2);
	skops_close(S.a, c6);
}
END_TEST

/* SO_REUSEPORT joins a group of one owner only (Linux sk_uid), and a
 * member connected to a peer leaves the spreading to the others. */
START_TEST(udp_reuseport_owner_and_connected_member)
{
	int g[2], o;
	ck_assert_int_eq(udp_reuseport_bind(S.b, 1000, 9030, &g[0]), 0);
	ck_assert_int_eq(udp_reuseport_bind(S.b, 1001, 9030, &o), -EADDRINUSE);
	skops_close(S.b, o);
	ck_assert_int_eq(udp_reuseport_bind(S.b, 1000, 9030, &g[1]), 0);
	o = skops_socket(S.b, AF_INET, SOCK_DGRAM);
	ck_assert_int_eq(skops_bind(S.b, o,
				    (struct sockaddr *)&(struct sockaddr_in){.sin_family = AF_INET},
				    sizeof(struct sockaddr_in)),
			 0);
	ck_assert_int_eq(skops_set_owner(S.b, o, 1000), -EISCONN);
	skops_close(S.b, o);

	int p = skops_socket(S.a, AF_INET, SOCK_DGRAM);
	udp_to(S.a, p, AF_INET, B4, 9099, 'x'); /* p gets its port */
	udp_connect(S.b, g[0], AF_INET, "198.18.0.1", udp_port(S.a, p));
	char x, b1[80];
	for (int k = 0; k < 8; k++) {
		int c = skops_socket(S.a, AF_INET, SOCK_DGRAM);
		udp_to(S.a, c, AF_INET, B4, 9030, 'q');
		udp_to(S.a, p, AF_INET, B4, 9030, 'p');
		run_ms(10);
		udp_from(S.b, g[1], 'q', name("198.18.0.1:%u", udp_port(S.a, c), b1));
		udp_from(S.b, g[0], 'p', name("198.18.0.1:%u", udp_port(S.a, p), b1));
		ck_assert_int_eq(skops_recv(S.b, g[0], &x, 1, 0), -EAGAIN);
		ck_assert_int_eq(skops_recv(S.b, g[1], &x, 1, 0), -EAGAIN);
		skops_close(S.a, c);
	}
	skops_close(S.a, p);
	skops_close(S.b, g[0]);
	skops_close(S.b, g[1]);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_bind");
	TCase *tc = tcase_create("bind");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, bind_conflict_matrix, 0, 2); /* TCP, UDP */
	tcase_add_loop_test(tc, v6only_option_rules, 0, 2);
	tcase_add_test(tc, dual_stack_listener_takes_both);
	tcase_add_test(tc, v6only_listener_refuses_ipv4);
	tcase_add_test(tc, ipv4_picks_most_specific_listener);
	tcase_add_test(tc, connect_to_v4_mapped);
	tcase_add_test(tc, udp_dual_stack_socket);
	tcase_add_test(tc, udp_v4_mapped_peer_and_bind);
	tcase_add_test(tc, udp_reuse_delivery);
	tcase_add_test(tc, udp_connected_takes_its_peer_only);
	tcase_add_test(tc, udp_reuseport_owner_and_connected_member);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	sim_eal_init("tcp_bind");
	SRunner *sr = srunner_create(suite());
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	rte_eal_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
