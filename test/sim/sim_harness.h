/* The deterministic simulation: two stacks in one process over net's
 * dev_wire, each end wrapped by a seeded dev_fault and a dev_pcap (kept when
 * a run fails), a manual clock advanced to the next deadline whenever both
 * stacks are idle. Everything reproduces from the seed it prints. */
#ifndef SKOPS_TEST_SIM_HARNESS_H
#define SKOPS_TEST_SIM_HARNESS_H

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "clk.h"
#include "dev/dev.h"
#include "net/net.h"
#include "skops.h"

struct sim {
	uint64_t now;
	struct clk clk;
	struct rte_mempool *pool;
	struct dev *wa, *wb, *fa, *fb, *pa, *pb;
	struct stack *a, *b;
	uint32_t a4, b4;
	char pcap[256];
};

/* Failures of this test program: sim_fail reports one under the program's
 * name (sim_eal_init's) and the test it belongs to, counts it and goes on. */
struct sim_report {
	const char *name;
	int fails;
};
static inline struct sim_report *sim_report(void)
{
	static struct sim_report r;
	return &r;
}

static inline void sim_fail(const char *test, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void sim_fail(const char *test, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: %s: FAIL: ", sim_report()->name, test);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	sim_report()->fails++;
}

/* Reads what socket sd of st holds, up to 64 reads, counting the bytes. */
static inline void sim_drain(struct stack *st, int sd, uint64_t *rcvd)
{
	static uint8_t buf[65536];
	for (int i = 0; i < 64; i++) {
		ssize_t r = skops_recv(st, sd, buf, sizeof(buf), 0);
		if (r <= 0)
			break;
		*rcvd += (uint64_t)r;
	}
}

static inline void sim_eal_init(const char *name)
{
	sim_report()->name = name;
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "--file-prefix=skops-%s-%d", name, (int)getpid());
	char *argv[] = {(char *)name, "--no-huge",	   "--no-pci",	     "-m", "256",
			prefix,	      "--log-level=error", "--no-telemetry", NULL};
	char err[256] = "";
	if (dev_eal_init(8, argv, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: EAL init failed: %s\n", name, err);
		exit(EXIT_FAILURE);
	}
}

static inline void sim_net_cfg(struct sim *s, struct net_config *c, struct dev *d, uint32_t v4)
{
	memset(c, 0, sizeof(*c));
	c->dev = d;
	c->pool = s->pool;
	c->clk = &s->clk;
	c->addrs[0].family = AF_INET;
	c->addrs[0].prefix_len = 24;
	c->addrs[0].addr.v4 = v4;
	c->naddrs = 1;
}

/* fault may be NULL (a clean wire). max_conns sizes both stacks. hooks
 * (with its cg_tree) runs sock_ops on both stacks; NULL: none. cc names both
 * stacks' default congestion control (NULL: the stack's own default). tweak
 * (may be NULL) adjusts each stack's config before it is created. */
static inline int sim_create_tweak(struct sim *s, const char *tag, uint64_t seed,
				   const struct dev_fault_config *fault, uint32_t max_conns,
				   uint32_t bufsz, bool pcap, struct cg_tree *tree,
				   struct hooks *hooks, const char *cc,
				   void (*tweak)(struct stack_config *))
{
	memset(s, 0, sizeof(*s));
	s->now = 1000000000ull;
	clk_init_manual(&s->clk, &s->now);
	char name[RTE_MEMPOOL_NAMESIZE];
	static unsigned seq;
	snprintf(name, sizeof(name), "sim%u", seq++);
	s->pool =
	    rte_pktmbuf_pool_create(name, 32767, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (!s->pool)
		return -ENOMEM;
	struct dev_wire_config wc = {.mtu = 1500, .delay_ns = 1000000, .queue_len = 8192};
	int rc = dev_wire_pair_create_cfg(&wc, &s->clk, &s->wa, &s->wb);
	if (rc < 0)
		return rc;
	struct dev *da = s->wa, *db = s->wb;
	if (fault) {
		struct dev_fault_config f = *fault;
		f.seed = seed * 2 + 1;
		if ((rc = dev_fault_create(da, &f, &s->clk, &s->fa)) < 0)
			return rc;
		f.seed = seed * 2 + 2;
		if ((rc = dev_fault_create(db, &f, &s->clk, &s->fb)) < 0)
			return rc;
		da = s->fa;
		db = s->fb;
	}
	if (pcap) {
		snprintf(s->pcap, sizeof(s->pcap), "/tmp/skops-sim-%s-%llu-%d.pcap", tag,
			 (unsigned long long)seed, (int)getpid());
		if ((rc = dev_pcap_create(da, s->pcap, &s->clk, &s->pa)) < 0)
			return rc;
		da = s->pa;
	}
	s->a4 = inet_addr("198.18.0.1");
	s->b4 = inet_addr("198.18.0.2");
	struct stack_config ca, cb;
	memset(&ca, 0, sizeof(ca));
	sim_net_cfg(s, &ca.net, da, s->a4);
	ca.net.seed = seed;
	ca.seed = seed ^ 0xa;
	ca.keys_from_seed = true; /* a seed replays a run whole */
	ca.max_conns = max_conns;
	ca.syn_linear_timeouts = 4;
	ca.wmem_default = bufsz;
	ca.rmem_default = bufsz;
	ca.cg_tree = tree;
	ca.hooks = hooks;
	ca.cc = cc;
	cb = ca;
	sim_net_cfg(s, &cb.net, db, s->b4);
	cb.net.seed = seed + 1;
	cb.seed = seed ^ 0xb;
	if (tweak) {
		tweak(&ca);
		tweak(&cb);
	}
	if ((rc = stack_create(&ca, &s->a)) < 0)
		return rc;
	if ((rc = stack_create(&cb, &s->b)) < 0)
		return rc;
	return 0;
}

static inline int sim_create_cc(struct sim *s, const char *tag, uint64_t seed,
				const struct dev_fault_config *fault, uint32_t max_conns,
				uint32_t bufsz, bool pcap, struct cg_tree *tree,
				struct hooks *hooks, const char *cc)
{
	return sim_create_tweak(s, tag, seed, fault, max_conns, bufsz, pcap, tree, hooks, cc, NULL);
}

static inline int sim_create_hooks(struct sim *s, const char *tag, uint64_t seed,
				   const struct dev_fault_config *fault, uint32_t max_conns,
				   uint32_t bufsz, bool pcap, struct cg_tree *tree,
				   struct hooks *hooks)
{
	return sim_create_cc(s, tag, seed, fault, max_conns, bufsz, pcap, tree, hooks, NULL);
}

static inline int sim_create(struct sim *s, const char *tag, uint64_t seed,
			     const struct dev_fault_config *fault, uint32_t max_conns,
			     uint32_t bufsz, bool pcap)
{
	return sim_create_hooks(s, tag, seed, fault, max_conns, bufsz, pcap, NULL, NULL);
}

/* Ends both stacks and the wire; the capture is complete on disk after this
 * (a test may read it before sim_destroy). Safe to call twice. */
static inline void sim_close(struct sim *s)
{
	stack_destroy(s->a);
	stack_destroy(s->b);
	dev_destroy(s->pa);
	dev_destroy(s->fa);
	dev_destroy(s->fb);
	dev_destroy(s->wa);
	dev_destroy(s->wb);
	s->a = s->b = NULL;
	s->pa = s->pb = s->fa = s->fb = s->wa = s->wb = NULL;
	if (s->pool)
		rte_mempool_free(s->pool);
	s->pool = NULL;
}

/* Keeps the pcap when keep_pcap (a failure), else removes it. */
static inline void sim_destroy(struct sim *s, bool keep_pcap)
{
	sim_close(s);
	if (s->pcap[0]) {
		if (keep_pcap)
			fprintf(stderr, "sim: capture kept in %s\n", s->pcap);
		else
			unlink(s->pcap);
	}
}

/* One step: poll both; when neither did anything, jump the clock to the
 * next deadline (at least 1 µs ahead). Returns false when nothing is left
 * to happen at all. */
static inline bool sim_step(struct sim *s)
{
	int w = stack_poll(s->a) + stack_poll(s->b);
	if (w > 0)
		return true;
	uint64_t d = stack_next_deadline_ns(s->a);
	uint64_t e = stack_next_deadline_ns(s->b);
	if (e < d)
		d = e;
	struct dev *devs[] = {s->fa, s->fb, s->wa, s->wb};
	for (int i = 0; i < 4; i++)
		if (devs[i]) {
			uint64_t v = dev_next_deadline_ns(devs[i]);
			if (v < d)
				d = v;
		}
	if (d == UINT64_MAX)
		return false;
	s->now = d > s->now ? d : s->now + 1000;
	return true;
}

static inline struct sockaddr_in sim_sin(uint32_t a, uint16_t port)
{
	struct sockaddr_in sin;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = a;
	sin.sin_port = htons(port);
	return sin;
}

/* One IPv4 connection from stack a to a listener on b's port: *ls the
 * listener, *a and *b the two ends. 0, or -1 with why in *what when the
 * connect fails or no connection is accepted within 100,000 steps. */
static inline int sim_connect(struct sim *s, uint16_t port, int *ls, int *a, int *b,
			      const char **what)
{
	*b = -1;
	*ls = skops_socket(s->b, AF_INET, SOCK_STREAM);
	struct sockaddr_in sb = sim_sin(0, port);
	skops_bind(s->b, *ls, (struct sockaddr *)&sb, sizeof(sb));
	skops_listen(s->b, *ls, 4);
	*a = skops_socket(s->a, AF_INET, SOCK_STREAM);
	struct sockaddr_in to = sim_sin(s->b4, port);
	if (skops_connect(s->a, *a, (struct sockaddr *)&to, sizeof(to)) != -EINPROGRESS) {
		*what = "connect";
		return -1;
	}
	for (int i = 0; i < 100000 && *b < 0; i++) {
		int c = skops_accept(s->b, *ls, NULL, NULL);
		if (c >= 0)
			*b = c;
		else if (!sim_step(s))
			break;
	}
	if (*b < 0) {
		*what = "no connection";
		return -1;
	}
	return 0;
}

#endif
