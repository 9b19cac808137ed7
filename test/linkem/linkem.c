/* linkem: a link emulator for the tests. It relays Ethernet frames between two
 * interfaces (AF_PACKET, normally the inner ends of two veth pairs in a
 * namespace of their own) and gives each direction what the kernel's netem
 * would: a delay, random and burst loss, losses and CE marks at chosen
 * segments, reordering, and a rate limit with a drop-tail queue. This kernel
 * has neither netem nor fq, and the CC comparisons need RTTs users have.
 *
 *   linkem IF_A IF_B [--a2b|--b2a|--both] OPTION... [--seed N] [--stats FILE]
 *
 * Options apply to the directions the last --a2b/--b2a/--both named (both
 * at first). SIGINT/SIGTERM end it; it then writes its counters as JSON
 * (to FILE, else stdout). Frames longer than the slots (offloads on: GSO
 * super-frames) are dropped and counted, with one message naming the fix. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "linkem.h"

#define SLOT_BYTES 2048u
#define BATCH	   64

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One direction's frames in flight: a min-heap on departure time over a
 * fixed pool of slots (a frame's bytes never move once received). */
struct held {
	uint64_t due, order; /* order breaks ties: FIFO among equal times */
	uint32_t slot, len;
};

struct dir {
	const char *name;
	struct lem_params p;
	struct lem_state st;
	int out_fd;
	uint8_t *pool;
	uint32_t *free_slots, nfree, nslots;
	struct held *heap;
	uint32_t nheap;
	uint64_t order;
	struct lem_stats stats;
};

static void heap_push(struct dir *d, struct held h)
{
	uint32_t i = d->nheap++;
	while (i > 0) {
		uint32_t up = (i - 1) / 2;
		const struct held *u = &d->heap[up];
		if (u->due < h.due || (u->due == h.due && u->order < h.order))
			break;
		d->heap[i] = *u;
		i = up;
	}
	d->heap[i] = h;
}

static struct held heap_pop(struct dir *d)
{
	struct held top = d->heap[0], last = d->heap[--d->nheap];
	uint32_t i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= d->nheap)
			break;
		if (c + 1 < d->nheap && (d->heap[c + 1].due < d->heap[c].due ||
					 (d->heap[c + 1].due == d->heap[c].due &&
					  d->heap[c + 1].order < d->heap[c].order)))
			c++;
		if (last.due < d->heap[c].due ||
		    (last.due == d->heap[c].due && last.order < d->heap[c].order))
			break;
		d->heap[i] = d->heap[c];
		i = c;
	}
	if (d->nheap > 0)
		d->heap[i] = last;
	return top;
}

static int open_if(const char *ifname)
{
	unsigned idx = if_nametoindex(ifname);
	if (idx == 0) {
		fprintf(stderr, "linkem: no interface %s\n", ifname);
		return -1;
	}
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
	if (fd < 0) {
		perror("linkem: socket(AF_PACKET) (root?)");
		return -1;
	}
	int one = 1, big = 16 << 20;
	/* our own sends must not come back as receptions */
	if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) < 0) {
		perror("linkem: setsockopt(SOL_PACKET)");
		close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
	struct sockaddr_ll sll = {
	    .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = (int)idx};
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		fprintf(stderr, "linkem: bind %s: %s\n", ifname, strerror(errno));
		close(fd);
		return -1;
	}
	struct packet_mreq mr = {.mr_ifindex = (int)idx, .mr_type = PACKET_MR_PROMISC};
	setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr));
	return fd;
}

static int dir_init(struct dir *d, uint32_t nslots)
{
	d->nslots = nslots;
	d->pool = malloc((size_t)nslots * SLOT_BYTES);
	d->free_slots = malloc(nslots * sizeof(*d->free_slots));
	d->heap = malloc(nslots * sizeof(*d->heap));
	if (!d->pool || !d->free_slots || !d->heap)
		return -1;
	for (uint32_t i = 0; i < nslots; i++)
		d->free_slots[i] = nslots - 1 - i;
	d->nfree = nslots;
	return 0;
}

static void warn_oversize(uint32_t len)
{
	static bool said;
	if (!said)
		fprintf(stderr,
			"linkem: a %u-byte frame (more than %u): segmentation offload is on "
			"upstream; turn it off (ethtool -K IF tso off gso off gro off)\n",
			len, SLOT_BYTES);
	said = true;
}

/* Frames that arrived on in_fd, judged and held for their departure. */
static void receive(int in_fd, struct dir *d)
{
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	uint32_t slots[BATCH];
	uint32_t n = 0;
	/* the receptions land in the slots on top of the free stack */
	for (; n < BATCH && n < d->nfree; n++) {
		slots[n] = d->free_slots[d->nfree - 1 - n];
		iov[n] = (struct iovec){d->pool + (size_t)slots[n] * SLOT_BYTES, SLOT_BYTES};
		msgs[n] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[n], .msg_iovlen = 1}};
	}
	if (n == 0)
		return; /* every slot holds a frame: the socket buffer queues, then drops */
	int got = recvmmsg(in_fd, msgs, n, MSG_DONTWAIT | MSG_TRUNC, NULL);
	if (got <= 0)
		return;
	d->nfree -= (uint32_t)got;
	uint64_t now = now_ns();
	for (int i = 0; i < got; i++) {
		uint32_t len = msgs[i].msg_len;
		uint64_t due;
		d->stats.frames++;
		d->stats.bytes += len;
		if (len > SLOT_BYTES) {
			d->stats.oversize++;
			warn_oversize(len);
		} else if (lem_judge(&d->p, &d->st, iov[i].iov_base, len, now, &due, &d->stats) ==
			   LEM_PASS) {
			heap_push(d, (struct held){due, d->order++, slots[i], len});
			continue;
		}
		d->free_slots[d->nfree++] = slots[i];
	}
}

/* Sends what is due; returns the next departure (UINT64_MAX: none held). */
static uint64_t depart(struct dir *d)
{
	uint64_t now = now_ns();
	while (d->nheap > 0 && d->heap[0].due <= now) {
		struct held h = heap_pop(d);
		const uint8_t *f = d->pool + (size_t)h.slot * SLOT_BYTES;
		if (send(d->out_fd, f, h.len, MSG_DONTWAIT) < 0)
			d->stats.tx_err++;
		else
			d->stats.sent++;
		d->free_slots[d->nfree++] = h.slot;
	}
	return d->nheap > 0 ? d->heap[0].due : UINT64_MAX;
}

static void print_stats(FILE *f, const struct dir *d, bool last)
{
	const struct lem_stats *s = &d->stats;
	fprintf(
	    f,
	    "  \"%s\": {\"frames\": %llu, \"bytes\": %llu, \"sent\": %llu, "
	    "\"tcp_data\": %llu, \"drop_random\": %llu, \"drop_burst\": %llu, "
	    "\"drop_nth\": %llu, \"drop_queue\": %llu, \"drop_early\": %llu, \"ce_marked\": %llu, "
	    "\"reordered\": %llu, \"oversize\": %llu, \"tx_err\": %llu, \"sock_drops\": %llu}%s\n",
	    d->name, (unsigned long long)s->frames, (unsigned long long)s->bytes,
	    (unsigned long long)s->sent, (unsigned long long)s->tcp_data,
	    (unsigned long long)s->drop_random, (unsigned long long)s->drop_burst,
	    (unsigned long long)s->drop_nth, (unsigned long long)s->drop_queue,
	    (unsigned long long)s->drop_early, (unsigned long long)s->ce_marked,
	    (unsigned long long)s->reordered, (unsigned long long)s->oversize,
	    (unsigned long long)s->tx_err, (unsigned long long)s->sock_drops, last ? "" : ",");
}

static void usage(void)
{
	fprintf(stderr, "%s", lem_usage);
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 3 || argv[1][0] == '-' || argv[2][0] == '-')
		usage();
	struct dir dirs[2] = {{.name = "a2b"}, {.name = "b2a"}};
	const char *stats_path = NULL;
	uint64_t seed = 1;
	bool sel[2] = {true, true};
	for (int i = 3; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(o, "--a2b") || !strcmp(o, "--b2a") || !strcmp(o, "--both")) {
			sel[0] = strcmp(o, "--b2a") != 0;
			sel[1] = strcmp(o, "--a2b") != 0;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(o, "--seed")) {
			seed = strtoull(v, NULL, 0);
			continue;
		}
		if (!strcmp(o, "--stats")) {
			stats_path = v;
			continue;
		}
		for (int k = 0; k < 2; k++) {
			if (!sel[k])
				continue;
			char err[160];
			if (lem_option(&dirs[k].p, o, v, err, sizeof(err)) < 0) {
				fprintf(stderr, "linkem: %s\n", err);
				return 2;
			}
		}
	}
	int fa = open_if(argv[1]), fb = open_if(argv[2]);
	if (fa < 0 || fb < 0)
		return 1;
	dirs[0].out_fd = fb;
	dirs[1].out_fd = fa;
	for (int k = 0; k < 2; k++) {
		lem_state_init(&dirs[k].st, seed * 2 + (uint64_t)k);
		if (dir_init(&dirs[k], 1u << 16) < 0) {
			fprintf(stderr, "linkem: out of memory\n");
			return 1;
		}
	}
	/* ppoll's wake-ups as close to the departures as the kernel allows */
	prctl(PR_SET_TIMERSLACK, 1000UL);
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fprintf(stderr, "linkem: relaying %s <-> %s\n", argv[1], argv[2]);
	while (!stop) {
		uint64_t next = depart(&dirs[0]);
		uint64_t nb = depart(&dirs[1]);
		next = nb < next ? nb : next;
		struct pollfd pfd[2] = {{fa, POLLIN, 0}, {fb, POLLIN, 0}};
		struct timespec ts, *tp = NULL;
		if (next != UINT64_MAX) {
			uint64_t now = now_ns(), wait = next > now ? next - now : 0;
			ts = (struct timespec){(time_t)(wait / 1000000000u),
					       (long)(wait % 1000000000u)};
			tp = &ts;
		}
		if (ppoll(pfd, 2, tp, NULL) < 0 && errno != EINTR)
			break;
		if ((pfd[0].revents | pfd[1].revents) & (POLLERR | POLLHUP | POLLNVAL)) {
			/* an interface went away (its namespace deleted) */
			fprintf(stderr, "linkem: %s: an interface failed, stopping\n",
				(pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) ? argv[1]
										  : argv[2]);
			break;
		}
		if (pfd[0].revents & POLLIN)
			receive(fa, &dirs[0]);
		if (pfd[1].revents & POLLIN)
			receive(fb, &dirs[1]);
	}
	struct tpacket_stats ps;
	socklen_t pl = sizeof(ps);
	/* what the kernel dropped before linkem read it: its own losses */
	if (getsockopt(fa, SOL_PACKET, PACKET_STATISTICS, &ps, &pl) == 0)
		dirs[0].stats.sock_drops = ps.tp_drops;
	pl = sizeof(ps);
	if (getsockopt(fb, SOL_PACKET, PACKET_STATISTICS, &ps, &pl) == 0)
		dirs[1].stats.sock_drops = ps.tp_drops;
	FILE *out = stats_path ? fopen(stats_path, "w") : stdout;
	if (!out) {
		fprintf(stderr, "linkem: %s: %s\n", stats_path, strerror(errno));
		return 1;
	}
	fprintf(out, "{\n");
	print_stats(out, &dirs[0], false);
	print_stats(out, &dirs[1], true);
	fprintf(out, "}\n");
	if (out != stdout)
		fclose(out);
	return 0;
}
