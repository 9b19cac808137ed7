/* portopt: the port options every tool takes, read one way (portopt.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dev/dev.h"
#include "portopt.h"

int portopt_key(struct portopt *o, const char *key, const char *val, char *err, size_t elen)
{
	int rc = appport_set(o->port, key, val, err, elen);
	return rc == -ENOENT ? o->set(o->tool, key, val, err, elen) : rc;
}

static int conf_cb(void *arg, const char *key, const char *val, char *err, size_t elen)
{
	return portopt_key(arg, key, val, err, elen);
}

int portopt_take(struct portopt *o, const struct option *lo, int c, int li, const char *arg,
		 char *err, size_t elen)
{
	if (c == PORTOPT_CONFIG)
		return dev_conf_read(arg, conf_cb, o, err, elen);
	if (c < PORTOPT_KEY(0) || c >= PORTOPT_KEY_END)
		return 1;
	char why[512];
	int rc = portopt_key(o, lo[li].name, arg, why, sizeof(why));
	if (rc)
		snprintf(err, elen, "--%s: %s", lo[li].name, why);
	return rc;
}

bool portopt_flag(const char *val)
{
	return !val || !*val || !strcmp(val, "1") || !strcmp(val, "true");
}

const char *portopt_need_addr(const struct appport *p)
{
	return p->net.naddrs ? NULL : "no --addr given: the stack needs an address";
}
