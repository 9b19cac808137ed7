/* class 8 twin: reply and sk_txhash take stores */
#include "common.h"

SEC("sockops")
int reply_ok(struct bpf_sock_ops *s)
{
	s->reply = s->op + 1;
	s->sk_txhash = 3;
	return 1;
}
