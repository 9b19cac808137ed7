/* skcat's options: the port's (portopt, shared with skopsd and skperf),
 * then skcat's own keys, from the command line or a config file. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portopt.h"
#include "skcat.h"

/* skcat's own keys (the port's are portopt's) */
static int opt_set(void *arg, const char *key, const char *val, char *err, size_t elen)
{
	struct skcat *k = arg;
	if (k->nstr == 32) {
		snprintf(err, elen, "too many options");
		return -E2BIG;
	}
	char *v = k->strs[k->nstr++];
	snprintf(v, 256, "%s", val ? val : "");
	if (!strcmp(key, "sockops")) {
		k->sockops = v;
	} else if (!strcmp(key, "cgroup")) {
		k->cgroup = v;
	} else if (!strcmp(key, "strict")) {
		k->strict = portopt_flag(val);
	} else if (!strcmp(key, "cc")) {
		k->cc = v;
	} else if (!strcmp(key, "trace")) {
		k->trace = portopt_flag(val);
	} else if (!strcmp(key, "info")) {
		k->info = portopt_flag(val);
	} else if (!strcmp(key, "dump-maps")) {
		k->dump_maps = true;
		k->dump_maps_file = v;
	} else if (!strcmp(key, "pcap")) {
		k->pcap = v;
	} else if (!strcmp(key, "timeout")) {
		k->timeout_s = strtod(v, NULL);
	} else if (!strcmp(key, "echo")) {
		k->echo = portopt_flag(val);
	} else if (!strcmp(key, "v6only")) {
		k->v6only = portopt_flag(val);
	} else if (!strcmp(key, "conns")) {
		char *end;
		unsigned long n = strtoul(v, &end, 10);
		if (*end || n < 1 || n > SKCAT_MAX_CONNS) {
			snprintf(err, elen, "bad connection count '%s' (1 to %d)", v,
				 SKCAT_MAX_CONNS);
			return -EINVAL;
		}
		k->conns = (unsigned)n;
	} else if (!strcmp(key, "tcp-ecn")) {
		if (strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "2")) {
			snprintf(err, elen, "bad tcp_ecn '%s' (0, 1 or 2 as net.ipv4.tcp_ecn)", v);
			return -EINVAL;
		}
		k->tcp_ecn = v[0] - '0';
	} else if (!strcmp(key, "tcp-syncookies")) {
		if (strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "2")) {
			snprintf(err, elen,
				 "bad tcp_syncookies '%s' (0, 1 or 2 as net.ipv4.tcp_syncookies)",
				 v);
			return -EINVAL;
		}
		k->syncookies = v[0] - '0';
	} else if (!strcmp(key, "tcp-early-retrans")) {
		if (strcmp(v, "0") && strcmp(v, "3")) {
			snprintf(
			    err, elen,
			    "bad tcp_early_retrans '%s' (0 or 3 as net.ipv4.tcp_early_retrans)", v);
			return -EINVAL;
		}
		k->no_tlp = v[0] == '0';
	} else if (!strcmp(key, "pacing")) {
		k->pacing = portopt_flag(val);
	} else if (!strcmp(key, "max-pacing-rate")) {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(v, &end, 10);
		if (*end || !*v || errno || n == 0) {
			snprintf(err, elen, "bad rate '%s' (bytes a second, at least 1)", v);
			return -EINVAL;
		}
		k->max_pacing_rate = n;
	} else if (!strcmp(key, "run-budget")) {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(v, &end, 0);
		if (*end || !*v || errno || n == 0 || v[0] == '-') {
			snprintf(err, elen, "bad run budget '%s' (units, at least 1)", v);
			return -EINVAL;
		}
		k->run_budget = n;
	} else if (!strcmp(key, "tcp-rmem-max") || !strcmp(key, "tcp-wmem-max")) {
		char *end;
		unsigned long n = strtoul(v, &end, 10);
		if (*end || n < 4096 || n > INT32_MAX) {
			snprintf(err, elen, "bad size '%s' (bytes, 4096 to %d)", v, INT32_MAX);
			return -EINVAL;
		}
		*(key[4] == 'r' ? &k->rmem_max : &k->wmem_max) = (uint32_t)n;
	} else {
		snprintf(err, elen, "unknown key '%s'", key);
		return -EINVAL;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: skcat [OPTIONS] -l PORT | skcat [OPTIONS] HOST PORT\n"
			"  --vdev DEVARGS --addr CIDR --gw ADDR --mtu N --eal \"ARGS\"\n"
			"  --sockops FILE.o [--cgroup PATH] [--strict] --cc NAME --info\n"
			"  --trace --config FILE --pcap FILE --timeout SECONDS -v\n"
			"  --echo [--conns N] --v6only --tcp-ecn 0|1|2 --dump-maps[=FILE]\n"
			"  --tcp-early-retrans 0|3 --tcp-rmem-max BYTES --tcp-wmem-max BYTES\n"
			"  --tcp-syncookies 0|1|2 --pacing --max-pacing-rate BYTES\n"
			"  --run-budget UNITS --tcp-hz 100|250|300|1000\n");
	exit(2);
}

void skcat_parse_args(struct skcat *k, int argc, char **argv)
{
	static const struct option lo[] = {
	    PORTOPT_OPTIONS,
	    {"sockops", required_argument, NULL, PORTOPT_TOOL(0)},
	    {"cgroup", required_argument, NULL, PORTOPT_TOOL(1)},
	    {"strict", no_argument, NULL, PORTOPT_TOOL(2)},
	    {"cc", required_argument, NULL, PORTOPT_TOOL(3)},
	    {"info", no_argument, NULL, PORTOPT_TOOL(4)},
	    {"pcap", required_argument, NULL, PORTOPT_TOOL(5)},
	    {"timeout", required_argument, NULL, PORTOPT_TOOL(6)},
	    {"trace", no_argument, NULL, PORTOPT_TOOL(7)},
	    {"echo", no_argument, NULL, PORTOPT_TOOL(8)},
	    {"conns", required_argument, NULL, PORTOPT_TOOL(9)},
	    {"v6only", no_argument, NULL, PORTOPT_TOOL(10)},
	    {"tcp-ecn", required_argument, NULL, PORTOPT_TOOL(11)},
	    {"dump-maps", optional_argument, NULL, PORTOPT_TOOL(12)},
	    {"tcp-early-retrans", required_argument, NULL, PORTOPT_TOOL(13)},
	    {"tcp-rmem-max", required_argument, NULL, PORTOPT_TOOL(14)},
	    {"tcp-wmem-max", required_argument, NULL, PORTOPT_TOOL(15)},
	    {"tcp-syncookies", required_argument, NULL, PORTOPT_TOOL(16)},
	    {"pacing", no_argument, NULL, PORTOPT_TOOL(17)},
	    {"max-pacing-rate", required_argument, NULL, PORTOPT_TOOL(18)},
	    {"run-budget", required_argument, NULL, PORTOPT_TOOL(19)},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct portopt po = {.port = &k->pt, .set = opt_set, .tool = k};
	char err[1024];
	int c, li = -1;
	while ((c = getopt_long(argc, argv, "l:vh", lo, &li)) != -1) {
		int rc = portopt_take(&po, lo, c, li, optarg, err, sizeof(err));
		if (rc < 0)
			skcat_die("%s", err);
		if (rc == 0)
			continue;
		if (c == 'l') {
			k->listen = true;
			k->port = optarg;
		} else if (c == 'v') {
			k->verbose = true;
		} else {
			usage();
		}
	}
	int rest = argc - optind;
	if (k->listen ? rest != 0 : rest != 2)
		usage();
	if (!k->listen) {
		k->host = argv[optind];
		k->port = argv[optind + 1];
	}
	char *end;
	unsigned long p = strtoul(k->port, &end, 10);
	if (*end || p == 0 || p > 65535)
		skcat_die("bad port '%s'", k->port);
	if (portopt_need_addr(&k->pt))
		skcat_die("%s", portopt_need_addr(&k->pt));
	if (k->cgroup && !k->sockops)
		skcat_die("--cgroup needs --sockops");
	if (k->dump_maps && !k->sockops)
		skcat_die("--dump-maps needs --sockops");
	if (!k->conns)
		k->conns = 1;
	if (k->conns > 1 && !(k->listen && k->echo))
		skcat_die("--conns needs -l and --echo (stdin and stdout serve one connection)");
}
