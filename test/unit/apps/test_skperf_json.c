/* skperf json: what the writer emits the reader reads back (iperf3's
 * parameter and result messages), escapes both ways, the top-level list
 * the intervals are spliced from, and the malformed texts the reader
 * must refuse with an offset. */
#include <errno.h>
#include <string.h>

#include "check_main.h"
#include "json.h"

START_TEST(params_round_trip)
{
	struct sp_jw w = {0};
	sp_jw_obj(&w, NULL);
	sp_jw_bool(&w, "tcp", true);
	sp_jw_num(&w, "time", 10);
	sp_jw_u64(&w, "num", 16777216);
	sp_jw_int(&w, "parallel", 4);
	sp_jw_str(&w, "congestion", "cu\"bic\\\n");
	sp_jw_arr(&w, "streams");
	for (int i = 0; i < 3; i++) {
		sp_jw_obj(&w, NULL);
		sp_jw_int(&w, "id", i ? i + 2 : 1);
		sp_jw_num(&w, "end_time", 1.5);
		sp_jw_end_obj(&w);
	}
	sp_jw_end_arr(&w);
	sp_jw_end_obj(&w);
	ck_assert(!w.oom);
	ck_assert_str_eq(w.buf, "{\"tcp\":true,\"time\":10,\"num\":16777216,\"parallel\":4,"
				"\"congestion\":\"cu\\\"bic\\\\\\u000a\",\"streams\":[{\"id\":1,"
				"\"end_time\":1.500000},{\"id\":3,\"end_time\":1.500000},"
				"{\"id\":4,\"end_time\":1.500000}]}");
	struct sp_jv *j;
	char err[128];
	ck_assert_int_eq(sp_jv_parse(w.buf, w.len, &j, err, sizeof(err)), 0);
	ck_assert(sp_jv_true(j, "tcp"));
	ck_assert(!sp_jv_true(j, "reverse"));
	ck_assert(sp_jv_num(j, "num", 0) == 16777216);
	ck_assert(sp_jv_num(j, "missing", -7) == -7);
	ck_assert_str_eq(sp_jv_str(j, "congestion"), "cu\"bic\\\n");
	const struct sp_jv *s = sp_jv_get(j, "streams");
	ck_assert(s && s->type == SP_JV_ARR);
	int ids = 0, n = 0;
	for (const struct sp_jv *e = s->child; e; e = e->next, n++)
		ids = ids * 10 + (int)sp_jv_num(e, "id", 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(ids, 134);
	sp_jv_free(j);
	sp_jw_free(&w);
}
END_TEST

START_TEST(top_level_list)
{
	struct sp_jw w = {0};
	for (int i = 0; i < 3; i++) {
		sp_jw_obj(&w, NULL);
		sp_jw_int(&w, "n", i);
		sp_jw_end_obj(&w);
	}
	ck_assert_str_eq(w.buf, "{\"n\":0},{\"n\":1},{\"n\":2}");
	struct sp_jw top = {.pretty = true};
	sp_jw_obj(&top, NULL);
	sp_jw_arr(&top, "intervals");
	sp_jw_raw(&top, NULL, w.buf, w.len);
	sp_jw_end_arr(&top);
	sp_jw_end_obj(&top);
	struct sp_jv *j;
	char err[128];
	ck_assert_int_eq(sp_jv_parse(top.buf, top.len, &j, err, sizeof(err)), 0);
	ck_assert_int_eq((int)sp_jv_num(sp_jv_get(j, "intervals")->child->next->next, "n", -1), 2);
	sp_jv_free(j);
	sp_jw_free(&w);
	sp_jw_free(&top);
}
END_TEST

START_TEST(reader_escapes_and_numbers)
{
	const char *t = " { \"a\" : [ -1.5e3 , null , false , \"\\u00e9\\t\" ] , \"b\" : {} } ";
	struct sp_jv *j;
	char err[128];
	ck_assert_int_eq(sp_jv_parse(t, strlen(t), &j, err, sizeof(err)), 0);
	const struct sp_jv *a = sp_jv_get(j, "a")->child;
	ck_assert(a->type == SP_JV_NUM && a->num == -1500);
	ck_assert(a->next->type == SP_JV_NULL);
	ck_assert(a->next->next->type == SP_JV_BOOL && a->next->next->num == 0);
	ck_assert_str_eq(a->next->next->next->str, "\xc3\xa9\t");
	ck_assert(sp_jv_get(j, "b")->type == SP_JV_OBJ && !sp_jv_get(j, "b")->child);
	sp_jv_free(j);
}
END_TEST

START_TEST(reader_refuses_malformed)
{
	static const char *const bad[] = {
	    "",	   "{",		"{\"a\"}", "{\"a\":1,}", "[1 2]", "\"open", "{\"a\":1} x",
	    "tru", "{\"a\":-}", "{1:2}",   "[\"\\q\"]",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sp_jv *j = NULL;
		char err[128] = "";
		ck_assert_msg(sp_jv_parse(bad[i], strlen(bad[i]), &j, err, sizeof(err)) == -EINVAL,
			      "accepted '%s'", bad[i]);
		ck_assert_msg(!strncmp(err, "json: offset ", 13), "'%s': error '%s'", bad[i], err);
	}
	/* nesting is bounded: a hostile peer cannot exhaust the stack */
	char deep[200];
	memset(deep, '[', sizeof(deep));
	struct sp_jv *j = NULL;
	char err[128];
	ck_assert_int_eq(sp_jv_parse(deep, sizeof(deep), &j, err, sizeof(err)), -EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("skperf_json");
	TCase *tc = tcase_create("json");
	tcase_add_test(tc, params_round_trip);
	tcase_add_test(tc, top_level_list);
	tcase_add_test(tc, reader_escapes_and_numbers);
	tcase_add_test(tc, reader_refuses_malformed);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
