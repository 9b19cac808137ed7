/* client: `skperf -c HOST` runs one test against `iperf3 -s` or `skperf -s`,
 * the client side of iperf3's protocol. */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skperf.h"

/* What the server says instead of the state we wait for. */
static int unexpected(struct sp_test *t, int8_t st, int8_t want)
{
	if (st == SP_ACCESS_DENIED) {
		snprintf(t->err, sizeof(t->err), "the server is busy running a test");
		return -EBUSY;
	}
	if (st == SP_SERVER_ERROR) {
		uint32_t v[2] = {0, 0};
		sp_ctl_read(t, v, sizeof(v), CLK_NS_PER_S);
		int ie = (int)ntohl(v[0]), e = (int)ntohl(v[1]);
		snprintf(t->err, sizeof(t->err), "server error: iperf3 error %d%s%s", ie,
			 e > 0 ? ": " : "", e > 0 ? strerror(e) : "");
		return -EPROTO;
	}
	if (st == SP_SERVER_TERMINATE) {
		snprintf(t->err, sizeof(t->err), "the server ended the test");
		return -EPROTO;
	}
	snprintf(t->err, sizeof(t->err), "control: state %d where %d was due", st, want);
	return -EPROTO;
}

static int expect(struct sp_test *t, int8_t want)
{
	int8_t st;
	int rc = sp_ctl_state_recv(t, &st, SP_CTL_TIMEOUT_NS);
	if (rc)
		return rc;
	return st == want ? 0 : unexpected(t, st, want);
}

static int open_conn(struct sp_test *t, uint16_t lport, int *out)
{
	struct sp_app *a = t->app;
	uint8_t fam, addr[16];
	if (net_ip_parse(a->o.host, &fam, addr)) {
		snprintf(t->err, sizeof(t->err), "bad host '%s' (an IPv4 or IPv6 address)",
			 a->o.host);
		return -EINVAL;
	}
	int sd = skops_socket(a->st, fam, SOCK_STREAM);
	if (sd < 0) {
		snprintf(t->err, sizeof(t->err), "socket: %s", strerror(-sd));
		return sd;
	}
	struct sockaddr_storage ss;
	int rc = 0;
	if (lport) {
		socklen_t l = appport_sockaddr(fam, NULL, lport, &ss);
		if ((rc = skops_bind(a->st, sd, (struct sockaddr *)&ss, l)))
			snprintf(t->err, sizeof(t->err), "--cport %u: bind: %s", lport,
				 strerror(-rc));
	}
	if (!rc && out != &t->ctrl)
		rc = sp_sock_opts(t, sd, true);
	if (!rc) {
		socklen_t l = appport_sockaddr(fam, addr, a->o.port, &ss);
		rc = skops_connect(a->st, sd, (struct sockaddr *)&ss, l);
		if (rc == -EINPROGRESS)
			rc = 0;
		if (rc)
			snprintf(t->err, sizeof(t->err), "connect: %s", strerror(-rc));
	}
	if (!rc)
		rc = sp_connect_wait(t, sd, SP_CTL_TIMEOUT_NS);
	if (rc) {
		char e[512];
		snprintf(e, sizeof(e), "%.60s %u: %.400s", a->o.host, a->o.port, t->err);
		snprintf(t->err, sizeof(t->err), "%s", e);
		skops_close(a->st, sd);
		return rc;
	}
	*out = sd;
	return 0;
}

/* The i-th stream's connection (from --cport + i when given), numbered as
 * iperf3 numbers its streams. */
static int open_stream(struct sp_test *t, unsigned i, struct sp_stream **out)
{
	uint16_t cport = t->app->o.cport;
	struct sp_stream *s = &t->s[t->ns];
	memset(s, 0, sizeof(*s));
	int rc = open_conn(t, cport ? (uint16_t)(cport + i) : 0, &s->sd);
	if (rc)
		return rc;
	t->ns++;
	s->id = i ? (int)i + 2 : 1;
	*out = s;
	return 0;
}

static int create_streams(struct sp_test *t)
{
	unsigned n = t->mode == SP_CRR ? 0 : t->parallel * (t->bidir ? 2 : 1);
	for (unsigned i = 0; i < n; i++) {
		struct sp_stream *s;
		int rc = open_stream(t, i, &s);
		if (rc)
			return rc;
		s->sender = t->mode == SP_RR || (t->bidir ? i < t->parallel : !t->reverse);
		int save = t->ctrl;
		t->ctrl = s->sd;
		rc = sp_ctl_write(t, t->cookie, SP_COOKIE_SIZE);
		t->ctrl = save;
		if (rc)
			return rc;
	}
	return 0;
}

static int run(struct sp_test *t)
{
	struct sp_app *a = t->app;
	for (;;) {
		sp_pump(a);
		sp_streams_service(t);
		int rc = t->mode == SP_RR    ? sp_rr_client_service(t)
			 : t->mode == SP_CRR ? sp_crr_client_service(t)
					     : 0;
		if (rc)
			return rc;
		if (t->err[0])
			return -EIO;
		int8_t st;
		if (t->ctrl >= 0 && (rc = sp_ctl_state_poll(t, &st)) < 0)
			return rc;
		if (t->ctrl >= 0 && rc == 1)
			return unexpected(t, st, SP_TEST_END);
		if (sp_quit) {
			snprintf(t->err, sizeof(t->err), "interrupted");
			sp_ctl_state_send(t, SP_CLIENT_TERMINATE);
			return -EINTR;
		}
		uint64_t now = clk_now(&a->clk);
		if (sp_test_done(t, now)) {
			t->t_end = now;
			return 0;
		}
		sp_interval_tick(t, false);
	}
}

/* --rr/--crr: the transactions under way finish (bounded) before the end. */
static int finish_transactions(struct sp_test *t)
{
	struct sp_app *a = t->app;
	uint64_t end = clk_now(&a->clk) + CLK_NS_PER_S;
	for (;;) {
		bool busy = false;
		for (unsigned i = 0; i < t->ns; i++)
			busy |= t->s[i].rr_reading || t->s[i].rr_off;
		for (unsigned i = 0; i < SP_CRR_MAX_INFLIGHT; i++)
			busy |= t->crr[i].sd >= 0;
		if (!busy || clk_now(&a->clk) > end)
			break;
		sp_pump(a);
		int rc = t->mode == SP_RR ? sp_rr_client_service(t) : sp_crr_client_service(t);
		if (rc)
			return rc;
	}
	sp_crr_client_stop(t);
	return 0;
}

/* --plain: the transactions go straight to an echo server (the kernel's
 * is test/bench/krr -s), without the control connection; the report is
 * this end's alone. */
static int plain_test(struct sp_test *t)
{
	unsigned n = t->mode == SP_RR ? t->parallel : 0;
	for (unsigned i = 0; i < n; i++) {
		struct sp_stream *s;
		int rc = open_stream(t, i, &s);
		if (rc)
			return rc;
		s->sender = true;
	}
	sp_test_begin(t);
	sp_report_start(t);
	int rc = run(t);
	if (rc)
		return rc;
	sp_interval_tick(t, true);
	if ((rc = finish_transactions(t)))
		return rc;
	if (!t->nrtt) {
		snprintf(t->err, sizeof(t->err), "--plain: no response in %.1f s",
			 sp_secs(t->t_end - t->t_start));
		return -EPROTO;
	}
	sp_cpu_mark(t, true);
	sp_streams_snapshot(t);
	sp_report_end(t);
	return 0;
}

static int client_test(struct sp_test *t)
{
	struct sp_app *a = t->app;
	int rc = open_conn(t, 0, &t->ctrl);
	if (rc)
		return rc;
	sp_cookie_make(t->cookie);
	if ((rc = sp_ctl_write(t, t->cookie, SP_COOKIE_SIZE)) ||
	    (rc = expect(t, SP_PARAM_EXCHANGE)))
		return rc;
	struct sp_jw w = {0};
	sp_params_emit(t, &w);
	rc = w.oom ? -ENOMEM : sp_ctl_json_send(t, w.buf, w.len);
	sp_jw_free(&w);
	if (rc || (rc = expect(t, SP_CREATE_STREAMS)) || (rc = create_streams(t)) ||
	    (rc = expect(t, SP_TEST_START)) || (rc = expect(t, SP_TEST_RUNNING)))
		return rc;
	sp_test_begin(t);
	sp_report_start(t);
	if ((rc = run(t)))
		return rc;
	sp_interval_tick(t, true);
	if (t->mode != SP_BULK && (rc = finish_transactions(t)))
		return rc;
	if (t->mode == SP_RR && !t->nrtt) {
		snprintf(t->err, sizeof(t->err),
			 "--rr: no response in %.1f s: is the server skperf (iperf3 does not "
			 "echo)?",
			 sp_secs(t->t_end - t->t_start));
		return -EPROTO;
	}
	/* The server counts what it has read when our TEST_END arrives (iperf3
	 * closes its streams then): let every byte be acknowledged first. */
	sp_senders_stop(t, false);
	sp_senders_flush(t, 3 * CLK_NS_PER_S);
	uint64_t grace = clk_now(&a->clk) + 20 * CLK_NS_PER_MS;
	while (clk_now(&a->clk) < grace)
		sp_pump(a);
	sp_cpu_mark(t, true);
	if ((rc = sp_ctl_state_send(t, SP_TEST_END)) || (rc = expect(t, SP_EXCHANGE_RESULTS)))
		return rc;
	/* the server closed its sending streams at TEST_END: read them to EOF */
	sp_receivers_drain(t, 3 * CLK_NS_PER_S);
	sp_streams_snapshot(t);
	sp_results_emit(t, &w);
	rc = w.oom ? -ENOMEM : sp_ctl_json_send(t, w.buf, w.len);
	sp_jw_free(&w);
	if (rc)
		return rc;
	struct sp_jv *j;
	if ((rc = sp_ctl_json_recv(t, &j, 0)))
		return rc;
	rc = sp_results_parse(t, j);
	sp_jv_free(j);
	if (rc || (rc = expect(t, SP_DISPLAY_RESULTS)))
		return rc;
	for (unsigned i = 0; i < t->ns; i++)
		if (t->mode == SP_BULK && !t->s[i].sender) {
			/* unread bytes would turn the close into a reset */
			sp_receivers_drain(t, CLK_NS_PER_S / 10);
			break;
		}
	if ((rc = sp_ctl_state_send(t, SP_IPERF_DONE)))
		return rc;
	sp_report_end(t);
	return 0;
}

int sp_client_run(struct sp_app *a)
{
	static struct sp_test t;
	sp_test_init(&t, a, false);
	const struct sp_opts *o = &a->o;
	t.mode = o->rr_size ? SP_RR : o->crr ? SP_CRR : SP_BULK;
	t.size = o->rr_size ? o->rr_size : o->crr_size;
	t.time_s = o->time_s;
	t.bytes = o->bytes;
	t.blocks = o->blocks;
	t.len = o->len ? o->len : SP_DEFAULT_LEN;
	t.parallel = o->parallel;
	t.reverse = o->reverse;
	t.bidir = o->bidir;
	t.window = o->window;
	t.mss = o->mss;
	t.nodelay = o->nodelay;
	snprintf(t.cc, sizeof(t.cc), "%s", o->cc ? o->cc : "");
	if (t.mode != SP_BULK && !(t.rr_tx = calloc(1, t.size))) {
		fprintf(stderr, "skperf: out of memory\n");
		return 1;
	}
	if (!o->json)
		printf("Connecting to host %s, port %u\n", o->host, o->port);
	int rc = o->plain ? plain_test(&t) : client_test(&t);
	if (rc)
		fprintf(stderr, "skperf: %s\n", t.err[0] ? t.err : strerror(-rc));
	/* let the last segments (IPERF_DONE, FINs) be acknowledged */
	for (unsigned i = 0; i < t.ns; i++)
		skops_close(a->st, t.s[i].sd);
	t.ns = 0;
	if (t.ctrl >= 0) {
		skops_close(a->st, t.ctrl);
		t.ctrl = -1;
	}
	uint64_t end = clk_now(&a->clk) + CLK_NS_PER_S / 5;
	while (clk_now(&a->clk) < end)
		sp_pump(a);
	sp_test_fini(&t);
	return rc ? 1 : 0;
}
