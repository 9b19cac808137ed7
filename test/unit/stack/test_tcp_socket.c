/* The native API (stack/socket.c, stack/stack.c) on two stacks over a
 * dev_wire: connect/accept, send/recv, readiness events and callbacks,
 * half-close and EOF, SO_ERROR after a refused connect, tcp_info, UDP
 * sendto/recvfrom, descriptor errors. */
#include <check.h>
#include <errno.h>

#include "../../sim/sim_harness.h"

static struct sim S;

static void setup(void)
{
	ck_assert_int_eq(sim_create(&S, "sock", 7, NULL, 64, 0, false), 0);
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

struct cbrec {
	unsigned calls;
	uint32_t last;
};

static void cb(void *arg, int sd, uint32_t ev)
{
	(void)sd;
	struct cbrec *r = arg;
	r->calls++;
	r->last = ev;
}

static int pair(int *c, int *srv, int *l)
{
	*l = skops_socket(S.b, AF_INET, SOCK_STREAM);
	struct sockaddr_in sb = sim_sin(0, 8080);
	ck_assert_int_eq(skops_bind(S.b, *l, (struct sockaddr *)&sb, sizeof(sb)), 0);
	ck_assert_int_eq(skops_listen(S.b, *l, 4), 0);
	ck_assert_int_eq(skops_accept(S.b, *l, NULL, NULL), -EAGAIN);
	*c = skops_socket(S.a, AF_INET, SOCK_STREAM);
	struct sockaddr_in to = sim_sin(S.b4, 8080);
	ck_assert_int_eq(skops_connect(S.a, *c, (struct sockaddr *)&to, sizeof(to)), -EINPROGRESS);
	ck_assert_int_eq(skops_send(S.a, *c, "x", 1, 0), -ENOTCONN);
	run_ms(50);
	struct sockaddr_in peer;
	socklen_t pl = sizeof(peer);
	*srv = skops_accept(S.b, *l, (struct sockaddr *)&peer, &pl);
	ck_assert_int_ge(*srv, 0);
	ck_assert_uint_eq(peer.sin_addr.s_addr, S.a4);
	return 0;
}

START_TEST(stream_roundtrip_and_eof)
{
	int c, s, l;
	struct cbrec rc = {0};
	pair(&c, &s, &l);
	ck_assert(skops_events(S.a, c) & SKOPS_EV_OUT);
	ck_assert_int_eq(skops_set_callback(S.b, s, cb, &rc), 0);
	ck_assert_int_eq(skops_send(S.a, c, "hello", 5, 0), 5);
	run_ms(50);
	ck_assert_uint_gt(rc.calls, 0);
	ck_assert(rc.last & SKOPS_EV_IN);
	char buf[16];
	ck_assert_int_eq(skops_recv(S.b, s, buf, sizeof(buf), MSG_PEEK), 5);
	ck_assert_int_eq(skops_recv(S.b, s, buf, sizeof(buf), 0), 5);
	ck_assert_mem_eq(buf, "hello", 5);
	ck_assert_int_eq(skops_recv(S.b, s, buf, sizeof(buf), 0), -EAGAIN);
	/* half-close: the server sees EOF and can still answer */
	ck_assert_int_eq(skops_shutdown(S.a, c, SHUT_WR), 0);
	ck_assert_int_eq(skops_send(S.a, c, "y", 1, 0), -EPIPE);
	run_ms(50);
	ck_assert(skops_events(S.b, s) & SKOPS_EV_RDHUP);
	ck_assert_int_eq(skops_recv(S.b, s, buf, sizeof(buf), 0), 0);
	ck_assert_int_eq(skops_send(S.b, s, "bye", 3, 0), 3);
	ck_assert_int_eq(skops_close(S.b, s), 0);
	run_ms(50);
	ck_assert_int_eq(skops_recv(S.a, c, buf, sizeof(buf), 0), 3);
	ck_assert_int_eq(skops_recv(S.a, c, buf, sizeof(buf), 0), 0);
	struct skops_tcp_info ti;
	ck_assert_int_eq(skops_tcp_info(S.a, c, &ti), 0);
	ck_assert_str_eq(ti.state_name, "TIME_WAIT");
	ck_assert_uint_eq(ti.bytes_acked, 5);
	ck_assert_uint_eq(ti.bytes_received, 3);
	ck_assert_str_eq(ti.cc, "cubic"); /* the stack default */
	ck_assert(ti.ts_ok && ti.sack_ok);
	ck_assert_uint_eq(ti.rcv_wscale, 7);
	ck_assert_uint_eq(ti.mss, 1448);
	ck_assert_uint_gt(ti.srtt_us, 0);
	ck_assert_int_eq(skops_close(S.a, c), 0);
	ck_assert_int_eq(skops_close(S.a, c), -EBADF);
	ck_assert_int_eq(skops_close(S.b, l), 0);
}
END_TEST

START_TEST(refused_connect_sets_so_error)
{
	int c = skops_socket(S.a, AF_INET, SOCK_STREAM);
	struct sockaddr_in to = sim_sin(S.b4, 9999); /* nobody listens */
	ck_assert_int_eq(skops_connect(S.a, c, (struct sockaddr *)&to, sizeof(to)), -EINPROGRESS);
	run_ms(50);
	ck_assert(skops_events(S.a, c) & SKOPS_EV_ERR);
	int err = 0;
	socklen_t len = sizeof(err);
	ck_assert_int_eq(skops_getsockopt(S.a, c, SOL_SOCKET, SO_ERROR, &err, &len), 0);
	ck_assert_int_eq(err, ECONNREFUSED);
	skops_close(S.a, c);
}
END_TEST

START_TEST(udp_datagrams)
{
	int u = skops_socket(S.b, AF_INET, SOCK_DGRAM);
	struct sockaddr_in sb = sim_sin(0, 5353);
	ck_assert_int_eq(skops_bind(S.b, u, (struct sockaddr *)&sb, sizeof(sb)), 0);
	int v = skops_socket(S.a, AF_INET, SOCK_DGRAM);
	struct sockaddr_in to = sim_sin(S.b4, 5353);
	ck_assert_int_eq(skops_sendto(S.a, v, "ping", 4, 0, (struct sockaddr *)&to, sizeof(to)), 4);
	run_ms(50);
	ck_assert(skops_events(S.b, u) & SKOPS_EV_IN);
	char buf[16];
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	ck_assert_int_eq(skops_recvfrom(S.b, u, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl),
			 4);
	ck_assert_mem_eq(buf, "ping", 4);
	ck_assert_uint_eq(from.sin_addr.s_addr, S.a4);
	ck_assert_int_eq(skops_recvfrom(S.b, u, buf, sizeof(buf), 0, NULL, NULL), -EAGAIN);
	skops_close(S.a, v);
	skops_close(S.b, u);
}
END_TEST

/* An ICMP port unreachable reaches a connected UDP socket whose peer it
 * names, as SO_ERROR ECONNREFUSED read once (Linux __udp4_lib_err without
 * IP_RECVERR); a datagram to another port, or an unconnected socket, gets
 * nothing. */
START_TEST(udp_port_unreachable)
{
	int v = skops_socket(S.a, AF_INET, SOCK_DGRAM);
	struct sockaddr_in to = sim_sin(S.b4, 5999), other = sim_sin(S.b4, 5998);
	int e = -1;
	socklen_t l = sizeof(e);
	/* unconnected: the ICMP is dropped */
	ck_assert_int_eq(skops_sendto(S.a, v, "x", 1, 0, (struct sockaddr *)&to, sizeof(to)), 1);
	run_ms(50);
	ck_assert(!(skops_events(S.a, v) & SKOPS_EV_ERR));
	ck_assert_int_eq(skops_connect(S.a, v, (struct sockaddr *)&to, sizeof(to)), 0);
	/* connected, but the datagram went to another port */
	ck_assert_int_eq(skops_sendto(S.a, v, "x", 1, 0, (struct sockaddr *)&other, sizeof(other)),
			 1);
	run_ms(50);
	ck_assert(!(skops_events(S.a, v) & SKOPS_EV_ERR));
	ck_assert_int_eq(skops_send(S.a, v, "x", 1, 0), 1);
	run_ms(50);
	ck_assert(skops_events(S.a, v) & SKOPS_EV_ERR);
	ck_assert_int_eq(skops_getsockopt(S.a, v, SOL_SOCKET, SO_ERROR, &e, &l), 0);
	ck_assert_int_eq(e, ECONNREFUSED);
	ck_assert_int_eq(skops_getsockopt(S.a, v, SOL_SOCKET, SO_ERROR, &e, &l), 0);
	ck_assert_int_eq(e, 0);
	ck_assert(!(skops_events(S.a, v) & SKOPS_EV_ERR));
	skops_close(S.a, v);
}
END_TEST

/* UDP readiness reaches the callbacks of the sockets that received, once a
 * datagram burst, from the stack's list of them (a scan of every socket
 * slot each poll cost half a busy-polling skperf); a closed socket is not
 * called again, and its slot's next owner is. */
START_TEST(udp_callbacks)
{
	int u[3];
	struct cbrec rec[3] = {{0}};
	for (int i = 0; i < 3; i++) {
		u[i] = skops_socket(S.b, AF_INET, SOCK_DGRAM);
		struct sockaddr_in sb = sim_sin(0, (uint16_t)(6000 + i));
		ck_assert_int_eq(skops_bind(S.b, u[i], (struct sockaddr *)&sb, sizeof(sb)), 0);
		ck_assert_int_eq(skops_set_callback(S.b, u[i], cb, &rec[i]), 0);
	}
	int v = skops_socket(S.a, AF_INET, SOCK_DGRAM);
	for (int i = 0; i < 3; i += 2) {
		struct sockaddr_in to = sim_sin(S.b4, (uint16_t)(6000 + i));
		for (int k = 0; k < 3; k++)
			ck_assert_int_eq(
			    skops_sendto(S.a, v, "ping", 4, 0, (struct sockaddr *)&to, sizeof(to)),
			    4);
	}
	run_ms(50);
	ck_assert_uint_ge(rec[0].calls, 1);
	ck_assert(rec[0].last & SKOPS_EV_IN);
	ck_assert_uint_eq(rec[1].calls, 0);
	ck_assert_uint_ge(rec[2].calls, 1);
	unsigned before = rec[0].calls;
	run_ms(10); /* nothing new: no calls */
	ck_assert_uint_eq(rec[0].calls, before);
	/* u[2] goes; the slot's next owner receives */
	struct sockaddr_in to = sim_sin(S.b4, 6002);
	ck_assert_int_eq(skops_sendto(S.a, v, "late", 4, 0, (struct sockaddr *)&to, sizeof(to)), 4);
	run_ms(50);
	unsigned c2 = rec[2].calls;
	skops_close(S.b, u[2]);
	int w = skops_socket(S.b, AF_INET, SOCK_DGRAM);
	struct cbrec rw = {0};
	struct sockaddr_in sb = sim_sin(0, 6003);
	ck_assert_int_eq(skops_bind(S.b, w, (struct sockaddr *)&sb, sizeof(sb)), 0);
	ck_assert_int_eq(skops_set_callback(S.b, w, cb, &rw), 0);
	to = sim_sin(S.b4, 6003);
	ck_assert_int_eq(skops_sendto(S.a, v, "new", 3, 0, (struct sockaddr *)&to, sizeof(to)), 3);
	run_ms(50);
	ck_assert_uint_eq(rec[2].calls, c2);
	ck_assert_uint_eq(rw.calls, 1);
	ck_assert(rw.last & SKOPS_EV_IN);
	skops_close(S.a, v);
	skops_close(S.b, w);
	for (int i = 0; i < 2; i++)
		skops_close(S.b, u[i]);
}
END_TEST

START_TEST(bad_arguments)
{
	ck_assert_int_eq(skops_socket(S.a, AF_UNIX, SOCK_STREAM), -EAFNOSUPPORT);
	ck_assert_int_eq(skops_socket(S.a, AF_INET, SOCK_RAW), -EPROTONOSUPPORT);
	ck_assert_int_eq(skops_send(S.a, 1000, "x", 1, 0), -EBADF);
	ck_assert_uint_eq(skops_events(S.a, -1), 0);
	int c = skops_socket(S.a, AF_INET, SOCK_STREAM);
	struct sockaddr_in to = sim_sin(S.b4, 0);
	ck_assert_int_eq(skops_connect(S.a, c, (struct sockaddr *)&to, sizeof(to)), -EINVAL);
	ck_assert_int_eq(skops_connect(S.a, c, (struct sockaddr *)&to, 4), -EINVAL);
	struct sockaddr_in other = sim_sin(inet_addr("192.0.2.1"), 80);
	ck_assert_int_eq(skops_bind(S.a, c, (struct sockaddr *)&other, sizeof(other)),
			 -EADDRNOTAVAIL);
	ck_assert_int_eq(skops_listen(S.a, c, 1), 0);
	int d = skops_socket(S.a, AF_INET, SOCK_STREAM);
	struct sockaddr_in self;
	socklen_t sl = sizeof(self);
	skops_getsockname(S.a, c, (struct sockaddr *)&self, &sl);
	ck_assert_int_eq(skops_bind(S.a, d, (struct sockaddr *)&self, sizeof(self)), -EADDRINUSE);
	ck_assert_int_eq(skops_tcp_info(S.a, d, NULL), -EOPNOTSUPP);
	skops_close(S.a, c);
	skops_close(S.a, d);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tcp_socket");
	TCase *tc = tcase_create("socket");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, stream_roundtrip_and_eof);
	tcase_add_test(tc, refused_connect_sets_so_error);
	tcase_add_test(tc, udp_datagrams);
	tcase_add_test(tc, udp_callbacks);
	tcase_add_test(tc, udp_port_unreachable);
	tcase_add_test(tc, bad_arguments);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	sim_eal_init("tcp_socket");
	SRunner *sr = srunner_create(suite());
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	rte_eal_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
