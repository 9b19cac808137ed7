/* skcat: what its options (opts.c) hand the netcat itself (skcat.c). */
#ifndef SKOPS_APPS_SKCAT_H
#define SKOPS_APPS_SKCAT_H

#include <stdbool.h>
#include <stdint.h>

#include "appport.h"

#define SKCAT_MAX_CONNS 64

struct skcat {
	struct appport pt; /* port keys, shared with skopsd and skperf */
	const char *sockops, *cgroup, *cc, *pcap;
	bool strict, info, listen, trace, verbose, echo, v6only, dump_maps;
	const char *dump_maps_file;  /* NULL or "": stderr */
	unsigned conns;		     /* connections to serve with -l (--conns) */
	int tcp_ecn;		     /* --tcp-ecn; -1: the stack's default */
	int syncookies;		     /* --tcp-syncookies; -1: the stack's default */
	bool no_tlp;		     /* --tcp-early-retrans 0 */
	uint32_t rmem_max, wmem_max; /* --tcp-rmem-max, --tcp-wmem-max; 0: the stack's */
	bool pacing;		     /* --pacing */
	uint64_t max_pacing_rate;    /* --max-pacing-rate; 0: not set */
	uint64_t run_budget;	     /* --run-budget; 0: bpfvm's default */
	struct hooks *hooks;	     /* ours when --sockops: --trace drains it */
	double timeout_s;
	char strs[32][256];
	unsigned nstr;
	const char *host, *port;
};

/* A message on stderr ("skcat: ..."), exit 1 */
void skcat_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The command line into k (defaults already set); a bad one exits, 2 with
 * the usage, 1 with the reason. */
void skcat_parse_args(struct skcat *k, int argc, char **argv);

#endif
