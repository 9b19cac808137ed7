/* rr: the modes iperf3 lacks, both ends skperf. --rr SIZE: each stream
 * sends SIZE bytes, the server echoes them, the client times the round trip
 * and starts the next. --crr SIZE: the same transaction on a new connection
 * each time, closed by the client after the response (it holds TIME_WAIT).
 * Latencies are kept whole and sorted at the end: percentiles are exact. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skperf.h"

int sp_echo_add(struct sp_test *t, int sd)
{
	if (t->necho == t->cap_echo) {
		unsigned cap = t->cap_echo ? 2 * t->cap_echo : 64;
		struct sp_echo **e = realloc(t->echo, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		t->echo = e;
		t->cap_echo = cap;
	}
	struct sp_echo *e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->sd = sd;
	e->len = e->off = 0;
	e->peer_eof = false;
	t->echo[t->necho++] = e;
	return 0;
}

/* One round for e; false once the peer has closed (or failed) and e is done. */
static bool echo_step(struct stack *st, struct sp_echo *e)
{
	for (int i = 0; i < 8; i++) {
		if (e->off < e->len) {
			ssize_t s = skops_send(st, e->sd, e->buf + e->off, e->len - e->off, 0);
			if (s > 0) {
				e->off += (uint32_t)s;
				continue;
			}
			return s == -EAGAIN;
		}
		if (e->peer_eof)
			return false;
		ssize_t r = skops_recv(st, e->sd, e->buf, sizeof(e->buf), 0);
		if (r > 0) {
			e->len = (uint32_t)r;
			e->off = 0;
			continue;
		}
		if (r == 0) {
			e->peer_eof = true;
			return false;
		}
		return r == -EAGAIN;
	}
	return true;
}

void sp_echo_service(struct sp_test *t)
{
	struct stack *st = t->app->st;
	for (unsigned i = 0; i < t->necho;) {
		struct sp_echo *e = t->echo[i];
		if (echo_step(st, e)) {
			i++;
			continue;
		}
		/* a finished --crr transaction: close answers the client's FIN */
		skops_close(st, e->sd);
		free(e);
		t->echo[i] = t->echo[--t->necho];
		t->crr_done++;
	}
}

int sp_rtt_add(struct sp_test *t, uint64_t ns)
{
	if (t->nrtt == t->cap_rtt) {
		if (t->cap_rtt >= SP_MAX_RTT_SAMPLES)
			return 0; /* enough for any percentile; later ones only count */
		uint64_t cap = t->cap_rtt ? 2 * t->cap_rtt : 4096;
		uint64_t *p = realloc(t->rtt_ns, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->rtt_ns = p;
		t->cap_rtt = cap;
	}
	t->rtt_ns[t->nrtt++] = ns;
	return 0;
}

/* Sends and reads one --rr transaction's bytes on s; a finished one is timed. */
static int rr_step(struct sp_test *t, struct sp_stream *s)
{
	struct sp_app *a = t->app;
	for (int i = 0; i < 8; i++) {
		if (!s->rr_reading) {
			if (!s->rr_off)
				s->rr_t0 = clk_now(&a->clk);
			ssize_t w = skops_send(a->st, s->sd, t->rr_tx, t->size - s->rr_off, 0);
			if (w == -EAGAIN)
				return 0;
			if (w < 0) {
				snprintf(t->err, sizeof(t->err), "--rr: stream %d: send: %s", s->id,
					 strerror((int)-w));
				return (int)w;
			}
			s->bytes += (uint64_t)w;
			s->rr_off += (uint32_t)w;
			if (s->rr_off == t->size) {
				s->rr_off = 0;
				s->rr_reading = true;
			}
			continue;
		}
		static uint8_t rx[1u << 20];
		ssize_t r = skops_recv(a->st, s->sd, rx, t->size - s->rr_off, 0);
		if (r == -EAGAIN)
			return 0;
		if (r <= 0) {
			snprintf(t->err, sizeof(t->err), "--rr: stream %d: recv: %s", s->id,
				 r ? strerror((int)-r) : "the server closed the stream");
			return r ? (int)r : -EPIPE;
		}
		s->rr_off += (uint32_t)r;
		if (s->rr_off < t->size)
			continue;
		int rc = sp_rtt_add(t, clk_now(&a->clk) - s->rr_t0);
		if (rc)
			return rc;
		s->rr_off = 0;
		s->rr_reading = false;
		if (!t->sending)
			return 0;
	}
	return 0;
}

int sp_rr_client_service(struct sp_test *t)
{
	for (unsigned i = 0; i < t->ns; i++) {
		struct sp_stream *s = &t->s[i];
		if (!t->sending && !s->rr_reading && !s->rr_off)
			continue;
		int rc = rr_step(t, s);
		if (rc)
			return rc;
	}
	return 0;
}

static int crr_open(struct sp_test *t, struct sp_crr *c)
{
	struct sp_app *a = t->app;
	uint8_t fam, addr[16];
	net_ip_parse(a->o.host, &fam, addr);
	struct sockaddr_storage ss;
	socklen_t l = appport_sockaddr(fam, addr, a->o.port, &ss);
	c->t0 = clk_now(&a->clk);
	int sd = skops_socket(a->st, fam, SOCK_STREAM);
	if (sd < 0) {
		snprintf(t->err, sizeof(t->err),
			 "--crr: socket: %s (connections in TIME_WAIT fill the pool: "
			 "raise --max-conns or lower --msl)",
			 strerror(-sd));
		return sd;
	}
	int rc = sp_sock_opts(t, sd, true);
	if (!rc) {
		rc = skops_connect(a->st, sd, (struct sockaddr *)&ss, l);
		if (rc == -EINPROGRESS)
			rc = 0;
		if (rc)
			snprintf(t->err, sizeof(t->err), "--crr: connect: %s", strerror(-rc));
	}
	if (rc) {
		skops_close(a->st, sd);
		return rc;
	}
	c->sd = sd;
	c->off = 0;
	c->connected = c->reading = false;
	return 0;
}

/* One --crr transaction's progress; 1 when it finished and c is free. */
static int crr_step(struct sp_test *t, struct sp_crr *c)
{
	struct sp_app *a = t->app;
	if (!c->connected) {
		uint32_t ev = skops_events(a->st, c->sd);
		if (ev & (SKOPS_EV_ERR | SKOPS_EV_HUP)) {
			int e = sp_sock_error(a->st, c->sd);
			snprintf(t->err, sizeof(t->err), "--crr: connect: %s",
				 strerror(e ? e : ECONNREFUSED));
			return -(e ? e : ECONNREFUSED);
		}
		if (!(ev & SKOPS_EV_OUT))
			return 0;
		c->connected = true;
	}
	if (!c->reading) {
		ssize_t w = skops_send(a->st, c->sd, t->rr_tx, t->size - c->off, 0);
		if (w == -EAGAIN)
			return 0;
		if (w < 0) {
			snprintf(t->err, sizeof(t->err), "--crr: send: %s", strerror((int)-w));
			return (int)w;
		}
		c->off += (uint32_t)w;
		if (c->off == t->size) {
			c->off = 0;
			c->reading = true;
		}
		return 0;
	}
	static uint8_t rx[1u << 20];
	ssize_t r = skops_recv(a->st, c->sd, rx, t->size - c->off, 0);
	if (r == -EAGAIN)
		return 0;
	if (r <= 0) {
		snprintf(t->err, sizeof(t->err), "--crr: recv: %s",
			 r ? strerror((int)-r) : "the server closed before its response");
		return r ? (int)r : -EPIPE;
	}
	c->off += (uint32_t)r;
	if (c->off < t->size)
		return 0;
	/* the close is part of the transaction: our FIN leaves with it */
	int rc = skops_close(a->st, c->sd);
	c->sd = -1;
	if (rc) {
		snprintf(t->err, sizeof(t->err), "--crr: close: %s", strerror(-rc));
		return rc;
	}
	t->crr_done++;
	rc = sp_rtt_add(t, clk_now(&a->clk) - c->t0);
	return rc ? rc : 1;
}

int sp_crr_client_service(struct sp_test *t)
{
	for (unsigned i = 0; i < t->parallel; i++) {
		struct sp_crr *c = &t->crr[i];
		if (c->sd < 0) {
			if (!t->sending)
				continue;
			int rc = crr_open(t, c);
			if (rc)
				return rc;
		}
		int rc = crr_step(t, c);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void sp_crr_client_stop(struct sp_test *t)
{
	for (unsigned i = 0; i < SP_CRR_MAX_INFLIGHT; i++)
		if (t->crr[i].sd >= 0) {
			skops_abort(t->app->st, t->crr[i].sd);
			t->crr[i].sd = -1;
		}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double pct(const struct sp_test *t, double p)
{
	if (!t->nrtt)
		return 0;
	uint64_t i = (uint64_t)(p / 100.0 * (double)(t->nrtt - 1) + 0.5);
	return (double)t->rtt_ns[i] / 1e3;
}

static const struct {
	const char *name;
	double p;
} pcts[] = {{"min", 0}, {"p50", 50}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}, {"max", 100}};

/* Histogram buckets: powers of two of µs, from < 1 µs up. */
#define SP_HIST 32
static void hist(const struct sp_test *t, uint64_t out[SP_HIST])
{
	memset(out, 0, SP_HIST * sizeof(out[0]));
	for (uint64_t i = 0; i < t->nrtt; i++) {
		uint64_t us = t->rtt_ns[i] / 1000;
		unsigned b = 0;
		while (us && b < SP_HIST - 1) {
			us >>= 1;
			b++;
		}
		out[b]++;
	}
}

void sp_rtt_emit(struct sp_test *t, struct sp_jw *w)
{
	qsort(t->rtt_ns, t->nrtt, sizeof(t->rtt_ns[0]), cmp_u64);
	sp_jw_obj(w, "rtt_us");
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		sp_jw_num(w, pcts[i].name, pct(t, pcts[i].p));
	double sum = 0;
	for (uint64_t i = 0; i < t->nrtt; i++)
		sum += (double)t->rtt_ns[i];
	sp_jw_num(w, "mean", t->nrtt ? sum / (double)t->nrtt / 1e3 : 0);
	sp_jw_end_obj(w);
	/* the distribution for plots: the latency at each percentile p */
	static const double tail[] = {99.5, 99.9, 99.99, 100};
	double ps[104];
	unsigned np = 0;
	for (unsigned p = 0; p < 100; p++)
		ps[np++] = p;
	for (unsigned i = 0; i < sizeof(tail) / sizeof(tail[0]); i++)
		ps[np++] = tail[i];
	sp_jw_obj(w, "cdf");
	sp_jw_arr(w, "p");
	for (unsigned i = 0; t->nrtt && i < np; i++)
		sp_jw_num(w, NULL, ps[i]);
	sp_jw_end_arr(w);
	sp_jw_arr(w, "us");
	for (unsigned i = 0; t->nrtt && i < np; i++)
		sp_jw_num(w, NULL, pct(t, ps[i]));
	sp_jw_end_arr(w);
	sp_jw_end_obj(w);
	uint64_t h[SP_HIST];
	hist(t, h);
	sp_jw_arr(w, "histogram");
	for (unsigned b = 0; b < SP_HIST; b++) {
		if (!h[b])
			continue;
		sp_jw_obj(w, NULL);
		sp_jw_u64(w, "lt_us", 1ull << b);
		sp_jw_u64(w, "count", h[b]);
		sp_jw_end_obj(w);
	}
	sp_jw_end_arr(w);
}

void sp_rtt_print(struct sp_test *t)
{
	qsort(t->rtt_ns, t->nrtt, sizeof(t->rtt_ns[0]), cmp_u64);
	printf("round trips: %llu; latency in us:", (unsigned long long)t->nrtt);
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		printf(" %s %.1f", pcts[i].name, pct(t, pcts[i].p));
	printf("\n");
	uint64_t h[SP_HIST];
	hist(t, h);
	uint64_t top = 1;
	for (unsigned b = 0; b < SP_HIST; b++)
		top = h[b] > top ? h[b] : top;
	for (unsigned b = 0; b < SP_HIST; b++) {
		if (!h[b])
			continue;
		char bar[51];
		unsigned n = (unsigned)(h[b] * 50 / top);
		memset(bar, '#', n);
		bar[n] = 0;
		printf("  < %8llu us %10llu %s\n", 1ull << b, (unsigned long long)h[b], bar);
	}
}
