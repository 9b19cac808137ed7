/* net_responder: the network layer alone on a DPDK port, for the interop
 * tests that need no TCP: answers ARP, ICMP echo, NDP and ICMPv6 echo,
 * sends port unreachable, and echoes UDP datagrams on --udp-echo PORT; with
 * --udp-burst SIZES (comma-separated) a datagram "go" there is answered with
 * one datagram of each size instead, byte k of a size-n one (k * 7 + n) %
 * 256, so skops originates what the kernel checks. Runs
 * for --seconds (default 30) or until SIGINT/SIGTERM, then prints the net
 * counters as one JSON object on stdout.
 * Usage: net_responder --vdev DEVARGS --addr CIDR... [--gw ADDR] [--mtu N]
 *        [--eal "ARGS"] [--config FILE] [--udp-echo PORT] [--udp-burst SIZES]
 *        [--seconds N]
 *        [--pcap FILE] */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_mbuf.h>

#include "clk.h"
#include "dev/dev.h"
#include "net/net.h"

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

struct resp {
	struct dev_opts dev;
	struct net_config net;
	unsigned udp_port;
	double seconds;
	const char *pcap;
	char strs[16][256]; /* storage for values read from a config file */
	unsigned nstr;
	struct net *n;
	struct net_udp_sock *us[2]; /* IPv4, IPv6 */
	uint64_t echoed;
	uint32_t burst[16];
	unsigned nburst;
	uint64_t burst_sent;
};

static int resp_opt(struct resp *r, const char *key, const char *val, char *err, size_t elen)
{
	if (r->nstr == 16) {
		snprintf(err, elen, "too many values");
		return -E2BIG;
	}
	char *v = r->strs[r->nstr++];
	snprintf(v, 256, "%s", val);
	if (!strcmp(key, "vdev")) {
		if (r->dev.nvdev == DEV_OPTS_MAX_VDEV)
			return -E2BIG;
		r->dev.vdevs[r->dev.nvdev++] = v;
	} else if (!strcmp(key, "addr")) {
		if (r->net.naddrs == NET_MAX_ADDRS ||
		    net_addr_parse(v, &r->net.addrs[r->net.naddrs])) {
			snprintf(err, elen, "bad address '%s'", v);
			return -EINVAL;
		}
		r->net.naddrs++;
	} else if (!strcmp(key, "gw")) {
		uint8_t fam, a[16];
		if (net_ip_parse(v, &fam, a)) {
			snprintf(err, elen, "bad gateway '%s'", v);
			return -EINVAL;
		}
		if (fam == 2)
			memcpy(&r->net.gw4, a, 4);
		else
			memcpy(r->net.gw6, a, 16);
	} else if (!strcmp(key, "mtu")) {
		r->net.mtu = (uint32_t)strtoul(v, NULL, 10);
	} else if (!strcmp(key, "eal")) {
		r->dev.eal = v;
	} else if (!strcmp(key, "port")) {
		r->dev.port = v;
	} else if (!strcmp(key, "udp-echo")) {
		r->udp_port = (unsigned)strtoul(v, NULL, 10);
	} else if (!strcmp(key, "udp-burst")) {
		char *p = v, *end;
		for (r->nburst = 0; *p && r->nburst < 16; p = *end ? end + 1 : end) {
			unsigned long n = strtoul(p, &end, 10);
			if (end == p || n > 65527 || (*end && *end != ',')) {
				snprintf(err, elen, "bad size list '%s'", val);
				return -EINVAL;
			}
			r->burst[r->nburst++] = (uint32_t)n;
		}
	} else if (!strcmp(key, "seconds")) {
		r->seconds = strtod(v, NULL);
	} else if (!strcmp(key, "pcap")) {
		r->pcap = v;
	} else {
		snprintf(err, elen, "unknown key '%s'", key);
		return -EINVAL;
	}
	return 0;
}

static int resp_conf(void *arg, const char *key, const char *val, char *err, size_t elen)
{
	return resp_opt(arg, key, val, err, elen);
}

static void udp_echo(void *arg, struct rte_mbuf *m, const struct ip_meta *meta, uint16_t sport,
		     uint16_t dport)
{
	(void)dport;
	struct resp *r = arg;
	static uint8_t buf[65536]; /* the largest datagram, fragmented */
	uint32_t len = rte_pktmbuf_pkt_len(m);
	if (len > sizeof(buf))
		len = sizeof(buf);
	const void *d = rte_pktmbuf_read(m, 0, len, buf);
	struct net_udp_sock *us = r->us[meta->family == 10];
	if (d && r->nburst && len == 2 && !memcmp(d, "go", 2)) {
		for (unsigned i = 0; i < r->nburst; i++) {
			uint32_t n = r->burst[i];
			for (uint32_t k = 0; k < n; k++)
				buf[k] = (uint8_t)(k * 7 + n);
			if (net_udp_sendto(r->n, us, buf, n, meta->family, &meta->src, sport) == 0)
				r->burst_sent++;
		}
		rte_pktmbuf_free(m);
		return;
	}
	if (d && net_udp_sendto(r->n, us, d, len, meta->family, &meta->src, sport) == 0)
		r->echoed++;
	rte_pktmbuf_free(m);
}

static void print_stats(const struct resp *r)
{
	struct net_stats s;
	net_get_stats(r->n, &s);
	printf(
	    "{\"rx_frames\":%llu,\"tx_frames\":%llu,\"arp_requests_in\":%llu,"
	    "\"arp_replies_out\":%llu,\"icmp_echo_replies\":%llu,\"icmp6_echo_replies\":%llu,"
	    "\"ndp_ns_in\":%llu,\"ndp_na_out\":%llu,\"udp_in\":%llu,\"udp_echoed\":%llu,"
	    "\"udp_no_port\":%llu,\"icmp_errors_out\":%llu,\"ip4_reasm_ok\":%llu,"
	    "\"l4_bad_csum\":%llu,\"ip4_bad_csum\":%llu,\"ip4_frag_in\":%llu,"
	    "\"ip4_reasm_drop\":%llu,\"udp_bad\":%llu,\"udp_bad_csum\":%llu,\"ip4_bad_len\":%llu,"
	    "\"ip4_frag_out\":%llu,\"ip6_frag_in\":%llu,\"ip6_reasm_ok\":%llu,"
	    "\"ip6_reasm_drop\":%llu,\"ip6_reasm_timeout\":%llu,\"ip6_frag_out\":%llu,"
	    "\"ip6_ext_drop\":%llu,\"udp_burst_sent\":%llu}\n",
	    (unsigned long long)s.rx_frames, (unsigned long long)s.tx_frames,
	    (unsigned long long)s.arp_requests_in, (unsigned long long)s.arp_replies_out,
	    (unsigned long long)s.icmp_echo_replies, (unsigned long long)s.icmp6_echo_replies,
	    (unsigned long long)s.ndp_ns_in, (unsigned long long)s.ndp_na_out,
	    (unsigned long long)s.udp_in, (unsigned long long)r->echoed,
	    (unsigned long long)s.udp_no_port, (unsigned long long)s.icmp_errors_out,
	    (unsigned long long)s.ip4_reasm_ok, (unsigned long long)s.l4_bad_csum,
	    (unsigned long long)s.ip4_bad_csum, (unsigned long long)s.ip4_frag_in,
	    (unsigned long long)s.ip4_reasm_drop, (unsigned long long)s.udp_bad,
	    (unsigned long long)s.udp_bad_csum, (unsigned long long)s.ip4_bad_len,
	    (unsigned long long)s.ip4_frag_out, (unsigned long long)s.ip6_frag_in,
	    (unsigned long long)s.ip6_reasm_ok, (unsigned long long)s.ip6_reasm_drop,
	    (unsigned long long)s.ip6_reasm_timeout, (unsigned long long)s.ip6_frag_out,
	    (unsigned long long)s.ip6_ext_drop, (unsigned long long)r->burst_sent);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static struct resp r;
	r.seconds = 30;
	r.dev.prog = "net_responder";
	static const struct option longopts[] = {
	    {"vdev", required_argument, NULL, 'v'},
	    {"addr", required_argument, NULL, 'a'},
	    {"gw", required_argument, NULL, 'g'},
	    {"mtu", required_argument, NULL, 'm'},
	    {"eal", required_argument, NULL, 'e'},
	    {"config", required_argument, NULL, 'c'},
	    {"udp-echo", required_argument, NULL, 'u'},
	    {"seconds", required_argument, NULL, 's'},
	    {"pcap", required_argument, NULL, 'p'},
	    {"udp-burst", required_argument, NULL, 'b'},
	    {NULL, 0, NULL, 0},
	};
	static const char *const keys[128] = {
	    ['v'] = "vdev",    ['a'] = "addr", ['g'] = "gw",
	    ['m'] = "mtu",     ['e'] = "eal",  ['u'] = "udp-echo",
	    ['s'] = "seconds", ['p'] = "pcap", ['b'] = "udp-burst"};
	char err[512];
	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'c') {
			if (dev_conf_read(optarg, resp_conf, &r, err, sizeof(err))) {
				fprintf(stderr, "net_responder: %s\n", err);
				return 2;
			}
			continue;
		}
		if (c < 0 || c >= 128 || !keys[c]) {
			fprintf(stderr, "net_responder: bad arguments (see the file header)\n");
			return 2;
		}
		if (resp_opt(&r, keys[c], optarg, err, sizeof(err))) {
			fprintf(stderr, "net_responder: --%s: %s\n", keys[c], err);
			return 2;
		}
	}
	if (!r.net.naddrs) {
		fprintf(stderr, "net_responder: at least one --addr is needed\n");
		return 2;
	}
	struct dev *port, *dev;
	char log[2048];
	if (dev_opts_open(&r.dev, &port, log, sizeof(log), err, sizeof(err))) {
		fprintf(stderr, "net_responder: %s\n", err);
		return 1;
	}
	fputs(log, stderr);
	struct clk clk;
	clk_init_real(&clk);
	dev = port;
	struct dev *pc = NULL;
	if (r.pcap) {
		if (dev_pcap_create(port, r.pcap, &clk, &pc)) {
			fprintf(stderr, "net_responder: pcap %s: cannot open\n", r.pcap);
			return 1;
		}
		dev = pc;
	}
	r.net.dev = dev;
	r.net.pool = dev_ethdev_pool(port);
	r.net.clk = &clk;
	r.net.seed = (uint64_t)time(NULL);
	int rc = net_create(&r.net, &r.n);
	if (rc) {
		fprintf(stderr, "net_responder: net_create: %s\n", strerror(-rc));
		return 1;
	}
	for (unsigned i = 0; r.udp_port && i < 2; i++) {
		uint8_t fam = i ? 10 : 2;
		struct net_udp_sock *s;
		bool have = false;
		for (unsigned k = 0; k < r.net.naddrs; k++)
			have |= r.net.addrs[k].family == fam;
		if (!have)
			continue;
		/* one socket per family: the IPv6 one IPv6-only, as it shares the port */
		struct net_udp_opts o = {.v6only = fam == 10};
		rc = net_udp_open_opts(r.n, fam, NULL, (uint16_t)r.udp_port, &o, udp_echo, &r, &s);
		if (rc) {
			fprintf(stderr, "net_responder: udp %u: %s\n", r.udp_port, strerror(-rc));
			return 1;
		}
		r.us[i] = s;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "net_responder: up\n");
	uint64_t end = clk_now(&clk) + (uint64_t)(r.seconds * 1e9);
	unsigned idle = 0;
	while (!quit && clk_now(&clk) < end) {
		int k = net_poll(r.n, clk_now(&clk));
		net_flush(r.n);
		if (k) {
			idle = 0;
		} else if (++idle > 256) {
			nanosleep(&(struct timespec){.tv_nsec = 20000}, NULL);
		}
	}
	print_stats(&r);
	net_destroy(r.n);
	dev_destroy(pc);
	dev_destroy(port);
	dev_eal_cleanup();
	return 0;
}
