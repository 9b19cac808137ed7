/* Shared tests of the example sock_ops programs: the test port and the
 * "same datacenter" rule the Linux 4.13 samples use, so unit tests can check
 * the same conditions. Include after the SDK's bpf headers. */
#ifndef SKOPS_PROGS_POLICY_H
#define SKOPS_PROGS_POLICY_H

#define POLICY_PORT 55601

/* Only connections to or from the test port get a policy; everything else
 * keeps the stack's defaults. */
static __attribute__((always_inline)) inline int policy_port_match(const struct bpf_sock_ops *s)
{
	return bpf_ntohl(s->remote_port) == POLICY_PORT || s->local_port == POLICY_PORT;
}

/* Peers are "nearby" (one datacenter) when both are IPv6 and share the
 * upper 44 bits: the whole first address word and the top 12 bits of the
 * second. */
static __attribute__((always_inline)) inline int policy_nearby(const struct bpf_sock_ops *s)
{
	if (s->family != AF_INET6 || s->local_ip6[0] != s->remote_ip6[0])
		return 0;
	return (bpf_ntohl(s->local_ip6[1]) >> 20) == (bpf_ntohl(s->remote_ip6[1]) >> 20);
}

/* "No opinion": an answer of -1 makes the stack keep its default, while the
 * program still returns 1 so it passes a strict verifier. */
#define POLICY_NO_OPINION ((__u32)-1)

#endif
