/* apps/lib/portopt: --tcp-hz, the one port option with a range of its own:
 * Linux's CONFIG_HZ choices taken from the command line and a config key,
 * anything else refused with the reason. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "portopt.h"

static int no_tool_keys(void *tool, const char *key, const char *val, char *err, size_t elen)
{
	(void)tool;
	(void)val;
	snprintf(err, elen, "unknown key '%s'", key);
	return -EINVAL;
}

START_TEST(tcp_hz_values)
{
	static struct appport p;
	memset(&p, 0, sizeof(p));
	struct portopt o = {.port = &p, .set = no_tool_keys};
	char err[256] = "";
	ck_assert_uint_eq(p.tcp_hz, 0); /* unset: the stack's 250 */
	static const char *const ok[] = {"100", "250", "300", "1000"};
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_int_eq(portopt_key(&o, "tcp-hz", ok[i], err, sizeof(err)), 0);
		ck_assert_uint_eq(p.tcp_hz, (uint32_t)atoi(ok[i]));
	}
	static const char *const bad[] = {"200", "0", "", "250x", "-250", "1000000"};
	for (unsigned i = 0; i < 6; i++) {
		err[0] = 0;
		ck_assert_int_eq(portopt_key(&o, "tcp-hz", bad[i], err, sizeof(err)), -EINVAL);
		ck_assert_ptr_nonnull(strstr(err, "want 100, 250, 300 or 1000"));
		ck_assert_uint_eq(p.tcp_hz, 1000); /* the last good value stays */
	}
}
END_TEST

START_TEST(tcp_hz_option)
{
	static struct appport p;
	memset(&p, 0, sizeof(p));
	struct portopt o = {.port = &p, .set = no_tool_keys};
	static const struct option lo[] = {PORTOPT_OPTIONS, {NULL, 0, NULL, 0}};
	int li = -1;
	for (int i = 0; lo[i].name; i++)
		if (!strcmp(lo[i].name, "tcp-hz"))
			li = i;
	ck_assert_int_ge(li, 0);
	char err[256] = "";
	ck_assert_int_eq(portopt_take(&o, lo, lo[li].val, li, "300", err, sizeof(err)), 0);
	ck_assert_uint_eq(p.tcp_hz, 300);
	ck_assert_int_eq(portopt_take(&o, lo, lo[li].val, li, "64", err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--tcp-hz: bad HZ '64'"));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("portopt");
	TCase *tc = tcase_create("tcp_hz");
	tcase_add_test(tc, tcp_hz_values);
	tcase_add_test(tc, tcp_hz_option);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
