/* lem.c: the judgement of one direction of the link emulator (linkem.h):
 * which frames are lost or marked, and when each one leaves. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkem.h"

const char lem_usage[] =
    "usage: linkem IF_A IF_B [--a2b|--b2a|--both] OPTION... [--seed N] [--stats FILE]\n"
    "  options apply to the directions last named (both at first):\n"
    "  --delay MS            one-way delay (fractions allowed)\n"
    "  --loss PCT            random loss\n"
    "  --burst PCT,LEN       loss bursts: start with PCT per frame, LEN frames on average\n"
    "  --rate MBIT           rate limit (a drop-tail queue before it)\n"
    "  --queue BYTES         the queue's limit (k/m suffixes; default 150k)\n"
    "  --red PCT             early drops: past half the queue's limit a frame is\n"
    "                        dropped with a chance rising to PCT at the limit\n"
    "  --reorder PCT,MS      hold a frame back MS more with chance PCT\n"
    "  --drop LIST           drop these TCP data segments of the direction, counted\n"
    "                        from 1: N, N-M, comma separated, or every:K[@FROM]\n"
    "  --mark LIST           mark these CE instead (ECT frames; others pass)\n"
    "  --blackout N,MS       from the Nth TCP data segment on, drop every one for MS\n";

static int fail(char *err, size_t errlen, const char *opt, const char *val, const char *why)
{
	snprintf(err, errlen, "%s %s: %s", opt, val, why);
	return -1;
}

static bool num(const char *s, double *out)
{
	char *end;
	*out = strtod(s, &end);
	return end != s && *end == '\0' && *out >= 0;
}

static bool pct_ppm(const char *s, uint32_t *out)
{
	double v;
	if (!num(s, &v) || v > 100)
		return false;
	*out = (uint32_t)(v * 10000 + 0.5);
	return true;
}

/* "A,B" into two strings (b points into buf). */
static bool pair(const char *s, char *buf, size_t n, const char **b)
{
	if (strlen(s) >= n || !strchr(s, ','))
		return false;
	strcpy(buf, s);
	char *comma = strchr(buf, ',');
	*comma = '\0';
	*b = comma + 1;
	return true;
}

static bool bytes(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return false;
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	*out = v;
	return *end == '\0';
}

static bool nth_list(const char *s, struct lem_nth *l)
{
	memset(l, 0, sizeof(*l));
	if (!strncmp(s, "every:", 6)) {
		char *end;
		l->every = strtoull(s + 6, &end, 10);
		l->from = l->every;
		if (*end == '@')
			l->from = strtoull(end + 1, &end, 10);
		return l->every > 0 && l->from > 0 && *end == '\0';
	}
	const char *p = s;
	while (*p) {
		char *end;
		if (l->n == LEM_NTH_MAX)
			return false;
		uint64_t lo = strtoull(p, &end, 10), hi = lo;
		if (end == p || lo == 0)
			return false;
		if (*end == '-') {
			p = end + 1;
			hi = strtoull(p, &end, 10);
			if (end == p || hi < lo)
				return false;
		}
		l->lo[l->n] = lo;
		l->hi[l->n++] = hi;
		if (*end == ',')
			end++;
		else if (*end != '\0')
			return false;
		p = end;
	}
	return l->n > 0;
}

int lem_option(struct lem_params *p, const char *opt, const char *val, char *err, size_t errlen)
{
	double v;
	char buf[64];
	const char *b;
	if (!strcmp(opt, "--delay")) {
		if (!num(val, &v) || v > 10000)
			return fail(err, errlen, opt, val, "want milliseconds, 0 to 10000");
		p->delay_ns = (uint64_t)(v * 1e6 + 0.5);
	} else if (!strcmp(opt, "--loss")) {
		if (!pct_ppm(val, &p->loss_ppm))
			return fail(err, errlen, opt, val, "want a percentage");
	} else if (!strcmp(opt, "--burst")) {
		if (!pair(val, buf, sizeof(buf), &b) || !pct_ppm(buf, &p->burst_ppm) ||
		    !num(b, &v) || v < 1)
			return fail(err, errlen, opt, val, "want PCT,LEN with LEN >= 1");
		p->burst_len = (uint32_t)v;
	} else if (!strcmp(opt, "--rate")) {
		if (!num(val, &v) || v <= 0)
			return fail(err, errlen, opt, val, "want Mbit/s above 0");
		p->rate_bps = (uint64_t)(v * 1e6);
		if (p->queue_bytes == 0)
			p->queue_bytes = 150 << 10;
	} else if (!strcmp(opt, "--queue")) {
		if (!bytes(val, &p->queue_bytes) || p->queue_bytes < 2048)
			return fail(err, errlen, opt, val,
				    "want bytes (k/m suffix), at least 2048");
	} else if (!strcmp(opt, "--red")) {
		if (!pct_ppm(val, &p->early_ppm))
			return fail(err, errlen, opt, val, "want a percentage");
	} else if (!strcmp(opt, "--reorder")) {
		if (!pair(val, buf, sizeof(buf), &b) || !pct_ppm(buf, &p->reorder_ppm) ||
		    !num(b, &v))
			return fail(err, errlen, opt, val, "want PCT,MS");
		p->reorder_ns = (uint64_t)(v * 1e6 + 0.5);
	} else if (!strcmp(opt, "--blackout")) {
		if (!pair(val, buf, sizeof(buf), &b) || !num(buf, &v) || v < 1)
			return fail(err, errlen, opt, val, "want N,MS with N >= 1");
		p->blackout_from = (uint64_t)v;
		if (!num(b, &v))
			return fail(err, errlen, opt, val, "want N,MS with N >= 1");
		p->blackout_ns = (uint64_t)(v * 1e6 + 0.5);
	} else if (!strcmp(opt, "--drop") || !strcmp(opt, "--mark")) {
		if (!nth_list(val, opt[2] == 'd' ? &p->drop : &p->mark))
			return fail(err, errlen, opt, val,
				    "want N, N-M, ... (from 1, at most 32) or every:K[@FROM]");
	} else {
		snprintf(err, errlen, "unknown option %s\n%s", opt, lem_usage);
		return -1;
	}
	return 0;
}

void lem_state_init(struct lem_state *st, uint64_t seed)
{
	memset(st, 0, sizeof(*st));
	st->rnd = seed * 0x9e3779b97f4a7c15ull + 1;
}

static uint32_t rnd_ppm(struct lem_state *st)
{
	/* xorshift64*: reproducible from --seed */
	st->rnd ^= st->rnd >> 12;
	st->rnd ^= st->rnd << 25;
	st->rnd ^= st->rnd >> 27;
	return (uint32_t)(((st->rnd * 0x2545f4914f6cdd1dull) >> 32) % 1000000u);
}

static bool nth_has(const struct lem_nth *l, uint64_t k)
{
	if (l->every)
		return k >= l->from && (k - l->from) % l->every == 0;
	for (uint32_t i = 0; i < l->n; i++)
		if (k >= l->lo[i] && k <= l->hi[i])
			return true;
	return false;
}

/* The IP header of a TCP segment with payload, and its family (4/6); NULL
 * for anything else (ARP, NDP, pure ACKs, fragments). */
static uint8_t *tcp_data_ip(uint8_t *f, uint32_t len, int *family)
{
	if (len < 14)
		return NULL;
	uint16_t type = (uint16_t)(f[12] << 8 | f[13]);
	uint8_t *ip = f + 14;
	uint32_t rest = len - 14;
	if (type == 0x0800 && rest >= 20 && (ip[0] >> 4) == 4 && ip[9] == 6) {
		uint32_t ihl = (ip[0] & 15u) * 4, tot = (uint32_t)(ip[2] << 8 | ip[3]);
		if ((ip[6] & 0x3f) || ip[7] || ihl < 20 || tot > rest || tot < ihl + 20)
			return NULL;
		uint32_t doff = (ip[ihl + 12] >> 4) * 4u;
		*family = 4;
		return tot > ihl + doff ? ip : NULL;
	}
	if (type == 0x86dd && rest >= 60 && (ip[0] >> 4) == 6 && ip[6] == 6) {
		uint32_t plen = (uint32_t)(ip[4] << 8 | ip[5]);
		if (plen + 40 > rest || plen < 20)
			return NULL;
		*family = 6;
		return plen > (ip[40 + 12] >> 4) * 4u ? ip : NULL;
	}
	return NULL;
}

/* Sets CE on an ECT segment (RFC 3168 §5); the IPv4 checksum follows by
 * RFC 1624's incremental update. */
static bool mark_ce(uint8_t *ip, int family)
{
	if (family == 4) {
		uint8_t ecn = ip[1] & 3;
		if (ecn == 0 || ecn == 3)
			return false;
		uint16_t old = (uint16_t)(ip[0] << 8 | ip[1]);
		ip[1] |= 3;
		uint16_t neu = (uint16_t)(ip[0] << 8 | ip[1]);
		uint32_t sum = (uint16_t) ~(ip[10] << 8 | ip[11]);
		sum += (uint16_t)~old;
		sum += neu;
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		sum = ~sum & 0xffff;
		ip[10] = (uint8_t)(sum >> 8);
		ip[11] = (uint8_t)sum;
		return true;
	}
	uint8_t ecn = (ip[1] >> 4) & 3;
	if (ecn == 0 || ecn == 3)
		return false;
	ip[1] |= 0x30;
	return true;
}

enum lem_verdict lem_judge(const struct lem_params *p, struct lem_state *st, uint8_t *frame,
			   uint32_t len, uint64_t now, uint64_t *due, struct lem_stats *stats)
{
	int family = 0;
	uint8_t *ip = tcp_data_ip(frame, len, &family);
	if (ip) {
		uint64_t k = ++st->tcp_data;
		stats->tcp_data++;
		/* a path that goes dark for a while, whatever the sender resends */
		if (p->blackout_ns && k == p->blackout_from)
			st->blackout_end = now + p->blackout_ns;
		if (nth_has(&p->drop, k) || now < st->blackout_end) {
			stats->drop_nth++;
			return LEM_DROP;
		}
		if (nth_has(&p->mark, k) && mark_ce(ip, family))
			stats->ce_marked++;
	}
	if (st->burst_left == 0 && p->burst_ppm && rnd_ppm(st) < p->burst_ppm)
		st->burst_left = 1 + (p->burst_len > 1 ? rnd_ppm(st) % (2 * p->burst_len - 1) : 0);
	if (st->burst_left) {
		st->burst_left--;
		stats->drop_burst++;
		return LEM_DROP;
	}
	if (p->loss_ppm && rnd_ppm(st) < p->loss_ppm) {
		stats->drop_random++;
		return LEM_DROP;
	}
	uint64_t leave = now;
	if (p->rate_bps) {
		uint64_t start = st->link_free_ns > now ? st->link_free_ns : now;
		uint64_t backlog = (start - now) * p->rate_bps / 8000000000ull;
		if (backlog + len > p->queue_bytes) {
			stats->drop_queue++;
			return LEM_DROP;
		}
		/* RED's idea on the instantaneous backlog (Floyd and Jacobson
		 * 1993): drops spread over the flows by their share of the
		 * arrivals, where a full drop-tail queue takes whichever frames
		 * arrive at the moments it is full, which the senders' timing
		 * decides (their "phase effects") */
		uint64_t half = p->queue_bytes / 2;
		if (p->early_ppm && backlog > half &&
		    rnd_ppm(st) < (uint64_t)p->early_ppm * (backlog - half) / half) {
			stats->drop_early++;
			return LEM_DROP;
		}
		/* Ethernet's preamble, delimiter, FCS and gap: 24 bytes a frame */
		st->link_free_ns = start + (uint64_t)(len + 24) * 8000000000ull / p->rate_bps;
		leave = st->link_free_ns;
	}
	*due = leave + p->delay_ns;
	if (p->reorder_ppm && rnd_ppm(st) < p->reorder_ppm) {
		*due += p->reorder_ns;
		stats->reordered++;
	}
	return LEM_PASS;
}
