/* stream: the bulk data streams: sending from memory, receiving into
 * memory, the end criteria (time, bytes, blocks), the interval clock and
 * the stack's own view of each connection. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "skperf.h"

/* Payload of every send: zeros cost nothing to produce and the stack
 * copies them like any other bytes. */
static uint8_t txbuf[1u << 24];
static uint8_t rxbuf[256 * 1024];

static void send_some(struct sp_test *t, struct sp_stream *s)
{
	struct stack *st = t->app->st;
	for (int i = 0; i < 16; i++) {
		uint64_t n = t->len;
		if (t->bytes) {
			if (t->sent >= t->bytes)
				return;
			if (t->bytes - t->sent < n)
				n = t->bytes - t->sent;
		}
		if (t->blocks) {
			uint64_t cap = t->blocks * (uint64_t)t->len;
			if (t->sent >= cap)
				return;
			if (cap - t->sent < n)
				n = cap - t->sent;
		}
		ssize_t w = skops_send(st, s->sd, txbuf, (size_t)n, 0);
		if (w <= 0) {
			if (w != -EAGAIN && !t->err[0])
				snprintf(t->err, sizeof(t->err), "stream %d: send: %s", s->id,
					 strerror((int)-w));
			return;
		}
		s->bytes += (uint64_t)w;
		t->sent += (uint64_t)w;
	}
}

static void recv_some(struct sp_test *t, struct sp_stream *s)
{
	struct stack *st = t->app->st;
	for (int i = 0; i < 16 && !s->eof; i++) {
		ssize_t r = skops_recv(st, s->sd, rxbuf, sizeof(rxbuf), 0);
		if (r > 0) {
			s->bytes += (uint64_t)r;
			t->rcvd += (uint64_t)r;
			continue;
		}
		if (r == 0)
			s->eof = true;
		else if (r != -EAGAIN && !t->err[0])
			snprintf(t->err, sizeof(t->err), "stream %d: recv: %s", s->id,
				 strerror((int)-r));
		return;
	}
}

void sp_streams_service(struct sp_test *t)
{
	if (t->necho)
		sp_echo_service(t);
	if (t->mode != SP_BULK)
		return;
	for (unsigned i = 0; i < t->ns; i++) {
		struct sp_stream *s = &t->s[i];
		if (s->sender && t->sending && !s->shut)
			send_some(t, s);
		else if (!s->sender)
			recv_some(t, s);
	}
}

void sp_cpu_mark(struct sp_test *t, bool end)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double u = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	double s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	if (!end) {
		t->cpu_user0 = u;
		t->cpu_sys0 = s;
		return;
	}
	double wall = sp_secs(t->t_end - t->t_start);
	if (wall <= 0)
		return;
	t->cpu[1] = 100 * (u - t->cpu_user0) / wall;
	t->cpu[2] = 100 * (s - t->cpu_sys0) / wall;
	t->cpu[0] = t->cpu[1] + t->cpu[2];
}

void sp_test_begin(struct sp_test *t)
{
	struct sp_app *a = t->app;
	a->busy = true;
	t->t_start = t->iv_start = clk_now(&a->clk);
	t->wall_start = (int64_t)time(NULL);
	t->next_iv = a->o.interval_s > 0 ? t->t_start + (uint64_t)(a->o.interval_s * 1e9) : 0;
	t->sending = true;
	for (unsigned i = 0; i < t->ns; i++)
		t->s[i].peer_bytes = -1;
	sp_cpu_mark(t, false);
}

bool sp_test_done(const struct sp_test *t, uint64_t now)
{
	if (t->time_s > 0 && now - t->t_start >= (uint64_t)(t->time_s * 1e9))
		return true;
	/* iperf3 3.12 ends a -n or -k test on the bytes sent or received */
	if (t->bytes && (t->sent >= t->bytes || t->rcvd >= t->bytes))
		return true;
	uint64_t cap = t->blocks * (uint64_t)t->len;
	return t->blocks && (t->sent >= cap || t->rcvd >= cap);
}

/* The stack's view of each stream, for intervals and the end report. */
static void observe(struct sp_test *t, struct sp_stream *s)
{
	if (skops_tcp_info(t->app->st, s->sd, &s->ti))
		return;
	if (s->ti.cwnd > s->max_cwnd)
		s->max_cwnd = s->ti.cwnd;
	if (s->ti.snd_wnd > s->max_snd_wnd)
		s->max_snd_wnd = s->ti.snd_wnd;
	if (s->ti.srtt_us) {
		if (!s->min_rtt || s->ti.srtt_us < s->min_rtt)
			s->min_rtt = s->ti.srtt_us;
		if (s->ti.srtt_us > s->max_rtt)
			s->max_rtt = s->ti.srtt_us;
		s->sum_rtt += s->ti.srtt_us;
		s->nrtt++;
	}
}

void sp_streams_snapshot(struct sp_test *t)
{
	for (unsigned i = 0; i < t->ns; i++)
		observe(t, &t->s[i]);
}

void sp_interval_tick(struct sp_test *t, bool final)
{
	uint64_t now = clk_now(&t->app->clk);
	if (!t->next_iv || (!final && now < t->next_iv))
		return;
	if (final)
		now = t->t_end;
	if (now <= t->iv_start)
		return;
	sp_streams_snapshot(t);
	sp_report_interval(t, t->iv_start, now);
	for (unsigned i = 0; i < t->ns; i++) {
		t->s[i].iv_bytes = t->s[i].bytes;
		t->s[i].iv_retrans = t->s[i].ti.total_retrans;
	}
	t->iv_start = now;
	t->next_iv += (uint64_t)(t->app->o.interval_s * 1e9);
	if (t->next_iv < now)
		t->next_iv = now + 1;
}

void sp_senders_stop(struct sp_test *t, bool fin)
{
	t->sending = false;
	for (unsigned i = 0; fin && i < t->ns; i++) {
		struct sp_stream *s = &t->s[i];
		if (s->sender && !s->shut && t->mode == SP_BULK) {
			skops_shutdown(t->app->st, s->sd, SHUT_WR);
			s->shut = true;
		}
	}
}

void sp_senders_flush(struct sp_test *t, uint64_t timeout_ns)
{
	struct sp_app *a = t->app;
	uint64_t end = clk_now(&a->clk) + timeout_ns;
	while (!sp_quit && clk_now(&a->clk) < end) {
		bool left = false;
		for (unsigned i = 0; i < t->ns; i++) {
			struct skops_tcp_info ti;
			if (t->s[i].sender && !skops_tcp_info(a->st, t->s[i].sd, &ti) &&
			    (ti.unacked || ti.notsent) &&
			    !(skops_events(a->st, t->s[i].sd) & SKOPS_EV_ERR))
				left = true;
		}
		if (!left)
			return;
		sp_pump(a);
		sp_streams_service(t);
	}
}

void sp_receivers_drain(struct sp_test *t, uint64_t timeout_ns)
{
	struct sp_app *a = t->app;
	uint64_t end = clk_now(&a->clk) + timeout_ns;
	while (!sp_quit && clk_now(&a->clk) < end) {
		bool left = false;
		for (unsigned i = 0; i < t->ns; i++) {
			struct sp_stream *s = &t->s[i];
			if (!s->sender && !s->eof &&
			    (s->peer_bytes < 0 || s->bytes < (uint64_t)s->peer_bytes))
				left = true;
		}
		if (!left)
			return;
		sp_pump(a);
		sp_streams_service(t);
	}
}
