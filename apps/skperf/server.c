/* server: `skperf -s` serves one test after another (-1: one), speaking
 * the server side of iperf3's protocol: cookie, PARAM_EXCHANGE, the client's
 * parameters, CREATE_STREAMS, TEST_START, TEST_RUNNING, then on the client's
 * TEST_END the EXCHANGE_RESULTS and DISPLAY_RESULTS steps. */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skperf.h"

/* iperf3's i_errno codes a SERVER_ERROR carries (iperf_api.h) */
#define SP_IERECVPARAMS 114
#define SP_IEPROTOCOL	131

static int open_listeners(struct sp_app *a, int lsd[2])
{
	bool have[2] = {false, false};
	for (unsigned i = 0; i < a->o.pt.net.naddrs; i++)
		have[a->o.pt.net.addrs[i].family == AF_INET6] = true;
	/* both families: one dual-stack AF_INET6 socket takes both, as on Linux */
	if (have[0] && have[1])
		have[0] = false;
	for (int f = 0; f < 2; f++) {
		lsd[f] = -1;
		if (!have[f])
			continue;
		int fam = f ? AF_INET6 : AF_INET, off = 0;
		int s = skops_socket(a->st, fam, SOCK_STREAM);
		if (s < 0) {
			fprintf(stderr, "skperf: socket: %s\n", strerror(-s));
			return s;
		}
		if (fam == AF_INET6)
			skops_setsockopt(a->st, s, SOL_IPV6, IPV6_V6ONLY, &off, sizeof(off));
		struct sockaddr_storage ss;
		socklen_t l = appport_sockaddr(fam, NULL, a->o.port, &ss);
		int rc = skops_bind(a->st, s, (struct sockaddr *)&ss, l);
		if (!rc)
			rc = skops_listen(a->st, s, 128);
		if (rc) {
			fprintf(stderr, "skperf: listen on port %u: %s\n", a->o.port,
				strerror(-rc));
			return rc;
		}
		lsd[f] = s;
	}
	return 0;
}

static int accept_any(struct sp_app *a, const int lsd[2])
{
	for (int f = 0; f < 2; f++) {
		if (lsd[f] < 0)
			continue;
		int s = skops_accept(a->st, lsd[f], NULL, NULL);
		if (s >= 0 || s != -EAGAIN)
			return s;
	}
	return -EAGAIN;
}

static void server_error(struct sp_test *t, int32_t ierr, int32_t err)
{
	uint32_t v[2] = {htonl((uint32_t)ierr), htonl((uint32_t)err)};
	if (!sp_ctl_state_send(t, SP_SERVER_ERROR))
		sp_ctl_write(t, v, sizeof(v));
}

/* A connection that is no stream of this test: iperf3 answers ACCESS_DENIED. */
static void deny(struct sp_app *a, int sd)
{
	int8_t no = SP_ACCESS_DENIED;
	skops_send(a->st, sd, &no, 1, 0);
	skops_close(a->st, sd);
}

static int accept_streams(struct sp_test *t, const int lsd[2])
{
	struct sp_app *a = t->app;
	unsigned want = t->mode == SP_CRR ? 0 : t->parallel * (t->bidir ? 2 : 1);
	uint64_t end = clk_now(&a->clk) + SP_CTL_TIMEOUT_NS;
	while (t->ns < want) {
		if (sp_quit || clk_now(&a->clk) > end) {
			snprintf(t->err, sizeof(t->err), "%u of %u streams connected: %s", t->ns,
				 want, sp_quit ? "interrupted" : "timed out");
			return -ETIMEDOUT;
		}
		sp_pump(a);
		int sd = accept_any(a, lsd);
		if (sd == -EAGAIN)
			continue;
		if (sd < 0) {
			snprintf(t->err, sizeof(t->err), "accept: %s", strerror(-sd));
			return sd;
		}
		char ck[SP_COOKIE_SIZE];
		if (sp_read_exact(t, sd, ck, sizeof(ck), 5 * CLK_NS_PER_S) ||
		    memcmp(ck, t->cookie, sizeof(ck))) {
			t->err[0] = 0;
			deny(a, sd);
			continue;
		}
		int rc = sp_sock_opts(t, sd, false);
		if (rc) {
			skops_close(a->st, sd);
			return rc;
		}
		if (t->mode == SP_RR) {
			/* echoed, not counted: the client times the round trips */
			if ((rc = sp_echo_add(t, sd)))
				return rc;
			want--;
			continue;
		}
		struct sp_stream *s = &t->s[t->ns];
		memset(s, 0, sizeof(*s));
		s->sd = sd;
		s->id = t->ns ? (int)t->ns + 2 : 1;
		/* the client creates its senders first (iperf_create_streams) */
		s->sender = t->bidir ? t->ns >= t->parallel : t->reverse;
		t->ns++;
	}
	return 0;
}

static int run(struct sp_test *t, const int lsd[2])
{
	struct sp_app *a = t->app;
	uint64_t limit = t->time_s > 0 ? (uint64_t)((t->time_s + 30) * 1e9) : 0;
	for (;;) {
		sp_pump(a);
		sp_streams_service(t);
		if (t->mode == SP_CRR) {
			int sd;
			while ((sd = accept_any(a, lsd)) >= 0)
				if (sp_echo_add(t, sd))
					skops_close(a->st, sd);
		}
		int8_t st;
		int rc = sp_ctl_state_poll(t, &st);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			if (st == SP_TEST_END)
				return 0;
			snprintf(t->err, sizeof(t->err), "the client %s (state %d)",
				 st == SP_CLIENT_TERMINATE ? "ended the test" : "sent a bad state",
				 st);
			return -EPROTO;
		}
		if (t->err[0])
			return -EIO;
		uint64_t now = clk_now(&a->clk);
		if (sp_quit || (limit && now - t->t_start > limit)) {
			snprintf(t->err, sizeof(t->err), "%s",
				 sp_quit ? "interrupted" : "the client never ended the test");
			return -ETIMEDOUT;
		}
		sp_interval_tick(t, false);
	}
}

static int serve_one(struct sp_test *t, const int lsd[2])
{
	struct sp_app *a = t->app;
	int rc = sp_ctl_read(t, t->cookie, SP_COOKIE_SIZE, SP_CTL_TIMEOUT_NS);
	if (rc)
		return rc;
	t->cookie[SP_COOKIE_SIZE - 1] = 0;
	if ((rc = sp_ctl_state_send(t, SP_PARAM_EXCHANGE)))
		return rc;
	struct sp_jv *j;
	if ((rc = sp_ctl_json_recv(t, &j, SP_MAX_PARAMS_JSON)))
		return rc;
	rc = sp_params_parse(t, j);
	sp_jv_free(j);
	if (rc) {
		char e[512];
		snprintf(e, sizeof(e), "%s", t->err);
		server_error(t, rc == -EPROTONOSUPPORT ? SP_IEPROTOCOL : SP_IERECVPARAMS, 0);
		snprintf(t->err, sizeof(t->err), "%s", e);
		return rc;
	}
	if (t->mode != SP_BULK && !(t->rr_tx = calloc(1, t->size)))
		return -ENOMEM;
	if ((rc = sp_ctl_state_send(t, SP_CREATE_STREAMS)) || (rc = accept_streams(t, lsd)))
		return rc;
	if ((rc = sp_ctl_state_send(t, SP_TEST_START)) ||
	    (rc = sp_ctl_state_send(t, SP_TEST_RUNNING)))
		return rc;
	sp_test_begin(t);
	sp_report_start(t);
	if ((rc = run(t, lsd)))
		return rc;
	t->t_end = clk_now(&a->clk);
	sp_interval_tick(t, true);
	/* what we sent is in the client's buffers before it counts */
	sp_senders_stop(t, true);
	sp_senders_flush(t, 3 * CLK_NS_PER_S);
	sp_cpu_mark(t, true);
	if ((rc = sp_ctl_state_send(t, SP_EXCHANGE_RESULTS)) || (rc = sp_ctl_json_recv(t, &j, 0)))
		return rc;
	rc = sp_results_parse(t, j);
	sp_jv_free(j);
	if (rc)
		return rc;
	/* bytes still in flight when the client stopped count too */
	sp_receivers_drain(t, 5 * CLK_NS_PER_S);
	sp_streams_snapshot(t);
	struct sp_jw w = {0};
	sp_results_emit(t, &w);
	rc = w.oom ? -ENOMEM : sp_ctl_json_send(t, w.buf, w.len);
	sp_jw_free(&w);
	if (rc || (rc = sp_ctl_state_send(t, SP_DISPLAY_RESULTS)))
		return rc;
	int8_t st = 0;
	sp_ctl_state_recv(t, &st, 5 * CLK_NS_PER_S); /* IPERF_DONE, or the close */
	t->err[0] = 0;
	sp_report_end(t);
	return 0;
}

int sp_server_run(struct sp_app *a)
{
	int lsd[2];
	if (open_listeners(a, lsd))
		return 1;
	if (!a->o.json)
		printf("-----------------------------------------------------------\n"
		       "Server listening on %u (skops)\n"
		       "-----------------------------------------------------------\n",
		       a->o.port);
	int status = 0;
	static struct sp_test t;
	while (!sp_quit) {
		a->busy = false;
		sp_pump(a);
		int sd = accept_any(a, lsd);
		if (sd == -EAGAIN)
			continue;
		if (sd < 0) {
			fprintf(stderr, "skperf: accept: %s\n", strerror(-sd));
			status = 1;
			break;
		}
		sp_test_init(&t, a, true);
		t.ctrl = sd;
		if (!a->o.json) {
			struct sockaddr_storage ss;
			socklen_t l = sizeof(ss);
			char buf[64] = "?";
			if (!skops_getpeername(a->st, sd, (struct sockaddr *)&ss, &l))
				sp_sa_str(&ss, buf, sizeof(buf));
			printf("Accepted connection from %s, port %u\n", buf,
			       ntohs(((struct sockaddr_in *)&ss)->sin_port));
		}
		int rc = serve_one(&t, lsd);
		if (rc) {
			fprintf(stderr, "skperf: test: %s\n", t.err[0] ? t.err : strerror(-rc));
			status = 1;
		} else {
			status = 0;
		}
		sp_test_fini(&t);
		if (a->o.once)
			break;
		if (!a->o.json)
			printf("-----------------------------------------------------------\n"
			       "Server listening on %u (skops)\n"
			       "-----------------------------------------------------------\n",
			       a->o.port);
	}
	for (int f = 0; f < 2; f++)
		if (lsd[f] >= 0)
			skops_close(a->st, lsd[f]);
	return sp_quit && !a->o.once ? 0 : status;
}

int sp_echo_server_run(struct sp_app *a)
{
	int lsd[2];
	if (open_listeners(a, lsd))
		return 1;
	if (!a->o.json)
		printf("Echo server on %u (skops, --plain)\n", a->o.port);
	static struct sp_test t;
	sp_test_init(&t, a, true);
	t.nodelay = true; /* as krr -s: each response leaves at once */
	int status = 0;
	while (!sp_quit) {
		sp_pump(a);
		int sd;
		while ((sd = accept_any(a, lsd)) >= 0) {
			/* a benchmark is under way: busy-poll from now on */
			a->busy = true;
			if (sp_sock_opts(&t, sd, false) || sp_echo_add(&t, sd))
				skops_close(a->st, sd);
		}
		if (sd != -EAGAIN) {
			fprintf(stderr, "skperf: accept: %s\n", strerror(-sd));
			status = 1;
			break;
		}
		sp_echo_service(&t);
	}
	fprintf(stderr, "skperf: echoed %llu connections\n", (unsigned long long)t.crr_done);
	sp_test_fini(&t);
	for (int f = 0; f < 2; f++)
		if (lsd[f] >= 0)
			skops_close(a->st, lsd[f]);
	return status;
}
