/* vdiff: the skops side. Loads a program with the sock_ops type the way
 * skopsctl does (bpfvm_prog_load, compatibility mode), and runs accepted
 * programs on the bounds-checked interpreter over random contexts, sockets
 * and map contents. A run faults when the interpreter stops, or when the
 * program changed context bytes no sock_ops store may reach (read-only view
 * fields, the struct bpf_sock view, the socket pointer behind the view).
 * Reaches into hooks' context layout, as hooks' unit tests do. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "hooks.h"
#include "hooks_int.h"
#include "vdiff.h"

#define VD_SLOG_SIZE (64u * 1024)

struct vd_skops {
	struct bpfvm_registry *reg;
	struct bpfvm_map *maps[VD_NMAPS];
	struct cg_tree *tree;
	struct hooks *hk;
	struct hooks_sock hs;
	struct vd_rng *rng; /* the running check's, for the socket double */
	char log[VD_SLOG_SIZE];
};

const struct bpfvm_map_def vd_map_defs[VD_NMAPS] = {
    [VD_MAP_ARRAY] = {.type = BPFVM_MAP_ARRAY, .key_size = 4, .value_size = 48, .max_entries = 4},
    [VD_MAP_HASH] = {.type = BPFVM_MAP_HASH, .key_size = 8, .value_size = 16, .max_entries = 16},
    [VD_MAP_SMALL] = {.type = BPFVM_MAP_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1},
    [VD_MAP_RINGBUF] = {.type = BPFVM_MAP_RINGBUF, .max_entries = 4096},
};

/* cg_tree wants handle ops; nothing is attached here. */
static void vd_cg_nop(void *p)
{
	(void)p;
}
static uint32_t vd_cg_id(const void *p)
{
	(void)p;
	return 0;
}
static const struct cg_prog_ops vd_cg_ops = {.get = vd_cg_nop, .put = vd_cg_nop, .id = vd_cg_id};

/* The socket double: random answers, every write inside the buffer given. */
static struct vd_skops *vd_of(const struct hooks_sock *hs)
{
	return (struct vd_skops *)((char *)hs - offsetof(struct vd_skops, hs));
}

static void vd_info(const struct hooks_sock *hs, uint32_t groups, struct hooks_sk_info *out)
{
	struct vd_skops *s = vd_of(hs);
	(void)groups;
	memset(out, 0, sizeof(*out));
	out->family = vd_chance(s->rng, 50) ? HOOKS_AF_INET : HOOKS_AF_INET6;
}

static int vd_setsockopt(struct hooks_sock *hs, int level, int optname, const void *val,
			 uint32_t len)
{
	(void)level, (void)optname, (void)val, (void)len;
	return vd_chance(vd_of(hs)->rng, 20) ? -EINVAL : 0;
}

static int vd_getsockopt(struct hooks_sock *hs, int level, int optname, void *val, uint32_t *len)
{
	struct vd_skops *s = vd_of(hs);
	(void)level, (void)optname;
	if (vd_chance(s->rng, 20))
		return -ENOENT;
	memset(val, 0x41, *len);
	return 0;
}

static const struct hooks_sock_ops vd_sock_ops = {
    .info = vd_info, .setsockopt = vd_setsockopt, .getsockopt = vd_getsockopt};

int vd_skops_open(struct vd_skops **out)
{
	struct vd_skops *s = calloc(1, sizeof(*s));
	int err;
	if (!s)
		return -ENOMEM;
	err = bpfvm_registry_create(&s->reg);
	for (int i = 0; !err && i < VD_NMAPS; i++)
		err = bpfvm_map_create(s->reg, &vd_map_defs[i], &s->maps[i]);
	if (!err)
		err = cg_tree_create(&vd_cg_ops, 1, &s->tree);
	if (!err) {
		struct hooks_config cfg = {.tree = s->tree, .reg = s->reg, .netns_cookie = 7};
		err = hooks_create(&cfg, &s->hk);
	}
	if (err) {
		vd_skops_close(s);
		return err;
	}
	hooks_sock_init(&s->hs, s->hk, &vd_sock_ops, NULL, true);
	*out = s;
	return 0;
}

void vd_skops_close(struct vd_skops *s)
{
	if (!s)
		return;
	if (s->hk) {
		hooks_sock_fini(&s->hs);
		hooks_destroy(s->hk);
	}
	if (s->tree)
		cg_tree_destroy(s->tree);
	for (int i = 0; i < VD_NMAPS; i++)
		if (s->maps[i])
			bpfvm_map_put(s->maps[i]);
	if (s->reg)
		bpfvm_registry_destroy(s->reg);
	free(s);
}

/* The reason line of a rejection: the log's last non-empty line. */
static void vd_reason(const char *log, char *why, size_t why_len)
{
	const char *end = log + strlen(log);
	while (end > log && end[-1] == '\n')
		end--;
	const char *start = end;
	while (start > log && start[-1] != '\n')
		start--;
	size_t n = (size_t)(end - start);
	if (n >= why_len)
		n = why_len - 1;
	memcpy(why, start, n);
	why[n] = 0;
	/* "verifier: insn N: " says where, not what */
	const char *p = strstr(why, ": insn ");
	if (p && (p = strchr(p + 7, ':')) && p[1] == ' ')
		memmove(why, p + 2, strlen(p + 2) + 1);
}

int vd_skops_load(struct vd_skops *s, const struct vd_prog *p, struct bpfvm_prog **prog, char *why,
		  size_t why_len)
{
	struct bpfvm_log log = {.level = why ? 1 : 0, .buf = s->log, .size = sizeof s->log};
	/* privileged, as the kernel judges vdiff (root): pointers may be
	 * stored into map values on both sides */
	struct bpfvm_load_opts o = {
	    .type = &hooks_sock_ops_type, .allow_ptr_leaks = true, .log = &log};
	s->log[0] = 0;
	*prog = NULL;
	int err = bpfvm_prog_load(s->reg, p->insns, p->n, s->maps, VD_NMAPS, &o, prog);
	if (err && why)
		vd_reason(s->log, why, why_len);
	return err;
}

static void vd_fill(struct vd_rng *r, void *buf, size_t n)
{
	uint8_t *b = buf;
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)vd_rand(r);
}

/* Random map contents: every array slot, a random subset of hash keys 0..7
 * (the keys the generator uses), an empty ring. */
static void vd_maps_randomise(struct vd_skops *s, struct vd_rng *r)
{
	for (uint32_t k = 0; k < vd_map_defs[VD_MAP_ARRAY].max_entries; k++)
		vd_fill(r, bpfvm_map_lookup(s->maps[VD_MAP_ARRAY], &k), 48);
	uint32_t z = 0;
	vd_fill(r, bpfvm_map_lookup(s->maps[VD_MAP_SMALL], &z), 8);
	for (uint64_t k = 0; k < 16; k++) {
		uint8_t v[16];
		bpfvm_map_delete(s->maps[VD_MAP_HASH], &k);
		if (k < 8 && vd_chance(r, 60)) {
			vd_fill(r, v, sizeof v);
			bpfvm_map_update(s->maps[VD_MAP_HASH], &k, v, BPFVM_ANY);
		}
	}
	uint8_t rec[4096];
	while (bpfvm_ringbuf_consume(s->maps[VD_MAP_RINGBUF], rec, sizeof rec) > 0)
		;
}

/* Bytes of the view a sock_ops program may change: reply/replylong
 * (stores), sk_txhash (store), cb flags (sock_ops_cb_flags_set). */
static bool vd_view_writable(size_t off)
{
	return (off >= offsetof(struct hooks_sock_ops_view, replylong) &&
		off < offsetof(struct hooks_sock_ops_view, family)) ||
	       (off >= offsetof(struct hooks_sock_ops_view, sk_txhash) &&
		off < offsetof(struct hooks_sock_ops_view, sk_txhash) + 4) ||
	       (off >= offsetof(struct hooks_sock_ops_view, bpf_sock_ops_cb_flags) &&
		off < offsetof(struct hooks_sock_ops_view, bpf_sock_ops_cb_flags) + 4);
}

int vd_skops_check(struct vd_skops *s, const struct bpfvm_prog *prog, struct vd_rng *r,
		   unsigned runs, char *what, size_t what_len)
{
	struct hooks_ctx ctx, before;
	s->rng = r;
	for (unsigned i = 0; i < runs; i++) {
		vd_maps_randomise(s, r);
		vd_fill(r, &ctx, sizeof ctx);
		if (vd_chance(r, 70))
			ctx.view.op = vd_below(r, 16);
		ctx.view.sk = (uint64_t)(uintptr_t)&ctx.bsk;
		/* skops carries no packet on sock_ops calls (hooks_call) */
		ctx.view.skb_data = ctx.view.skb_data_end = 0;
		s->hs.fullsock = vd_chance(r, 80);
		s->hs.cb_flags = (uint32_t)vd_rand(r) & HOOKS_CB_ALL;
		ctx.hs = &s->hs;
		memcpy(&before, &ctx, sizeof ctx);
		int64_t stop = -1;
		/* the length covers the bpf_sock view ctx->sk points at, not hs */
		bpfvm_prog_run_checked(prog, &ctx, offsetof(struct hooks_ctx, hs), &stop);
		if (stop >= 0) {
			snprintf(what, what_len,
				 "checked interpreter stopped at insn %lld (run %u)",
				 (long long)stop, i);
			return 1;
		}
		if (ctx.hs != &s->hs) {
			snprintf(what, what_len,
				 "the ctx's socket pointer was overwritten (run %u)", i);
			return 1;
		}
		if (memcmp(&ctx.bsk, &before.bsk, sizeof ctx.bsk) != 0) {
			snprintf(what, what_len, "the read-only bpf_sock view changed (run %u)", i);
			return 1;
		}
		const uint8_t *a = (const uint8_t *)&ctx.view, *b = (const uint8_t *)&before.view;
		for (size_t off = 0; off < sizeof ctx.view; off++) {
			if (a[off] != b[off] && !vd_view_writable(off)) {
				snprintf(what, what_len, "read-only ctx byte %zu changed (run %u)",
					 off, i);
				return 1;
			}
		}
	}
	return 0;
}
