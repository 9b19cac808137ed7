/* linkem.h: what one direction of the link emulator does to a frame, apart
 * from the sockets (lem.c), so that the unit test can drive it with frames
 * and times of its own. */
#ifndef SKOPS_TEST_LINKEM_H
#define SKOPS_TEST_LINKEM_H

#include <stddef.h>
#include <stdint.h>

/* Chosen TCP data segments of a direction, by their index from 1 in the
 * order they arrive: explicit ranges, or every `every`-th from `from`. */
#define LEM_NTH_MAX 32
struct lem_nth {
	uint32_t n;
	uint64_t lo[LEM_NTH_MAX], hi[LEM_NTH_MAX];
	uint64_t every, from;
};

struct lem_params {
	uint64_t delay_ns;
	uint32_t loss_ppm;    /* random loss, per frame */
	uint32_t burst_ppm;   /* a loss burst starts at a frame with this chance */
	uint32_t burst_len;   /* mean frames lost in a burst (uniform 1 to 2 LEN - 1) */
	uint64_t rate_bps;    /* 0: no limit */
	uint64_t queue_bytes; /* drop-tail limit of the rate limiter's queue */
	uint32_t early_ppm;   /* chance of an early drop at the full queue (--red) */
	uint32_t reorder_ppm; /* a frame is held back by reorder_ns with this chance */
	uint64_t reorder_ns;
	struct lem_nth drop, mark; /* drop, or mark CE (ECT frames) */
	uint64_t blackout_from;	   /* from this TCP data segment on, drop all for: */
	uint64_t blackout_ns;
};

struct lem_state {
	uint64_t rnd;
	uint64_t link_free_ns; /* when the rate limiter's link is next idle */
	uint64_t tcp_data;     /* TCP data segments seen */
	uint32_t burst_left;   /* frames still to lose in this burst */
	uint64_t blackout_end; /* data segments are dropped until then */
};

struct lem_stats {
	uint64_t frames, bytes, sent, tcp_data, drop_random, drop_burst, drop_nth, drop_queue,
	    drop_early, ce_marked, reordered, oversize, tx_err;
	uint64_t sock_drops; /* the receiving socket's buffer overflowed (PACKET_STATISTICS) */
};

enum lem_verdict { LEM_PASS, LEM_DROP };

extern const char lem_usage[];

/* One option of lem_usage with its value into p; -1 with err filled. */
int lem_option(struct lem_params *p, const char *opt, const char *val, char *err, size_t errlen);
void lem_state_init(struct lem_state *st, uint64_t seed);
/* A frame arriving at now: dropped, or passed (maybe CE-marked in place)
 * with *due, the time it leaves. */
enum lem_verdict lem_judge(const struct lem_params *p, struct lem_state *st, uint8_t *frame,
			   uint32_t len, uint64_t now, uint64_t *due, struct lem_stats *stats);

#endif
