/* portopt: the port options of every tool (skcat, skopsd, skperf): --vdev
 * --addr --gw --mtu --eal --tcp-hz and --config, their getopt entries, and the one
 * path a key takes whether it came from the command line or from a config
 * file ("key = value", configs/README.md): port keys to appport_set, the
 * rest to the tool's own setter. A long option whose value lies in the key
 * range is named by its key, so a tool lists no second table of names. */
#ifndef SKOPS_APPS_PORTOPT_H
#define SKOPS_APPS_PORTOPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "appport.h"

/* getopt_long values: PORTOPT_KEY(i) is a key option (its long name is the
 * key); the port's take the first few, a tool's own use PORTOPT_TOOL(i). */
#define PORTOPT_KEY(i)	(0x1000 + (i))
#define PORTOPT_TOOL(i) PORTOPT_KEY(16 + (i))
#define PORTOPT_KEY_END PORTOPT_KEY(256)
#define PORTOPT_CONFIG	0x2000 /* --config FILE: every key of the file */

/* The port's long options, for a tool's getopt table (names and arguments
 * as every tool has always taken them). */
/* clang-format off */
#define PORTOPT_OPTIONS \
	{"vdev", required_argument, NULL, PORTOPT_KEY(0)}, \
	{"addr", required_argument, NULL, PORTOPT_KEY(1)}, \
	{"gw", required_argument, NULL, PORTOPT_KEY(2)}, \
	{"mtu", required_argument, NULL, PORTOPT_KEY(3)}, \
	{"eal", required_argument, NULL, PORTOPT_KEY(4)}, \
	{"tcp-hz", required_argument, NULL, PORTOPT_KEY(5)}, \
	{"config", required_argument, NULL, PORTOPT_CONFIG}
/* clang-format on */

/* A tool's own keys: 0, or -errno with the reason in err ("unknown key"
 * when it is none of them). */
typedef int portopt_set_fn(void *tool, const char *key, const char *val, char *err, size_t elen);

struct portopt {
	struct appport *port;
	portopt_set_fn *set;
	void *tool;
};

/* One key: a port key goes to appport_set, any other to the tool's setter. */
int portopt_key(struct portopt *o, const char *key, const char *val, char *err, size_t elen);

/* getopt_long's c and longindex li over its table lo. A key option is
 * applied (err "--KEY: reason" on failure); --config reads the file, every
 * key through portopt_key (err "FILE:LINE: reason"). Returns 1 when c is
 * neither (the tool's own), else 0 or -errno (a missing file's -ENOENT too). */
int portopt_take(struct portopt *o, const struct option *lo, int c, int li, const char *arg,
		 char *err, size_t elen);

/* A flag's value: none, "", "1" or "true" is on (a config file's
 * "key = 1" or a bare --flag) */
bool portopt_flag(const char *val);

/* NULL when the port has an address, else the message every tool gives */
const char *portopt_need_addr(const struct appport *p);

#endif
