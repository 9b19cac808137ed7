/* skopsd: owns the port(s), runs the stack and serves applications (the
 * LD_PRELOAD shim) on a unix socket.
 *   skopsd [--config FILE] [--vdev DEVARGS]... [--addr CIDR]... [--gw ADDR]
 *          [--mtu N] [--eal "ARGS"] [--tcp-hz N] [--sock PATH]
 *          [--attach CGROUP=FILE.o[:multi|:override][:strict]]...
 *          [--group NAME] [--loopback-listen yes|no] [--uid-sockets N]
 *          [--uid-clients N] [--uid-tickets N] [--buf-mem MB]
 *          [--run-budget UNITS] [--poll-usec N] [-v]
 * The port options are every tool's (apps/lib/portopt.c); the config file takes
 * every long option as "key = value" (configs/skopsd.conf). Foreground, logs
 * to stderr; SIGTERM/SIGINT drain (stop accepting, FIN, bounded wait) and
 * exit 0; SIGUSR1 logs one "stats" line of what it holds. docs/skopsd.md. */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "appport.h"
#include "portopt.h"
#include "bpfvm.h"
#include "cgroup.h"
#include "clk.h"
#include "hooks.h"
#include "skops.h"
#include "skopsd.h"

#define SKOPSD_MAX_ATTACH 16
/* --poll-usec's default: the loop polls this long after its last work,
 * then sleeps (an idle daemon holds no core) */
#define SKOPSD_POLL_USEC 2000
#define SKOPSD_SLEEP_MS	 1 /* the sleep's bound: af_packet has no rx interrupt */
/* while polling, the control sockets and kicks are read this often: an
 * epoll_wait is a system call (about 1 us on a VM), a round of the rings
 * is not, and a request waits for it */
#define SKOPSD_EPOLL_NS	  20000
#define SKOPSD_DRAIN_NS	  (2ull * 1000000000ull) /* SIGTERM: FINs get this long */
#define SKOPSD_SHORT_BUSY 2			 /* passes with work that end in a yield (run) */

struct attach {
	char cg[256], obj[256];
	uint32_t flags;
	bool strict;
};

struct opts {
	struct appport port;
	const char *sock_path, *group;
	struct attach att[SKOPSD_MAX_ATTACH];
	unsigned natt;
	bool verbose, loopback_listen;
	struct quota uid_max; /* 0: the default */
	unsigned buf_mem_mb;  /* 0: buf_mem_kb() */
	uint64_t run_budget;  /* 0: bpfvm's default */
	long poll_usec;	      /* -1: SKOPSD_POLL_USEC */
	char sock_buf[256], group_buf[64];
};

static volatile sig_atomic_t quit, stats_asked;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		stats_asked = 1;
	else
		quit = 1;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("skopsd: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* "CGROUP=FILE.o[:multi|:override][:strict]" */
static int parse_attach(struct attach *a, const char *v, char *err, size_t elen)
{
	const char *eq = strchr(v, '=');
	if (!eq || eq == v || (size_t)(eq - v) >= sizeof(a->cg)) {
		snprintf(err, elen, "'%s': want CGROUP=FILE.o[:multi|:override][:strict]", v);
		return -EINVAL;
	}
	snprintf(a->cg, sizeof(a->cg), "%.*s", (int)(eq - v), v);
	snprintf(a->obj, sizeof(a->obj), "%s", eq + 1);
	char *c;
	while ((c = strrchr(a->obj, ':'))) {
		if (!strcmp(c, ":multi"))
			a->flags |= CG_F_ALLOW_MULTI;
		else if (!strcmp(c, ":override"))
			a->flags |= CG_F_ALLOW_OVERRIDE;
		else if (!strcmp(c, ":strict"))
			a->strict = true;
		else {
			snprintf(err, elen, "'%s': unknown flag '%s' (multi, override, strict)", v,
				 c + 1);
			return -EINVAL;
		}
		*c = 0;
	}
	if ((a->flags & CG_F_ALLOW_MULTI) && (a->flags & CG_F_ALLOW_OVERRIDE)) {
		snprintf(err, elen, "'%s': multi and override exclude each other", v);
		return -EINVAL;
	}
	return 0;
}

/* skopsd's own keys (the port's are portopt's) */
static int opt_set(void *arg, const char *key, const char *val, char *err, size_t elen)
{
	struct opts *o = arg;
	if (!strcmp(key, "sock")) {
		snprintf(o->sock_buf, sizeof(o->sock_buf), "%s", val);
		o->sock_path = o->sock_buf;
	} else if (!strcmp(key, "group")) {
		snprintf(o->group_buf, sizeof(o->group_buf), "%s", val);
		o->group = o->group_buf;
	} else if (!strcmp(key, "attach")) {
		if (o->natt == SKOPSD_MAX_ATTACH) {
			snprintf(err, elen, "at most %d attachments", SKOPSD_MAX_ATTACH);
			return -E2BIG;
		}
		return parse_attach(&o->att[o->natt++], val, err, elen);
	} else if (!strcmp(key, "uid-sockets") || !strcmp(key, "uid-clients") ||
		   !strcmp(key, "uid-tickets")) {
		char *end;
		unsigned long v = strtoul(val, &end, 10);
		int k = key[4] == 's' ? Q_SOCKS : key[4] == 'c' ? Q_CLIENTS : Q_TICKETS;
		if (!*val || *end || v == 0 || v > 1000000) {
			snprintf(err, elen, "%s '%s': a count from 1", key, val);
			return -EINVAL;
		}
		o->uid_max.n[k] = (unsigned)v;
	} else if (!strcmp(key, "buf-mem")) {
		char *end;
		unsigned long v = strtoul(val, &end, 10);
		if (!*val || *end || v == 0 || v > 1000000) {
			snprintf(err, elen, "buf-mem '%s': MiB, from 1", val);
			return -EINVAL;
		}
		o->buf_mem_mb = (unsigned)v;
	} else if (!strcmp(key, "loopback-listen")) {
		bool yes = !strcmp(val, "yes"), no = !strcmp(val, "no");
		if (!yes && !no) {
			snprintf(err, elen, "loopback-listen '%s': yes or no", val);
			return -EINVAL;
		}
		o->loopback_listen = yes;
	} else if (!strcmp(key, "run-budget")) {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(val, &end, 0);
		if (errno || end == val || *end || n == 0 || val[0] == '-') {
			snprintf(err, elen, "run-budget '%s': a positive number of units", val);
			return -EINVAL;
		}
		o->run_budget = n;
	} else if (!strcmp(key, "poll-usec")) {
		char *end;
		long v = strtol(val, &end, 10);
		if (!*val || *end || v < 0 || v > 10000000) {
			snprintf(err, elen, "poll-usec '%s': microseconds, 0 to 10000000", val);
			return -EINVAL;
		}
		o->poll_usec = v;
	} else {
		snprintf(err, elen, "unknown key '%s'", key);
		return -EINVAL;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: skopsd [--config FILE] [--vdev DEVARGS]... [--addr CIDR]... [--gw ADDR]\n"
		"  [--mtu N] [--eal \"ARGS\"] [--tcp-hz 100|250|300|1000] [--sock PATH]\n"
		"  [--attach CGROUP=FILE.o[:multi|:override][:strict]]... [--group NAME]\n"
		"  [--loopback-listen yes|no] [--uid-sockets N] [--uid-clients N]\n"
		"  [--uid-tickets N] [--buf-mem MB] [--run-budget UNITS] [--poll-usec N] [-v]\n");
	exit(2);
}

static void parse_args(struct opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
	    PORTOPT_OPTIONS,
	    {"sock", required_argument, NULL, PORTOPT_TOOL(0)},
	    {"attach", required_argument, NULL, PORTOPT_TOOL(1)},
	    {"group", required_argument, NULL, PORTOPT_TOOL(2)},
	    {"loopback-listen", required_argument, NULL, PORTOPT_TOOL(3)},
	    {"uid-sockets", required_argument, NULL, PORTOPT_TOOL(4)},
	    {"uid-clients", required_argument, NULL, PORTOPT_TOOL(5)},
	    {"uid-tickets", required_argument, NULL, PORTOPT_TOOL(6)},
	    {"buf-mem", required_argument, NULL, PORTOPT_TOOL(7)},
	    {"run-budget", required_argument, NULL, PORTOPT_TOOL(8)},
	    {"poll-usec", required_argument, NULL, PORTOPT_TOOL(9)},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct portopt po = {.port = &o->port, .set = opt_set, .tool = o};
	char err[1024];
	int c, li = -1;
	while ((c = getopt_long(argc, argv, "vh", lo, &li)) != -1) {
		int rc = portopt_take(&po, lo, c, li, optarg, err, sizeof(err));
		if (rc < 0)
			die("%s", err);
		if (rc == 0)
			continue;
		if (c == 'v')
			o->verbose = true;
		else
			usage();
	}
	if (optind != argc)
		usage();
	if (portopt_need_addr(&o->port))
		die("%s", portopt_need_addr(&o->port));
	if (!o->port.dev.nvdev && !o->port.dev.port && !o->port.dev.eal)
		die("no port: give --vdev DEVARGS, or --eal/--config naming a device");
	if (!o->sock_path)
		o->sock_path = SKP_SOCK_DEFAULT;
}

/* One number of a /proc/sys file (the idx-th), or dflt */
static uint32_t sysctl_u32(const char *path, int idx, uint32_t dflt)
{
	FILE *f = fopen(path, "re");
	unsigned long v = dflt;
	for (int i = 0; f && i <= idx; i++)
		if (fscanf(f, "%lu", &v) != 1) {
			v = dflt;
			break;
		}
	if (f)
		fclose(f);
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* The buffer limits of the machine's kernel (net.core.rmem_max/wmem_max,
 * tcp_rmem[2]/tcp_wmem[2]); Linux's defaults where they cannot be read. */
static void mem_limits(struct stack_config *sc)
{
	sc->rmem_max = sysctl_u32("/proc/sys/net/core/rmem_max", 0, 212992);
	sc->wmem_max = sysctl_u32("/proc/sys/net/core/wmem_max", 0, 212992);
	sc->tcp_rmem_max = sysctl_u32("/proc/sys/net/ipv4/tcp_rmem", 2, 6291456);
	sc->tcp_wmem_max = sysctl_u32("/proc/sys/net/ipv4/tcp_wmem", 2, 4194304);
}

/* The socket buffers' total: net.ipv4.tcp_mem's high mark (pages) where
 * it can be read (not in a child network namespace), else what Linux's
 * tcp_init_mem makes of the memory: 3/32 of it. */
static unsigned buf_mem_kb(void)
{
	uint64_t pages = sysctl_u32("/proc/sys/net/ipv4/tcp_mem", 2, 0), kb = pages * 4;
	FILE *f = fopen("/proc/meminfo", "re");
	unsigned long total = 0;
	if (!kb && f && fscanf(f, "MemTotal: %lu kB", &total) == 1)
		kb = (uint64_t)total * 3 / 32;
	if (f)
		fclose(f);
	if (!kb)
		kb = 256u * 1024u;
	return kb > UINT32_MAX / 2 ? UINT32_MAX / 2 : (unsigned)kb;
}

/* Sockets still holding a connection (for the drain). */
static unsigned live_socks(struct skopsd *d)
{
	unsigned n = 0;
	for (unsigned i = 1; i < SKOPSD_MAX_SOCKS; i++)
		n += d->socks[i] && d->socks[i]->sd >= 0 && !d->socks[i]->listening;
	return n;
}

/* SIGTERM: no new clients or connections, a FIN on every connection. */
static void drain_start(struct skopsd *d)
{
	d->draining = true;
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, d->lfd, NULL);
	close(d->lfd);
	unlink(d->sock_path);
	for (unsigned i = 1; i < SKOPSD_MAX_SOCKS; i++) {
		struct dsock *s = d->socks[i];
		if (!s)
			continue;
		if (s->listening || s->sd < 0 || s->dgram)
			dsock_abort(d, i);
		else if (!s->closing)
			s->shut_wr_pending = true;
	}
	fprintf(stderr, "skopsd: draining %u connection(s)\n", live_socks(d));
}

/* -v: the programs' bpf_trace_printk lines, as "skopsd: trace: LINE" */
static void drain_trace(struct skopsd *d)
{
	char buf[4096];
	size_t n;
	while (d->verbose && (n = hooks_trace_read(d->hooks, buf, sizeof(buf) - 1))) {
		buf[n] = 0;
		for (char *line = buf, *nl; *line; line = nl + 1) {
			nl = strchr(line, '\n');
			if (!nl)
				nl = line + strlen(line) - 1;
			fprintf(stderr, "skopsd: trace: %.*s\n", (int)(nl - line + (*nl != '\n')),
				line);
		}
	}
}

static void run(struct skopsd *d)
{
	uint64_t drain_end = 0, last_trim = 0, last_work = stack_now_ns(d->st), last_epoll = 0;
	unsigned stats_seq = 0;
	unsigned busy = 0; /* passes with work in a row, up to the one before */
	for (;;) {
		if (quit && !d->draining) {
			drain_start(d);
			drain_end = stack_now_ns(d->st) + SKOPSD_DRAIN_NS;
		}
		int work = stack_poll(d->st);
		req_expire_tickets(d);
		if (stats_asked) {
			stats_asked = 0;
			stats_dump(d, ++stats_seq);
		}
		drain_trace(d);
		for (unsigned i = 1; i < d->socks_hi; i++)
			if (d->socks[i])
				work += dsock_pump(d, i);
		char note[320];
		if (net_csum_notice(stack_net(d->st), note, sizeof(note)))
			fprintf(stderr, "skopsd: %s\n", note);
		/* the heap's freed buffers go back to the system, at most once
		 * a second, so RSS returns after closes */
		if (d->freed && stack_now_ns(d->st) - last_trim > 1000000000ull) {
			malloc_trim(0);
			d->freed = 0;
			last_trim = stack_now_ns(d->st);
		}
		if (d->draining) {
			bool done = true;
			for (unsigned i = 1; i < SKOPSD_MAX_SOCKS; i++) {
				struct dsock *s = d->socks[i];
				if (s && s->sd >= 0 && !s->listening &&
				    !(skops_events(d->st, s->sd) & SKOPS_EV_HUP))
					done = false;
			}
			if (done || stack_now_ns(d->st) > drain_end)
				return;
		}
		uint64_t now = stack_now_ns(d->st);
		if (work) {
			last_work = now;
			idle_sleep_end(d);
		} else if (busy && busy <= SKOPSD_SHORT_BUSY) {
			/* the first pass without work after a short run with
			 * it (a request, a reply): what our sends woke on this
			 * core (a kernel peer, a program under the shim) runs
			 * now, not when the scheduler lets it preempt us or at
			 * the next yield below (docs/bench.md "Shim RR"); not
			 * after a long run (bulk), where the core would go to
			 * a program that keeps it for its whole slice */
			sched_yield();
		}
		busy = work ? (busy > SKOPSD_SHORT_BUSY ? busy : busy + 1) : 0;
		bool idle = now - last_work >= d->poll_ns;
		if (!idle && now - last_epoll < SKOPSD_EPOLL_NS)
			continue;
		last_epoll = now;
		/* polling without work, an app sharing our core runs now, not
		 * at the scheduler's tick: its work is what we wait for */
		if (!idle && now - last_work >= SKOPSD_EPOLL_NS)
			sched_yield();
		if (idle && !d->sleeping) {
			/* one more round after the fence finds what an app
			 * queued before it could see dsleep */
			idle_sleep_begin(d);
			continue;
		}
		struct epoll_event evs[64];
		int n = epoll_wait(d->epfd, evs, 64, idle ? SKOPSD_SLEEP_MS : 0);
		for (int i = 0; i < n; i++) {
			uint32_t u = evs[i].data.u32;
			if (u == UINT32_MAX) {
				srv_accept(d);
			} else if (u & 0x80000000u) {
				/* a kick (edge-triggered: nothing to read) */
				last_work = now;
			} else if (u & SKOPSD_TAG_KLOOP) {
				/* a kernel loopback listener has a connection */
				struct dsock *s = d->socks[u & ~SKOPSD_TAG_KLOOP];
				if (s)
					s->kpend = true;
				last_work = now;
			} else if (d->clients[u]) {
				srv_client(d, u);
				last_work = now;
			}
		}
	}
}

int main(int argc, char **argv)
{
	static struct opts o;
	static struct skopsd d;
	o.port.dev.prog = "skopsd";
	o.poll_usec = -1;
	parse_args(&o, argc, argv);
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a stats request interrupts nothing */
	struct sigaction su = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
	sigaction(SIGUSR1, &su, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* two fds per application socket (memfd, eventfd): the hard limit */
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}

	char err[10240], log[2048];
	d.sock_path = o.sock_path;
	d.verbose = o.verbose;
	d.loopback_listen = o.loopback_listen;
	d.sock_gid = (gid_t)-1;
	if (o.group) {
		struct group *g = getgrnam(o.group);
		if (!g)
			die("--group %s: no such group", o.group);
		d.sock_gid = g->gr_gid;
	}
	d.uid_max = o.uid_max;
	d.poll_ns = (uint64_t)(o.poll_usec < 0 ? SKOPSD_POLL_USEC : o.poll_usec) * 1000u;
	d.buf_limit_kb = o.buf_mem_mb ? o.buf_mem_mb * 1024u : buf_mem_kb();
	quota_defaults(&d);
	d.port_min = peer_port_min();
	/* the socket path first: a second daemon must fail before touching the port */
	if (srv_listen(&d, err, sizeof(err)))
		die("%s", err);
	struct dev *port;
	if (dev_opts_open(&o.port.dev, &port, log, sizeof(log), err, sizeof(err))) {
		unlink(o.sock_path);
		die("%s", err);
	}
	if (o.verbose)
		fputs(log, stderr);
	/* after the EAL's own threads: the watchdog bounds calls on the apps' files */
	int grc = guard_init();
	if (grc)
		die("guard: %s", strerror(-grc));
	struct clk clk;
	clk_init_real(&clk);
	struct bpfvm_registry *reg;
	struct cg_tree *tree;
	struct hooks *hooks;
	int rc = bpfvm_registry_create(&reg);
	if (!rc)
		rc = cg_tree_create(&hooks_cg_prog_ops, 1, &tree);
	if (rc)
		die("sockops runtime: %s", strerror(-rc));
	/* every program loaded from here on gets it (docs/skopsd.md) */
	bpfvm_registry_set_run_budget(reg, o.run_budget);
	for (unsigned i = 0; i < o.natt; i++) {
		if (appport_attach(reg, tree, o.att[i].obj, o.att[i].cg, o.att[i].flags,
				   o.att[i].strict, "skopsd", err, sizeof(err))) {
			unlink(o.sock_path);
			die("--attach %s", err);
		}
		fprintf(stderr, "skopsd: %s attached to %s\n", o.att[i].obj, o.att[i].cg);
	}
	struct hooks_config hc = {.tree = tree, .reg = reg, .lcore = 0};
	if ((rc = hooks_create(&hc, &hooks)))
		die("hooks: %s", strerror(-rc));
	d.hooks = hooks;
	struct stack_config sc = {0};
	sc.net = o.port.net;
	sc.net.dev = port;
	sc.net.pool = dev_ethdev_pool(port);
	d.pool = sc.net.pool;
	sc.net.clk = &clk;
	sc.net.seed = appport_seed();
	sc.cg_tree = tree;
	sc.reg = reg;
	sc.hooks = hooks;
	sc.hz = o.port.tcp_hz;
	sc.seed = appport_seed();
	mem_limits(&sc);
	d.rmem_max = sc.rmem_max;
	d.wmem_max = sc.wmem_max;
	sc.max_conns = SKOPSD_MAX_CONNS;
	if ((rc = stack_create(&sc, &d.st))) {
		unlink(o.sock_path);
		die("stack: %s", strerror(-rc));
	}
	d.epfd = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = UINT32_MAX};
	if (d.epfd < 0 || epoll_ctl(d.epfd, EPOLL_CTL_ADD, d.lfd, &ev))
		die("epoll: %s", strerror(errno));
	fprintf(stderr, "skopsd: serving on %s\n", o.sock_path);
	run(&d);
	for (unsigned i = 0; i < SKOPSD_MAX_CLIENTS; i++)
		if (d.clients[i])
			srv_drop_client(&d, i, true);
	for (int i = 0; i < 100; i++)
		stack_poll(d.st);
	stack_destroy(d.st);
	hooks_destroy(hooks);
	cg_tree_destroy(tree);
	bpfvm_registry_destroy(reg);
	dev_destroy(port);
	dev_eal_cleanup();
	fprintf(stderr, "skopsd: stopped\n");
	return 0;
}
