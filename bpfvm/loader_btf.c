/* .BTF, read only as far as map definitions need (Documentation/bpf/btf.rst of
 * Linux: header, type section, string section): every record is bounds-checked
 * once in ld_btf_parse so later lookups index validated offsets. Map structs
 * follow libbpf's encoding: int fields as `int (*name)[N]`, key/value as
 * pointers whose pointee BTF sizes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "loader_int.h"

#define BTF_MAGIC     0xeb9f
#define BTF_MAX_DEPTH 32

enum {
	BTF_INT = 1,
	BTF_PTR,
	BTF_ARRAY,
	BTF_STRUCT,
	BTF_UNION,
	BTF_ENUM,
	BTF_FWD,
	BTF_TYPEDEF,
	BTF_VOLATILE,
	BTF_CONST,
	BTF_RESTRICT,
	BTF_FUNC,
	BTF_FUNC_PROTO,
	BTF_VAR,
	BTF_DATASEC,
	BTF_FLOAT,
	BTF_DECL_TAG,
	BTF_TYPE_TAG,
	BTF_ENUM64,
};

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t t_kind(const uint8_t *t)
{
	return (rd32(t + 4) >> 24) & 0x1f;
}

static uint32_t t_vlen(const uint8_t *t)
{
	return rd32(t + 4) & 0xffff;
}

/* Bytes of kind-specific data after the 12-byte header, or -1 if unknown. */
static long extra_len(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case BTF_INT:
	case BTF_VAR:
	case BTF_DECL_TAG:
		return 4;
	case BTF_PTR:
	case BTF_FWD:
	case BTF_TYPEDEF:
	case BTF_VOLATILE:
	case BTF_CONST:
	case BTF_RESTRICT:
	case BTF_FUNC:
	case BTF_FLOAT:
	case BTF_TYPE_TAG:
		return 0;
	case BTF_ARRAY:
		return 12;
	case BTF_STRUCT:
	case BTF_UNION:
	case BTF_DATASEC:
	case BTF_ENUM64:
		return 12L * vlen;
	case BTF_ENUM:
	case BTF_FUNC_PROTO:
		return 8L * vlen;
	default:
		return -1;
	}
}

const char *ld_btf_str(const struct ld_btf *btf, uint32_t off)
{
	if (off >= btf->strs_len || !memchr(btf->strs + off, 0, btf->strs_len - off))
		return NULL;
	return btf->strs + off;
}

const uint8_t *ld_btf_type(const struct ld_btf *btf, uint32_t id)
{
	if (id == 0 || id > btf->ntypes)
		return NULL;
	return btf->types + btf->offs[id];
}

int ld_btf_parse(struct ld_ctx *c, const uint8_t *data, size_t size, struct ld_btf *btf)
{
	memset(btf, 0, sizeof(*btf));
	if (!data || size < 24) {
		ld_err(c, ".BTF", -1, "truncated header");
		return -EINVAL;
	}
	uint16_t magic;
	memcpy(&magic, data, 2);
	uint32_t hdr_len = rd32(data + 4), type_off = rd32(data + 8), type_len = rd32(data + 12),
		 str_off = rd32(data + 16), str_len = rd32(data + 20);
	if (magic != BTF_MAGIC || data[2] != 1) {
		ld_err(c, ".BTF", -1, "bad magic 0x%x or version %u", magic, data[2]);
		return -EINVAL;
	}
	if (hdr_len < 24 || hdr_len > size || (uint64_t)type_off + type_len > size - hdr_len ||
	    (uint64_t)str_off + str_len > size - hdr_len || type_off % 4) {
		ld_err(c, ".BTF", -1, "type or string section outside the data");
		return -EINVAL;
	}
	btf->types = data + hdr_len + type_off;
	btf->types_len = type_len;
	btf->strs = (const char *)data + hdr_len + str_off;
	btf->strs_len = str_len;
	if (str_len == 0 || btf->strs[str_len - 1] != 0) {
		ld_err(c, ".BTF", -1, "string section not NUL-terminated");
		return -EINVAL;
	}
	/* each record is at least 12 bytes: bounds the id table */
	btf->offs = calloc(type_len / 12 + 2, sizeof(*btf->offs));
	if (!btf->offs)
		return -ENOMEM;
	size_t off = 0;
	uint32_t id = 0;
	while (off < type_len) {
		if (type_len - off < 12) {
			ld_err(c, ".BTF", -1, "type %u: truncated", id + 1);
			return -EINVAL;
		}
		const uint8_t *t = btf->types + off;
		long extra = extra_len(t_kind(t), t_vlen(t));
		if (extra < 0) {
			ld_err(c, ".BTF", -1, "type %u: unknown kind %u", id + 1, t_kind(t));
			return -EINVAL;
		}
		if ((size_t)extra > type_len - off - 12) {
			ld_err(c, ".BTF", -1, "type %u: runs past the type section", id + 1);
			return -EINVAL;
		}
		if (!ld_btf_str(btf, rd32(t))) {
			ld_err(c, ".BTF", -1, "type %u: name offset out of range", id + 1);
			return -EINVAL;
		}
		btf->offs[++id] = (uint32_t)off;
		off += 12 + (size_t)extra;
	}
	btf->ntypes = id;
	return 0;
}

void ld_btf_fini(struct ld_btf *btf)
{
	free(btf->offs);
	btf->offs = NULL;
}

int ld_btf_find_datasec(const struct ld_btf *btf, const char *name, uint32_t *id)
{
	for (uint32_t i = 1; i <= btf->ntypes; i++) {
		const uint8_t *t = ld_btf_type(btf, i);
		if (t_kind(t) == BTF_DATASEC && strcmp(ld_btf_str(btf, rd32(t)), name) == 0) {
			/* var_secinfo type ids are checked when used */
			*id = i;
			return 0;
		}
	}
	return -ENOENT;
}

/* Follow typedef/const/volatile/restrict/type_tag to the underlying type. */
static const uint8_t *skip_mods(const struct ld_btf *btf, uint32_t id)
{
	for (int d = 0; d < BTF_MAX_DEPTH; d++) {
		const uint8_t *t = ld_btf_type(btf, id);
		if (!t)
			return NULL;
		switch (t_kind(t)) {
		case BTF_TYPEDEF:
		case BTF_VOLATILE:
		case BTF_CONST:
		case BTF_RESTRICT:
		case BTF_TYPE_TAG:
			id = rd32(t + 8);
			break;
		default:
			return t;
		}
	}
	return NULL;
}

static int type_size(const struct ld_btf *btf, uint32_t id, int depth, uint64_t *size)
{
	if (depth > BTF_MAX_DEPTH)
		return -EINVAL;
	const uint8_t *t = skip_mods(btf, id);
	if (!t)
		return -EINVAL;
	switch (t_kind(t)) {
	case BTF_INT:
	case BTF_STRUCT:
	case BTF_UNION:
	case BTF_ENUM:
	case BTF_ENUM64:
	case BTF_FLOAT:
		*size = rd32(t + 8);
		return 0;
	case BTF_PTR:
		*size = 8;
		return 0;
	case BTF_ARRAY: {
		uint64_t elem;
		uint32_t n = rd32(t + 20);
		if (type_size(btf, rd32(t + 12), depth + 1, &elem))
			return -EINVAL;
		if (elem && n > UINT32_MAX / elem)
			return -EINVAL;
		*size = elem * n;
		return 0;
	}
	default:
		return -EINVAL;
	}
}

/* `int (*name)[N]` → N */
static int int_field(const struct ld_btf *btf, uint32_t id, uint32_t *val)
{
	const uint8_t *t = skip_mods(btf, id);
	if (!t || t_kind(t) != BTF_PTR)
		return -EINVAL;
	const uint8_t *a = skip_mods(btf, rd32(t + 8));
	if (!a || t_kind(a) != BTF_ARRAY)
		return -EINVAL;
	*val = rd32(a + 20);
	return 0;
}

/* `typeof(x) *name` → sizeof(x) */
static int ptr_size(const struct ld_btf *btf, uint32_t id, uint32_t *val)
{
	const uint8_t *t = skip_mods(btf, id);
	uint64_t sz;
	if (!t || t_kind(t) != BTF_PTR || type_size(btf, rd32(t + 8), 0, &sz) || sz > UINT32_MAX)
		return -EINVAL;
	*val = (uint32_t)sz;
	return 0;
}

int ld_btf_map_def(struct ld_ctx *c, const struct ld_btf *btf, uint32_t var_id,
		   struct bpfvm_map_def *def, const char **name)
{
	const uint8_t *v = ld_btf_type(btf, var_id);
	if (!v || t_kind(v) != BTF_VAR) {
		ld_err(c, ".maps", -1, "BTF type %u is not a variable", var_id);
		return -EINVAL;
	}
	*name = ld_btf_str(btf, rd32(v));
	const uint8_t *s = skip_mods(btf, rd32(v + 8));
	if (!s || t_kind(s) != BTF_STRUCT) {
		ld_err(c, ".maps", -1, "map '%s': definition is not a struct", *name);
		return -EINVAL;
	}
	uint32_t key_size = 0, value_size = 0, kt = 0, vt = 0;
	for (uint32_t i = 0; i < t_vlen(s); i++) {
		const uint8_t *m = s + 12 + 12 * i;
		const char *mn = ld_btf_str(btf, rd32(m));
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
