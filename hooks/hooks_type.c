/* hooks: the sock_ops program type: which ctx accesses a program may make
 * (the kernel's sock_ops_is_valid_access, net/core/filter.c), which helpers
 * it may call, and its R0 range. Read docs/sockops.md §2 and §5. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hooks_int.h"

struct hooks_field_desc {
	uint16_t off;
	uint8_t size;  /* field width in bytes */
	uint8_t count; /* array elements */
	const char *name;
};

#define F(m, n)                                                                                    \
	{                                                                                          \
		offsetof(struct hooks_sock_ops_view, m),                                           \
		    sizeof(((struct hooks_sock_ops_view *)0)->m) / (n), (n), #m                    \
	}

/* In layout order; args/reply/replylong share offsets 4..19 and are named by
 * what a store means. */
static const struct hooks_field_desc hooks_fields[] = {
    F(op, 1),
    F(replylong, 4),
    F(family, 1),
    F(remote_ip4, 1),
    F(local_ip4, 1),
    F(remote_ip6, 4),
    F(local_ip6, 4),
    F(remote_port, 1),
    F(local_port, 1),
    F(is_fullsock, 1),
    F(snd_cwnd, 1),
    F(srtt_us, 1),
    F(bpf_sock_ops_cb_flags, 1),
    F(state, 1),
    F(rtt_min, 1),
    F(snd_ssthresh, 1),
    F(rcv_nxt, 1),
    F(snd_nxt, 1),
    F(snd_una, 1),
    F(mss_cache, 1),
    F(ecn_flags, 1),
    F(rate_delivered, 1),
    F(rate_interval_us, 1),
    F(packets_out, 1),
    F(retrans_out, 1),
    F(total_retrans, 1),
    F(segs_in, 1),
    F(data_segs_in, 1),
    F(segs_out, 1),
    F(data_segs_out, 1),
    F(lost_out, 1),
    F(sacked_out, 1),
    F(sk_txhash, 1),
    F(bytes_received, 1),
    F(bytes_acked, 1),
    F(sk, 1),
    F(skb_data, 1),
    F(skb_data_end, 1),
    F(skb_len, 1),
    F(skb_tcp_flags, 1),
};
#undef F

static const struct hooks_field_desc *hooks_field_at(uint32_t off)
{
	for (size_t i = 0; i < sizeof(hooks_fields) / sizeof(hooks_fields[0]); i++) {
		const struct hooks_field_desc *f = &hooks_fields[i];
		if (off >= f->off && off < f->off + (uint32_t)f->size * f->count)
			return f;
	}
	return NULL;
}

#define V(m) offsetof(struct hooks_sock_ops_view, m)

static int hooks_ctx_access(uint32_t off, uint32_t size, bool write, struct bpfvm_ctx_access *acc,
			    char *why, size_t why_len)
{
	const struct hooks_field_desc *f;

	if (size != 1 && size != 2 && size != 4 && size != 8) {
		snprintf(why, why_len, "sock_ops: ctx+%u: bad access size %u", off, size);
		return -EACCES;
	}
	if (off >= HOOKS_CTX_SIZE || off + size > HOOKS_CTX_SIZE) {
		snprintf(why, why_len, "sock_ops: ctx+%u size %u: outside the %u-byte ctx", off,
			 size, HOOKS_CTX_SIZE);
		return -EACCES;
	}
	if (off % size != 0) {
		snprintf(why, why_len, "sock_ops: ctx+%u size %u: misaligned", off, size);
		return -EACCES;
	}
	f = hooks_field_at(off);
	acc->field = (int)(off / 4);
	acc->result = BPFVM_CTX_SCALAR;

	if (write) {
		/* Only reply (replylong[0]) and the tx hash are the program's to
		 * set, as Linux's sock_ops_is_valid_access: replylong[1..3]
		 * alias args[1..3], which the next program of a MULTI array
		 * reads as the callback's arguments. */
		bool ok = off == V(reply) || off == V(sk_txhash);
		if (!ok) {
			snprintf(why, why_len, "sock_ops: ctx+%u (%s): field is read-only", off,
				 f->name);
			return -EACCES;
		}
		if (size != 4) {
			snprintf(why, why_len, "sock_ops: ctx+%u (%s): store must be 4 bytes", off,
				 f->name);
			return -EACCES;
		}
		return 0;
	}

	switch (off) {
	case V(bytes_received):
	case V(bytes_acked):
		if (size != 8)
			goto want8;
		return 0;
	case V(bytes_received) + 4:
	case V(bytes_acked) + 4:
		goto want8;
	case V(sk):
		/* A pointer to the struct bpf_sock view the context carries; the
		 * verifier tracks it as socket-or-NULL (never NULL here). */
		if (size != 8)
			goto want8;
		acc->result = BPFVM_CTX_SOCK_OR_NULL;
		return 0;
	case V(sk) + 4:
		goto want8;
	case V(skb_data):
	case V(skb_data_end):
		if (size != 8)
			goto want8;
		acc->result = off == V(skb_data) ? BPFVM_CTX_PKT : BPFVM_CTX_PKT_END;
		return 0;
	case V(skb_data) + 4:
	case V(skb_data_end) + 4:
		goto want8;
	default:
		break;
	}
	/* Linux lets only skb_tcp_flags be read narrower than its 4 bytes. */
	if (off >= V(skb_tcp_flags) && size <= 4)
		return 0;
	if (size != 4) {
		snprintf(why, why_len, "sock_ops: ctx+%u (%s): load must be 4 bytes", off, f->name);
		return -EACCES;
	}
	return 0;
want8:
	snprintf(why, why_len, "sock_ops: ctx+%u (%s): load must be 8 bytes at its start", off,
		 f->name);
	return -EACCES;
}

uint32_t hooks_fields_groups(uint64_t fields)
{
	/* family .. is_fullsock */
	uint64_t addr =
	    ((1ull << (HOOKS_FIELD(is_fullsock) + 1)) - 1) & ~((1ull << HOOKS_FIELD(family)) - 1);
	/* snd_cwnd .. sacked_out, bytes_received, bytes_acked (the cb flags word
	 * comes from hooks_sock itself, but reads 0 on request sockets as the
	 * other TCP fields) */
	uint64_t tcp =
	    ((1ull << (HOOKS_FIELD(sacked_out) + 1)) - 1) & ~((1ull << HOOKS_FIELD(snd_cwnd)) - 1);
	uint64_t sock = 1ull << HOOKS_FIELD(sk_txhash);
	uint32_t g = 0;

	tcp |= 3ull << HOOKS_FIELD(bytes_received);
	tcp |= 3ull << HOOKS_FIELD(bytes_acked);
	if (fields & addr)
		g |= HOOKS_INFO_ADDR;
	if (fields & tcp)
		g |= HOOKS_INFO_TCP | HOOKS_INFO_ADDR; /* is_fullsock decides */
	if (fields & sock)
		g |= HOOKS_INFO_SOCK;
	return g;
}

/* ---- kfuncs (Linux 6.15: bpf_cast_to_kern_ctx, bpf_sock_ops_enable_tx_tstamp) ---- */

#define HOOKS_KF_CAST_TO_KERN_CTX (BPFVM_KFUNC_ID_BASE + 1)
#define HOOKS_KF_ENABLE_TX_TSTAMP (BPFVM_KFUNC_ID_BASE + 2)

/* The kernel context of a sock_ops program is struct bpf_sock_ops_kern;
 * here it is the hooks_ctx itself, typed apart so that only kfuncs take it. */
static uint64_t hooks_kf_cast_to_kern_ctx(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4,
					  uint64_t r5, struct bpfvm_run *run)
{
	(void)r2, (void)r3, (void)r4, (void)r5, (void)run;
	return r1;
}

/* Linux bpf_sock_ops_enable_tx_tstamp: only in TSTAMP_SENDMSG_CB
 * (-EOPNOTSUPP), flags 0 (-EINVAL); marks the data the send queued, whose
 * last byte the stack then follows through SCHED, SND_SW and ACK. */
static uint64_t hooks_kf_enable_tx_tstamp(uint64_t r1, uint64_t flags, uint64_t r3, uint64_t r4,
					  uint64_t r5, struct bpfvm_run *run)
{
	struct hooks_ctx *ctx = (struct hooks_ctx *)(uintptr_t)r1;
	(void)r3, (void)r4, (void)r5, (void)run;
	if (ctx->view.op != HOOKS_OP_TSTAMP_SENDMSG_CB)
		return (uint64_t)(int64_t)-EOPNOTSUPP;
	if (flags)
		return (uint64_t)(int64_t)-EINVAL;
	ctx->tx_marked = 1;
	return 0;
}

static const struct bpfvm_helper hooks_kfuncs[] = {
    {.id = HOOKS_KF_CAST_TO_KERN_CTX,
     .name = "cast_to_kern_ctx",
     .fn = hooks_kf_cast_to_kern_ctx,
     .args = {BPFVM_A(CTX)},
     .ret = BPFVM_RET_BTF_KERN_CTX},
    {.id = HOOKS_KF_ENABLE_TX_TSTAMP,
     .name = "sock_ops_enable_tx_tstamp",
     .fn = hooks_kf_enable_tx_tstamp,
     .args = {BPFVM_A(KERN_CTX), BPFVM_A(SCALAR)},
     BPFVM_RET_RANGE(-EOPNOTSUPP, 0)},
};

/* name is "bpf_" then kf; compared by hand: GCC's -Wstringop-overread takes
 * strcmp(name + 4, ...) for a read past a zero-sized region under ASan */
static bool kfunc_name_is(const char *name, const char *kf)
{
	if (strncmp(name, "bpf_", 4) != 0)
		return false;
	for (name += 4; *name && *name == *kf; name++, kf++)
		;
	return *name == *kf;
}

static uint32_t hooks_kfunc_id(const char *name)
{
	for (size_t i = 0; i < sizeof(hooks_kfuncs) / sizeof(hooks_kfuncs[0]); i++)
		if (kfunc_name_is(name, hooks_kfuncs[i].name))
			return hooks_kfuncs[i].id;
	return 0;
}

static const struct bpfvm_helper *hooks_kfunc(uint32_t id)
{
	for (size_t i = 0; i < sizeof(hooks_kfuncs) / sizeof(hooks_kfuncs[0]); i++)
		if (hooks_kfuncs[i].id == id)
			return &hooks_kfuncs[i];
	return NULL;
}

/* The op a sock_ops ctx runs, for the helpers' op masks (bpfvm_helper.ops). */
static uint32_t hooks_ctx_op(const void *ctx)
{
	return ((const struct hooks_sock_ops_view *)ctx)->op;
}

const struct bpfvm_prog_type hooks_sock_ops_type = {
    .name = "sock_ops",
    .type = 13, /* BPF_PROG_TYPE_SOCK_OPS */
    .ctx_size = HOOKS_CTX_SIZE,
    .ctx_access = hooks_ctx_access,
    .helper = hooks_sock_ops_helper,
    .ctx_op = hooks_ctx_op,
    .ret_min = 0,
    .ret_max = 1,
    .nr_fields = HOOKS_NR_FIELDS,
    .btf = (const uint8_t *)&hooks_btf_blob,
    .btf_len = HOOKS_BTF_SIZE,
    .btf_ids = {[BPFVM_BTF_TCP_SOCK] = HOOKS_BTF_TCP_SOCK_ID},
    .kfunc_id = hooks_kfunc_id,
    .kfunc = hooks_kfunc,
};
