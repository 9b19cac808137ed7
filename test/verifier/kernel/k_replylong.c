/* class 8: a store to replylong[1] */
#include "common.h"

SEC("sockops")
int replylong(struct bpf_sock_ops *s)
{
	s->replylong[1] = s->op + 1;
	return 1;
}
