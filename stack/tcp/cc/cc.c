/* cc: the registry of built-in congestion control algorithms (Linux's
 * tcp_cong.c: lookup by name, the default) and the wrappers for optional ops. */
#include "cc.h"

#include <errno.h>
#include <string.h>

#include "../tcp.h"

_Static_assert(sizeof(((struct tcb *)0)->cc_priv) == TCP_CC_PRIV_SIZE, "cc_priv size");

static const struct tcp_cc_ops *const cc_builtin[] = {&cc_reno_ops, &cc_newreno_ops, &cc_cubic_ops,
						      &cc_dctcp_ops, &cc_bbr_ops};

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
	return "reno newreno cubic dctcp bbr";
}

void cc_init(struct tcb *tcb)
{
	if (tcb->cc->init)
		tcb->cc->init(tcb);
}

void cc_release(struct tcb *tcb)
{
	if (tcb->cc->release)
		tcb->cc->release(tcb);
}

void cc_set_state(struct tcb *tcb, uint8_t st)
{
	if (tcb->cc->set_state)
		tcb->cc->set_state(tcb, st);
	tcb->cc_state = st;
}

void cc_event(struct tcb *tcb, enum tcp_ca_event ev)
{
	if (tcb->cc->cwnd_event)
		tcb->cc->cwnd_event(tcb, ev);
}

void cc_pkts_acked(struct tcb *tcb, uint32_t acked, int32_t rtt_us)
{
	if (tcb->cc->pkts_acked)
		tcb->cc->pkts_acked(tcb, acked, rtt_us);
}

void cc_in_ack_event(struct tcb *tcb, uint32_t ack, uint32_t flags)
{
	if (tcb->cc->in_ack_event)
		tcb->cc->in_ack_event(tcb, ack, flags);
}

void cc_cong_avoid(struct tcb *tcb, uint32_t ack, uint32_t acked)
{
	if (!tcb->cc->cong_control)
		tcb->cc->cong_avoid(tcb, ack, acked);
}
