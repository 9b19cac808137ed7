/* The link emulator's judgement (lem.c): options refused with reasons, the
 * rate limiter's departures, drop-tail queue and early drops (--red),
 * deterministic drops and CE
 * marks by segment index, and loss rates near what was asked. */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "linkem.h"

/* An Ethernet + IPv4 + TCP frame with len bytes of payload, ECT(0). */
static uint32_t frame4(uint8_t *f, uint32_t payload)
{
	memset(f, 0, 14 + 40 + payload);
	f[12] = 0x08;
	uint8_t *ip = f + 14;
	ip[0] = 0x45;
	ip[1] = 0x02;
	uint32_t tot = 40 + payload;
	ip[2] = (uint8_t)(tot >> 8);
	ip[3] = (uint8_t)tot;
	ip[8] = 64;
	ip[9] = 6;
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
	ip[20 + 12] = 5 << 4;
	return 14 + tot;
}

static uint16_t ip4_sum(const uint8_t *ip)
{
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void opt(struct lem_params *p, const char *o, const char *v)
{
	char err[256];
	ck_assert_msg(lem_option(p, o, v, err, sizeof(err)) == 0, "%s", err);
}

START_TEST(options_refused)
{
	struct lem_params p = {0};
	char err[256];
	ck_assert_int_eq(lem_option(&p, "--loss", "101", err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "--loss 101"));
	ck_assert_int_eq(lem_option(&p, "--delay", "x", err, sizeof(err)), -1);
	ck_assert_int_eq(lem_option(&p, "--burst", "1", err, sizeof(err)), -1);
	ck_assert_int_eq(lem_option(&p, "--drop", "0", err, sizeof(err)), -1);
	ck_assert_int_eq(lem_option(&p, "--drop", "5-3", err, sizeof(err)), -1);
	ck_assert_int_eq(lem_option(&p, "--drop", "every:0", err, sizeof(err)), -1);
	ck_assert_int_eq(lem_option(&p, "--queue", "100", err, sizeof(err)), -1);
	ck_assert_int_eq(lem_option(&p, "--red", "120", err, sizeof(err)), -1);
	ck_assert_int_eq(lem_option(&p, "--jitter", "1", err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "unknown option --jitter"));
}
END_TEST

START_TEST(rate_and_queue)
{
	struct lem_params p = {0};
	struct lem_state st;
	struct lem_stats s = {0};
	opt(&p, "--rate", "100");
	opt(&p, "--delay", "10");
	opt(&p, "--queue", "10k");
	lem_state_init(&st, 1);
	uint8_t f[2048];
	uint32_t len = frame4(f, 1446); /* 1500-byte IP packet */
	uint64_t due, prev = 0;
	int passed = 0;
	/* 20 frames at once: each leaves one serialisation (1500 bytes and
	 * 24 of framing at 100 Mbit/s: 121.92 us) after the one before, 10 ms
	 * later; the queue holds 10 KiB, so 5 wait behind the one on the wire */
	for (int i = 0; i < 20; i++) {
		if (lem_judge(&p, &st, f, len, 1000000, &due, &s) != LEM_PASS)
			continue;
		if (passed == 0)
			ck_assert_uint_eq(due, 1000000 + 121920 + 10000000);
		else
			ck_assert_uint_eq(due - prev, 121920);
		prev = due;
		passed++;
	}
	ck_assert_int_eq(passed, 6);
	ck_assert_uint_eq(s.drop_queue, 14);
	/* after the queue drained the link takes frames again */
	ck_assert_int_eq(lem_judge(&p, &st, f, len, 1000000 + 20000000, &due, &s), LEM_PASS);
	ck_assert_uint_eq(due, 1000000 + 20000000 + 121920 + 10000000);
}
END_TEST

/* Frames judged with the queue held at backlog bytes: how many of n an
 * early drop took. */
static int early_drops(const struct lem_params *p, struct lem_state *st, uint64_t backlog, int n)
{
	uint8_t f[2048];
	uint32_t len = frame4(f, 1446);
	struct lem_stats s = {0};
	uint64_t now = 1000000000, due;
	for (int i = 0; i < n; i++) {
		st->link_free_ns = now + backlog * 8000000000ull / p->rate_bps;
		lem_judge(p, st, f, len, now, &due, &s);
	}
	ck_assert_uint_eq(s.drop_queue, 0);
	return (int)s.drop_early;
}

START_TEST(early_drop)
{
	struct lem_params p = {0};
	struct lem_state st;
	opt(&p, "--rate", "100");
	opt(&p, "--queue", "100k");
	opt(&p, "--red", "10");
	lem_state_init(&st, 7);
	/* none below half the limit; the chance rises linearly to 10 % at
	 * the limit: 5 % at three quarters, about 9.7 % one frame short */
	ck_assert_int_eq(early_drops(&p, &st, 40000, 20000), 0);
	ck_assert_int_eq(early_drops(&p, &st, 51200, 20000), 0);
	int mid = early_drops(&p, &st, 76800, 20000);
	ck_assert_msg(mid > 850 && mid < 1150, "%d of 20000 at 3/4", mid);
	int top = early_drops(&p, &st, 102400 - 1600, 20000);
	ck_assert_msg(top > 1750 && top < 2150, "%d of 20000 at the limit", top);
	/* without --red the same queue drops nothing early */
	p.early_ppm = 0;
	ck_assert_int_eq(early_drops(&p, &st, 102400 - 1600, 1000), 0);
}
END_TEST

START_TEST(nth_drop_and_mark)
{
	struct lem_params p = {0};
	struct lem_state st;
	struct lem_stats s = {0};
	opt(&p, "--drop", "3,10-11");
	opt(&p, "--mark", "every:4@2");
	lem_state_init(&st, 1);
	uint8_t f[2048], ack[2048];
	uint32_t len = frame4(f, 100), alen = frame4(ack, 0);
	uint64_t due;
	char got[16] = {0};
	for (int k = 1; k <= 12; k++) {
		/* pure ACKs between them are not counted */
		ck_assert_int_eq(lem_judge(&p, &st, ack, alen, 0, &due, &s), LEM_PASS);
		len = frame4(f, 100);
		enum lem_verdict v = lem_judge(&p, &st, f, len, 0, &due, &s);
		got[k - 1] = v == LEM_DROP ? 'd' : (f[15] & 3) == 3 ? 'm' : '.';
		if (got[k - 1] == 'm')
			ck_assert_uint_eq(ip4_sum(f + 14), 0); /* checksum still right */
	}
	ck_assert_str_eq(got, ".md..m...dd.");
	ck_assert_uint_eq(s.drop_nth, 3);
	ck_assert_uint_eq(s.ce_marked, 2);
	ck_assert_uint_eq(s.tcp_data, 12);
}
END_TEST

START_TEST(loss_rates)
{
	struct lem_params p = {0};
	struct lem_state st;
	struct lem_stats s = {0};
	opt(&p, "--loss", "1");
	opt(&p, "--burst", "0.5,4");
	lem_state_init(&st, 7);
	uint8_t f[2048];
	uint32_t len = frame4(f, 100);
	uint64_t due;
	for (int i = 0; i < 200000; i++)
		lem_judge(&p, &st, f, len, 0, &due, &s);
	/* 1 % random of what bursts left; bursts start at 0.5 % of frames
	 * outside one and last 4 on average: about 2 % */
	ck_assert_uint_ge(s.drop_random, 1700);
	ck_assert_uint_le(s.drop_random, 2300);
	ck_assert_uint_ge(s.drop_burst, 3200);
	ck_assert_uint_le(s.drop_burst, 4600);
}
END_TEST

START_TEST(reorder)
{
	struct lem_params p = {0};
	struct lem_state st;
	struct lem_stats s = {0};
	opt(&p, "--reorder", "50,2");
	lem_state_init(&st, 3);
	uint8_t f[2048];
	uint32_t len = frame4(f, 100);
	uint64_t due;
	int late = 0;
	for (int i = 0; i < 1000; i++) {
		ck_assert_int_eq(lem_judge(&p, &st, f, len, 0, &due, &s), LEM_PASS);
		ck_assert(due == 0 || due == 2000000);
		late += due != 0;
	}
	ck_assert_uint_eq(s.reordered, (uint64_t)late);
	ck_assert_int_ge(late, 400);
	ck_assert_int_le(late, 600);
}
END_TEST

START_TEST(blackout)
{
	struct lem_params p = {0};
	struct lem_state st;
	struct lem_stats s = {0};
	opt(&p, "--blackout", "3,5");
	lem_state_init(&st, 1);
	uint8_t f[2048];
	uint32_t len = frame4(f, 100);
	uint64_t due;
	/* segments 1-2 pass; from the 3rd (at 1 ms) every one is lost for
	 * 5 ms, then they pass again */
	const uint64_t at[] = {0, 500000, 1000000, 2000000, 5999999, 6000000, 9000000};
	char got[8] = {0};
	for (int i = 0; i < 7; i++)
		got[i] = lem_judge(&p, &st, f, len, at[i], &due, &s) == LEM_DROP ? 'd' : '.';
	ck_assert_str_eq(got, "..ddd..");
	ck_assert_uint_eq(s.drop_nth, 3);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("linkem");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, options_refused);
	tcase_add_test(tc, rate_and_queue);
	tcase_add_test(tc, early_drop);
	tcase_add_test(tc, nth_drop_and_mark);
	tcase_add_test(tc, loss_rates);
	tcase_add_test(tc, reorder);
	tcase_add_test(tc, blackout);
	suite_add_tcase(s, tc);
	return s;
}

SKOPS_CHECK_MAIN(suite)
