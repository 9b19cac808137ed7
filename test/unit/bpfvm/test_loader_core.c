/* CO-RE (loader_core.c): elf/core_relo.bpf.c relocated against the .BTF of
 * elf/core_target.bpf.c, published by a test program type: the patched
 * offsets and load sizes are the target's, the program returns what the
 * target layout holds; without a target BTF the guarded read is dead code and
 * the unguarded one is refused naming its field; every fault in .BTF.ext's
 * core_relo subsection is refused at open with its log line; the C dump of a
 * BTF (bpfvm_btf_dump_c) shows its structs with their offsets. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "ld_elf_edit.h"
#include "ld_fixture.h"
#include "loader_int.h"

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* core_target's struct pkt, as the host lays it out (same as BPF's) */
struct tpkt {
	uint64_t c;
	uint32_t d[4];
	uint32_t b, pad, a;
};

/* core_target's struct bits, as the host lays it out (same as BPF's) */
struct tbits {
	uint32_t hi;
	int16_t neg;
	uint16_t lo : 4;
	uint16_t mid : 12;
	int64_t pad : 30;
	int64_t wide : 20;
	uint8_t two : 2;
	int kind;
};

static struct ld_img target_img;
static struct bpfvm_prog_type target_type;

/* The generic type publishing core_target's .BTF. */
static void setup(void)
{
	ck_assert_int_eq(ld_img_read(obj_path("core_target"), &target_img), 0);
	int s = ld_img_sec(&target_img, ".BTF");
	ck_assert_int_ge(s, 0);
	target_type = bpfvm_type_generic;
	target_type.name = "test";
	target_type.btf = ld_img_data(&target_img, (size_t)s);
	target_type.btf_len = (uint32_t)ld_img_shdr(&target_img, (size_t)s)->sh_size;
}

static void teardown(void)
{
	free(target_img.b);
}

static int load(struct bpfvm_obj *o, const char *sec, const struct bpfvm_prog_type *t,
		struct bpfvm_prog **p)
{
	struct bpfvm_load_opts opts = {.type = t, .log = &lg};
	log_reset();
	return bpfvm_obj_load_prog(o, sec, &opts, p);
}

START_TEST(relocated_to_target)
{
	struct bpfvm_registry *reg;
	struct bpfvm_obj *o;
	struct bpfvm_prog *p;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	log_reset();
	ck_assert_msg(bpfvm_obj_open(reg, obj_path("core_relo"), NULL, 0, &lg, &o) == 0, "%s",
		      logbuf);
	ck_assert_uint_ge(o->nrelos, 8);
	ck_assert_msg(load(o, "generic", &target_type, &p) == 0, "%s", logbuf);
	size_t n;
	const struct bpfvm_insn *in = bpfvm_prog_insns(p, &n);
	const struct ld_prog *lp = &o->progs[0];
	ck_assert_uint_eq(n, lp->ninsns);
	/* each load clang wrote for the local layout now reads the target's
	 * field: b (u16 here, u32 there) also changes size */
	static const struct {
		uint8_t code;
		int16_t off;
		uint8_t want_code;
		int16_t want_off;
	} moved[] = {
	    {0x69, 4, 0x61, offsetof(struct tpkt, b)},
	    {0x61, 0, 0x61, offsetof(struct tpkt, a)},
	    {0x79, 8, 0x79, offsetof(struct tpkt, c)},
	    {0x61, 24, 0x61, offsetof(struct tpkt, d[2])},
	};
	for (size_t k = 0; k < sizeof moved / sizeof moved[0]; k++) {
		bool found = false;
		for (size_t pc = 0; pc < n && !found; pc++)
			found = lp->insns[pc].code == moved[k].code &&
				lp->insns[pc].off == moved[k].off &&
				in[pc].code == moved[k].want_code &&
				in[pc].off == moved[k].want_off;
		ck_assert_msg(found, "load %zu (off %d) not moved to %d", k, moved[k].off,
			      moved[k].want_off);
	}
	struct tpkt t = {.c = 0x100000007ull, .d = {1, 2, 3, 4}, .b = 70000, .a = 11};
	uint8_t ctx[256] = {0};
	memcpy(ctx, &t, sizeof t);
	uint32_t want = 11 + 70000 + 7 + 3 + 11 + 4 * 1000 + (uint32_t)sizeof(struct tpkt) * 100000;
	ck_assert_uint_eq((uint32_t)bpfvm_prog_run_interp(p, ctx, sizeof ctx), want);
	bpfvm_prog_put(p);
	/* 'gone' is not in the target: the unguarded read is refused by name */
	ck_assert_int_eq(load(o, "generic/unguarded", &target_type, &p), -EINVAL);
	ck_assert_msg(strstr(logbuf, "verifier: insn 0: CO-RE relocation") &&
			  strstr(logbuf, "no field 'gone' in struct pkt"),
		      "%s", logbuf);
	bpfvm_obj_close(o);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* Bitfield relocations (BPF_CORE_READ_BITFIELD: BYTE_OFFSET, BYTE_SIZE,
 * LSHIFT_U64, RSHIFT_U64, SIGNED) read fields the target keeps elsewhere, in
 * other storage or whole; enum values relocate by name, and a missing one is
 * 0 for ENUMVAL_EXISTS and refused by name for ENUMVAL_VALUE. */
START_TEST(bitfields_and_enums)
{
	struct bpfvm_registry *reg;
	struct bpfvm_obj *o;
	struct bpfvm_prog *p;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	log_reset();
	ck_assert_msg(bpfvm_obj_open(reg, obj_path("core_relo"), NULL, 0, &lg, &o) == 0, "%s",
		      logbuf);
	struct tbits t = {.hi = 0x12345678,
			  .neg = -7,
			  .lo = 9,
			  .mid = 0xabc,
			  .pad = -1,
			  .wide = -300000,
			  .two = 2,
			  .kind = 1};
	uint8_t ctx[256] = {0};
	memcpy(ctx, &t, sizeof t);
	static const struct {
		const char *sec;
		int32_t want;
	} runs[] = {
	    {"generic/bits", 9 | 2 << 4 | 0xabc << 6},
	    {"generic/bits_signed", -7 * 1000000 - 300000},
	    {"generic/bits_whole", 0x12345678},
	    {"generic/enum", -10 + 20 * 100 + 0 * 7 + 1 * 100000},
	};
	for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
		ck_assert_msg(load(o, runs[k].sec, &target_type, &p) == 0, "%s: %s", runs[k].sec,
			      logbuf);
		int32_t got = (int32_t)bpfvm_prog_run_interp(p, ctx, sizeof ctx);
		ck_assert_msg(got == runs[k].want, "%s returned %d, want %d", runs[k].sec, got,
			      runs[k].want);
		bpfvm_prog_put(p);
	}
	ck_assert_int_eq(load(o, "generic/enum_gone", &target_type, &p), -EINVAL);
	ck_assert_msg(strstr(logbuf, "(enumval_value) cannot be resolved: no enum ek::EK_GONE in "
				     "the test BTF"),
		      "%s", logbuf);
	bpfvm_obj_close(o);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(no_target_btf)
{
	struct bpfvm_registry *reg;
	struct bpfvm_obj *o;
	struct bpfvm_prog *p;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	log_reset();
	ck_assert_int_eq(bpfvm_obj_open(reg, obj_path("core_relo"), NULL, 0, &lg, &o), 0);
	/* the generic type publishes nothing: every field load is poisoned, so
	 * even core_read (which reads a, b, ... unconditionally) is refused */
	ck_assert_int_eq(load(o, "generic", &bpfvm_type_generic, &p), -EINVAL);
	ck_assert_msg(strstr(logbuf, "cannot be resolved: no struct pkt.b in the generic BTF"),
		      "%s", logbuf);
	bpfvm_obj_close(o);
	bpfvm_registry_destroy(reg);
}
END_TEST

/* Offsets of the core_relo subsection's parts in the image. */
struct ext {
	size_t ext;   /* .BTF.ext */
	size_t sub;   /* record size word */
	size_t first; /* first record */
	uint32_t rec;
};

static struct ext ext_of(struct ld_img *img)
{
	struct ext e;
	int s = ld_img_sec(img, ".BTF.ext");
	ck_assert_int_ge(s, 0);
	e.ext = ld_img_shdr(img, (size_t)s)->sh_offset;
	const uint8_t *d = img->b + e.ext;
	uint32_t hl = rd32(d + 4);
	ck_assert_uint_ge(hl, 32);
	e.sub = e.ext + hl + rd32(d + 24);
	e.rec = rd32(img->b + e.sub);
	e.first = e.sub + 4 + 8;
	return e;
}

static void reject(struct ld_img *img, const char *want)
{
	struct bpfvm_registry *reg;
	struct bpfvm_obj *o = (void *)1;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	log_reset();
	int rc = bpfvm_obj_open(reg, NULL, img->b, img->n, &lg, &o);
	ck_assert_msg(rc == -EINVAL, "rc %d for '%s' (%s)", rc, want, logbuf);
	ck_assert_ptr_null(o);
	ck_assert_msg(strstr(logbuf, want), "log '%s' lacks '%s'", logbuf, want);
	bpfvm_registry_destroy(reg);
	free(img->b);
}

static void put32(struct ld_img *img, size_t at, uint32_t v)
{
	memcpy(img->b + at, &v, 4);
}

START_TEST(ext_errors)
{
	struct ld_img base, m;
	ck_assert_int_eq(ld_img_read(obj_path("core_relo"), &base), 0);
	struct ext e = ext_of(&base);
#define CASE(want, ...)                                                                            \
	do {                                                                                       \
		ck_assert_int_eq(ld_img_copy(&base, &m), 0);                                       \
		__VA_ARGS__;                                                                       \
		reject(&m, want);                                                                  \
	} while (0)
	CASE("section '.BTF.ext': bad magic", m.b[e.ext] ^= 0xff);
	CASE("bad magic 0xeb9f or version 2", m.b[e.ext + 2] = 2);
	CASE("header length 4042322160 outside", put32(&m, e.ext + 4, 0xf0f0f0f0));
	CASE("core_relo subsection (off 4042322160", put32(&m, e.ext + 24, 0xf0f0f0f0));
	CASE("core_relo subsection (off", put32(&m, e.ext + 28, 0xf0f0f0f0));
	CASE("core_relo record size 8", put32(&m, e.sub, 8));
	CASE("core_relo record size 4096", put32(&m, e.sub, 4096));
	CASE("core_relo: section name offset 4294967295 out of range",
	     put32(&m, e.sub + 4, 0xffffffff));
	CASE("records do not fit the subsection", put32(&m, e.sub + 8, 0));
	CASE("records do not fit the subsection", put32(&m, e.sub + 8, 0xffffffff));
	CASE("core_relo 0: insn offset 3 outside section 'generic'", put32(&m, e.first, 3));
	CASE("core_relo 0: insn offset 4294967288 outside", put32(&m, e.first, 0xfffffff8));
	CASE("core_relo 0: type id 4294967295 is not in .BTF", put32(&m, e.first + 4, 0xffffffff));
	CASE("core_relo 0: access string offset 4294967295 out of range",
	     put32(&m, e.first + 8, 0xffffffff));
	CASE("core_relo 0: unknown kind 99", put32(&m, e.first + 12, 99));
	/* the section name offset pointing at another string: "license" is
	 * not a program section */
	{
		int bs = ld_img_sec(&base, ".BTF");
		const uint8_t *b = ld_img_data(&base, (size_t)bs);
		const char *strs = (const char *)b + rd32(b + 4) + rd32(b + 16);
		uint32_t sl = rd32(b + 20), lic = 0, pkt = 0;
		for (uint32_t o = 0; o < sl; o += (uint32_t)strlen(strs + o) + 1) {
			if (strcmp(strs + o, "license") == 0)
				lic = o;
			if (strcmp(strs + o, "pkt") == 0)
				pkt = o;
		}
		ck_assert_uint_ne(lic, 0);
		ck_assert_uint_ne(pkt, 0);
		CASE("section 'license' is not a program section", put32(&m, e.sub + 4, lic));
		/* every record's access string replaced by a type name */
		uint32_t n = rd32(base.b + e.sub + 8);
		for (uint32_t k = 0; k < n; k++) {
			char want[64];
			snprintf(want, sizeof want,
				 "core_relo %u: access string 'pkt' is malformed", k);
			CASE(want, put32(&m, e.first + (size_t)k * e.rec + 8, pkt));
		}
		/* an access index past the struct's members: the first record is a
		 * field access "0:N"; its digits turn into 0:9 */
		uint32_t a0 = rd32(base.b + e.first + 8);
		size_t at = (size_t)(strs - (const char *)base.b) + a0;
		ck_assert_uint_eq(base.b[at], '0');
		ck_assert_uint_eq(base.b[at + 1], ':');
		CASE("core_relo 0: access string 0:9 out of range for struct pkt",
		     m.b[at + 2] = '9');
	}
#undef CASE
	free(base.b);
}
END_TEST

/* Issue 25 class 7: core_kinds' first CO-RE relocation (the field load of
 * pkt.a, 0 here, 32 in core_target) moved onto every insn of its section.
 * An ld_imm64 of a map, a global-data value or a callback must be refused
 * as libbpf does (the patch would turn map index 0 into 32, past the
 * object's maps); every other kind loads or is refused with a reason, and
 * none may touch memory it should not (the ASan build runs this too). */
START_TEST(relocation_on_every_insn_kind)
{
	struct ld_img base, m;
	ck_assert_int_eq(ld_img_read(obj_path("core_kinds"), &base), 0);
	struct ext e = ext_of(&base);
	ck_assert_uint_eq(rd32(base.b + e.first), 8); /* r1 = *(u32 *)(r6 + 0): pkt.a */
	int gs = ld_img_sec(&base, "generic");
	ck_assert_int_ge(gs, 0);
	const struct bpfvm_insn *insns = (const void *)ld_img_data(&base, (size_t)gs);
	size_t n = ld_img_shdr(&base, (size_t)gs)->sh_size / 8;
	unsigned refs = 0, hi = 0;
	for (size_t pc = 0; pc < n; pc++) {
		bool ref = false,
		     half = pc > 0 && insns[pc - 1].code == (BPF_LD | BPF_IMM | BPF_DW);
		for (size_t k = 0; ld_img_rel(&base, "generic", k); k++) {
			const Elf64_Rel *r = ld_img_rel(&base, "generic", k);
			ref |=
			    r->r_offset == pc * 8 && insns[pc].code == (BPF_LD | BPF_IMM | BPF_DW);
		}
		ck_assert_int_eq(ld_img_copy(&base, &m), 0);
		put32(&m, e.first, (uint32_t)(pc * 8));
		struct bpfvm_registry *reg;
		struct bpfvm_obj *o;
		struct bpfvm_prog *p = NULL;
		ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
		log_reset();
		ck_assert_msg(bpfvm_obj_open(reg, NULL, m.b, m.n, &lg, &o) == 0, "insn %zu: %s", pc,
			      logbuf);
		int rc = load(o, "generic", &target_type, &p);
		if (ref || half) {
			ck_assert_msg(rc == -EINVAL &&
					  strstr(logbuf, "cannot take a CO-RE relocation"),
				      "insn %zu: rc %d: %s", pc, rc, logbuf);
			refs += ref;
			hi += half;
		} else {
			ck_assert_msg(rc == 0 || logbuf[0], "insn %zu: rc %d without a reason", pc,
				      rc);
		}
		if (!rc)
			bpfvm_prog_put(p);
		bpfvm_obj_close(o);
		bpfvm_registry_destroy(reg);
		free(m.b);
	}
	ck_assert_uint_eq(refs, 3); /* the map, the callback, the global */
	ck_assert_uint_eq(hi, 4);
	free(base.b);
}
END_TEST

START_TEST(btf_dump)
{
	char buf[4096], small[16];
	int n = bpfvm_btf_dump_c(target_type.btf, target_type.btf_len, buf, sizeof buf);
	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(strlen(buf), (size_t)n);
	ck_assert_msg(strstr(buf, "struct pkt { /* 40 bytes */\n"), "%s", buf);
	ck_assert_msg(strstr(buf, "        __u32 a; /* 32 */\n"), "%s", buf);
	ck_assert_msg(strstr(buf, "        __u32 d[4]; /* 8 */\n"), "%s", buf);
	/* snprintf's contract: the whole length, a truncated NUL-terminated text */
	ck_assert_int_eq(
	    bpfvm_btf_dump_c(target_type.btf, target_type.btf_len, small, sizeof small), n);
	ck_assert_uint_eq(strlen(small), sizeof small - 1);
	ck_assert_int_eq(bpfvm_btf_dump_c(target_type.btf, 10, buf, sizeof buf), -EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("loader_core");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, relocated_to_target);
	tcase_add_test(tc, no_target_btf);
	tcase_add_test(tc, bitfields_and_enums);
	tcase_add_test(tc, ext_errors);
	tcase_add_test(tc, relocation_on_every_insn_kind);
	tcase_add_test(tc, btf_dump);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
