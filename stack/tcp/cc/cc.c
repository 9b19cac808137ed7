/* cc: the registry of built-in congestion control algorithms (Linux's
 * tcp_cong.c: lookup by name, the default). The stack's side, which calls
 * the ops, is tcp_cc.c. */
#include "cc.h"

#include <errno.h>
#include <string.h>

static const struct tcp_cc_ops *const cc_builtin[] = {
    &cc_reno_ops, &cc_newreno_ops, &cc_cubic_ops, &cc_cubic_rfc_ops, &cc_dctcp_ops, &cc_bbr_ops};

int cc_validate(const struct tcp_cc_ops *ops)
{
	if (!ops || !ops->ssthresh || !(ops->cong_avoid || ops->cong_control) || !ops->name[0])
		return -EINVAL;
	return 0;
}

const struct tcp_cc_ops *cc_find(const char *name)
{
	for (size_t i = 0; i < sizeof(cc_builtin) / sizeof(cc_builtin[0]); i++)
		if (strncmp(cc_builtin[i]->name, name, TCP_CC_NAME_MAX) == 0)
			return cc_builtin[i];
	return NULL;
}

const struct tcp_cc_ops *cc_default(void)
{
	return &cc_cubic_ops;
}

const char *cc_available(void)
{
	return "reno newreno cubic cubic_rfc dctcp bbr";
}
