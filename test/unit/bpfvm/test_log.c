/* bpfvm_log: truncation and level semantics. */
#include <string.h>

#include "bpfvm.h"
#include "check_main.h"

START_TEST(log_off_writes_nothing)
{
	char buf[16] = "";
	struct bpfvm_log log = {.level = 0, .buf = buf, .size = sizeof buf};
	bpfvm_log_printf(&log, "x%d", 1);
	ck_assert_uint_eq(log.used, 0);
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(log_truncates)
{
	char buf[8];
	struct bpfvm_log log = {.level = 1, .buf = buf, .size = sizeof buf};
	bpfvm_log_printf(&log, "abc");
	ck_assert(!log.truncated);
	bpfvm_log_printf(&log, "defghij");
	ck_assert(log.truncated);
	ck_assert_uint_eq(log.used, 7);
	ck_assert_str_eq(buf, "abcdefg");
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("bpfvm_log");
	TCase *tc = tcase_create("log");
	tcase_add_test(tc, log_off_writes_nothing);
	tcase_add_test(tc, log_truncates);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(log_suite)
