/* BTF reader shared by the loader (an object's .BTF, CO-RE relocation) and the
 * verifier (the type a program type publishes): Linux's
 * Documentation/bpf/btf.rst (header, type section, string section). Every
 * record is bounds-checked once in bpfvm_btf_parse, so lookups index validated
 * offsets; member and array type ids are checked when followed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm_int.h"

#define BTF_MAGIC     0xeb9f
#define BTF_MAX_DEPTH 32

uint32_t bpfvm_btf_rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

uint32_t bpfvm_btf_kind(const uint8_t *t)
{
	return (bpfvm_btf_rd32(t + 4) >> 24) & 0x1f;
}

uint32_t bpfvm_btf_vlen(const uint8_t *t)
{
	return bpfvm_btf_rd32(t + 4) & 0xffff;
}

bool bpfvm_btf_kflag(const uint8_t *t)
{
	return bpfvm_btf_rd32(t + 4) >> 31;
}

/* Bytes of kind-specific data after the 12-byte header, or -1 if unknown. */
static long extra_len(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case BPFVM_BTF_K_INT:
	case BPFVM_BTF_K_VAR:
	case BPFVM_BTF_K_DECL_TAG:
		return 4;
	case BPFVM_BTF_K_PTR:
	case BPFVM_BTF_K_FWD:
	case BPFVM_BTF_K_TYPEDEF:
	case BPFVM_BTF_K_VOLATILE:
	case BPFVM_BTF_K_CONST:
	case BPFVM_BTF_K_RESTRICT:
	case BPFVM_BTF_K_FUNC:
	case BPFVM_BTF_K_FLOAT:
	case BPFVM_BTF_K_TYPE_TAG:
		return 0;
	case BPFVM_BTF_K_ARRAY:
		return 12;
	case BPFVM_BTF_K_STRUCT:
	case BPFVM_BTF_K_UNION:
	case BPFVM_BTF_K_DATASEC:
	case BPFVM_BTF_K_ENUM64:
		return 12L * vlen;
	case BPFVM_BTF_K_ENUM:
	case BPFVM_BTF_K_FUNC_PROTO:
		return 8L * vlen;
	default:
		return -1;
	}
}

const char *bpfvm_btf_str(const struct bpfvm_btf *btf, uint32_t off)
{
	if (off >= btf->strs_len || !memchr(btf->strs + off, 0, btf->strs_len - off))
		return NULL;
	return btf->strs + off;
}

const char *bpfvm_btf_name(const struct bpfvm_btf *btf, const uint8_t *t)
{
	const char *n = bpfvm_btf_str(btf, bpfvm_btf_rd32(t)); /* checked by parse */
	return n ? n : "";
}

const uint8_t *bpfvm_btf_type(const struct bpfvm_btf *btf, uint32_t id)
{
	if (id == 0 || id > btf->ntypes)
		return NULL;
	return btf->types + btf->offs[id];
}

int bpfvm_btf_parse(const uint8_t *data, size_t size, struct bpfvm_btf *btf, char *why, size_t n)
{
	memset(btf, 0, sizeof(*btf));
	if (!data || size < 24) {
		snprintf(why, n, "truncated header");
		return -EINVAL;
	}
	uint16_t magic;
	memcpy(&magic, data, 2);
	uint32_t hdr_len = bpfvm_btf_rd32(data + 4), type_off = bpfvm_btf_rd32(data + 8),
		 type_len = bpfvm_btf_rd32(data + 12), str_off = bpfvm_btf_rd32(data + 16),
		 str_len = bpfvm_btf_rd32(data + 20);
	if (magic != BTF_MAGIC || data[2] != 1) {
		snprintf(why, n, "bad magic 0x%x or version %u", magic, data[2]);
		return -EINVAL;
	}
	if (hdr_len < 24 || hdr_len > size || (uint64_t)type_off + type_len > size - hdr_len ||
	    (uint64_t)str_off + str_len > size - hdr_len || type_off % 4) {
		snprintf(why, n, "type or string section outside the data");
		return -EINVAL;
	}
	btf->types = data + hdr_len + type_off;
	btf->types_len = type_len;
	btf->strs = (const char *)data + hdr_len + str_off;
	btf->strs_len = str_len;
	if (str_len == 0 || btf->strs[str_len - 1] != 0) {
		snprintf(why, n, "string section not NUL-terminated");
		return -EINVAL;
	}
	/* each record is at least 12 bytes: bounds the id table */
	btf->offs = calloc(type_len / 12 + 2, sizeof(*btf->offs));
	if (!btf->offs)
		return -ENOMEM;
	size_t off = 0;
	uint32_t id = 0;
	while (off < type_len) {
		int err = -EINVAL;
		if (type_len - off < 12) {
			snprintf(why, n, "type %u: truncated", id + 1);
			goto bad;
		}
		const uint8_t *t = btf->types + off;
		long extra = extra_len(bpfvm_btf_kind(t), bpfvm_btf_vlen(t));
		if (extra < 0) {
			snprintf(why, n, "type %u: unknown kind %u", id + 1, bpfvm_btf_kind(t));
			goto bad;
		}
		if ((size_t)extra > type_len - off - 12) {
			snprintf(why, n, "type %u: runs past the type section", id + 1);
			goto bad;
		}
		if (!bpfvm_btf_str(btf, bpfvm_btf_rd32(t))) {
			snprintf(why, n, "type %u: name offset out of range", id + 1);
			goto bad;
		}
		btf->offs[++id] = (uint32_t)off;
		off += 12 + (size_t)extra;
		continue;
	bad:
		bpfvm_btf_fini(btf);
		return err;
	}
	btf->ntypes = id;
	return 0;
}

void bpfvm_btf_fini(struct bpfvm_btf *btf)
{
	free(btf->offs);
	btf->offs = NULL;
	btf->ntypes = 0;
}

const uint8_t *bpfvm_btf_skip_mods(const struct bpfvm_btf *btf, uint32_t id, uint32_t *out_id)
{
	for (int d = 0; d < BTF_MAX_DEPTH; d++) {
		const uint8_t *t = bpfvm_btf_type(btf, id);
		if (!t)
			return NULL;
		switch (bpfvm_btf_kind(t)) {
		case BPFVM_BTF_K_TYPEDEF:
		case BPFVM_BTF_K_VOLATILE:
		case BPFVM_BTF_K_CONST:
		case BPFVM_BTF_K_RESTRICT:
		case BPFVM_BTF_K_TYPE_TAG:
			id = bpfvm_btf_rd32(t + 8);
			break;
		default:
			if (out_id)
				*out_id = id;
			return t;
		}
	}
	return NULL;
}

static int type_size(const struct bpfvm_btf *btf, uint32_t id, int depth, uint64_t *size)
{
	if (depth > BTF_MAX_DEPTH)
		return -EINVAL;
	const uint8_t *t = bpfvm_btf_skip_mods(btf, id, NULL);
	if (!t)
		return -EINVAL;
	switch (bpfvm_btf_kind(t)) {
	case BPFVM_BTF_K_INT:
	case BPFVM_BTF_K_STRUCT:
	case BPFVM_BTF_K_UNION:
	case BPFVM_BTF_K_ENUM:
	case BPFVM_BTF_K_ENUM64:
	case BPFVM_BTF_K_FLOAT:
		*size = bpfvm_btf_rd32(t + 8);
		return 0;
	case BPFVM_BTF_K_PTR:
		*size = 8;
		return 0;
	case BPFVM_BTF_K_ARRAY: {
		uint64_t elem;
		uint32_t n = bpfvm_btf_rd32(t + 20);
		if (type_size(btf, bpfvm_btf_rd32(t + 12), depth + 1, &elem))
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

int bpfvm_btf_size(const struct bpfvm_btf *btf, uint32_t id, uint64_t *size)
{
	return type_size(btf, id, 0, size);
}

/* Descend from struct/union/array id to the scalar member holding
 * [off, off+size); recursion is bounded by BTF_MAX_DEPTH. */
static int scalar_at(const struct bpfvm_btf *btf, uint32_t id, uint64_t off, uint32_t size,
		     int depth, const char **field)
{
	uint32_t rid;
	const uint8_t *t = bpfvm_btf_skip_mods(btf, id, &rid);
	uint64_t tsz;
	if (!t || depth > BTF_MAX_DEPTH || type_size(btf, rid, 0, &tsz))
		return -EINVAL;
	if (off + size > tsz)
		return -ERANGE;
	switch (bpfvm_btf_kind(t)) {
	case BPFVM_BTF_K_INT:
	case BPFVM_BTF_K_ENUM:
	case BPFVM_BTF_K_ENUM64:
		return 0;
	case BPFVM_BTF_K_ARRAY: {
		uint64_t esz;
		uint32_t et = bpfvm_btf_rd32(t + 12);
		if (type_size(btf, et, 0, &esz) || esz == 0)
			return -EINVAL;
		return scalar_at(btf, et, off % esz, size, depth + 1, field);
	}
	case BPFVM_BTF_K_STRUCT:
	case BPFVM_BTF_K_UNION: {
		bool kflag = bpfvm_btf_kflag(t);
		for (uint32_t i = 0; i < bpfvm_btf_vlen(t); i++) {
			const uint8_t *m = t + 12 + 12 * i;
			uint32_t mt = bpfvm_btf_rd32(m + 4), bits = bpfvm_btf_rd32(m + 8);
			uint64_t moff = kflag ? (bits & 0xffffff) : bits, msz;
			if ((kflag && bits >> 24) || moff % 8 || type_size(btf, mt, 0, &msz))
				continue; /* bitfields are never read whole */
			moff /= 8;
			if (off < moff || off + size > moff + msz)
				continue;
			const char *mn = bpfvm_btf_str(btf, bpfvm_btf_rd32(m));
			if (mn && mn[0])
				*field = mn;
			int err = scalar_at(btf, mt, off - moff, size, depth + 1, field);
			if (err != -ERANGE)
				return err;
		}
		return -ERANGE;
	}
	default:
		return -EINVAL; /* pointers and the rest: not readable as scalars */
	}
}

int bpfvm_btf_scalar_at(const struct bpfvm_btf *btf, uint32_t id, uint64_t off, uint32_t size,
			const char **field)
{
	*field = NULL;
	int err = scalar_at(btf, id, off, size, 0, field);
	return err == -ERANGE ? -EINVAL : err;
}
