/* portcap: what a port moves with no stack behind it, the cap under the
 * figures of programs on skopsd (issue 28: "where the port caps a figure,
 * show the cap"). The port is opened as every tool opens it (dev_opts_open:
 * the same rings, pool and offloads as skopsd's).
 *   portcap --vdev DEVARGS [--eal ARGS] reflect SECS
 *       every frame received goes back out at once (one core receiving and
 *       sending, as skopsd's poll loop does); SIGINT or SIGTERM ends it
 *       early
 *   portcap --vdev DEVARGS [--eal ARGS] gen SECS [SIZE]
 *       SIZE-byte frames (default 60, the Ethernet minimum without FCS) as
 *       fast as the port takes them; what comes back is counted
 * Frames carry the local experimental EtherType 0x88B5 to a locally
 * administered unicast address, so a kernel stack on the same veth drops
 * them at once. Prints one JSON object: mode, secs (a reflector's: from
 * the first such frame to the last), tx_frames, rx_frames (such frames
 * only), tx_per_s, rx_per_s. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "clk.h"
#include "dev/dev.h"

#define BURST 32

/* SIGINT/SIGTERM end the run early, the figures still printed: the bench
 * stops a reflector once its generator is done */
static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: portcap --vdev DEVARGS [--eal ARGS] reflect SECS\n"
			"       portcap --vdev DEVARGS [--eal ARGS] gen SECS [SIZE]\n");
	exit(2);
}

/* the generator's frames, not what the kernel sends on the veth (IPv6
 * neighbour discovery, ...) */
static bool is_ours(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	return rte_pktmbuf_data_len(m) >= 14 && p[12] == 0x88 && p[13] == 0xb5;
}

/* A burst of generated frames; false when the pool is empty. */
static bool fill(struct rte_mempool *pool, struct rte_mbuf **m, unsigned n, uint16_t size)
{
	static const uint8_t hdr[14] = {0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x88, 0xb5};
	if (rte_pktmbuf_alloc_bulk(pool, m, n))
		return false;
	for (unsigned i = 0; i < n; i++) {
		uint8_t *p = (uint8_t *)rte_pktmbuf_append(m[i], size);
		memset(p, 0, size);
		memcpy(p, hdr, sizeof(hdr));
	}
	return true;
}

int main(int argc, char **argv)
{
	struct dev_opts o = {.prog = "portcap"};
	static const struct option lo[] = {{"vdev", required_argument, NULL, 'v'},
					   {"eal", required_argument, NULL, 'e'},
					   {NULL, 0, NULL, 0}};
	int c;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'v' && o.nvdev < DEV_OPTS_MAX_VDEV)
			o.vdevs[o.nvdev++] = optarg;
		else if (c == 'e')
			o.eal = optarg;
		else
			usage();
	}
	if (argc - optind < 2 || !o.nvdev)
		usage();
	const char *mode = argv[optind];
	bool gen = !strcmp(mode, "gen");
	if (!gen && strcmp(mode, "reflect"))
		usage();
	double secs = atof(argv[optind + 1]);
	long size = argc - optind > 2 ? atol(argv[optind + 2]) : 60;
	if (secs <= 0 || secs > 600 || size < 14 || size > 1514) {
		fprintf(stderr, "portcap: SECS in (0, 600], SIZE in [14, 1514]\n");
		return 2;
	}
	char log[512] = "", err[256] = "";
	struct dev *d;
	if (dev_opts_open(&o, &d, log, sizeof(log), err, sizeof(err))) {
		fprintf(stderr, "portcap: %s\n", err);
		return 1;
	}
	fprintf(stderr, "portcap: port ready\n");
	struct rte_mempool *pool = dev_ethdev_pool(d);
	struct rte_mbuf *m[BURST];
	struct clk clk;
	clk_init_real(&clk);
	uint64_t tx = 0, rx = 0, t0 = clk_now(&clk), end = t0 + (uint64_t)(secs * 1e9), t = t0;
	/* a reflector's rate is over the time frames came (first to last):
	 * it starts before the generator and stops after it */
	uint64_t first = 0, last = 0;
	/* bounded by time: the clock is read on every pass */
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	while (!stop && (t = clk_now(&clk)) < end) {
		uint16_t k = dev_rx_burst(d, m, BURST);
		uint16_t ours = 0;
		for (uint16_t i = 0; i < k; i++)
			ours += is_ours(m[i]);
		if (ours && !gen) {
			first = first ? first : t;
			last = t;
		}
		rx += ours;
		if (!gen) {
			uint16_t s = k ? dev_tx_burst(d, m, k) : 0;
			tx += s;
			rte_pktmbuf_free_bulk(m + s, k - s);
			continue;
		}
		rte_pktmbuf_free_bulk(m, k);
		if (!fill(pool, m, BURST, (uint16_t)size))
			continue;
		uint16_t s = dev_tx_burst(d, m, BURST);
		tx += s;
		rte_pktmbuf_free_bulk(m + s, BURST - s);
	}
	double el = (double)(gen || last <= first ? t - t0 : last - first) / 1e9;
	printf("{\"mode\": \"%s\", \"secs\": %.3f, \"tx_frames\": %llu, \"rx_frames\": %llu, "
	       "\"tx_per_s\": %.0f, \"rx_per_s\": %.0f}\n",
	       mode, el, (unsigned long long)tx, (unsigned long long)rx, (double)tx / el,
	       (double)rx / el);
	dev_destroy(d);
	dev_eal_cleanup();
	return 0;
}
