/* appport: the port keys and sock_ops attach shared by the tools. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "appport.h"
#include "bpfvm.h"
#include "cgroup.h"
#include "hooks.h"
#include "loadpriv.h"

int appport_set(struct appport *p, const char *key, const char *val, char *err, size_t elen)
{
	static const char *const keys[] = {"vdev", "addr",    "gw",	    "mtu",   "eal",
					   "port", "promisc", "no-offload", "tcp-hz"};
	bool known = false;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		known |= !strcmp(key, keys[i]);
	if (!known)
		return -ENOENT;
	if (p->nstr == APPPORT_MAX_STRS) {
		snprintf(err, elen, "too many options");
		return -E2BIG;
	}
	char *v = p->strs[p->nstr++];
	snprintf(v, sizeof(p->strs[0]), "%s", val ? val : "");
	if (!strcmp(key, "vdev")) {
		if (p->dev.nvdev == DEV_OPTS_MAX_VDEV) {
			snprintf(err, elen, "at most %d vdevs", DEV_OPTS_MAX_VDEV);
			return -E2BIG;
		}
		p->dev.vdevs[p->dev.nvdev++] = v;
	} else if (!strcmp(key, "addr")) {
		if (p->net.naddrs == NET_MAX_ADDRS ||
		    net_addr_parse(v, &p->net.addrs[p->net.naddrs])) {
			snprintf(err, elen, "bad address '%s' (want CIDR, e.g. 198.18.0.2/24)", v);
			return -EINVAL;
		}
		p->net.naddrs++;
	} else if (!strcmp(key, "gw")) {
		uint8_t fam, a[16];
		if (net_ip_parse(v, &fam, a)) {
			snprintf(err, elen, "bad gateway '%s'", v);
			return -EINVAL;
		}
		if (fam == AF_INET)
			memcpy(&p->net.gw4, a, 4);
		else
			memcpy(p->net.gw6, a, 16);
	} else if (!strcmp(key, "mtu")) {
		char *end;
		unsigned long m = strtoul(v, &end, 10);
		if (*end || m < 576 || m > 65535) {
			snprintf(err, elen, "bad mtu '%s' (576 to 65535)", v);
			return -EINVAL;
		}
		/* the stack's MTU, and the device's when above the port's own
		 * (jumbo frames, dev_ethdev_config.mtu) */
		p->net.mtu = (uint32_t)m;
		p->dev.mtu = (uint32_t)m;
	} else if (!strcmp(key, "tcp-hz")) {
		/* Linux's CONFIG_HZ choices: the timers round as a kernel
		 * built with that HZ does (docs/tcp.md "Timers and HZ"). */
		char *end;
		unsigned long hz = strtoul(v, &end, 10);
		if (*end || !*v || (hz != 100 && hz != 250 && hz != 300 && hz != 1000)) {
			snprintf(err, elen,
				 "bad HZ '%s' (want 100, 250, 300 or 1000, as Linux's CONFIG_HZ)",
				 v);
			return -EINVAL;
		}
		p->tcp_hz = (uint32_t)hz;
	} else if (!strcmp(key, "eal")) {
		p->dev.eal = v;
	} else if (!strcmp(key, "port")) {
		p->dev.port = v;
	} else if (!strcmp(key, "promisc")) {
		p->dev.promisc = !strcmp(v, "1") || !strcmp(v, "true");
	} else {
		p->dev.no_offload = !strcmp(v, "1") || !strcmp(v, "true");
	}
	return 0;
}

int appport_attach(struct bpfvm_registry *reg, struct cg_tree *tree, const char *obj_path,
		   const char *cg, uint32_t flags, bool strict, const char *name, char *err,
		   size_t elen)
{
	return appport_attach_jit(reg, tree, obj_path, cg, flags, strict, true, name, err, elen);
}

int appport_attach_jit(struct bpfvm_registry *reg, struct cg_tree *tree, const char *obj_path,
		       const char *cg, uint32_t flags, bool strict, bool jit, const char *name,
		       char *err, size_t elen)
{
	char lb[8192] = "";
	struct bpfvm_log log = {.level = 1, .buf = lb, .size = sizeof(lb)};
	struct bpfvm_obj *obj = NULL;
	struct bpfvm_prog *prog = NULL;
	struct bpfvm_load_opts o = {.type = &hooks_sock_ops_type,
				    .name = name,
				    .strict = strict,
				    .jit = jit,
				    .allow_ptr_leaks = loadpriv_allow_ptr_leaks(),
				    .log = &log};
	int rc = bpfvm_obj_open(reg, obj_path, NULL, 0, &log, &obj);
	if (!rc)
		rc = bpfvm_obj_load_prog(obj, NULL, &o, &prog);
	if (rc) {
		snprintf(err, elen, "%s: %s%s%s", obj_path, strerror(-rc), lb[0] ? "\n" : "", lb);
		if (obj)
			bpfvm_obj_close(obj);
		return rc;
	}
	struct cg_node *node;
	rc = cg_lookup(tree, cg ? cg : "/", true, &node);
	if (rc) {
		snprintf(err, elen, "cgroup %s: %s", cg, strerror(-rc));
	} else {
		rc = cg_attach(tree, node, CG_ATTACH_SOCK_OPS, prog, flags, NULL);
		if (rc)
			snprintf(err, elen, "attach %s to %s: %s", obj_path, cg ? cg : "/",
				 strerror(-rc));
		cg_node_put(node);
	}
	bpfvm_prog_put(prog); /* the tree holds its own reference */
	bpfvm_obj_close(obj);
	return rc;
}

socklen_t appport_sockaddr(int fam, const void *addr, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (fam == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;
		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		if (addr)
			memcpy(&s->sin_addr, addr, 4);
		return sizeof(*s);
	}
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;
	s->sin6_family = AF_INET6;
	s->sin6_port = htons(port);
	if (addr)
		memcpy(&s->sin6_addr, addr, 16);
	return sizeof(*s);
}

const char *appport_sa_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)ss;
		inet_ntop(AF_INET, &s->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(s->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &s->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(s->sin6_port));
	} else {
		snprintf(buf, len, "?");
	}
	return buf;
}

uint64_t appport_seed(void)
{
	uint64_t v;
	if (getrandom(&v, sizeof(v), 0) == sizeof(v))
		return v;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_nsec ^ (uint64_t)time(NULL) << 20 ^ (uint64_t)getpid() << 40;
}
