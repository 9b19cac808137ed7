/* skperf: options, the port and stack, and the helpers every piece uses.
 *   skperf [PORT OPTIONS] -s [-p PORT] [-1]
 *   skperf [PORT OPTIONS] -c HOST [-p PORT] [TEST OPTIONS]
 * Bad arguments exit 2 with the usage; a failed test exits 1. */
#include <errno.h>
#include <getopt.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpfvm.h"
#include "cgroup.h"
#include "dev/dev.h"
#include "hooks.h"
#include "net/net.h"
#include "portopt.h"
#include "skperf.h"

volatile sig_atomic_t sp_quit;

static void on_signal(int sig)
{
	(void)sig;
	sp_quit = 1;
}

static void usage(const char *why)
{
	if (why)
		fprintf(stderr, "skperf: %s\n", why);
	fprintf(stderr,
		"usage: skperf [PORT OPTIONS] -s [-p PORT] [-1]\n"
		"       skperf [PORT OPTIONS] -c HOST [-p PORT] [TEST OPTIONS]\n"
		"port options (as skcat): --vdev DEVARGS --addr CIDR --gw ADDR --mtu N\n"
		"  --eal \"ARGS\" --tcp-hz N (100, 250, 300, 1000; 250) --config FILE --sockops "
		"FILE.o (repeatable) --cgroup PATH\n"
		"  --strict --max-conns N (default 16384) --msl MS (TIME_WAIT is 2 MSL;\n"
		"  default 1000)\n"
		"test options (iperf3's): -t SECONDS (10) -n BYTES[KMG] -k BLOCKS\n"
		"  -l LEN[KMG] (128K) -P STREAMS -R --bidir -J -i SECONDS (1, 0 none)\n"
		"  -C ALGO -w SIZE[KMG] -M MSS -N --cport PORT\n"
		"skperf only (both ends skperf): --rr SIZE (request/response latency)\n"
		"  --crr[=SIZE] (connect, request, response, close; SIZE 64)\n"
		"  --plain: no control connection, for --rr/--crr against a plain echo\n"
		"  server (test/bench/krr -s) and, with -s, a plain echo server until killed\n"
		"  --no-jit: run --sockops programs in the interpreter\n");
	exit(2);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("skperf: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

double sp_secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* "10", "64K", "1M", "2G": iperf3's binary suffixes. */
static int parse_size(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	uint64_t mul = 1;
	if (*end && !end[1]) {
		const char *u = strchr("kKmMgGtT", *end);
		if (!u)
			return -EINVAL;
		mul = 1ull << (10 * (1 + (u - "kKmMgGtT") / 2));
		end++;
	}
	if (errno || *end || end == s || v < 0 || v * (double)mul > (double)max)
		return -EINVAL;
	*out = (uint64_t)(v * (double)mul);
	return 0;
}

static double parse_secs(const char *opt, const char *s, double max)
{
	char *end;
	double v = strtod(s, &end);
	if (*end || end == s || v < 0 || v > max) {
		char why[160];
		snprintf(why, sizeof(why), "%s: bad value '%s' (0 to %g seconds)", opt, s, max);
		usage(why);
	}
	return v;
}

static uint64_t need_size(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;
	if (parse_size(s, max, &v) || v < min) {
		char why[200];
		snprintf(why, sizeof(why), "%s: bad value '%s' (%llu to %llu, K/M/G suffixes)", opt,
			 s, (unsigned long long)min, (unsigned long long)max);
		usage(why);
	}
	return v;
}

/* skperf's own keys of the command line or the config file (the port's
 * are portopt's). */
static int opt_set(void *arg, const char *key, const char *val, char *err, size_t elen)
{
	struct sp_opts *o = arg;
	if (o->nstr == 16) {
		snprintf(err, elen, "too many options");
		return -E2BIG;
	}
	char *v = o->strs[o->nstr++];
	snprintf(v, sizeof(o->strs[0]), "%s", val ? val : "");
	if (!strcmp(key, "sockops")) {
		if (o->nsockops == SP_MAX_SOCKOPS) {
			snprintf(err, elen, "at most %d programs", SP_MAX_SOCKOPS);
			return -E2BIG;
		}
		o->sockops[o->nsockops++] = v;
	} else if (!strcmp(key, "cgroup")) {
		o->cgroup = v;
	} else if (!strcmp(key, "strict")) {
		o->strict = portopt_flag(v);
	} else if (!strcmp(key, "max-conns") || !strcmp(key, "msl")) {
		char *end;
		unsigned long n = strtoul(v, &end, 10);
		if (*end || !*v || n < 1 || n > (1u << 20)) {
			snprintf(err, elen, "bad value '%s' (1 to %u)", v, 1u << 20);
			return -EINVAL;
		}
		if (key[0] == 'm' && key[1] == 'a')
			o->max_conns = (uint32_t)n;
		else
			o->msl_ms = (uint32_t)n;
	} else {
		snprintf(err, elen, "unknown key '%s'", key);
		return -EINVAL;
	}
	return 0;
}

enum {
	O_BIDIR = 256,
	O_CPORT,
	O_RR,
	O_CRR,
	O_PLAIN,
	O_NOJIT,
};

/* What the options say together: a bad mix exits 2 with the usage. */
static void check_args(struct sp_opts *o, bool client, bool time_set)
{
	if (o->server == client)
		usage("give one of -s and -c HOST");
	if (portopt_need_addr(&o->pt))
		usage(portopt_need_addr(&o->pt));
	if (o->cgroup && !o->nsockops)
		usage("--cgroup needs --sockops");
	if (o->reverse && o->bidir)
		usage("-R and --bidir are exclusive");
	if (o->rr_size && o->crr)
		usage("--rr and --crr are exclusive");
	if ((o->rr_size || o->crr) && (o->reverse || o->bidir || o->bytes || o->blocks))
		usage("--rr/--crr run for -t seconds, without -R, --bidir, -n or -k");
	if (o->crr && o->parallel > SP_CRR_MAX_INFLIGHT)
		usage("--crr: -P at most 64 transactions in flight");
	if ((o->bytes || o->blocks) && !time_set)
		o->time_s = 0;
	if (o->plain && client && !o->rr_size && !o->crr)
		usage("--plain: the client runs --rr or --crr");
	if (o->server && (client || o->reverse || o->bidir || o->rr_size || o->crr))
		usage("test options belong to the client");
}

static void parse_args(struct sp_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
	    PORTOPT_OPTIONS,
	    {"sockops", required_argument, NULL, PORTOPT_TOOL(0)},
	    {"cgroup", required_argument, NULL, PORTOPT_TOOL(1)},
	    {"strict", no_argument, NULL, PORTOPT_TOOL(2)},
	    {"max-conns", required_argument, NULL, PORTOPT_TOOL(3)},
	    {"msl", required_argument, NULL, PORTOPT_TOOL(4)},
	    {"bidir", no_argument, NULL, O_BIDIR},
	    {"cport", required_argument, NULL, O_CPORT},
	    {"rr", required_argument, NULL, O_RR},
	    {"crr", optional_argument, NULL, O_CRR},
	    {"plain", no_argument, NULL, O_PLAIN},
	    {"no-jit", no_argument, NULL, O_NOJIT},
	    {"server", no_argument, NULL, 's'},
	    {"client", required_argument, NULL, 'c'},
	    {"port", required_argument, NULL, 'p'},
	    {"time", required_argument, NULL, 't'},
	    {"bytes", required_argument, NULL, 'n'},
	    {"blockcount", required_argument, NULL, 'k'},
	    {"length", required_argument, NULL, 'l'},
	    {"parallel", required_argument, NULL, 'P'},
	    {"reverse", no_argument, NULL, 'R'},
	    {"json", no_argument, NULL, 'J'},
	    {"interval", required_argument, NULL, 'i'},
	    {"congestion", required_argument, NULL, 'C'},
	    {"window", required_argument, NULL, 'w'},
	    {"set-mss", required_argument, NULL, 'M'},
	    {"no-delay", no_argument, NULL, 'N'},
	    {"one-off", no_argument, NULL, '1'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct portopt po = {.port = &o->pt, .set = opt_set, .tool = o};
	char err[1024];
	bool client = false, time_set = false;
	int c, li = -1;
	o->port = 5201;
	o->time_s = 10;
	o->interval_s = 1;
	o->parallel = 1;
	o->max_conns = 16384;
	o->msl_ms = 1000;
	while ((c = getopt_long(argc, argv, "sc:p:t:n:k:l:P:RJi:C:w:M:N1h", lo, &li)) != -1) {
		int rc = portopt_take(&po, lo, c, li, optarg, err, sizeof(err));
		if (rc < 0 && c == PORTOPT_CONFIG)
			die("%s", err);
		if (rc < 0)
			usage(err);
		if (rc == 0)
			continue;
		switch (c) {
		case 's':
			o->server = true;
			break;
		case 'c':
			client = true;
			o->host = optarg;
			break;
		case 'p':
			o->port = (uint16_t)need_size("-p", optarg, 1, 65535);
			break;
		case 't':
			o->time_s = parse_secs("-t", optarg, 86400);
			time_set = true;
			break;
		case 'n':
			o->bytes = need_size("-n", optarg, 1, 1ull << 50);
			break;
		case 'k':
			o->blocks = need_size("-k", optarg, 1, 1ull << 40);
			break;
		case 'l':
			o->len = (uint32_t)need_size("-l", optarg, 1, 1u << 24);
			break;
		case 'P':
			o->parallel = (unsigned)need_size("-P", optarg, 1, SP_MAX_STREAMS);
			break;
		case 'R':
			o->reverse = true;
			break;
		case 'J':
			o->json = true;
			break;
		case 'i':
			o->interval_s = parse_secs("-i", optarg, 60);
			break;
		case 'C':
			o->cc = optarg;
			break;
		case 'w':
			o->window = (uint32_t)need_size("-w", optarg, 1, 1u << 30);
			break;
		case 'M':
			o->mss = (uint32_t)need_size("-M", optarg, 88, 9216);
			break;
		case 'N':
			o->nodelay = true;
			break;
		case '1':
			o->once = true;
			break;
		case O_BIDIR:
			o->bidir = true;
			break;
		case O_CPORT:
			o->cport = (uint16_t)need_size("--cport", optarg, 1, 65535);
			break;
		case O_RR:
			o->rr_size = (uint32_t)need_size("--rr", optarg, 1, 1u << 20);
			break;
		case O_CRR:
			o->crr = true;
			o->crr_size =
			    optarg ? (uint32_t)need_size("--crr", optarg, 1, 1u << 20) : 64;
			break;
		case O_PLAIN:
			o->plain = true;
			break;
		case O_NOJIT:
			o->no_jit = true;
			break;
		default:
			usage(NULL);
		}
	}
	if (optind != argc)
		usage("unexpected argument");
	check_args(o, client, time_set);
}

void sp_pump(struct sp_app *a)
{
	int work = stack_poll(a->st);
	char note[320];
	if (net_csum_notice(stack_net(a->st), note, sizeof(note)))
		fprintf(stderr, "skperf: %s\n", note);
	if (work > 0) {
		a->idle = 0;
		return;
	}
	/* Between tests a 2-core box stays usable; during one we busy-poll. */
	if (!a->busy && ++a->idle > 512)
		nanosleep(&(struct timespec){.tv_nsec = 20000}, NULL);
}

const char *sp_sa_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";
	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, a, sizeof(a));
	else
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, a, sizeof(a));
	snprintf(buf, len, "%s", a);
	return buf;
}

int sp_sock_error(struct stack *st, int sd)
{
	int e = 0;
	socklen_t l = sizeof(e);
	skops_getsockopt(st, sd, SOL_SOCKET, SO_ERROR, &e, &l);
	return e;
}

int sp_sock_opts(struct sp_test *t, int sd, bool pre_connect)
{
	struct stack *st = t->app->st;
	int rc = 0, one = 1;
	const char *what = "";
	if (t->cc[0] && (rc = skops_setsockopt(st, sd, SOL_TCP, TCP_CONGESTION, t->cc,
					       (socklen_t)strlen(t->cc))))
		what = "-C";
	/* as iperf3 -s: a congestion control the client asks for and this end
	 * lacks is a warning, the stream runs with the default */
	if (rc == -ENOENT && t->server) {
		fprintf(stderr, "skperf: -C %s: not available here, using the default\n", t->cc);
		t->cc[0] = 0;
		rc = 0;
	}
	if (!rc && t->window) {
		int w = (int)t->window;
		rc = skops_setsockopt(st, sd, SOL_SOCKET, SO_SNDBUF, &w, sizeof(w));
		if (!rc)
			rc = skops_setsockopt(st, sd, SOL_SOCKET, SO_RCVBUF, &w, sizeof(w));
		what = "-w";
	}
	if (!rc && t->mss && pre_connect) {
		int m = (int)t->mss;
		rc = skops_setsockopt(st, sd, SOL_TCP, TCP_MAXSEG, &m, sizeof(m));
		what = "-M";
	}
	if (!rc && (t->nodelay || t->mode != SP_BULK)) {
		rc = skops_setsockopt(st, sd, SOL_TCP, TCP_NODELAY, &one, sizeof(one));
		what = "TCP_NODELAY";
	}
	if (rc)
		snprintf(t->err, sizeof(t->err), "%s: setsockopt: %s", what, strerror(-rc));
	return rc;
}

void sp_test_init(struct sp_test *t, struct sp_app *a, bool server)
{
	memset(t, 0, sizeof(*t));
	t->app = a;
	t->server = server;
	t->ctrl = -1;
	for (unsigned i = 0; i < SP_CRR_MAX_INFLIGHT; i++)
		t->crr[i].sd = -1;
	t->remote_has_retrans = -1;
}

void sp_test_fini(struct sp_test *t)
{
	struct stack *st = t->app->st;
	for (unsigned i = 0; i < t->ns; i++)
		if (t->s[i].sd >= 0)
			skops_close(st, t->s[i].sd);
	t->ns = 0;
	for (unsigned i = 0; i < t->necho; i++) {
		skops_close(st, t->echo[i]->sd);
		free(t->echo[i]);
	}
	free(t->echo);
	t->echo = NULL;
	t->necho = t->cap_echo = 0;
	for (unsigned i = 0; i < SP_CRR_MAX_INFLIGHT; i++)
		if (t->crr[i].sd >= 0) {
			skops_abort(st, t->crr[i].sd);
			t->crr[i].sd = -1;
		}
	if (t->ctrl >= 0)
		skops_close(st, t->ctrl);
	t->ctrl = -1;
	free(t->rtt_ns);
	t->rtt_ns = NULL;
	free(t->rr_tx);
	t->rr_tx = NULL;
	sp_jw_free(&t->intervals);
}

static void load_sockops(struct sp_app *a)
{
	struct sp_opts *o = &a->o;
	if (!o->nsockops)
		return;
	int rc = bpfvm_registry_create(&a->reg);
	if (!rc)
		rc = cg_tree_create(&hooks_cg_prog_ops, 1, &a->tree);
	if (rc)
		die("sockops runtime: %s", strerror(-rc));
	static char err[10240];
	for (unsigned i = 0; i < o->nsockops; i++)
		if (appport_attach_jit(a->reg, a->tree, o->sockops[i], o->cgroup, CG_F_ALLOW_MULTI,
				       o->strict, !o->no_jit, "skperf", err, sizeof(err)))
			die("--sockops %s", err);
	/* stats: the end report gives each program's run count and time */
	struct hooks_config hc = {.tree = a->tree, .reg = a->reg, .lcore = 0, .stats = true};
	if ((rc = hooks_create(&hc, &a->hooks)))
		die("hooks: %s", strerror(-rc));
}

int main(int argc, char **argv)
{
	static struct sp_app a;
	a.o.pt.dev.prog = "skperf";
	parse_args(&a.o, argc, argv);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);

	char err[512], log[2048];
	struct dev *port;
	if (dev_opts_open(&a.o.pt.dev, &port, log, sizeof(log), err, sizeof(err)))
		die("%s", err);
	if (getenv("SKPERF_VERBOSE"))
		fputs(log, stderr);
	clk_init_real(&a.clk);
	load_sockops(&a);

	struct stack_config sc = {0};
	sc.net = a.o.pt.net;
	sc.net.dev = port;
	sc.net.pool = dev_ethdev_pool(port);
	sc.net.clk = &a.clk;
	sc.net.seed = appport_seed();
	sc.seed = appport_seed();
	sc.cg_tree = a.tree;
	sc.reg = a.reg;
	sc.hooks = a.hooks;
	sc.hz = a.o.pt.tcp_hz;
	sc.default_cgroup = a.o.cgroup;
	sc.max_conns = a.o.max_conns;
	sc.msl_ms = a.o.msl_ms;
	int rc = stack_create(&sc, &a.st);
	if (rc)
		die("stack: %s", strerror(-rc));
	/* the port is up once its first polls ran: tests wait for this line */
	fprintf(stderr, "skperf: port ready\n");

	int status = a.o.server && a.o.plain ? sp_echo_server_run(&a)
		     : a.o.server	     ? sp_server_run(&a)
					     : sp_client_run(&a);

	for (int i = 0; i < 100; i++)
		stack_poll(a.st);
	stack_destroy(a.st);
	if (a.hooks)
		hooks_destroy(a.hooks);
	if (a.tree)
		cg_tree_destroy(a.tree);
	if (a.reg)
		bpfvm_registry_destroy(a.reg);
	dev_destroy(port);
	dev_eal_cleanup();
	return status;
}
