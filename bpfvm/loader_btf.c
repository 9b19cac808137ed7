/* .BTF as far as map definitions need; the reader itself is btf.c. Map structs
 * follow libbpf's encoding: int fields as `int (*name)[N]`, key/value as
 * pointers whose pointee BTF sizes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "loader_int.h"

int ld_btf_parse(struct ld_ctx *c, const uint8_t *data, size_t size, struct bpfvm_btf *btf)
{
	char why[96];
	int err = bpfvm_btf_parse(data, size, btf, why, sizeof(why));
	if (err == -EINVAL)
		ld_err(c, ".BTF", -1, "%s", why);
	return err;
}

#define rd32   bpfvm_btf_rd32
#define t_kind bpfvm_btf_kind
#define t_vlen bpfvm_btf_vlen

int ld_btf_find_datasec(const struct bpfvm_btf *btf, const char *name, uint32_t *id)
{
	for (uint32_t i = 1; i <= btf->ntypes; i++) {
		const uint8_t *t = bpfvm_btf_type(btf, i);
		if (t_kind(t) == BPFVM_BTF_K_DATASEC &&
		    strcmp(bpfvm_btf_str(btf, rd32(t)), name) == 0) {
			/* var_secinfo type ids are checked when used */
			*id = i;
			return 0;
		}
	}
	return -ENOENT;
}

static const uint8_t *skip_mods(const struct bpfvm_btf *btf, uint32_t id)
{
	return bpfvm_btf_skip_mods(btf, id, NULL);
}

/* `int (*name)[N]` → N */
static int int_field(const struct bpfvm_btf *btf, uint32_t id, uint32_t *val)
{
	const uint8_t *t = skip_mods(btf, id);
	if (!t || t_kind(t) != BPFVM_BTF_K_PTR)
		return -EINVAL;
	const uint8_t *a = skip_mods(btf, rd32(t + 8));
	if (!a || t_kind(a) != BPFVM_BTF_K_ARRAY)
		return -EINVAL;
	*val = rd32(a + 20);
	return 0;
}

/* `typeof(x) *name` → sizeof(x) */
static int ptr_size(const struct bpfvm_btf *btf, uint32_t id, uint32_t *val)
{
	const uint8_t *t = skip_mods(btf, id);
	uint64_t sz;
	if (!t || t_kind(t) != BPFVM_BTF_K_PTR || bpfvm_btf_size(btf, rd32(t + 8), &sz) ||
	    sz > UINT32_MAX)
		return -EINVAL;
	*val = (uint32_t)sz;
	return 0;
}

/* The value type's struct bpf_spin_lock, a top-level member as the kernel
 * finds it (btf_find_spin_lock): only bpf_spin_lock/unlock may touch it, and
 * only a map that has one may be locked. 0 (none or found), -EINVAL for two
 * or one off a 4-byte boundary. */
static int spin_lock_of(const struct bpfvm_btf *btf, uint32_t value_ptr, struct bpfvm_map_def *def)
{
	const uint8_t *p = skip_mods(btf, value_ptr);
	const uint8_t *s = p && t_kind(p) == BPFVM_BTF_K_PTR ? skip_mods(btf, rd32(p + 8)) : NULL;
	if (!s || t_kind(s) != BPFVM_BTF_K_STRUCT)
		return 0;
	for (uint32_t i = 0; i < t_vlen(s); i++) {
		const uint8_t *m = s + 12 + 12 * i;
		const uint8_t *mt = skip_mods(btf, rd32(m + 4));
		const char *tn = mt ? bpfvm_btf_name(btf, mt) : NULL;
		if (!mt || t_kind(mt) != BPFVM_BTF_K_STRUCT || !tn || strcmp(tn, "bpf_spin_lock"))
			continue;
		uint32_t bits = rd32(m + 8);
		if (bpfvm_btf_kflag(s))
			bits &= 0xffffff;
		if (def->has_spin_lock || bits % 32)
			return -EINVAL;
		def->has_spin_lock = true;
		def->spin_lock_off = bits / 8;
	}
	return 0;
}

int ld_btf_map_def(struct ld_ctx *c, const struct bpfvm_btf *btf, uint32_t var_id,
		   struct bpfvm_map_def *def, const char **name)
{
	const uint8_t *v = bpfvm_btf_type(btf, var_id);
	if (!v || t_kind(v) != BPFVM_BTF_K_VAR) {
		ld_err(c, ".maps", -1, "BTF type %u is not a variable", var_id);
		return -EINVAL;
	}
	*name = bpfvm_btf_str(btf, rd32(v));
	const uint8_t *s = skip_mods(btf, rd32(v + 8));
	if (!s || t_kind(s) != BPFVM_BTF_K_STRUCT) {
		ld_err(c, ".maps", -1, "map '%s': definition is not a struct", *name);
		return -EINVAL;
	}
	uint32_t key_size = 0, value_size = 0, kt = 0, vt = 0;
	for (uint32_t i = 0; i < t_vlen(s); i++) {
		const uint8_t *m = s + 12 + 12 * i;
		const char *mn = bpfvm_btf_str(btf, rd32(m));
		uint32_t mt = rd32(m + 4), *dst = NULL, tmp;
		int err = 0;
		if (!mn) {
			ld_err(c, ".maps", -1, "map '%s': member name out of range", *name);
			return -EINVAL;
		}
		if (strcmp(mn, "type") == 0)
			dst = &def->type;
		else if (strcmp(mn, "max_entries") == 0)
			dst = &def->max_entries;
		else if (strcmp(mn, "map_flags") == 0)
			dst = &def->map_flags;
		else if (strcmp(mn, "key_size") == 0)
			dst = &kt;
		else if (strcmp(mn, "value_size") == 0)
			dst = &vt;
		else if (strcmp(mn, "numa_node") == 0 || strcmp(mn, "pinning") == 0)
			dst = &tmp; /* no NUMA nodes; pinning is the caller's business */
		if (dst) {
			err = int_field(btf, mt, dst);
		} else if (strcmp(mn, "key") == 0) {
			err = ptr_size(btf, mt, &key_size);
		} else if (strcmp(mn, "value") == 0) {
			err = ptr_size(btf, mt, &value_size);
			if (!err && spin_lock_of(btf, mt, def)) {
				ld_err(c, ".maps", -1,
				       "map '%s': the value has two struct bpf_spin_lock or a "
				       "misaligned one",
				       *name);
				return -EINVAL;
			}
		} else {
			ld_err(c, ".maps", -1, "map '%s': unsupported field '%s'", *name, mn);
			return -EINVAL;
		}
		if (err) {
			ld_err(c, ".maps", -1, "map '%s': field '%s' is not encoded as libbpf does",
			       *name, mn);
			return -EINVAL;
		}
	}
	if ((kt && key_size && kt != key_size) || (vt && value_size && vt != value_size)) {
		ld_err(c, ".maps", -1, "map '%s': key/value size disagrees with its type", *name);
		return -EINVAL;
	}
	def->key_size = kt ? kt : key_size;
	def->value_size = vt ? vt : value_size;
	return 0;
}

/* Is name an extern function of the object's .BTF (a FUNC with linkage
 * BTF_FUNC_EXTERN, 2)? libbpf takes an undefined symbol a call names as a
 * kfunc only then; clang writes one for every `extern ... __ksym` called. */
bool ld_btf_extern_func(struct ld_ctx *c, const char *name)
{
	struct bpfvm_btf btf;
	char why[96];
	bool found = false;
	if (!c->btf_sec || bpfvm_btf_parse(c->secs[c->btf_sec].data, c->secs[c->btf_sec].size, &btf,
					   why, sizeof(why)))
		return false;
	for (uint32_t i = 1; i <= btf.ntypes && !found; i++) {
		const uint8_t *t = bpfvm_btf_type(&btf, i);
		found = t_kind(t) == BPFVM_BTF_K_FUNC && t_vlen(t) == 2 &&
			strcmp(bpfvm_btf_str(&btf, rd32(t)), name) == 0;
	}
	bpfvm_btf_fini(&btf);
	return found;
}
