/* skcat: a netcat on the skops stack. Streams stdin → connection → stdout;
 * on stdin EOF it half-closes and exits once the peer has closed too (0), or
 * with a message and a non-zero status on any error.
 *   skcat [OPTIONS] -l PORT        listen, accept one connection
 *   skcat [OPTIONS] HOST PORT      connect (HOST IPv4 or IPv6)
 * OPTIONS: --vdev DEVARGS (repeatable) --addr CIDR (repeatable) --gw ADDR
 *   --mtu N --eal "ARGS" --tcp-hz N --sockops FILE.o [--cgroup PATH] [--strict]
 *   --cc NAME --info --trace --config FILE --pcap FILE --timeout SECONDS
 *   (--cc: the stack's default congestion control, reno, newreno, cubic —
 *   the default —, dctcp or bbr; a sock_ops program may still change it)
 *   -v (one line per accepted connection: peer and local address)
 *   --echo (send back what each connection receives instead of using
 *   stdin/stdout) --conns N (with -l --echo: serve N connections at once)
 *   --v6only (with -l and addresses of both families: an AF_INET and an
 *   IPV6_V6ONLY AF_INET6 listener instead of one dual-stack AF_INET6 one)
 *   --tcp-ecn N (net.ipv4.tcp_ecn: 0 never, 1 ask and agree, 2 agree when
 *   asked, the default)
 *   --tcp-early-retrans N (net.ipv4.tcp_early_retrans: 0 no tail loss
 *   probe, 3 the default, RFC 8985 §7)
 *   --tcp-rmem-max BYTES, --tcp-wmem-max BYTES (net.ipv4.tcp_rmem[2] and
 *   tcp_wmem[2]: how far autotuning grows the buffers, 6 MiB and 4 MiB by
 *   default; docs/tcp.md)
 *   --tcp-syncookies N (net.ipv4.tcp_syncookies: 0 never, 1 when a SYN queue
 *   is full, the default, 2 always)
 *   --pacing (every connection paces at its congestion control's rate,
 *   docs/tcp.md "Pacing") --max-pacing-rate BYTES (SO_MAX_PACING_RATE on
 *   the socket, bytes a second: caps the rate and turns pacing on)
 *   --dump-maps[=FILE] (with --sockops: at a normal exit, every map of the
 *   program as bpftool-style JSON, to FILE or stderr)
 *   --run-budget UNITS (with --sockops: the program's run-time budget,
 *   docs/verifier-diff.md "Run-time budget")
 *   --tcp-hz N (the kernel HZ the TCP timers and cubic round to: 100, 250 —
 *   the default —, 300 or 1000; docs/tcp.md "Timers and HZ")
 * Environment: SKOPS_HZ (--tcp-hz when that is not given) and
 * SKOPS_SYN_LINEAR_TIMEOUTS (linear SYN retries, default 4), the kernel's
 * CONFIG_HZ and net.ipv4.tcp_syn_linear_timeouts.
 * Config files hold the same options as key = value (configs/README.md).
 * A connection that ends in TIME_WAIT keeps the process (and its stack)
 * alive for 3 RTOs, clamped to 1..3 s, so a FIN the peer retransmits
 * because our last ACK was lost is still answered (RFC 9293 §3.10.7.4,
 * TIME-WAIT); the kernel's 60 s would outlast any use of skcat. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "appport.h"
#include "mapdump.h"
#include "bpfvm.h"
#include "cgroup.h"
#include "clk.h"
#include "dev/dev.h"
#include "hooks.h"
#include "net/net.h"
#include "skcat.h"
#include "skops.h"

#define SKCAT_BUF	  (256 * 1024)
#define SKCAT_ECHO_BUF	  (64 * 1024)
#define SKCAT_LISTEN_BACK 8

void skcat_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("skcat: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

/* A numeric setting from the environment; bad values are an error, not a default. */
static uint32_t env_u32(const char *name, uint32_t dflt)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return dflt;
	char *end;
	unsigned long n = strtoul(v, &end, 10);
	if (*end || n > UINT32_MAX)
		skcat_die("%s: bad value '%s'", name, v);
	return (uint32_t)n;
}

static uint16_t port_of(const struct skcat *k)
{
	return (uint16_t)strtoul(k->port, NULL, 10);
}

static void print_info(struct stack *st, int sd)
{
	struct skops_tcp_info ti;
	if (skops_tcp_info(st, sd, &ti)) {
		fprintf(stderr, "{\"error\":\"no tcp_info\"}\n");
		return;
	}
	fprintf(stderr,
		"{\"state\":\"%s\",\"cwnd\":%u,\"max_cwnd\":%u,\"ssthresh\":%u,\"initial_cwnd\":%u,"
		"\"srtt_us\":%u,\"rttvar_us\":%u,\"rto_ms\":%u,\"rcv_wnd\":%u,\"snd_wnd\":%u,"
		"\"rcv_wscale\":%u,\"snd_wscale\":%u,\"ts_ok\":%s,\"sack_ok\":%s,\"mss\":%u,"
		"\"rcv_mss\":%u,\"retransmits\":%u,\"total_retrans\":%u,\"cc\":\"%s\","
		"\"dctcp_alpha\":%d,\"ecn\":%u,"
		"\"ecn_ok\":%s,\"cgroup\":\"%s\",\"sndbuf\":%u,\"rcvbuf\":%u,\"bytes_acked\":%llu,"
		"\"bytes_received\":%llu,\"bytes_sent\":%llu,\"bytes_retrans\":%llu,"
		"\"segs_in\":%u,\"segs_out\":%u,\"data_segs_in\":%u,\"data_segs_out\":%u,"
		"\"syn_rto_ms\":%u,\"syn_retrans\":%u,\"syn_wnd\":%u,\"cb_flags\":%u,"
		"\"rack_lost\":%u,\"tlp_probes\":%u,\"tlp_recovered\":%u,\"spurious_rtos\":%u,"
		"\"rcv_rtt_us\":%u,\"rcv_space\":%u,\"pacing_rate\":%llu,\"max_pacing_rate\":%llu,"
		"\"syn_gaps_us\":[",
		ti.state_name, ti.cwnd, ti.max_cwnd, ti.ssthresh, ti.initial_cwnd, ti.srtt_us,
		ti.rttvar_us, ti.rto_ms, ti.rcv_wnd, ti.snd_wnd, ti.rcv_wscale, ti.snd_wscale,
		ti.ts_ok ? "true" : "false", ti.sack_ok ? "true" : "false", ti.mss, ti.rcv_mss,
		ti.retransmits, ti.total_retrans, ti.cc, ti.dctcp_alpha, ti.ecn,
		(ti.ecn & SKOPS_ECN_OK) ? "true" : "false", ti.cgroup, ti.sndbuf, ti.rcvbuf,
		(unsigned long long)ti.bytes_acked, (unsigned long long)ti.bytes_received,
		(unsigned long long)ti.bytes_sent, (unsigned long long)ti.bytes_retrans, ti.segs_in,
		ti.segs_out, ti.data_segs_in, ti.data_segs_out, ti.syn_rto_ms, ti.syn_retrans,
		ti.syn_wnd, ti.cb_flags, ti.rack_lost, ti.tlp_probes, ti.tlp_recovered,
		ti.spurious_rtos, ti.rcv_rtt_us, ti.rcv_space, (unsigned long long)ti.pacing_rate,
		(unsigned long long)ti.max_pacing_rate);
	for (uint32_t i = 0; i < ti.syn_retrans && i < SKOPS_MAX_SYN_GAPS; i++)
		fprintf(stderr, "%s%u", i ? "," : "", ti.syn_gaps_us[i]);
	/* the stack's counters (Linux's netstat names) */
	struct skops_tcp_counters tc;
	if (skops_tcp_counters(st, &tc) == 0)
		fprintf(stderr,
			"],\"syncookies_sent\":%llu,\"syncookies_recv\":%llu,"
			"\"syncookies_failed\":%llu,\"listen_overflows\":%llu,"
			"\"listen_drops\":%llu,\"rcvbuf_grown\":%llu,\"out_of_window_icmps\":%llu",
			(unsigned long long)tc.syncookies_sent,
			(unsigned long long)tc.syncookies_recv,
			(unsigned long long)tc.syncookies_failed,
			(unsigned long long)tc.listen_overflows,
			(unsigned long long)tc.listen_drops, (unsigned long long)tc.rcvbuf_grown,
			(unsigned long long)tc.out_of_window_icmps);
	else
		fprintf(stderr, "]");
	/* the network layer's drops, each by its reason, and its frames */
	struct net_stats ns;
	net_get_stats(stack_net(st), &ns);
	fprintf(stderr, ",\"net\":{");
	for (const struct net_stat_name *d = net_stat_names; d->name; d++)
		fprintf(stderr, "%s\"%s\":%llu", d == net_stat_names ? "" : ",", d->name,
			(unsigned long long)*(const uint64_t *)((const char *)&ns + d->off));
	fprintf(stderr, "}}\n");
}

/* Programs' bpf_trace_printk lines, as "trace: LINE" on stderr. */
static void drain_trace(struct skcat *k)
{
	char buf[4096];
	size_t n;
	while (k->trace && k->hooks && (n = hooks_trace_read(k->hooks, buf, sizeof(buf) - 1))) {
		buf[n] = 0;
		for (char *line = buf, *nl; *line; line = nl + 1) {
			nl = strchr(line, '\n');
			if (!nl)
				nl = line + strlen(line) - 1;
			fprintf(stderr, "trace: %.*s\n", (int)(nl - line + (*nl != '\n')), line);
		}
	}
}

/* One poll round; sleeps briefly when idle so a 2-core box stays usable. */
static void pump(struct skcat *k, struct stack *st, unsigned *idle)
{
	int work = stack_poll(st);
	drain_trace(k);
	/* Silence is the worst answer to a veth left with tx checksum offload
	 * on: every segment from the kernel is dropped. Say why, once. */
	char note[320];
	if (net_csum_notice(stack_net(st), note, sizeof(note)))
		fprintf(stderr, "skcat: %s\n", note);
	if (work > 0) {
		*idle = 0;
		return;
	}
	if (++*idle > 512)
		nanosleep(&(struct timespec){.tv_nsec = 10000}, NULL);
}

static int sock_error(struct stack *st, int sd)
{
	int e = 0;
	socklen_t l = sizeof(e);
	skops_getsockopt(st, sd, SOL_SOCKET, SO_ERROR, &e, &l);
	return e;
}

static void write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			skcat_die("stdout: %s", strerror(errno));
		}
		p += w;
		n -= (size_t)w;
	}
}

/* --cc names the stack's default (net.ipv4.tcp_congestion_control), so
 * listeners, their children and connecting sockets all start with it. */
static void check_cc(const char *cc)
{
	if (!cc)
		return;
	const char *av = skops_cc_available();
	size_t n = strlen(cc);
	for (const char *p = av; (p = strstr(p, cc)); p += n)
		if ((p == av || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return;
	skcat_die("--cc %s: no such congestion control (available: %s)", cc, av);
}

/* Keeps the stack running while sd is in TIME_WAIT, for 3 RTOs clamped to
 * 1..3 s: the peer's retransmitted FIN gets its ACK instead of nothing (a
 * peer left in LAST_ACK backs off for minutes). */
static void linger_time_wait(struct skcat *k, struct stack *st, const int *sds, unsigned n,
			     const struct clk *clk)
{
	uint64_t ms = 0;
	for (unsigned i = 0; i < n; i++) {
		struct skops_tcp_info ti;
		if (skops_tcp_info(st, sds[i], &ti) || strcmp(ti.state_name, "TIME_WAIT"))
			continue;
		uint64_t m = 3u * (uint64_t)ti.rto_ms;
		m = m < 1000 ? 1000 : m > 3000 ? 3000 : m;
		if (m > ms)
			ms = m;
	}
	uint64_t end = clk_now(clk) + ms * 1000000u;
	unsigned idle = 0;
	while (ms && !quit && clk_now(clk) < end)
		pump(k, st, &idle);
}

/* Streams until both directions are closed; returns the exit status. */
static int stream(struct skcat *k, struct stack *st, int sd, uint64_t deadline,
		  const struct clk *clk)
{
	static uint8_t in[SKCAT_BUF], out[SKCAT_BUF];
	size_t in_len = 0, in_off = 0;
	bool stdin_eof = false, shut = false, peer_eof = false;
	unsigned idle = 0;
	fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	while (!quit) {
		if (deadline && clk_now(clk) > deadline)
			skcat_die("timeout");
		pump(k, st, &idle);
		uint32_t ev = skops_events(st, sd);
		if (ev & SKOPS_EV_ERR) {
			int e = sock_error(st, sd);
			if (e)
				skcat_die("connection: %s", strerror(e));
		}
		/* receive */
		for (int i = 0; i < 64 && !peer_eof; i++) {
			ssize_t r = skops_recv(st, sd, out, sizeof(out), 0);
			if (r > 0) {
				write_all(1, out, (size_t)r);
				idle = 0;
				continue;
			}
			if (r == 0)
				peer_eof = true;
			else if (r != -EAGAIN)
				skcat_die("recv: %s", strerror((int)-r));
			break;
		}
		/* send */
		for (int i = 0; i < 64 && !shut; i++) {
			if (in_off == in_len && !stdin_eof) {
				ssize_t r = read(0, in, sizeof(in));
				if (r > 0) {
					in_len = (size_t)r;
					in_off = 0;
				} else if (r == 0) {
					stdin_eof = true;
				} else if (errno != EAGAIN && errno != EINTR) {
					skcat_die("stdin: %s", strerror(errno));
				}
			}
			if (in_off < in_len) {
				ssize_t s = skops_send(st, sd, in + in_off, in_len - in_off, 0);
				if (s > 0) {
					in_off += (size_t)s;
					idle = 0;
					continue;
				}
				if (s != -EAGAIN)
					skcat_die("send: %s", strerror((int)-s));
				break;
			}
			if (stdin_eof) {
				int rc = skops_shutdown(st, sd, SHUT_WR);
				if (rc)
					skcat_die("shutdown: %s", strerror(-rc));
				shut = true;
			}
			break;
		}
		if (shut && peer_eof) {
			/* Let our FIN and the last data be acknowledged before the
			 * process (and with it the stack) goes away. */
			for (int i = 0; i < 2000000 && !quit; i++) {
				struct skops_tcp_info ti;
				if (skops_tcp_info(st, sd, &ti) ||
				    (ti.unacked == 0 && ti.notsent == 0))
					break;
				if (deadline && clk_now(clk) > deadline)
					skcat_die("timeout waiting for the last ACK");
				if (skops_events(st, sd) & SKOPS_EV_ERR)
					break;
				pump(k, st, &idle);
			}
			if (k->info)
				print_info(st, sd);
			return 0;
		}
	}
	return quit ? 1 : 0;
}

/* --echo: one connection's bytes go back to it; half-closes after the
 * peer's FIN once everything read has been queued. */
struct echo_conn {
	int sd;
	uint32_t len, off;
	bool peer_eof, shut, done, failed;
	uint8_t buf[SKCAT_ECHO_BUF];
};

/* A failed connection is reported and served no more; the others go on
 * and the exit status says one failed. */
static bool echo_fail(struct echo_conn *c, const char *what, int err)
{
	fprintf(stderr, "skcat: connection %d: %s%s%s\n", c->sd, what, what[0] ? ": " : "",
		strerror(err));
	c->failed = true;
	return true;
}

/* One round for c; true once both directions are closed and our data is
 * acknowledged (or the connection failed). */
static bool echo_step(struct stack *st, struct echo_conn *c, unsigned *idle)
{
	if (skops_events(st, c->sd) & SKOPS_EV_ERR) {
		int e = sock_error(st, c->sd);
		if (e && !c->shut)
			return echo_fail(c, "", e);
	}
	for (int i = 0; i < 64; i++) {
		if (c->off < c->len) {
			ssize_t s = skops_send(st, c->sd, c->buf + c->off, c->len - c->off, 0);
			if (s > 0) {
				c->off += (uint32_t)s;
				*idle = 0;
				continue;
			}
			if (s != -EAGAIN)
				return echo_fail(c, "send", (int)-s);
			break;
		}
		if (c->peer_eof)
			break;
		ssize_t r = skops_recv(st, c->sd, c->buf, sizeof(c->buf), 0);
		if (r > 0) {
			c->len = (uint32_t)r;
			c->off = 0;
			*idle = 0;
			continue;
		}
		if (r == 0)
			c->peer_eof = true;
		else if (r != -EAGAIN)
			return echo_fail(c, "recv", (int)-r);
		break;
	}
	if (c->peer_eof && c->off == c->len && !c->shut) {
		int rc = skops_shutdown(st, c->sd, SHUT_WR);
		if (rc)
			return echo_fail(c, "shutdown", -rc);
		c->shut = true;
	}
	if (!c->shut)
		return false;
	struct skops_tcp_info ti;
	return skops_tcp_info(st, c->sd, &ti) || (ti.unacked == 0 && ti.notsent == 0) ||
	       (skops_events(st, c->sd) & SKOPS_EV_ERR);
}

static int serve_echo(struct skcat *k, struct stack *st, struct echo_conn *c, unsigned n,
		      uint64_t deadline, const struct clk *clk)
{
	unsigned idle = 0;
	for (;;) {
		if (quit)
			return 1;
		if (deadline && clk_now(clk) > deadline)
			skcat_die("timeout");
		pump(k, st, &idle);
		unsigned left = 0;
		for (unsigned i = 0; i < n; i++) {
			if (!c[i].done)
				c[i].done = echo_step(st, &c[i], &idle);
			left += !c[i].done;
		}
		if (!left)
			break;
	}
	int status = 0;
	for (unsigned i = 0; i < n; i++) {
		if (k->info)
			print_info(st, c[i].sd);
		status |= c[i].failed;
	}
	return status;
}

/* -v: "skcat: accepted PEER on LOCAL" as getpeername/getsockname report them. */
static void log_accept(const struct skcat *k, struct stack *st, int sd)
{
	if (!k->verbose)
		return;
	struct sockaddr_storage p, l;
	socklen_t pl = sizeof(p), ll = sizeof(l);
	int rc = skops_getpeername(st, sd, (struct sockaddr *)&p, &pl);
	if (!rc)
		rc = skops_getsockname(st, sd, (struct sockaddr *)&l, &ll);
	if (rc)
		skcat_die("accepted connection: no address: %s", strerror(-rc));
	char pb[80], lb[80];
	fprintf(stderr, "skcat: accepted %s on %s\n", appport_sa_str(&p, pb, sizeof(pb)),
		appport_sa_str(&l, lb, sizeof(lb)));
}

/* With addresses of both families, one AF_INET6 socket on [::]:PORT with
 * IPV6_V6ONLY off takes both (IPv4 peers appear v4-mapped, as on Linux);
 * --v6only listens with two sockets instead, AF_INET on 0.0.0.0 and an
 * IPV6_V6ONLY AF_INET6 on [::]. With one family, one socket of it. */
/* --max-pacing-rate: on the listener its connections inherit it. */
static void set_max_pacing_rate(const struct skcat *k, struct stack *st, int sd)
{
	if (!k->max_pacing_rate)
		return;
	uint64_t r = k->max_pacing_rate;
	int rc = skops_setsockopt(st, sd, SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof(r));
	if (rc)
		skcat_die("SO_MAX_PACING_RATE %llu: %s", (unsigned long long)r, strerror(-rc));
}

static void open_listeners(const struct skcat *k, struct stack *st, int lsd[2])
{
	bool have[2] = {false, false};
	for (unsigned i = 0; i < k->pt.net.naddrs; i++)
		have[k->pt.net.addrs[i].family == AF_INET6] = true;
	if (have[0] && have[1] && !k->v6only)
		have[0] = false;
	struct sockaddr_storage ss;
	for (int f = 0; f < 2; f++) {
		if (!have[f])
			continue;
		uint8_t fam = f ? AF_INET6 : AF_INET;
		int s = skops_socket(st, fam, SOCK_STREAM);
		if (s < 0)
			skcat_die("socket: %s", strerror(-s));
		int v6only = k->v6only;
		int rc = fam == AF_INET6 ? skops_setsockopt(st, s, SOL_IPV6, IPV6_V6ONLY, &v6only,
							    sizeof(v6only))
					 : 0;
		if (rc)
			skcat_die("IPV6_V6ONLY: %s", strerror(-rc));
		set_max_pacing_rate(k, st, s);
		socklen_t l = appport_sockaddr(fam, NULL, port_of(k), &ss);
		rc = skops_bind(st, s, (struct sockaddr *)&ss, l);
		if (rc)
			skcat_die("bind %s:%s: %s", f ? "[::]" : "0.0.0.0", k->port, strerror(-rc));
		if ((rc = skops_listen(st, s, SKCAT_LISTEN_BACK)))
			skcat_die("listen: %s", strerror(-rc));
		lsd[f] = s;
	}
}

/* --dump-maps: the program's maps as the run left them (one lcore: per-CPU
 * values have one cpu). */
static void dump_maps(const struct skcat *k, struct bpfvm_registry *reg)
{
	const char *path = k->dump_maps_file;
	FILE *f = path && *path ? fopen(path, "w") : stderr;
	if (!f)
		skcat_die("--dump-maps %s: %s", path, strerror(errno));
	int rc = mapdump_json(f, reg, 1);
	if (f != stderr && fclose(f) != 0 && !rc)
		rc = -errno;
	if (rc)
		skcat_die("--dump-maps: %s", strerror(-rc));
}

/* --sockops: the runtime (a registry, one cgroup tree) and the program */
static void load_sockops(struct skcat *k, struct bpfvm_registry **reg, struct cg_tree **tree)
{
	int rc = bpfvm_registry_create(reg);
	if (!rc)
		rc = cg_tree_create(&hooks_cg_prog_ops, 1, tree);
	if (rc)
		skcat_die("sockops runtime: %s", strerror(-rc));
	bpfvm_registry_set_run_budget(*reg, k->run_budget);
	char err[10240];
	if (appport_attach(*reg, *tree, k->sockops, k->cgroup, CG_F_ALLOW_MULTI, k->strict, "skcat",
			   err, sizeof(err)))
		skcat_die("--sockops %s", err);
}

/* A connection to --host/--port, once it may send; failures exit. */
static int connect_to(struct skcat *k, struct stack *st, struct clk *clk, uint64_t deadline,
		      unsigned *idle)
{
	struct sockaddr_storage ss;
	uint8_t fam, a[16];
	if (net_ip_parse(k->host, &fam, a))
		skcat_die("bad host '%s' (an IPv4 or IPv6 address)", k->host);
	int sd = skops_socket(st, fam, SOCK_STREAM);
	if (sd < 0)
		skcat_die("socket: %s", strerror(-sd));
	set_max_pacing_rate(k, st, sd);
	socklen_t l = appport_sockaddr(fam, a, port_of(k), &ss);
	int rc = skops_connect(st, sd, (struct sockaddr *)&ss, l);
	if (rc && rc != -EINPROGRESS)
		skcat_die("connect %s %s: %s", k->host, k->port, strerror(-rc));
	for (;;) {
		if (quit)
			skcat_die("interrupted");
		if (deadline && clk_now(clk) > deadline)
			skcat_die("timeout connecting to %s %s", k->host, k->port);
		pump(k, st, idle);
		uint32_t ev = skops_events(st, sd);
		if (ev & (SKOPS_EV_ERR | SKOPS_EV_HUP)) {
			int e = sock_error(st, sd);
			skcat_die("connect %s %s: %s", k->host, k->port,
				  strerror(e ? e : ECONNREFUSED));
		}
		if (ev & SKOPS_EV_OUT)
			break;
	}
	return sd;
}

/* The stack on dev (port's pool) with skcat's settings: the options, the
 * sock_ops runtime when --sockops, and SKOPS_HZ/SKOPS_SYN_LINEAR_TIMEOUTS. */
static struct stack *open_stack(struct skcat *k, struct dev *dev, struct dev *port, struct clk *clk,
				struct cg_tree *tree, struct bpfvm_registry *reg)
{
	check_cc(k->cc);
	struct stack_config sc = {0};
	sc.cc = k->cc;
	sc.net = k->pt.net;
	sc.net.dev = dev;
	sc.net.pool = dev_ethdev_pool(port);
	sc.net.clk = clk;
	sc.net.seed = appport_seed();
	sc.cg_tree = tree;
	sc.reg = reg;
	sc.default_cgroup = k->cgroup;
	int rc;
	/* --tcp-hz, else SKOPS_HZ (what the equivalence tests read from the
	 * kernel), else the stack's default */
	sc.hz = k->pt.tcp_hz ? k->pt.tcp_hz : env_u32("SKOPS_HZ", 0);
	sc.syn_linear_timeouts = env_u32("SKOPS_SYN_LINEAR_TIMEOUTS", 0);
	if (tree) {
		struct hooks_config hc = {.tree = tree, .reg = reg, .lcore = 0};
		if ((rc = hooks_create(&hc, &k->hooks)))
			skcat_die("hooks: %s", strerror(-rc));
		sc.hooks = k->hooks;
	}
	sc.seed = appport_seed();
	sc.no_tlp = k->no_tlp;
	sc.tcp_rmem_max = k->rmem_max;
	sc.tcp_wmem_max = k->wmem_max;
	sc.pacing = k->pacing;
	if (k->syncookies >= 0) {
		sc.tcp_syncookies_set = true;
		sc.tcp_syncookies = (uint8_t)k->syncookies;
	}
	if (k->tcp_ecn >= 0) {
		sc.tcp_ecn_set = true;
		sc.tcp_ecn = (uint8_t)k->tcp_ecn;
	}
	struct stack *st;
	rc = stack_create(&sc, &st);
	if (rc)
		skcat_die("stack: %s", strerror(-rc));
	return st;
}

int main(int argc, char **argv)
{
	static struct skcat k;
	k.pt.dev.prog = "skcat";
	k.tcp_ecn = -1;
	k.syncookies = -1;
	skcat_parse_args(&k, argc, argv);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);

	char err[512], log[2048];
	struct dev *port, *dev;
	if (dev_opts_open(&k.pt.dev, &port, log, sizeof(log), err, sizeof(err)))
		skcat_die("%s", err);
	if (getenv("SKCAT_VERBOSE"))
		fputs(log, stderr);
	struct clk clk;
	clk_init_real(&clk);
	dev = port;
	struct dev *pc = NULL;
	if (k.pcap) {
		int rc = dev_pcap_create(port, k.pcap, &clk, &pc);
		if (rc)
			skcat_die("--pcap %s: %s", k.pcap, strerror(-rc));
		dev = pc;
	}

	struct bpfvm_registry *reg = NULL;
	struct cg_tree *tree = NULL;
	if (k.sockops)
		load_sockops(&k, &reg, &tree);

	struct stack *st = open_stack(&k, dev, port, &clk, tree, reg);

	uint64_t deadline = k.timeout_s > 0 ? clk_now(&clk) + (uint64_t)(k.timeout_s * 1e9) : 0;
	unsigned idle = 0;
	int sd = -1;
	static struct echo_conn conns[SKCAT_MAX_CONNS];
	unsigned nacc = 0;
	if (k.listen) {
		int lsd[2] = {-1, -1};
		open_listeners(&k, st, lsd);
		if (getenv("SKCAT_VERBOSE")) /* tests wait for this line, not a fixed time */
			fprintf(stderr, "skcat: listening on port %s\n", k.port);
		while (nacc < k.conns && !quit) {
			if (deadline && clk_now(&clk) > deadline)
				skcat_die("timeout waiting for a connection");
			pump(&k, st, &idle);
			for (int f = 0; f < 2 && nacc < k.conns; f++) {
				if (lsd[f] < 0)
					continue;
				int a = skops_accept(st, lsd[f], NULL, NULL);
				if (a == -EAGAIN)
					continue;
				if (a < 0)
					skcat_die("accept: %s", strerror(-a));
				log_accept(&k, st, a);
				conns[nacc++].sd = a;
			}
			/* connections accepted first are served while waiting for the rest */
			for (unsigned i = 0; k.echo && i < nacc; i++)
				conns[i].done = conns[i].done || echo_step(st, &conns[i], &idle);
		}
		for (int f = 0; f < 2; f++)
			if (lsd[f] >= 0)
				skops_close(st, lsd[f]);
		sd = conns[0].sd;
	} else {
		sd = connect_to(&k, st, &clk, deadline, &idle);
	}
	if (quit)
		skcat_die("interrupted");
	int status;
	if (k.echo && k.listen) {
		status = serve_echo(&k, st, conns, nacc, deadline, &clk);
		int sds[SKCAT_MAX_CONNS] = {0};
		for (unsigned i = 0; i < nacc; i++)
			sds[i] = conns[i].sd;
		linger_time_wait(&k, st, sds, nacc, &clk);
		for (unsigned i = 0; i < nacc; i++)
			skops_close(st, conns[i].sd);
	} else {
		status = stream(&k, st, sd, deadline, &clk);
		linger_time_wait(&k, st, &sd, 1, &clk);
		skops_close(st, sd);
	}
	/* a few rounds so the close leaves the host */
	for (int i = 0; i < 100; i++)
		stack_poll(st);
	drain_trace(&k);
	if (k.dump_maps)
		dump_maps(&k, reg);
	stack_destroy(st);
	if (k.hooks)
		hooks_destroy(k.hooks);
	if (tree)
		cg_tree_destroy(tree);
	if (reg)
		bpfvm_registry_destroy(reg);
	dev_destroy(pc);
	dev_destroy(port);
	dev_eal_cleanup();
	return status;
}
