/* JIT memory safety and failure paths: the image mapping is never writable
 * (read /proc/self/maps), size bounds, the emitter's sticky errors, golden
 * encodings of the special ModRM cases, and the fallback: a program the JIT
 * refuses stays on the interpreter with a logged reason and no image. */
#include <errno.h>
#include <inttypes.h>

#include "check_main.h"
#include "isa_insn.h"
#include "jit/jit_int.h"
#include "jit_engines.h"

/* Permissions of the mapping holding addr, from /proc/self/maps. */
static int map_perms(const void *addr, char perms[5])
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return -errno;
	char line[512];
	int found = -ENOENT;
	uintptr_t a = (uintptr_t)addr;
	while (fgets(line, sizeof line, f)) {
		uintptr_t lo, hi;
		char p[5];
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s", &lo, &hi, p) == 3 && a >= lo &&
		    a < hi) {
			memcpy(perms, p, 5);
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

START_TEST(image_is_rx_not_w)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn insns[] = {MOV64_K(0, 7), ALU64_K(BPF_ADD, 0, 1), EXIT()};
	char log[256];
	struct bpfvm_prog *p = jt_load(reg, insns, NINSNS(insns), NULL, 0, true, log, sizeof log);
	ck_assert_msg(p, "%s", log);
	size_t len = 0;
	const void *img = bpfvm_prog_jited(p, &len);
	ck_assert_ptr_nonnull(img);
	ck_assert_uint_gt(len, 0);
	char perms[5] = "";
	ck_assert_int_eq(map_perms(img, perms), 0);
	ck_assert_msg(perms[0] == 'r' && perms[1] == '-' && perms[2] == 'x', "image mapped %s",
		      perms);
	struct bpfvm_prog_info info;
	bpfvm_prog_info(p, &info);
	ck_assert_uint_eq(info.jited_prog_len, len);
	ck_assert_uint_eq(bpfvm_prog_run(p, NULL, 0), 8);
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(install_bounds)
{
	void *img = NULL;
	size_t sz = 0;
	uint8_t code[4] = {0xc3};
	ck_assert_int_eq(jit_mem_install(code, 0, &img, &sz), -E2BIG);
	ck_assert_int_eq(jit_mem_install(code, (size_t)JIT_MAX_IMAGE + 1, &img, &sz), -E2BIG);
	ck_assert_int_eq(jit_mem_install(code, 1, &img, &sz), 0);
	ck_assert_uint_ge(sz, 1);
	char perms[5] = "";
	ck_assert_int_eq(map_perms(img, perms), 0);
	ck_assert(perms[1] == '-' && perms[2] == 'x');
	/* the page tail is int3 */
	ck_assert_uint_eq(((const uint8_t *)img)[sz - 1], 0xcc);
	jit_mem_free(img, sz);
}
END_TEST

START_TEST(emitter_sticky_errors)
{
	uint8_t buf[8];
	struct jit_buf b = {.p = buf, .cap = sizeof buf};
	jit_mov_ri64(&b, JIT_RAX, 0x123456789ull); /* 10 bytes: does not fit */
	ck_assert_int_eq(b.err, -E2BIG);
	size_t len = b.len;
	jit_ret(&b); /* no-op once failed */
	ck_assert_uint_eq(b.len, len);

	struct jit_buf c = {.p = (uint8_t[300]){0}, .cap = 300};
	size_t pos = jit_jcc8_fwd(&c, JIT_CC_E);
	for (int i = 0; i < 200; i++)
		jit_ret(&c);
	jit_patch_rel8(&c, pos);
	ck_assert_int_eq(c.err, -ERANGE);
}
END_TEST

struct golden {
	const char *name;
	uint8_t bytes[12];
	size_t n;
};

START_TEST(golden_encodings)
{
	uint8_t buf[64];
	struct jit_buf b;
	/* bytes as GNU as emits them */
	static const struct golden g[] = {
	    {"mov (%r12),%rax", {0x49, 0x8b, 0x04, 0x24}, 4},
	    {"mov 0(%r13),%rax", {0x49, 0x8b, 0x45, 0x00}, 4},
	    {"mov %sil,4(%rdi)", {0x40, 0x88, 0x77, 0x04}, 4},
	    {"movabs", {0x48, 0xb8, 0x89, 0x67, 0x45, 0x23, 0x01, 0, 0, 0}, 10},
	    {"add $0x1000,%rax", {0x48, 0x05, 0x00, 0x10, 0x00, 0x00}, 6},
	    {"test $0x80,%sil", {0x40, 0xf6, 0xc6, 0x80}, 4},
	    {"lock cmpxchg %r11d,-8(%rbp)", {0xf0, 0x44, 0x0f, 0xb1, 0x5d, 0xf8}, 6},
	    {"movsbq %sil,%rax", {0x48, 0x0f, 0xbe, 0xc6}, 4},
	};
	for (size_t i = 0; i < NINSNS(g); i++) {
		b = (struct jit_buf){.p = buf, .cap = sizeof buf};
		switch (i) {
		case 0:
			jit_load(&b, 8, false, JIT_RAX, JIT_R12, 0);
			break;
		case 1:
			jit_load(&b, 8, false, JIT_RAX, JIT_R13, 0);
			break;
		case 2:
			jit_store_r(&b, 1, JIT_RDI, 4, JIT_RSI);
			break;
		case 3:
			jit_mov_ri64(&b, JIT_RAX, 0x123456789ull);
			break;
		case 4:
			jit_alu_ri(&b, true, JIT_X_ADD, JIT_RAX, 0x1000);
			break;
		case 5:
			jit_test_ri(&b, false, JIT_RSI, 0x80);
			break;
		case 6:
			jit_atomic(&b, 4, 0xb1, JIT_R11, JIT_RBP, -8);
			break;
		case 7:
			jit_movsx_rr(&b, true, JIT_RAX, JIT_RSI, 1);
			break;
		}
		ck_assert_int_eq(b.err, 0);
		ck_assert_msg(b.len == g[i].n && memcmp(buf, g[i].bytes, g[i].n) == 0,
			      "%s: encoding differs (len %zu)", g[i].name, b.len);
	}
}
END_TEST

START_TEST(refused_program_stays_interpreted)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	/* main falls through into the subprogram at insn 2: the interpreter runs
	 * it (returning 2), the JIT refuses that structure */
	struct bpfvm_insn insns[] = {CALL_REL(1), MOV64_K(0, 1), MOV64_K(0, 2), EXIT()};
	char log[512];
	struct bpfvm_prog *p = jt_load(reg, insns, NINSNS(insns), NULL, 0, true, log, sizeof log);
	ck_assert_msg(p, "%s", log);
	size_t len = 1;
	ck_assert_ptr_null(bpfvm_prog_jited(p, &len));
	ck_assert_uint_eq(len, 0);
	ck_assert_msg(strstr(log, "jit: insn 1: falls through into the next subprogram"), "log: %s",
		      log);
	struct bpfvm_prog_info info;
	bpfvm_prog_info(p, &info);
	ck_assert_uint_eq(info.jited_prog_len, 0);
	ck_assert_uint_eq(bpfvm_prog_run(p, NULL, 0), 2);
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(compile_twice_refused)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn insns[] = {MOV64_K(0, 1), EXIT()};
	char log[256];
	struct bpfvm_prog *p = jt_load(reg, insns, NINSNS(insns), NULL, 0, true, log, sizeof log);
	ck_assert_ptr_nonnull(p);
	const void *img = bpfvm_prog_jited(p, NULL);
	ck_assert_int_eq(bpfvm_jit_compile(p, false, NULL), -EEXIST);
	ck_assert_ptr_eq(bpfvm_prog_jited(p, NULL), img);
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

START_TEST(insn_offsets)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn insns[] = {ST(BPF_DW, 10, -8, 3), LDDW(0, 0x1122334455667788ull),
				     LDX(BPF_DW, 2, 10, -8), ALU64_X(BPF_ADD, 0, 2), EXIT()};
	char log[256];
	struct bpfvm_prog *p = jt_load(reg, insns, NINSNS(insns), NULL, 0, true, log, sizeof log);
	ck_assert_ptr_nonnull(p);
	size_t len = 0, n = 0;
	ck_assert_ptr_nonnull(bpfvm_prog_jited(p, &len));
	const uint32_t *off = bpfvm_prog_jited_offsets(p, &n);
	ck_assert_ptr_nonnull(off);
	ck_assert_uint_eq(n, NINSNS(insns));
	ck_assert_uint_gt(off[0], 0); /* the frame setup comes first */
	for (size_t i = 1; i < n; i++)
		ck_assert_uint_ge(off[i], off[i - 1]);
	ck_assert_uint_gt(off[2], off[1]); /* ld_imm64 emitted code */
	ck_assert_uint_lt(off[n - 1], len);
	bpfvm_prog_put(p);
	struct bpfvm_insn plain[] = {MOV64_K(0, 1), EXIT()};
	struct bpfvm_load_opts o = {.no_verify = true};
	ck_assert_int_eq(bpfvm_prog_load(reg, plain, 2, NULL, 0, &o, &p), 0);
	ck_assert_ptr_null(bpfvm_prog_jited_offsets(p, &n));
	ck_assert_uint_eq(n, 0);
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

static bool image_has(const struct bpfvm_prog *p, uint32_t v)
{
	size_t len = 0;
	const uint8_t *img = bpfvm_prog_jited(p, &len);
	for (size_t i = 0; img && i + 4 <= len; i++)
		if (memcmp(img + i, &v, 4) == 0)
			return true;
	return false;
}

/* jit_blind: no chosen immediate appears in the image, results stay */
START_TEST(blinding_hides_immediates)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	const uint32_t a = 0x5a5a1234, c = 0x13572468, d = 0x0badf00d;
	struct bpfvm_insn insns[] = {MOV64_K(0, (int32_t)a),
				     ALU64_K(BPF_ADD, 0, (int32_t)c),
				     LDDW(2, (uint64_t)d << 32 | d),
				     ALU64_X(BPF_SUB, 0, 2),
				     JMP_K(BPF_JEQ, 0, (int32_t)d, 0),
				     ST(BPF_W, 10, -4, (int32_t)d),
				     LDX(BPF_W, 3, 10, -4),
				     ALU64_X(BPF_ADD, 0, 3),
				     EXIT()};
	uint64_t want = (uint64_t)a + c - ((uint64_t)d << 32 | d) + d;
	char log[256];
	for (int blind = 0; blind < 2; blind++) {
		jt_blind = blind;
		struct bpfvm_prog *p =
		    jt_load(reg, insns, NINSNS(insns), NULL, 0, true, log, sizeof log);
		ck_assert_msg(p, "%s", log);
		ck_assert_ptr_nonnull(bpfvm_prog_jited(p, NULL));
		ck_assert_uint_eq(bpfvm_prog_run(p, NULL, 0), want);
		ck_assert_uint_eq(bpfvm_prog_run_interp(p, NULL, 0), want);
		bool seen = image_has(p, a) || image_has(p, c) || image_has(p, d);
		ck_assert_msg(seen == !blind, "blind=%d: immediates %s in the image", blind,
			      seen ? "present" : "absent");
		bpfvm_prog_put(p);
	}
	jt_blind = false;
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *jit_mem_suite(void)
{
	Suite *s = suite_create("bpfvm_jit_mem");
	TCase *tc = tcase_create("mem");
	tcase_add_test(tc, image_is_rx_not_w);
	tcase_add_test(tc, install_bounds);
	tcase_add_test(tc, emitter_sticky_errors);
	tcase_add_test(tc, golden_encodings);
	tcase_add_test(tc, refused_program_stays_interpreted);
	tcase_add_test(tc, compile_twice_refused);
	tcase_add_test(tc, insn_offsets);
	tcase_add_test(tc, blinding_hides_immediates);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(jit_mem_suite)
