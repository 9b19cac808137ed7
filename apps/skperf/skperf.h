/* skperf: an iperf3-compatible throughput and latency tool on the native
 * skops API. Shared state of its pieces: options (main.c), the control
 * protocol (proto.c), the data streams (stream.c), request/response modes
 * (rr.c), the server and client flows (server.c, client.c) and the reports
 * (report.c). One process, one stack, one thread: everything is driven from
 * sp_pump(). */
#ifndef SKOPS_APPS_SKPERF_SKPERF_H
#define SKOPS_APPS_SKPERF_SKPERF_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "appport.h"
#include "clk.h"
#include "json.h"
#include "skops.h"

/* iperf3's wire constants (iperf_api.h): the cookie is an ASCII uuid with
 * its NUL, states are one signed byte on the control connection. */
#define SP_COOKIE_SIZE	    37
#define SP_TEST_START	    1
#define SP_TEST_RUNNING	    2
#define SP_TEST_END	    4
#define SP_PARAM_EXCHANGE   9
#define SP_CREATE_STREAMS   10
#define SP_SERVER_TERMINATE 11
#define SP_CLIENT_TERMINATE 12
#define SP_EXCHANGE_RESULTS 13
#define SP_DISPLAY_RESULTS  14
#define SP_IPERF_DONE	    16
#define SP_ACCESS_DENIED    (-1)
#define SP_SERVER_ERROR	    (-2)
#define SP_MAX_PARAMS_JSON  (8 * 1024) /* iperf3 refuses larger parameter messages */
#define SP_MAX_STREAMS	    128	       /* iperf3's MAX_STREAMS */
#define SP_DEFAULT_LEN	    (128 * 1024)
#define SP_MAX_SOCKOPS	    8
#define SP_CTL_TIMEOUT_NS   (10 * CLK_NS_PER_S)
#define SP_MAX_RTT_SAMPLES  (16u << 20)
#define SP_CRR_MAX_INFLIGHT 64

extern volatile sig_atomic_t sp_quit;

struct sp_opts {
	struct appport pt;
	bool server, once, json, reverse, bidir, nodelay;
	const char *host;
	uint16_t port, cport;
	double time_s;	 /* -t; 0 with -n or -k */
	uint64_t bytes;	 /* -n */
	uint64_t blocks; /* -k */
	uint32_t len;	 /* -l */
	unsigned parallel;
	double interval_s; /* -i; 0: no interval reports */
	const char *cc;	   /* -C */
	uint32_t window, mss;
	uint32_t rr_size;  /* --rr SIZE */
	uint32_t crr_size; /* --crr [SIZE]: request and response size */
	bool crr;
	bool plain;  /* --plain: no iperf3 control connection */
	bool no_jit; /* --no-jit */
	const char *sockops[SP_MAX_SOCKOPS];
	unsigned nsockops;
	const char *cgroup;
	bool strict;
	uint32_t max_conns, msl_ms;
	char strs[16][256];
	unsigned nstr;
};

/* The application: the port, the stack and the sock_ops runtime. */
struct sp_app {
	struct sp_opts o;
	struct clk clk;
	struct stack *st;
	struct bpfvm_registry *reg;
	struct cg_tree *tree;
	struct hooks *hooks;
	bool busy; /* busy-poll: never sleep while idle (a test is running) */
	unsigned idle;
};

enum sp_mode { SP_BULK, SP_RR, SP_CRR };

struct sp_stream {
	int sd, id;
	bool sender;
	bool eof, shut;
	uint64_t bytes;	     /* sent or received since the test started */
	uint64_t iv_bytes;   /* bytes at the start of the current interval */
	uint32_t iv_retrans; /* total_retrans at the start of the interval */
	int64_t peer_bytes;  /* the other end's count from the result exchange, -1 unknown */
	double peer_secs;
	uint32_t peer_retrans;
	uint32_t max_cwnd, max_snd_wnd, min_rtt, max_rtt;
	uint64_t sum_rtt, nrtt;
	struct skops_tcp_info ti; /* at the end of the test */
	/* --rr: the transaction in progress */
	uint32_t rr_off;
	bool rr_reading;
	uint64_t rr_t0;
};

/* One connection the server echoes back (--rr streams and --crr transactions). */
struct sp_echo {
	int sd;
	uint32_t len, off;
	bool peer_eof;
	uint8_t buf[16384];
};

/* One --crr transaction on the client. */
struct sp_crr {
	int sd;
	uint32_t off;
	bool connected, reading;
	uint64_t t0;
};

struct sp_test {
	struct sp_app *app;
	bool server;
	int ctrl;
	char cookie[SP_COOKIE_SIZE];
	/* negotiated parameters */
	enum sp_mode mode;
	double time_s;
	uint64_t bytes, blocks;
	uint32_t len, window, mss, size;
	unsigned parallel;
	bool reverse, bidir, nodelay;
	char cc[16];
	/* streams, senders and receivers in iperf3's creation order */
	struct sp_stream s[2 * SP_MAX_STREAMS];
	unsigned ns;
	bool sending;
	uint64_t t_start, t_end, next_iv, iv_start;
	int64_t wall_start; /* time(NULL) at the test's start: start.timestamp, as iperf3's */
	uint64_t sent, rcvd;
	struct sp_jw intervals; /* the "intervals" array's members */
	/* cpu: rusage at the start */
	double cpu_user0, cpu_sys0;
	double cpu[3]; /* total, user, system percent of the test's wall time */
	double remote_cpu[3];
	char remote_cc[16];
	int remote_has_retrans;
	/* --rr / --crr */
	uint64_t *rtt_ns;
	uint64_t nrtt, cap_rtt;
	uint64_t crr_done;
	struct sp_echo **echo;
	unsigned necho, cap_echo;
	struct sp_crr crr[SP_CRR_MAX_INFLIGHT];
	uint8_t *rr_tx; /* the request / response payload */
	char err[512];
};

/* main.c */
void sp_test_init(struct sp_test *t, struct sp_app *a, bool server);
void sp_pump(struct sp_app *a);
/* the address alone (JSON fields); appport_sa_str adds the port */
const char *sp_sa_str(const struct sockaddr_storage *ss, char *buf, size_t len);
int sp_sock_error(struct stack *st, int sd);
/* Applies -C, -w, -M, TCP_NODELAY of t to sd; err names the option that failed. */
int sp_sock_opts(struct sp_test *t, int sd, bool pre_connect);
/* Drops the ownerships the test holds (streams, echo connections, buffers). */
void sp_test_fini(struct sp_test *t);
double sp_secs(uint64_t ns);

/* proto.c: blocking-style control I/O (pumps the stack while waiting) */
int sp_ctl_read(struct sp_test *t, void *buf, size_t n, uint64_t timeout_ns);
int sp_ctl_write(struct sp_test *t, const void *buf, size_t n);
int sp_ctl_state_send(struct sp_test *t, int8_t state);
int sp_ctl_state_recv(struct sp_test *t, int8_t *state, uint64_t timeout_ns);
/* 1 with *state when a byte was waiting, 0 when none, -errno on EOF or error. */
int sp_ctl_state_poll(struct sp_test *t, int8_t *state);
int sp_ctl_json_send(struct sp_test *t, const char *json, size_t len);
int sp_ctl_json_recv(struct sp_test *t, struct sp_jv **out, size_t max);
void sp_cookie_make(char cookie[SP_COOKIE_SIZE]);
void sp_params_emit(const struct sp_test *t, struct sp_jw *w);
int sp_params_parse(struct sp_test *t, const struct sp_jv *j);
void sp_results_emit(struct sp_test *t, struct sp_jw *w);
int sp_results_parse(struct sp_test *t, const struct sp_jv *j);
/* Waits until sd is connected; -errno with t->err set otherwise. */
int sp_connect_wait(struct sp_test *t, int sd, uint64_t timeout_ns);
int sp_read_exact(struct sp_test *t, int sd, void *buf, size_t n, uint64_t timeout_ns);

/* stream.c */
void sp_streams_service(struct sp_test *t);
void sp_test_begin(struct sp_test *t);
/* Interval bookkeeping: reports when one is due. */
void sp_interval_tick(struct sp_test *t, bool final);
/* Stops sending; fin: shuts our sending streams down (FIN after the data). */
void sp_senders_stop(struct sp_test *t, bool fin);
/* Waits (bounded) until what senders queued is acknowledged. */
void sp_senders_flush(struct sp_test *t, uint64_t timeout_ns);
/* Reads receivers until each has peer_bytes or EOF (bounded). */
void sp_receivers_drain(struct sp_test *t, uint64_t timeout_ns);
void sp_streams_snapshot(struct sp_test *t);
bool sp_test_done(const struct sp_test *t, uint64_t now);
void sp_cpu_mark(struct sp_test *t, bool end);

/* rr.c */
int sp_echo_add(struct sp_test *t, int sd);
void sp_echo_service(struct sp_test *t);
int sp_rr_client_service(struct sp_test *t);
int sp_crr_client_service(struct sp_test *t);
void sp_crr_client_stop(struct sp_test *t);
int sp_rtt_add(struct sp_test *t, uint64_t ns);
/* "min", "p50", ... in µs from the sorted samples. */
void sp_rtt_emit(struct sp_test *t, struct sp_jw *w);
void sp_rtt_print(struct sp_test *t);

/* report.c */
void sp_report_start(struct sp_test *t);
void sp_report_interval(struct sp_test *t, uint64_t from, uint64_t to);
void sp_report_end(struct sp_test *t);

/* server.c, client.c */
int sp_server_run(struct sp_app *a);
int sp_client_run(struct sp_app *a);
/* skperf -s --plain: echoes every connection until killed */
int sp_echo_server_run(struct sp_app *a);

#endif
