/* report: iperf3-style text lines and the -J document (start, intervals,
 * end) with the stack's own view of each connection and the sock_ops
 * programs' run counts under end.skops. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "bpfvm.h"
#include "cgroup.h"
#include "net/net.h"
#include "skperf.h"

static const char *fmt_bytes(double b, char *buf, size_t len)
{
	static const char *u[] = {"Bytes", "KBytes", "MBytes", "GBytes", "TBytes"};
	int i = 0;
	while (b >= 1024 && i < 4) {
		b /= 1024;
		i++;
	}
	snprintf(buf, len, b < 10 && i ? "%.2f %s" : b < 100 && i ? "%.1f %s" : "%.0f %s", b, u[i]);
	return buf;
}

static const char *fmt_bits(double bps, char *buf, size_t len)
{
	static const char *u[] = {"bits/sec", "Kbits/sec", "Mbits/sec", "Gbits/sec", "Tbits/sec"};
	int i = 0;
	while (bps >= 1000 && i < 4) {
		bps /= 1000;
		i++;
	}
	snprintf(buf, len,
		 bps < 10 && i	  ? "%.2f %s"
		 : bps < 100 && i ? "%.1f %s"
				  : "%.0f %s",
		 bps, u[i]);
	return buf;
}

static double bps(uint64_t bytes, double secs)
{
	return secs > 0 ? (double)bytes * 8 / secs : 0;
}

/* Which streams form the "sum" and which the "sum_bidir_reverse" (--bidir):
 * those carrying data from the client to the server come first. */
static bool forward(const struct sp_test *t, const struct sp_stream *s)
{
	return !t->bidir || (t->server ? !s->sender : s->sender);
}

static void addr_of(struct stack *st, int sd, bool peer, char *a, size_t alen, uint16_t *port)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	memset(&ss, 0, sizeof(ss));
	int rc = peer ? skops_getpeername(st, sd, (struct sockaddr *)&ss, &l)
		      : skops_getsockname(st, sd, (struct sockaddr *)&ss, &l);
	if (rc) {
		snprintf(a, alen, "?");
		*port = 0;
		return;
	}
	sp_sa_str(&ss, a, alen);
	*port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
					      : ((struct sockaddr_in6 *)&ss)->sin6_port);
}

void sp_report_start(struct sp_test *t)
{
	if (t->app->o.json)
		return;
	struct stack *st = t->app->st;
	for (unsigned i = 0; i < t->ns; i++) {
		char la[64], pa[64];
		uint16_t lp, pp;
		addr_of(st, t->s[i].sd, false, la, sizeof(la), &lp);
		addr_of(st, t->s[i].sd, true, pa, sizeof(pa), &pp);
		printf("[%3d] local %s port %u connected to %s port %u%s\n", t->s[i].id, la, lp, pa,
		       pp, t->s[i].sender ? "" : " (receiving)");
	}
	if (t->mode == SP_BULK)
		printf("[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n");
}

static void iv_stream(struct sp_jw *w, const struct sp_stream *s, double from, double to,
		      uint64_t bytes, uint32_t retr)
{
	sp_jw_obj(w, NULL);
	sp_jw_int(w, "socket", s ? s->sd : 0);
	sp_jw_num(w, "start", from);
	sp_jw_num(w, "end", to);
	sp_jw_num(w, "seconds", to - from);
	sp_jw_u64(w, "bytes", bytes);
	sp_jw_num(w, "bits_per_second", bps(bytes, to - from));
	if (!s || s->sender) {
		sp_jw_int(w, "retransmits", retr);
	}
	if (s && s->sender) {
		sp_jw_int(w, "snd_cwnd", (int64_t)s->ti.cwnd * s->ti.mss);
		sp_jw_int(w, "snd_wnd", s->ti.snd_wnd);
		sp_jw_int(w, "rtt", s->ti.srtt_us);
		sp_jw_int(w, "rttvar", s->ti.rttvar_us);
		sp_jw_int(w, "pmtu", s->ti.mss + 40);
		/* not in iperf3's intervals: Linux's tcpi_pacing_rate, bytes a second */
		if (s->ti.pacing_rate != UINT64_MAX)
			sp_jw_u64(w, "pacing_rate", s->ti.pacing_rate);
	}
	sp_jw_bool(w, "omitted", false);
	sp_jw_bool(w, "sender", s ? s->sender : true);
	sp_jw_end_obj(w);
}

void sp_report_interval(struct sp_test *t, uint64_t from_ns, uint64_t to_ns)
{
	double from = sp_secs(from_ns - t->t_start), to = sp_secs(to_ns - t->t_start);
	struct sp_jw *w = &t->intervals;
	uint64_t sum[2] = {0, 0};
	uint32_t rsum[2] = {0, 0};
	sp_jw_obj(w, NULL);
	sp_jw_arr(w, "streams");
	for (unsigned i = 0; i < t->ns; i++) {
		struct sp_stream *s = &t->s[i];
		uint64_t b = s->bytes - s->iv_bytes;
		uint32_t r = s->ti.total_retrans - s->iv_retrans;
		sum[!forward(t, s)] += b;
		rsum[!forward(t, s)] += r;
		iv_stream(w, s, from, to, b, r);
		if (t->app->o.json || t->mode != SP_BULK)
			continue;
		char bb[32], rb[32], cb[32];
		printf("[%3d] %6.2f-%-6.2f sec  %10s  %14s", s->id, from, to,
		       fmt_bytes((double)b, bb, sizeof(bb)), fmt_bits(bps(b, to - from), rb, 32));
		if (s->sender)
			printf("  %4u  %s", r,
			       fmt_bytes((double)s->ti.cwnd * s->ti.mss, cb, sizeof(cb)));
		printf("\n");
	}
	sp_jw_end_arr(w);
	for (int d = 0; d < (t->bidir ? 2 : 1); d++) {
		sp_jw_obj(w, d ? "sum_bidir_reverse" : "sum");
		sp_jw_num(w, "start", from);
		sp_jw_num(w, "end", to);
		sp_jw_num(w, "seconds", to - from);
		sp_jw_u64(w, "bytes", sum[d]);
		sp_jw_num(w, "bits_per_second", bps(sum[d], to - from));
		sp_jw_int(w, "retransmits", rsum[d]);
		sp_jw_bool(w, "omitted", false);
		sp_jw_bool(w, "sender", (d == 0) != t->server);
		sp_jw_end_obj(w);
		if (!t->app->o.json && t->mode == SP_BULK && t->ns > 1) {
			char bb[32], rb[32];
			printf("[SUM] %6.2f-%-6.2f sec  %10s  %14s\n", from, to,
			       fmt_bytes((double)sum[d], bb, 32),
			       fmt_bits(bps(sum[d], to - from), rb, 32));
		}
	}
	sp_jw_end_obj(w);
	if (t->mode == SP_RR && !t->app->o.json)
		printf("%6.2f-%-6.2f sec  %llu round trips so far\n", from, to,
		       (unsigned long long)t->nrtt);
	if (t->mode == SP_CRR && !t->app->o.json)
		printf("%6.2f-%-6.2f sec  %llu transactions so far\n", from, to,
		       (unsigned long long)t->crr_done);
}

/* The sender's and the receiver's count of one stream, ours or the peer's. */
struct side {
	uint64_t bytes;
	double secs;
	uint32_t retr;
};

static void sides(const struct sp_test *t, const struct sp_stream *s, struct side *snd,
		  struct side *rcv)
{
	double secs = sp_secs(t->t_end - t->t_start);
	struct side mine = {s->bytes, secs, s->ti.total_retrans};
	struct side peer = {s->peer_bytes < 0 ? 0 : (uint64_t)s->peer_bytes,
			    s->peer_secs > 0 ? s->peer_secs : secs, s->peer_retrans};
	*snd = s->sender ? mine : peer;
	*rcv = s->sender ? peer : mine;
}

static void end_side(struct sp_jw *w, const char *key, const struct sp_stream *s,
		     const struct side *d, bool sender_side)
{
	sp_jw_obj(w, key);
	sp_jw_int(w, "socket", s->sd);
	sp_jw_num(w, "start", 0);
	sp_jw_num(w, "end", d->secs);
	sp_jw_num(w, "seconds", d->secs);
	sp_jw_u64(w, "bytes", d->bytes);
	sp_jw_num(w, "bits_per_second", bps(d->bytes, d->secs));
	if (sender_side) {
		sp_jw_int(w, "retransmits", d->retr);
		if (s->sender) {
			sp_jw_int(w, "max_snd_cwnd", (int64_t)s->max_cwnd * s->ti.mss);
			sp_jw_int(w, "max_snd_wnd", s->max_snd_wnd);
			sp_jw_int(w, "max_rtt", s->max_rtt);
			sp_jw_int(w, "min_rtt", s->min_rtt);
			sp_jw_int(w, "mean_rtt", s->nrtt ? s->sum_rtt / s->nrtt : 0);
		}
	}
	sp_jw_bool(w, "sender", s->sender);
	sp_jw_end_obj(w);
}

static void hooks_emit(struct sp_test *t, struct sp_jw *w, bool text)
{
	struct sp_app *a = t->app;
	struct cg_node *node;
	uint32_t ids[64], cnt = 64, flags = 0;
	if (!a->tree || cg_lookup(a->tree, a->o.cgroup ? a->o.cgroup : "/", false, &node))
		return;
	int rc = cg_query(a->tree, node, CG_ATTACH_SOCK_OPS, 0, &flags, ids, &cnt);
	cg_node_put(node);
	if (rc)
		return;
	uint64_t runs = 0, ns = 0;
	if (w) {
		sp_jw_obj(w, "hooks");
		sp_jw_arr(w, "programs");
	}
	for (uint32_t i = 0; i < cnt; i++) {
		struct bpfvm_prog *p;
		if (bpfvm_prog_get_by_id(a->reg, ids[i], &p))
			continue;
		struct bpfvm_prog_info pi;
		bpfvm_prog_info(p, &pi);
		size_t jl = 0;
		bool jited = bpfvm_prog_jited(p, &jl) != NULL;
		bpfvm_prog_put(p);
		runs += pi.run_cnt;
		ns += pi.run_time_ns;
		if (!w)
			continue;
		sp_jw_obj(w, NULL);
		sp_jw_int(w, "id", pi.id);
		sp_jw_str(w, "name", pi.name);
		sp_jw_bool(w, "jited", jited);
		sp_jw_u64(w, "run_cnt", pi.run_cnt);
		sp_jw_u64(w, "run_time_ns", pi.run_time_ns);
		/* invocations the run-time budget stopped (docs/verifier-diff.md) */
		sp_jw_u64(w, "budget_stops", pi.budget_stops);
		sp_jw_end_obj(w);
	}
	if (w) {
		sp_jw_end_arr(w);
		sp_jw_u64(w, "runs", runs);
		sp_jw_u64(w, "run_time_ns", ns);
		sp_jw_end_obj(w);
	}
	if (text)
		printf("skops: sock_ops: %u programs, %llu runs, %.0f ns a run\n", cnt,
		       (unsigned long long)runs, runs ? (double)ns / (double)runs : 0.0);
}

/* The stack's loss-recovery counters (Linux's netstat names in skops.h):
 * how a lossy run spent its retransmissions. */
static void counters_emit(struct sp_test *t, struct sp_jw *w)
{
	struct skops_tcp_counters c;
	if (skops_tcp_counters(t->app->st, &c))
		return;
	if (!w) {
		printf("skops: retransmitted %llu segments: %llu recoveries, %llu timeouts "
		       "(%llu spurious), %llu marked lost by RACK, %llu loss probes "
		       "(%llu repaired a loss)\n",
		       (unsigned long long)c.retrans_segs, (unsigned long long)c.fast_retrans,
		       (unsigned long long)c.timeouts, (unsigned long long)c.spurious_rtos,
		       (unsigned long long)c.rack_lost, (unsigned long long)c.loss_probes,
		       (unsigned long long)c.loss_probe_recovery);
		return;
	}
	sp_jw_obj(w, "counters");
	sp_jw_u64(w, "retrans_segs", c.retrans_segs);
	sp_jw_u64(w, "fast_retrans", c.fast_retrans);
	sp_jw_u64(w, "timeouts", c.timeouts);
	sp_jw_u64(w, "spurious_rtos", c.spurious_rtos);
	sp_jw_u64(w, "rack_lost", c.rack_lost);
	sp_jw_u64(w, "loss_probes", c.loss_probes);
	sp_jw_u64(w, "loss_probe_recovery", c.loss_probe_recovery);
	sp_jw_u64(w, "ofo_drop", c.ofo_drop);
	sp_jw_u64(w, "rcvbuf_grown", c.rcvbuf_grown);
	sp_jw_u64(w, "syncookies_sent", c.syncookies_sent);
	sp_jw_u64(w, "out_of_window_icmps", c.out_of_window_icmps);
	sp_jw_end_obj(w);
	/* the network layer's drops, each by its reason, and its frames */
	struct net_stats ns;
	net_get_stats(stack_net(t->app->st), &ns);
	sp_jw_obj(w, "net");
	for (const struct net_stat_name *d = net_stat_names; d->name; d++)
		sp_jw_u64(w, d->name, *(const uint64_t *)((const char *)&ns + d->off));
	sp_jw_end_obj(w);
}

static void skops_emit(struct sp_test *t, struct sp_jw *w)
{
	sp_jw_obj(w, "skops");
	uint64_t retr = 0;
	sp_jw_arr(w, "streams");
	for (unsigned i = 0; i < t->ns; i++) {
		const struct skops_tcp_info *ti = &t->s[i].ti;
		retr += ti->total_retrans;
		sp_jw_obj(w, NULL);
		sp_jw_int(w, "id", t->s[i].id);
		sp_jw_str(w, "state", ti->state_name);
		sp_jw_int(w, "cwnd", ti->cwnd);
		sp_jw_int(w, "max_cwnd", ti->max_cwnd);
		sp_jw_int(w, "ssthresh", ti->ssthresh);
		sp_jw_int(w, "srtt_us", ti->srtt_us);
		sp_jw_int(w, "rttvar_us", ti->rttvar_us);
		sp_jw_int(w, "rtt_min_us", ti->rtt_min_us);
		sp_jw_int(w, "rto_ms", ti->rto_ms);
		sp_jw_int(w, "mss", ti->mss);
		sp_jw_str(w, "cc", ti->cc);
		sp_jw_int(w, "retransmits", ti->total_retrans);
		sp_jw_u64(w, "bytes_retrans", ti->bytes_retrans);
		sp_jw_int(w, "segs_out", ti->segs_out);
		sp_jw_int(w, "segs_in", ti->segs_in);
		sp_jw_end_obj(w);
	}
	sp_jw_end_arr(w);
	sp_jw_u64(w, "retransmits", retr);
	counters_emit(t, w);
	hooks_emit(t, w, false);
	sp_jw_end_obj(w);
}

static void sums(const struct sp_test *t, int dir, struct side *snd, struct side *rcv,
		 uint32_t *retr)
{
	memset(snd, 0, sizeof(*snd));
	memset(rcv, 0, sizeof(*rcv));
	*retr = 0;
	for (unsigned i = 0; i < t->ns; i++) {
		if (forward(t, &t->s[i]) != (dir == 0))
			continue;
		struct side a, b;
		sides(t, &t->s[i], &a, &b);
		snd->bytes += a.bytes;
		rcv->bytes += b.bytes;
		snd->secs = a.secs > snd->secs ? a.secs : snd->secs;
		rcv->secs = b.secs > rcv->secs ? b.secs : rcv->secs;
		*retr += a.retr;
	}
}

static void start_emit(struct sp_test *t, struct sp_jw *w)
{
	struct sp_app *a = t->app;
	sp_jw_obj(w, "start");
	sp_jw_arr(w, "connected");
	for (unsigned i = 0; i < t->ns; i++) {
		char la[64], pa[64];
		uint16_t lp, pp;
		addr_of(a->st, t->s[i].sd, false, la, sizeof(la), &lp);
		addr_of(a->st, t->s[i].sd, true, pa, sizeof(pa), &pp);
		sp_jw_obj(w, NULL);
		sp_jw_int(w, "socket", t->s[i].sd);
		sp_jw_str(w, "local_host", la);
		sp_jw_int(w, "local_port", lp);
		sp_jw_str(w, "remote_host", pa);
		sp_jw_int(w, "remote_port", pp);
		sp_jw_end_obj(w);
	}
	sp_jw_end_arr(w);
	sp_jw_str(w, "version", "skperf 1 (iperf 3.12 protocol)");
	struct utsname u;
	char sys[400] = "";
	if (!uname(&u))
		snprintf(sys, sizeof(sys), "%s %s %s %s", u.sysname, u.nodename, u.release,
			 u.machine);
	sp_jw_str(w, "system_info", sys);
	/* when the test began, as iperf3 writes it, not when this report is
	 * written (a run's end: readers compare two tools' starts) */
	time_t now = t->wall_start ? (time_t)t->wall_start : time(NULL);
	char ts[64];
	strftime(ts, sizeof(ts), "%a, %d %b %Y %H:%M:%S GMT", gmtime(&now));
	sp_jw_obj(w, "timestamp");
	sp_jw_str(w, "time", ts);
	sp_jw_int(w, "timesecs", (int64_t)now);
	sp_jw_end_obj(w);
	if (!t->server) {
		sp_jw_obj(w, "connecting_to");
		sp_jw_str(w, "host", a->o.host);
		sp_jw_int(w, "port", a->o.port);
		sp_jw_end_obj(w);
	}
	sp_jw_str(w, "cookie", t->cookie);
	sp_jw_int(w, "tcp_mss_default", t->ns ? t->s[0].ti.mss : 0);
	sp_jw_int(w, "sock_bufsize", t->window);
	sp_jw_int(w, "sndbuf_actual", t->ns ? t->s[0].ti.sndbuf : 0);
	sp_jw_int(w, "rcvbuf_actual", t->ns ? t->s[0].ti.rcvbuf : 0);
	sp_jw_obj(w, "test_start");
	sp_jw_str(w, "protocol", "TCP");
	sp_jw_int(w, "num_streams", t->parallel);
	sp_jw_int(w, "blksize", t->len);
	sp_jw_int(w, "omit", 0);
	sp_jw_num(w, "duration", t->time_s);
	sp_jw_u64(w, "bytes", t->bytes);
	sp_jw_u64(w, "blocks", t->blocks);
	sp_jw_int(w, "reverse", t->reverse);
	sp_jw_int(w, "tos", 0);
	sp_jw_int(w, "target_bitrate", 0);
	sp_jw_int(w, "bidir", t->bidir);
	sp_jw_int(w, "fqrate", 0);
	sp_jw_str(w, "mode", t->mode == SP_RR ? "rr" : t->mode == SP_CRR ? "crr" : "bulk");
	sp_jw_end_obj(w);
	sp_jw_end_obj(w);
}

static void end_emit(struct sp_test *t, struct sp_jw *w)
{
	double secs = sp_secs(t->t_end - t->t_start);
	sp_jw_obj(w, "end");
	sp_jw_arr(w, "streams");
	for (unsigned i = 0; i < t->ns && t->mode == SP_BULK; i++) {
		struct side snd, rcv;
		sides(t, &t->s[i], &snd, &rcv);
		sp_jw_obj(w, NULL);
		end_side(w, "sender", &t->s[i], &snd, true);
		end_side(w, "receiver", &t->s[i], &rcv, false);
		sp_jw_end_obj(w);
	}
	sp_jw_end_arr(w);
	static const char *const names[2][2] = {
	    {"sum_sent", "sum_received"}, {"sum_sent_bidir_reverse", "sum_received_bidir_reverse"}};
	for (int d = 0; d < (t->bidir ? 2 : 1) && t->mode == SP_BULK; d++) {
		struct side snd, rcv;
		uint32_t retr;
		sums(t, d, &snd, &rcv, &retr);
		for (int k = 0; k < 2; k++) {
			const struct side *x = k ? &rcv : &snd;
			sp_jw_obj(w, names[d][k]);
			sp_jw_num(w, "start", 0);
			sp_jw_num(w, "end", x->secs);
			sp_jw_num(w, "seconds", x->secs);
			sp_jw_u64(w, "bytes", x->bytes);
			sp_jw_num(w, "bits_per_second", bps(x->bytes, x->secs));
			if (!k)
				sp_jw_int(w, "retransmits", retr);
			sp_jw_bool(w, "sender", (d == 0) != t->server);
			sp_jw_end_obj(w);
		}
	}
	if (t->mode == SP_RR) {
		sp_jw_obj(w, "rr");
		sp_jw_u64(w, "count", t->nrtt);
		sp_jw_int(w, "size", t->size);
		sp_jw_int(w, "streams", t->parallel);
		sp_jw_num(w, "seconds", secs);
		sp_jw_num(w, "per_s", secs > 0 ? (double)t->nrtt / secs : 0);
		sp_rtt_emit(t, w);
		sp_jw_end_obj(w);
	}
	if (t->mode == SP_CRR) {
		sp_jw_obj(w, "crr");
		sp_jw_u64(w, "count", t->crr_done);
		sp_jw_int(w, "size", t->size);
		sp_jw_int(w, "in_flight", t->parallel);
		sp_jw_num(w, "seconds", secs);
		sp_jw_num(w, "per_s", secs > 0 ? (double)t->crr_done / secs : 0);
		sp_rtt_emit(t, w);
		sp_jw_end_obj(w);
	}
	sp_jw_obj(w, "cpu_utilization_percent");
	sp_jw_num(w, "host_total", t->cpu[0]);
	sp_jw_num(w, "host_user", t->cpu[1]);
	sp_jw_num(w, "host_system", t->cpu[2]);
	sp_jw_num(w, "remote_total", t->remote_cpu[0]);
	sp_jw_num(w, "remote_user", t->remote_cpu[1]);
	sp_jw_num(w, "remote_system", t->remote_cpu[2]);
	sp_jw_end_obj(w);
	const char *mine = t->ns ? t->s[0].ti.cc : "";
	bool local_sends = t->ns && t->s[0].sender;
	sp_jw_str(w, "sender_tcp_congestion", local_sends ? mine : t->remote_cc);
	sp_jw_str(w, "receiver_tcp_congestion", local_sends ? t->remote_cc : mine);
	skops_emit(t, w);
	sp_jw_end_obj(w);
}

static void report_text_end(struct sp_test *t);

void sp_report_end(struct sp_test *t)
{
	if (!t->app->o.json) {
		report_text_end(t);
		return;
	}
	struct sp_jw w = {.pretty = true};
	sp_jw_obj(&w, NULL);
	start_emit(t, &w);
	sp_jw_arr(&w, "intervals");
	/* each interval was written as it happened, one after the other */
	if (t->intervals.len)
		sp_jw_raw(&w, NULL, t->intervals.buf, t->intervals.len);
	sp_jw_end_arr(&w);
	end_emit(t, &w);
	sp_jw_end_obj(&w);
	if (w.oom)
		fprintf(stderr, "skperf: out of memory writing the JSON report\n");
	else
		printf("%s\n", w.buf);
	sp_jw_free(&w);
}

static void report_text_end(struct sp_test *t)
{
	printf("- - - - - - - - - - - - - - - - - - - - - - - - -\n");
	if (t->mode == SP_RR && t->server) {
		printf("echoed %u --rr streams of %u-byte requests for %.2f s\n", t->parallel,
		       t->size, sp_secs(t->t_end - t->t_start));
	} else if (t->mode == SP_RR) {
		sp_rtt_print(t);
	} else if (t->mode == SP_CRR) {
		double secs = sp_secs(t->t_end - t->t_start);
		printf("transactions: %llu in %.2f s: %.0f per second\n",
		       (unsigned long long)t->crr_done, secs,
		       secs > 0 ? (double)t->crr_done / secs : 0);
		if (!t->server)
			sp_rtt_print(t);
	} else {
		printf("[ ID] Interval           Transfer     Bitrate         Retr\n");
		for (unsigned i = 0; i < t->ns; i++) {
			struct side snd, rcv;
			sides(t, &t->s[i], &snd, &rcv);
			char bb[32], rb[32];
			printf("[%3d] %6.2f-%-6.2f sec  %10s  %14s  %4u  sender\n", t->s[i].id, 0.0,
			       snd.secs, fmt_bytes((double)snd.bytes, bb, 32),
			       fmt_bits(bps(snd.bytes, snd.secs), rb, 32), snd.retr);
			printf("[%3d] %6.2f-%-6.2f sec  %10s  %14s        receiver\n", t->s[i].id,
			       0.0, rcv.secs, fmt_bytes((double)rcv.bytes, bb, 32),
			       fmt_bits(bps(rcv.bytes, rcv.secs), rb, 32));
		}
		for (int d = 0; d < (t->bidir ? 2 : 1) && t->ns > 1; d++) {
			struct side snd, rcv;
			uint32_t retr;
			sums(t, d, &snd, &rcv, &retr);
			char bb[32], rb[32];
			printf("[SUM] %6.2f-%-6.2f sec  %10s  %14s  %4u  sender\n", 0.0, snd.secs,
			       fmt_bytes((double)snd.bytes, bb, 32),
			       fmt_bits(bps(snd.bytes, snd.secs), rb, 32), retr);
			printf("[SUM] %6.2f-%-6.2f sec  %10s  %14s        receiver\n", 0.0,
			       rcv.secs, fmt_bytes((double)rcv.bytes, bb, 32),
			       fmt_bits(bps(rcv.bytes, rcv.secs), rb, 32));
		}
	}
	for (unsigned i = 0; i < t->ns; i++) {
		const struct skops_tcp_info *ti = &t->s[i].ti;
		printf("skops: [%3d] %s cwnd %u (max %u) srtt %u us rttvar %u us mss %u "
		       "retransmits %u cc %s\n",
		       t->s[i].id, ti->state_name, ti->cwnd, ti->max_cwnd, ti->srtt_us,
		       ti->rttvar_us, ti->mss, ti->total_retrans, ti->cc);
	}
	counters_emit(t, NULL);
	hooks_emit(t, NULL, true);
}
