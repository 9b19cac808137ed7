// SPDX-License-Identifier: GPL-2.0
/* Written in the kernel selftests' style (libbpf headers, BTF-defined maps,
 * SEC("sockops")): put the socket the program runs for into a SOCKMAP (by
 * side: 0 active, 1 passive) and a SOCKHASH (by local port) at the
 * ESTABLISHED callbacks, and record what each update answered, including a
 * second NOEXIST insert and an insert at TCP_CONNECT_CB, where Linux refuses
 * sockmap updates. The test reads the maps from user space: each entry is the
 * socket's cookie, which the program records too. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} sock_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SOCKHASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} sock_hash SEC(".maps");

struct insert_result {
	__s32 connect_rc; /* bpf_sock_map_update at TCP_CONNECT_CB */
	__s32 map_rc;	  /* first insert into sock_map */
	__s32 map_again;  /* the same key again with BPF_NOEXIST */
	__s32 hash_rc;	  /* insert into sock_hash */
	__u64 cookie;	  /* bpf_get_socket_cookie() of the inserted socket */
	__u32 inserted;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct insert_result);
} results SEC(".maps");

SEC("sockops")
int sockmap_insert(struct bpf_sock_ops *skops)
{
	struct insert_result *r;
	__u32 side, port;

	switch (skops->op) {
	case BPF_SOCK_OPS_TCP_CONNECT_CB:
		side = 0;
		r = bpf_map_lookup_elem(&results, &side);
		if (r)
			r->connect_rc = bpf_sock_map_update(skops, &sock_map, &side, BPF_ANY);
		return 1;
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
		side = 0;
		break;
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		side = 1;
		break;
	default:
		return 1;
	}
	r = bpf_map_lookup_elem(&results, &side);
	if (!r)
		return 1;
	r->map_rc = bpf_sock_map_update(skops, &sock_map, &side, BPF_NOEXIST);
	r->map_again = bpf_sock_map_update(skops, &sock_map, &side, BPF_NOEXIST);
	port = skops->local_port;
	r->hash_rc = bpf_sock_hash_update(skops, &sock_hash, &port, BPF_ANY);
	r->cookie = bpf_get_socket_cookie(skops);
	r->inserted++;
	return 1;
}

char _license[] SEC("license") = "GPL";
