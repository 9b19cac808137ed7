/* SHA-1/SHA-256 against FIPS 180-4 example vectors and the tag's zeroing of
 * map references (bpf_prog_calc_tag). */
#include <stdio.h>
#include <string.h>

#include "bpfvm_int.h"
#include "check_main.h"

static void hex(const uint8_t *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

START_TEST(sha_vectors)
{
	uint8_t d[32];
	char h[65];
	bpfvm_sha1("abc", 3, d);
	hex(d, 20, h);
	ck_assert_str_eq(h, "a9993e364706816aba3e25717850c26c9cd0d89d");
	bpfvm_sha1("", 0, d);
	hex(d, 20, h);
	ck_assert_str_eq(h, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	bpfvm_sha1(two, strlen(two), d);
	hex(d, 20, h);
	ck_assert_str_eq(h, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
	bpfvm_sha256("abc", 3, d);
	hex(d, 32, h);
	ck_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	bpfvm_sha256(two, strlen(two), d);
	hex(d, 32, h);
	ck_assert_str_eq(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* a million 'a' exercises many blocks */
	static char mil[1000000];
	memset(mil, 'a', sizeof mil);
	bpfvm_sha1(mil, sizeof mil, d);
	hex(d, 20, h);
	ck_assert_str_eq(h, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
	bpfvm_sha256(mil, sizeof mil, d);
	hex(d, 32, h);
	ck_assert_str_eq(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

#define LD64 (BPF_LD | BPF_IMM | BPF_DW)

START_TEST(tag_zeroes_map_refs)
{
	struct bpfvm_insn a[] = {
	    {.code = LD64, .dst = 1, .src = BPF_PSEUDO_MAP_FD, .imm = 5},
	    {.code = 0, .imm = 0},
	    {.code = LD64, .dst = 2, .src = BPF_PSEUDO_MAP_VALUE, .imm = 6},
	    {.code = 0, .imm = 16},
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst = 0, .imm = 1},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	struct bpfvm_insn b[6];
	memcpy(b, a, sizeof a);
	b[0].imm = 77;
	b[1].imm = 123; /* high half of a pointer after relocation */
	b[2].imm = 78;
	b[3].imm = 0;
	uint8_t ta[8], tb[8], sa[8], sb[8];
	bpfvm_prog_tag(a, 6, ta);
	bpfvm_prog_tag(b, 6, tb);
	ck_assert_mem_eq(ta, tb, 8);
	bpfvm_prog_tag_sha256(a, 6, sa);
	bpfvm_prog_tag_sha256(b, 6, sb);
	ck_assert_mem_eq(sa, sb, 8);
	ck_assert(memcmp(ta, sa, 8) != 0);
	/* the expected value: SHA-1 of the zeroed copy */
	struct bpfvm_insn z[6];
	memcpy(z, a, sizeof a);
	z[0].imm = z[1].imm = z[2].imm = z[3].imm = 0;
	uint8_t d[32];
	bpfvm_sha1(z, sizeof z, d);
	ck_assert_mem_eq(ta, d, 8);
	bpfvm_sha256(z, sizeof z, d);
	ck_assert_mem_eq(sa, d, 8);
	/* a plain ld_imm64 constant is part of the tag */
	b[0].src = 0;
	bpfvm_prog_tag(b, 6, tb);
	ck_assert(memcmp(ta, tb, 8) != 0);
	/* a different return value changes the tag */
	memcpy(b, a, sizeof a);
	b[4].imm = 2;
	bpfvm_prog_tag(b, 6, tb);
	ck_assert(memcmp(ta, tb, 8) != 0);
}
END_TEST

static Suite *tag_suite(void)
{
	Suite *s = suite_create("bpfvm_tag");
	TCase *tc = tcase_create("tag");
	tcase_add_test(tc, sha_vectors);
	tcase_add_test(tc, tag_zeroes_map_refs);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(tag_suite)
