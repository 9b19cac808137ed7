/* A raw BTF blob as C declarations, for users writing CO-RE programs against
 * what a program type publishes (skopsctl btf dump): every named struct and
 * union with its members, anonymous ones inline, byte offsets in comments. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bpfvm_int.h"

#define DUMP_DEPTH 8

struct dump {
	const struct bpfvm_btf *btf;
	char *buf;
	size_t size, len;
};

static void out(struct dump *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out(struct dump *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = d->len < d->size ? d->size - d->len : 0;
	int n = vsnprintf(room ? d->buf + d->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		d->len += (size_t)n;
}

static void members(struct dump *d, const uint8_t *t, int indent, int depth);

/* "TYPE NAME" for the type id, arrays and pointers folded into name. */
static void decl(struct dump *d, uint32_t id, const char *name, int indent, int depth)
{
	char nm[160];
	const uint8_t *t = bpfvm_btf_type(d->btf, id);
	if (!t || depth > DUMP_DEPTH) {
		out(d, "void %s", name);
		return;
	}
	const char *tn = bpfvm_btf_name(d->btf, t);
	switch (bpfvm_btf_kind(t)) {
	case BPFVM_BTF_K_ARRAY:
		snprintf(nm, sizeof nm, "%s[%u]", name, bpfvm_btf_rd32(t + 20));
		decl(d, bpfvm_btf_rd32(t + 12), nm, indent, depth + 1);
		return;
	case BPFVM_BTF_K_PTR:
		snprintf(nm, sizeof nm, "*%s", name);
		decl(d, bpfvm_btf_rd32(t + 8), nm, indent, depth + 1);
		return;
	case BPFVM_BTF_K_VOLATILE:
	case BPFVM_BTF_K_CONST:
		out(d, "%s ", bpfvm_btf_kind(t) == BPFVM_BTF_K_CONST ? "const" : "volatile");
		decl(d, bpfvm_btf_rd32(t + 8), name, indent, depth + 1);
		return;
	case BPFVM_BTF_K_STRUCT:
	case BPFVM_BTF_K_UNION: {
		const char *kw = bpfvm_btf_kind(t) == BPFVM_BTF_K_STRUCT ? "struct" : "union";
		if (tn[0]) {
			out(d, "%s %s %s", kw, tn, name);
			return;
		}
		out(d, "%s {\n", kw);
		members(d, t, indent + 1, depth + 1);
		out(d, "%*s} %s", indent * 8, "", name);
		return;
	}
	case BPFVM_BTF_K_ENUM:
	case BPFVM_BTF_K_ENUM64:
		out(d, "enum %s %s", tn, name);
		return;
	default:
		out(d, "%s %s", tn[0] ? tn : "void", name);
		return;
	}
}

static void members(struct dump *d, const uint8_t *t, int indent, int depth)
{
	bool kf = bpfvm_btf_kflag(t);
	for (uint32_t i = 0; i < bpfvm_btf_vlen(t); i++) {
		const uint8_t *m = t + 12 + 12 * i;
		uint32_t bits = bpfvm_btf_rd32(m + 8);
		out(d, "%*s", indent * 8, "");
		decl(d, bpfvm_btf_rd32(m + 4), bpfvm_btf_name(d->btf, m), indent, depth);
		if (kf && bits >> 24)
			out(d, " : %u", bits >> 24);
		out(d, "; /* %u */\n", (kf ? bits & 0xffffff : bits) / 8);
	}
}

int bpfvm_btf_dump_c(const uint8_t *data, size_t len, char *buf, size_t size)
{
	struct bpfvm_btf btf;
	char why[96];
	int err = bpfvm_btf_parse(data, len, &btf, why, sizeof(why));
	if (err)
		return err;
	struct dump d = {.btf = &btf, .buf = buf, .size = size};
	if (size)
		buf[0] = 0;
	for (uint32_t id = 1; id <= btf.ntypes; id++) {
		const uint8_t *t = bpfvm_btf_type(&btf, id);
		uint32_t k = bpfvm_btf_kind(t);
		const char *tn = bpfvm_btf_name(&btf, t);
		if ((k != BPFVM_BTF_K_STRUCT && k != BPFVM_BTF_K_UNION) || !tn[0])
			continue;
		out(&d, "%s %s { /* %u bytes */\n", k == BPFVM_BTF_K_STRUCT ? "struct" : "union",
		    tn, bpfvm_btf_rd32(t + 8));
		members(&d, t, 1, 0);
		out(&d, "};\n\n");
	}
	bpfvm_btf_fini(&btf);
	return d.len > INT32_MAX ? -E2BIG : (int)d.len;
}
