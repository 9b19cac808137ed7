/* dev: bring-up from options: EAL arguments with the vdev defaults
 * (DPDK's --no-pci --no-huge -m for virtual devices, a unique file prefix so
 * several processes coexist), port selection, and the key = value file
 * reader behind skcat --config (format in configs/README.md). */
#include "dev.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

static void conf_msg(char *buf, size_t len, const char *fmt, ...)
{
	if (!buf || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* Does the extra argument string set any of the options in names? */
static bool eal_has(const char *extra, const char *const *names)
{
	if (!extra)
		return false;
	char tmp[1024];
	snprintf(tmp, sizeof(tmp), "%s", extra);
	for (char *save, *t = strtok_r(tmp, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
		for (const char *const *n = names; *n; n++) {
			size_t l = strlen(*n);
			if (!strncmp(t, *n, l) && (t[l] == 0 || t[l] == '='))
				return true;
		}
	return false;
}

struct argbuf {
	char *buf;
	size_t len, used;
	char **argv;
	int max, argc;
	bool full;
};

static void arg_add(struct argbuf *a, const char *fmt, ...)
{
	if (a->argc + 1 >= a->max || a->used >= a->len) {
		a->full = true;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(a->buf + a->used, a->len - a->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= a->len - a->used) {
		a->full = true;
		return;
	}
	a->argv[a->argc++] = a->buf + a->used;
	a->used += (size_t)n + 1;
}

/* A memif buffer per frame at a jumbo MTU (the default 2048 would chain
 * five for 9000), in whole cache lines, at most the devarg's uint16. */
static unsigned conf_memif_bsize(uint32_t mtu)
{
	uint32_t b = (mtu + 14u + 63u) & ~63u;
	return b > UINT16_MAX ? UINT16_MAX : b;
}

/* EAL memory for the pool of jumbo mbufs dev_ethdev sizes (beyond the 256
 * MB that hold the default pool and the rest): a 64 KiB MTU's 3072 mbufs
 * take 200 MB. */
static unsigned conf_jumbo_pool_mb(const struct dev_opts *o)
{
	if (o->mtu <= 1500)
		return 0;
	uint32_t buf = RTE_PKTMBUF_HEADROOM + o->mtu + 14u;
	if (buf > UINT16_MAX)
		buf = UINT16_MAX;
	uint64_t n = o->pool ? o->pool
			     : dev_ethdev_pool_n(o->queues, o->rxd ? o->rxd : 1024,
						 o->txd ? o->txd : 1024, buf);
	/* an mbuf's header and the mempool's own per object, rounded up */
	return (unsigned)((n * (buf + 256u) + (1u << 20) - 1) >> 20);
}

int dev_opts_eal_argv(const struct dev_opts *o, char *buf, size_t buf_len, char **argv, int max)
{
	struct argbuf a = {.buf = buf, .len = buf_len, .argv = argv, .max = max};
	static const char *const pci_opts[] = {"-a", "--allow", "-b", "--block", "--no-pci", NULL};
	static const char *const mem_opts[] = {"-m",	     "--socket-mem", "--no-huge",
					       "--huge-dir", "--in-memory",  NULL};
	static const char *const prefix_opts[] = {"--file-prefix", "--in-memory", NULL};
	static const char *const log_opts[] = {"--log-level", NULL};
	arg_add(&a, "%s", o->prog ? o->prog : "skops");
	for (unsigned i = 0; i < o->nvdev; i++) {
		/* DPDK's af_packet rings hold 512 frames, about 0.6 ms at 10
		 * Gbit/s: a poll loop descheduled that long loses what the
		 * kernel hands it. 4096 frames (8 MiB a ring) took a kernel
		 * sender over a veth from 3.2 to 7.8 Gbit/s with a third of
		 * its retransmissions; a framecnt the user gives stands. */
		bool afp = !strncmp(o->vdevs[i], "net_af_packet", 13);
		bool memif = !strncmp(o->vdevs[i], "net_memif", 9);
		if (afp && !strstr(o->vdevs[i], "framecnt="))
			arg_add(&a, "--vdev=%s,framecnt=%u", o->vdevs[i], DEV_AF_PACKET_FRAMES);
		else if (memif && o->mtu > 1500 && !strstr(o->vdevs[i], "bsize="))
			arg_add(&a, "--vdev=%s,bsize=%u", o->vdevs[i], conf_memif_bsize(o->mtu));
		else
			arg_add(&a, "--vdev=%s", o->vdevs[i]);
	}
	bool vdev_only = o->nvdev > 0 && !o->port;
	if (vdev_only && !eal_has(o->eal, pci_opts))
		arg_add(&a, "--no-pci");
	if (vdev_only && !eal_has(o->eal, mem_opts)) {
		arg_add(&a, "--no-huge");
		arg_add(&a, "-m");
		arg_add(&a, "%u", 256u + conf_jumbo_pool_mb(o));
	}
	if (!eal_has(o->eal, prefix_opts))
		arg_add(&a, "--file-prefix=skops-%d", (int)getpid());
	if (!eal_has(o->eal, log_opts))
		arg_add(&a, "--log-level=error");
	if (o->eal) {
		char tmp[1024];
		snprintf(tmp, sizeof(tmp), "%s", o->eal);
		for (char *save, *t = strtok_r(tmp, " \t", &save); t;
		     t = strtok_r(NULL, " \t", &save))
			arg_add(&a, "%s", t);
	}
	if (a.full)
		return -E2BIG;
	argv[a.argc] = NULL;
	return a.argc;
}

/* DPDK 22.11's memif transmit leaves a stale chain flag on a packet's first
 * buffer (fixed upstream by f7a52200d4, "net/memif: fix descriptor Tx flags
 * corruption"): frames longer than one buffer come out corrupted, so a
 * given bsize must hold a whole frame. */
static int conf_memif_check(const struct dev_opts *o, char *err, size_t err_len)
{
	uint32_t frame = (o->mtu > 1500 ? o->mtu : 1500) + 14;
	for (unsigned i = 0; i < o->nvdev; i++) {
		const char *b = strstr(o->vdevs[i], "bsize=");
		if (strncmp(o->vdevs[i], "net_memif", 9) || !b)
			continue;
		unsigned long bs = strtoul(b + 6, NULL, 10);
		if (bs < frame) {
			conf_msg(err, err_len,
				 "dev: memif bsize=%lu holds no frame of %u bytes (mtu + 14): "
				 "DPDK 22.11's memif corrupts frames chained over buffers",
				 bs, frame);
			return -EINVAL;
		}
	}
	return 0;
}

int dev_opts_open(const struct dev_opts *o, struct dev **port, char *log, size_t log_len, char *err,
		  size_t err_len)
{
	int rc = conf_memif_check(o, err, err_len);
	if (rc)
		return rc;
	char buf[4096];
	char *argv[64];
	int argc = dev_opts_eal_argv(o, buf, sizeof(buf), argv, 64);
	if (argc < 0) {
		conf_msg(err, err_len, "dev: eal: too many arguments");
		return argc;
	}
	rc = dev_eal_init(argc, argv, err, err_len);
	if (rc < 0)
		return rc;
	struct dev_ethdev_config c = {
	    .nb_queues = o->queues,
	    .nb_rxd = o->rxd,
	    .nb_txd = o->txd,
	    .pool_size = o->pool,
	    .mtu = o->mtu,
	    .promisc = o->promisc,
	    .no_offload = o->no_offload,
	    .link_wait_ms = o->link_wait_ms,
	    .log = log,
	    .log_len = log_len,
	    .err = err,
	    .err_len = err_len,
	};
	if (log && log_len)
		log[0] = 0;
	if (o->port) {
		c.name = o->port;
	} else {
		uint16_t pid;
		bool found = false;
		RTE_ETH_FOREACH_DEV(pid)
		{
			c.port_id = pid;
			found = true;
			break;
		}
		if (!found) {
			conf_msg(err, err_len,
				 "dev: ethdev: no port found (give --vdev or a PCI device)");
			return -ENODEV;
		}
	}
	return dev_ethdev_create(&c, port);
}

static char *conf_trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

int dev_conf_read(const char *path, dev_conf_fn fn, void *arg, char *err, size_t err_len)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		int e = errno;
		conf_msg(err, err_len, "config: %s: %s", path, strerror(e));
		return -e;
	}
	char line[1024];
	int lineno = 0, rc = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		size_t l = strlen(line);
		if (l == sizeof(line) - 1 && line[l - 1] != '\n') {
			conf_msg(err, err_len, "config: %s:%d: line too long", path, lineno);
			rc = -EINVAL;
			break;
		}
		/* '#' starts a comment unless inside quotes */
		bool q = false;
		for (char *c = line; *c; c++) {
			if (*c == '"')
				q = !q;
			else if (*c == '#' && !q) {
				*c = 0;
				break;
			}
		}
		char *s = conf_trim(line);
		if (!*s)
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			conf_msg(err, err_len, "config: %s:%d: expected key = value", path, lineno);
			rc = -EINVAL;
			break;
		}
		*eq = 0;
		char *key = conf_trim(s), *val = conf_trim(eq + 1);
		size_t vl = strlen(val);
		if (vl >= 2 && val[0] == '"' && val[vl - 1] == '"') {
			val[vl - 1] = 0;
			val++;
		}
		if (!*key) {
			conf_msg(err, err_len, "config: %s:%d: empty key", path, lineno);
			rc = -EINVAL;
			break;
		}
		char sub[256] = "";
		rc = fn(arg, key, val, sub, sizeof(sub));
		if (rc) {
			conf_msg(err, err_len, "config: %s:%d: %s", path, lineno,
				 sub[0] ? sub : "bad value");
			break;
		}
	}
	fclose(f);
	return rc;
}
