/* hooks: bpf_sock_map_update (53) and bpf_sock_hash_update (70), the way a
 * sock_ops program puts the socket it runs for into a SOCKMAP / SOCKHASH
 * (docs/sockops.md §5). As Linux's net/core/sock_map.c: only a full socket,
 * only at the ESTABLISHED and LISTEN callbacks (sock_map_op_okay), else
 * -EOPNOTSUPP. The map keeps the socket by (hooks_sock, cookie) until the
 * socket closes (hooks_sock_fini) or the entry is deleted. */
#include <errno.h>

#include "hooks_int.h"

static const struct bpfvm_helper hooks_sockmap_helpers[2];

static uint64_t hooks_sock_map_update(uint64_t r1, uint64_t map, uint64_t key, uint64_t flags,
				      uint64_t r5, struct bpfvm_run *run)
{
	const struct hooks_ctx *ctx = (const struct hooks_ctx *)(uintptr_t)r1;
	struct hooks_sock *hs = ctx->hs;

	(void)r5, (void)run;
	/* both entries name the same ops (Linux's sock_map_op_okay) */
	if (!hs->fullsock || !hooks_helper_op_ok(&hooks_sockmap_helpers[0], ctx))
		return (uint64_t)(int64_t)-EOPNOTSUPP;
	return (uint64_t)(int64_t)bpfvm_sock_map_update((struct bpfvm_map *)(uintptr_t)map,
							(const void *)(uintptr_t)key, hs,
							hs->cookie, flags);
}

#define HK_SOCKMAP_OPS                                                                             \
	((1ull << HOOKS_OP_ACTIVE_ESTABLISHED_CB) | (1ull << HOOKS_OP_PASSIVE_ESTABLISHED_CB) |    \
	 (1ull << HOOKS_OP_TCP_LISTEN_CB))

static const struct bpfvm_helper hooks_sockmap_helpers[] = {
    {.id = 53,
     .name = "sock_map_update",
     .fn = hooks_sock_map_update,
     .args = {BPFVM_A(CTX), BPFVM_A(MAP), BPFVM_A_KEY(READ), BPFVM_A(ANYTHING)},
     BPFVM_RET_ANY,
     .map_types = BPFVM_MAPT(BPFVM_MAP_SOCKMAP),
     .ops = HK_SOCKMAP_OPS},
    {.id = 70,
     .name = "sock_hash_update",
     .fn = hooks_sock_map_update,
     .args = {BPFVM_A(CTX), BPFVM_A(MAP), BPFVM_A_KEY(READ), BPFVM_A(ANYTHING)},
     BPFVM_RET_ANY,
     .map_types = BPFVM_MAPT(BPFVM_MAP_SOCKHASH),
     .ops = HK_SOCKMAP_OPS},
};

const struct bpfvm_helper *hooks_sockmap_helper(uint32_t id)
{
	for (size_t i = 0; i < sizeof(hooks_sockmap_helpers) / sizeof(hooks_sockmap_helpers[0]);
	     i++)
		if (hooks_sockmap_helpers[i].id == id)
			return &hooks_sockmap_helpers[i];
	return NULL;
}
