/* skopsctl prog dump --jited printer (apps/jited/skopsctl_jited.c): every insn is
 * listed with exactly the image bytes at its recorded offsets, in text and
 * JSON; an interpreted program is refused with -ENOENT. */
#include <errno.h>

#include "skopsctl_jited.h"
#include "check_main.h"
#include "isa_insn.h"
#include "jit_engines.h"

static char *print(const struct bpfvm_prog *p, bool json, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	*ret = skopsctl_print_jited(f, p, json);
	fclose(f);
	return buf;
}

START_TEST(text_and_json_bytes_match_image)
{
	struct bpfvm_registry *reg;
	ck_assert_int_eq(bpfvm_registry_create(&reg), 0);
	struct bpfvm_insn insns[] = {ST(BPF_DW, 10, -8, 5), LDDW(0, 0x1122334455667788ull),
				     LDX(BPF_DW, 2, 10, -8), ALU64_X(BPF_ADD, 0, 2), EXIT()};
	char log[256];
	struct bpfvm_prog *p = jt_load(reg, insns, NINSNS(insns), NULL, 0, true, log, sizeof log);
	ck_assert_ptr_nonnull(p);
	size_t len = 0, n = 0;
	const uint8_t *img = bpfvm_prog_jited(p, &len);
	const uint32_t *off = bpfvm_prog_jited_offsets(p, &n);
	int ret;
	char *text = print(p, false, &ret);
	ck_assert_int_eq(ret, 0);
	char want[64];
	snprintf(want, sizeof want, "jited: %zu bytes for 6 insns", len);
	ck_assert_msg(strstr(text, want), "%s", text);
	ck_assert_msg(strstr(text, "   3: (79) r2 = *(u64 *)(r10 -8)"), "%s", text);
	/* the ld_imm64 line shows its first code byte at its offset */
	snprintf(want, sizeof want, "%6x: %02x", off[1], img[off[1]]);
	ck_assert_msg(strstr(text, want), "missing '%s' in %s", want, text);
	free(text);
	char *json = print(p, true, &ret);
	ck_assert_int_eq(ret, 0);
	ck_assert(json[0] == '[');
	/* every byte of the code appears, segment by segment, in order */
	size_t k = 0;
	for (const char *s = strstr(json, "\"bytes\":\""); s; s = strstr(s + 1, "\"bytes\":\"")) {
		s += 9;
		while (*s != '"') {
			unsigned v;
			ck_assert_int_eq(sscanf(s, "%2x", &v), 1);
			ck_assert_uint_lt(k, len);
			ck_assert_uint_eq(v, img[k]);
			k++;
			s += 2;
		}
	}
	ck_assert_uint_eq(k, len);
	free(json);
	bpfvm_prog_put(p);
	struct bpfvm_load_opts o = {.no_verify = true};
	ck_assert_int_eq(bpfvm_prog_load(reg, insns, NINSNS(insns), NULL, 0, &o, &p), 0);
	free(print(p, false, &ret));
	ck_assert_int_eq(ret, -ENOENT);
	bpfvm_prog_put(p);
	bpfvm_registry_destroy(reg);
}
END_TEST

static Suite *jit_dump_suite(void)
{
	Suite *s = suite_create("bpfvm_jit_dump");
	TCase *tc = tcase_create("dump");
	tcase_add_test(tc, text_and_json_bytes_match_image);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(jit_dump_suite)
