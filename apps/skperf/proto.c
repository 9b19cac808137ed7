/* proto: iperf3's control protocol. A cookie of 37 bytes opens the control
 * connection and each data stream; states are single signed bytes; the
 * parameters (client to server) and the results (both ways) are JSON
 * objects behind a 4-byte big-endian length. The control reads here pump
 * the stack while they wait, so data streams keep moving meanwhile. */
#include <errno.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "skperf.h"

static const char *sterr(int e)
{
	return strerror(e < 0 ? -e : e);
}

int sp_read_exact(struct sp_test *t, int sd, void *buf, size_t n, uint64_t timeout_ns)
{
	struct sp_app *a = t->app;
	uint64_t end = clk_now(&a->clk) + timeout_ns;
	size_t got = 0;
	while (got < n) {
		ssize_t r = skops_recv(a->st, sd, (uint8_t *)buf + got, n - got, 0);
		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		if (r == 0) {
			snprintf(t->err, sizeof(t->err), "the peer closed the connection");
			return -EPIPE;
		}
		if (r != -EAGAIN) {
			snprintf(t->err, sizeof(t->err), "recv: %s", sterr((int)r));
			return (int)r;
		}
		if (sp_quit) {
			snprintf(t->err, sizeof(t->err), "interrupted");
			return -EINTR;
		}
		if (clk_now(&a->clk) > end) {
			snprintf(t->err, sizeof(t->err), "timed out after %zu of %zu bytes", got,
				 n);
			return -ETIMEDOUT;
		}
		sp_pump(a);
		if (t->ns || t->necho)
			sp_streams_service(t);
	}
	return 0;
}

int sp_ctl_read(struct sp_test *t, void *buf, size_t n, uint64_t timeout_ns)
{
	return sp_read_exact(t, t->ctrl, buf, n, timeout_ns);
}

int sp_ctl_write(struct sp_test *t, const void *buf, size_t n)
{
	struct sp_app *a = t->app;
	uint64_t end = clk_now(&a->clk) + SP_CTL_TIMEOUT_NS;
	size_t off = 0;
	while (off < n) {
		ssize_t w = skops_send(a->st, t->ctrl, (const uint8_t *)buf + off, n - off, 0);
		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w != -EAGAIN) {
			snprintf(t->err, sizeof(t->err), "control: send: %s", sterr((int)w));
			return (int)w;
		}
		if (clk_now(&a->clk) > end) {
			snprintf(t->err, sizeof(t->err), "control: send timed out");
			return -ETIMEDOUT;
		}
		sp_pump(a);
	}
	/* segments queued outside a poll leave on the next one */
	stack_poll(a->st);
	return 0;
}

int sp_ctl_state_send(struct sp_test *t, int8_t state)
{
	return sp_ctl_write(t, &state, 1);
}

int sp_ctl_state_recv(struct sp_test *t, int8_t *state, uint64_t timeout_ns)
{
	int rc = sp_ctl_read(t, state, 1, timeout_ns);
	if (rc) {
		char e[512];
		snprintf(e, sizeof(e), "control: %.400s", t->err);
		snprintf(t->err, sizeof(t->err), "%s", e);
	}
	return rc;
}

int sp_ctl_state_poll(struct sp_test *t, int8_t *state)
{
	ssize_t r = skops_recv(t->app->st, t->ctrl, state, 1, 0);
	if (r == 1)
		return 1;
	if (r == -EAGAIN)
		return 0;
	snprintf(t->err, sizeof(t->err), "control: %s",
		 r == 0 ? "the peer closed the connection" : sterr((int)r));
	return r == 0 ? -EPIPE : (int)r;
}

int sp_ctl_json_send(struct sp_test *t, const char *json, size_t len)
{
	uint32_t n = htonl((uint32_t)len);
	int rc = sp_ctl_write(t, &n, 4);
	return rc ? rc : sp_ctl_write(t, json, len);
}

int sp_ctl_json_recv(struct sp_test *t, struct sp_jv **out, size_t max)
{
	uint32_t n;
	int rc = sp_ctl_read(t, &n, 4, SP_CTL_TIMEOUT_NS);
	if (rc)
		return rc;
	n = ntohl(n);
	if (!n || (max && n > max)) {
		snprintf(t->err, sizeof(t->err), "control: JSON of %u bytes (at most %zu)", n, max);
		return -EMSGSIZE;
	}
	char *buf = malloc(n);
	if (!buf)
		return -ENOMEM;
	rc = sp_ctl_read(t, buf, n, SP_CTL_TIMEOUT_NS);
	if (!rc)
		rc = sp_jv_parse(buf, n, out, t->err, sizeof(t->err));
	free(buf);
	return rc;
}

/* 36 characters of iperf3's cookie alphabet and the NUL. Not secret:
 * it only pairs data streams with their control connection. */
void sp_cookie_make(char cookie[SP_COOKIE_SIZE])
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz234567";
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t x = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 17;
	for (int i = 0; i < SP_COOKIE_SIZE - 1; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		cookie[i] = abc[x % 32];
	}
	cookie[SP_COOKIE_SIZE - 1] = 0;
}

void sp_params_emit(const struct sp_test *t, struct sp_jw *w)
{
	sp_jw_obj(w, NULL);
	sp_jw_bool(w, "tcp", true);
	sp_jw_int(w, "omit", 0);
	sp_jw_num(w, "time", t->time_s);
	sp_jw_u64(w, "num", t->bytes);
	sp_jw_u64(w, "blockcount", t->blocks);
	if (t->mss)
		sp_jw_int(w, "MSS", t->mss);
	if (t->nodelay)
		sp_jw_bool(w, "nodelay", true);
	sp_jw_int(w, "parallel", t->parallel);
	if (t->reverse)
		sp_jw_bool(w, "reverse", true);
	if (t->bidir)
		sp_jw_bool(w, "bidirectional", true);
	if (t->window)
		sp_jw_int(w, "window", t->window);
	sp_jw_int(w, "len", t->len);
	if (t->cc[0])
		sp_jw_str(w, "congestion", t->cc);
	/* iperf3 ignores members it does not know: a kernel iperf3 server
	 * would run a bulk test, which the client notices (no echo). */
	if (t->mode == SP_RR)
		sp_jw_int(w, "skperf_rr", t->size);
	if (t->mode == SP_CRR)
		sp_jw_int(w, "skperf_crr", t->size);
	sp_jw_str(w, "client_version", "skperf 1 (iperf 3.12 protocol)");
	sp_jw_end_obj(w);
}

int sp_params_parse(struct sp_test *t, const struct sp_jv *j)
{
	if (sp_jv_true(j, "udp") || sp_jv_true(j, "sctp")) {
		snprintf(t->err, sizeof(t->err), "parameters: only TCP tests (no -u, --sctp)");
		return -EPROTONOSUPPORT;
	}
	double par = sp_jv_num(j, "parallel", 1), len = sp_jv_num(j, "len", SP_DEFAULT_LEN);
	double tm = sp_jv_num(j, "time", 10), num = sp_jv_num(j, "num", 0);
	if (par < 1 || par > SP_MAX_STREAMS || len < 1 || len > (1 << 24) || tm < 0 || tm > 86400 ||
	    num < 0) {
		snprintf(t->err, sizeof(t->err),
			 "parameters: out of range (parallel %g, len %g, time %g, num %g)", par,
			 len, tm, num);
		return -EINVAL;
	}
	t->parallel = (unsigned)par;
	t->len = (uint32_t)len;
	t->time_s = tm;
	t->bytes = (uint64_t)num;
	t->blocks = (uint64_t)sp_jv_num(j, "blockcount", 0);
	t->mss = (uint32_t)sp_jv_num(j, "MSS", 0);
	t->window = (uint32_t)sp_jv_num(j, "window", 0);
	t->nodelay = sp_jv_true(j, "nodelay");
	t->reverse = sp_jv_true(j, "reverse");
	t->bidir = sp_jv_true(j, "bidirectional");
	const char *cc = sp_jv_str(j, "congestion");
	snprintf(t->cc, sizeof(t->cc), "%s", cc ? cc : "");
	double rr = sp_jv_num(j, "skperf_rr", 0), crr = sp_jv_num(j, "skperf_crr", 0);
	t->mode = rr > 0 ? SP_RR : crr > 0 ? SP_CRR : SP_BULK;
	t->size = (uint32_t)(rr > 0 ? rr : crr);
	if (t->size > (1u << 20)) {
		snprintf(t->err, sizeof(t->err), "parameters: request size %u above 1 MiB",
			 t->size);
		return -EINVAL;
	}
	return 0;
}

void sp_results_emit(struct sp_test *t, struct sp_jw *w)
{
	bool sends = false;
	for (unsigned i = 0; i < t->ns; i++)
		sends |= t->s[i].sender;
	sp_jw_obj(w, NULL);
	sp_jw_num(w, "cpu_util_total", t->cpu[0]);
	sp_jw_num(w, "cpu_util_user", t->cpu[1]);
	sp_jw_num(w, "cpu_util_system", t->cpu[2]);
	/* iperf3 sends -1 when this end only received */
	sp_jw_int(w, "sender_has_retransmits", sends ? 1 : -1);
	if (t->ns)
		sp_jw_str(w, "congestion_used", t->s[0].ti.cc);
	sp_jw_arr(w, "streams");
	double secs = sp_secs(t->t_end - t->t_start);
	for (unsigned i = 0; i < t->ns; i++) {
		struct sp_stream *s = &t->s[i];
		sp_jw_obj(w, NULL);
		sp_jw_int(w, "id", s->id);
		sp_jw_u64(w, "bytes", s->bytes);
		sp_jw_int(w, "retransmits", s->sender ? (int64_t)s->ti.total_retrans : -1);
		sp_jw_int(w, "jitter", 0);
		sp_jw_int(w, "errors", 0);
		sp_jw_int(w, "omitted_errors", 0);
		sp_jw_int(w, "packets", 0);
		sp_jw_int(w, "omitted_packets", 0);
		sp_jw_num(w, "start_time", 0);
		sp_jw_num(w, "end_time", secs);
		sp_jw_end_obj(w);
	}
	sp_jw_end_arr(w);
	if (t->mode == SP_CRR)
		sp_jw_u64(w, "skperf_crr_served", (uint64_t)t->crr_done);
	sp_jw_end_obj(w);
}

int sp_results_parse(struct sp_test *t, const struct sp_jv *j)
{
	const struct sp_jv *st = sp_jv_get(j, "streams");
	if (!sp_jv_get(j, "cpu_util_total") || !st || st->type != SP_JV_ARR) {
		snprintf(t->err, sizeof(t->err), "results: no cpu_util_total or streams");
		return -EPROTO;
	}
	t->remote_cpu[0] = sp_jv_num(j, "cpu_util_total", 0);
	t->remote_cpu[1] = sp_jv_num(j, "cpu_util_user", 0);
	t->remote_cpu[2] = sp_jv_num(j, "cpu_util_system", 0);
	t->remote_has_retrans = (int)sp_jv_num(j, "sender_has_retransmits", -1);
	const char *cc = sp_jv_str(j, "congestion_used");
	snprintf(t->remote_cc, sizeof(t->remote_cc), "%s", cc ? cc : "");
	for (const struct sp_jv *e = st->child; e; e = e->next) {
		int id = (int)sp_jv_num(e, "id", -1);
		struct sp_stream *s = NULL;
		for (unsigned i = 0; i < t->ns; i++)
			if (t->s[i].id == id)
				s = &t->s[i];
		if (!s && t->mode != SP_BULK)
			continue; /* the server echoes --rr streams without counting them */
		if (!s || !sp_jv_get(e, "bytes")) {
			snprintf(t->err, sizeof(t->err), "results: unknown stream id %d", id);
			return -EPROTO;
		}
		s->peer_bytes = (int64_t)sp_jv_num(e, "bytes", 0);
		s->peer_secs = sp_jv_num(e, "end_time", 0) - sp_jv_num(e, "start_time", 0);
		double r = sp_jv_num(e, "retransmits", -1);
		s->peer_retrans = r < 0 ? 0 : (uint32_t)r;
	}
	return 0;
}

int sp_connect_wait(struct sp_test *t, int sd, uint64_t timeout_ns)
{
	struct sp_app *a = t->app;
	uint64_t end = clk_now(&a->clk) + timeout_ns;
	for (;;) {
		uint32_t ev = skops_events(a->st, sd);
		if (ev & (SKOPS_EV_ERR | SKOPS_EV_HUP)) {
			int e = sp_sock_error(a->st, sd);
			snprintf(t->err, sizeof(t->err), "connect: %s",
				 strerror(e ? e : ECONNREFUSED));
			return -(e ? e : ECONNREFUSED);
		}
		if (ev & SKOPS_EV_OUT)
			return 0;
		if (sp_quit || clk_now(&a->clk) > end) {
			snprintf(t->err, sizeof(t->err), "connect: %s",
				 sp_quit ? "interrupted" : "timed out");
			return sp_quit ? -EINTR : -ETIMEDOUT;
		}
		sp_pump(a);
	}
}
