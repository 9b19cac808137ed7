/* skops SDK: seed-style "bpf_helpers.h" for BPF C sources: the SEC() macro,
 * the legacy "maps" section record and one function-pointer declaration per
 * helper a sock_ops program may call (docs/sockops.md §5). A call through such a
 * pointer compiles to "call N" with N the helper's enum bpf_func_id number.
 * Include <uapi/linux/bpf.h> (or <linux/bpf.h>) first. */
#ifndef SKOPS_SDK_BPF_HELPERS_H
#define SKOPS_SDK_BPF_HELPERS_H

/* Put the following object into ELF section NAME ("sockops", "maps",
 * "license", ...): the loader finds programs and maps by section. */
#define SEC(NAME) __attribute__((section(NAME), used))

/* One map in the legacy "maps" section; the loader creates it from these
 * five words. */
struct bpf_map_def {
	unsigned int type;
	unsigned int key_size;
	unsigned int value_size;
	unsigned int max_entries;
	unsigned int map_flags;
};

/* Maps. */
static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *)BPF_FUNC_map_lookup_elem;
static int (*bpf_map_update_elem)(void *map, const void *key, const void *value,
				  unsigned long long flags) = (void *)BPF_FUNC_map_update_elem;
static int (*bpf_map_delete_elem)(void *map, const void *key) = (void *)BPF_FUNC_map_delete_elem;
static int (*bpf_for_each_map_elem)(void *map, void *callback_fn, void *callback_ctx,
				    unsigned long long flags) = (void *)BPF_FUNC_for_each_map_elem;
static void (*bpf_tail_call)(void *ctx, void *prog_array_map,
			     unsigned int index) = (void *)BPF_FUNC_tail_call;
static void (*bpf_spin_lock)(void *lock) = (void *)BPF_FUNC_spin_lock;
static void (*bpf_spin_unlock)(void *lock) = (void *)BPF_FUNC_spin_unlock;

/* Time, randomness, cpu, loops, text. */
static unsigned long long (*bpf_ktime_get_ns)(void) = (void *)BPF_FUNC_ktime_get_ns;
static int (*bpf_trace_printk)(const char *fmt, int fmt_size, ...) = (void *)BPF_FUNC_trace_printk;
static unsigned int (*bpf_get_prandom_u32)(void) = (void *)BPF_FUNC_get_prandom_u32;
static unsigned int (*bpf_get_smp_processor_id)(void) = (void *)BPF_FUNC_get_smp_processor_id;
static long (*bpf_loop)(unsigned int nr_loops, void *callback_fn, void *callback_ctx,
			unsigned long long flags) = (void *)BPF_FUNC_loop;
static long (*bpf_snprintf)(char *str, unsigned int str_size, const char *fmt,
			    unsigned long long *data,
			    unsigned int data_len) = (void *)BPF_FUNC_snprintf;

/* Output to user space. */
static int (*bpf_perf_event_output)(void *ctx, void *map, unsigned long long flags, void *data,
				    int size) = (void *)BPF_FUNC_perf_event_output;
static long (*bpf_ringbuf_output)(void *ringbuf, void *data, unsigned long long size,
				  unsigned long long flags) = (void *)BPF_FUNC_ringbuf_output;
static void *(*bpf_ringbuf_reserve)(void *ringbuf, unsigned long long size,
				    unsigned long long flags) = (void *)BPF_FUNC_ringbuf_reserve;
static void (*bpf_ringbuf_submit)(void *data,
				  unsigned long long flags) = (void *)BPF_FUNC_ringbuf_submit;
static void (*bpf_ringbuf_discard)(void *data,
				   unsigned long long flags) = (void *)BPF_FUNC_ringbuf_discard;
static unsigned long long (*bpf_ringbuf_query)(void *ringbuf, unsigned long long flags) = (void *)
    BPF_FUNC_ringbuf_query;

/* sock_ops. */
static int (*bpf_setsockopt)(void *ctx, int level, int optname, void *optval,
			     int optlen) = (void *)BPF_FUNC_setsockopt;
static int (*bpf_getsockopt)(void *ctx, int level, int optname, void *optval,
			     int optlen) = (void *)BPF_FUNC_getsockopt;
static int (*bpf_sock_ops_cb_flags_set)(void *ctx,
					int flags) = (void *)BPF_FUNC_sock_ops_cb_flags_set;
static unsigned long long (*bpf_get_socket_cookie)(void *ctx) = (void *)BPF_FUNC_get_socket_cookie;
static unsigned long long (*bpf_get_netns_cookie)(void *ctx) = (void *)BPF_FUNC_get_netns_cookie;
static void *(*bpf_sk_storage_get)(void *map, void *sk, void *value,
				   unsigned long long flags) = (void *)BPF_FUNC_sk_storage_get;
static int (*bpf_sk_storage_delete)(void *map, void *sk) = (void *)BPF_FUNC_sk_storage_delete;
static struct bpf_tcp_sock *(*bpf_tcp_sock)(void *sk) = (void *)BPF_FUNC_tcp_sock;
/* Kernel-typed results: opaque here (their fields need CO-RE, docs/sockops.md §5). */
static void *(*bpf_skc_to_tcp_sock)(void *sk) = (void *)BPF_FUNC_skc_to_tcp_sock;
static void *(*bpf_skc_to_mptcp_sock)(void *sk) = (void *)BPF_FUNC_skc_to_mptcp_sock;
static int (*bpf_sock_map_update)(void *ctx, void *map, void *key,
				  unsigned long long flags) = (void *)BPF_FUNC_sock_map_update;
static int (*bpf_sock_hash_update)(void *ctx, void *map, void *key,
				   unsigned long long flags) = (void *)BPF_FUNC_sock_hash_update;
static int (*bpf_load_hdr_opt)(void *ctx, void *searchby_res, unsigned int len,
			       unsigned long long flags) = (void *)BPF_FUNC_load_hdr_opt;
static int (*bpf_store_hdr_opt)(void *ctx, const void *from, unsigned int len,
				unsigned long long flags) = (void *)BPF_FUNC_store_hdr_opt;
static int (*bpf_reserve_hdr_opt)(void *ctx, unsigned int len,
				  unsigned long long flags) = (void *)BPF_FUNC_reserve_hdr_opt;

#endif
