/* progs/sockopt_flips.c on two stacks in the simulation: at every callback
 * it ran, only what Linux 6.1 refuses fails, as the kernel showed (the
 * equivalence suite compares the same map with the kernel's): putting back
 * TCP_WINDOW_CLAMP 0 outside CLOSE at TCP_LISTEN_CB and TCP_CONNECT_CB
 * (-EINVAL); an empty SO_BINDTODEVICE unbinds, an unknown name is -ENODEV,
 * reading SO_BINDTODEVICE -EINVAL, SO_BINDTOIFINDEX 0 reads back 0. */
#include <time.h>

#include "compat_sim.h"

struct flips {
	uint32_t runs, fails, sock_fail, tcp_fail, ip_fail;
	int32_t unbind, nodev, get_dev, ifindex;
};

static const char *const slot_name[4] = {"listen", "connect", "active", "passive"};

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	sim_eal_init("compat_sockopt");
	struct compat_env e;
	compat_env_init(&e, "compat_sockopt");
	struct bpfvm_obj *obj = compat_attach(&e, "sockopt_flips", "/");
	struct sim s;
	if (sim_create_hooks(&s, "compat_sockopt", 1, NULL, 8, 0, false, e.tree, e.hk) < 0) {
		printf("compat_sockopt: FAIL: sim setup\n");
		return EXIT_FAILURE;
	}
	int l = skops_socket(s.b, AF_INET, SOCK_STREAM);
	struct sockaddr_in sb = sim_sin(0, 5004);
	skops_bind(s.b, l, (struct sockaddr *)&sb, sizeof(sb));
	skops_listen(s.b, l, 8);
	int c = skops_socket(s.a, AF_INET, SOCK_STREAM);
	struct sockaddr_in to = sim_sin(s.b4, 5004);
	int rc = skops_connect(s.a, c, (struct sockaddr *)&to, sizeof(to));
	int a = -1;
	for (int i = 0; i < 10000 && (a < 0 || !(skops_events(s.a, c) & SKOPS_EV_OUT)); i++) {
		sim_step(&s);
		if (a < 0)
			a = skops_accept(s.b, l, NULL, NULL);
	}
	int fails = 0;
	if (rc != -EINPROGRESS || a < 0 || !(skops_events(s.a, c) & SKOPS_EV_OUT)) {
		printf("compat_sockopt: FAIL: connect %d, accept %d: no connection\n", rc, a);
		fails++;
	}
	struct bpfvm_map *m = bpfvm_obj_map_by_name(obj, "flips");
	for (uint32_t k = 0; k < 4; k++) {
		const struct flips *f = bpfvm_map_lookup(m, &k);
		/* listen and connect: TCP_WINDOW_CLAMP (bit 5) put back to 0 */
		uint32_t want_tcp = k < 2 ? 1u << 5 : 0;
		printf("compat_sockopt: %s: runs %u fails %u sock %#x tcp %#x ip %#x dev "
		       "%d/%d/%d/%d\n",
		       slot_name[k], f->runs, f->fails, f->sock_fail, f->tcp_fail, f->ip_fail,
		       f->unbind, f->nodev, f->get_dev, f->ifindex);
		if (f->runs != 1 || f->sock_fail || f->tcp_fail != want_tcp || f->ip_fail ||
		    f->fails != (want_tcp ? 1u : 0u) || f->unbind != 0 || f->nodev != -ENODEV ||
		    f->get_dev != -EINVAL || f->ifindex != 0) {
			printf("compat_sockopt: FAIL %s: want runs 1, tcp %#x and nothing else, "
			       "dev 0/%d/%d/0\n",
			       slot_name[k], want_tcp, -ENODEV, -EINVAL);
			fails++;
		}
	}
	sim_destroy(&s, false);
	bpfvm_obj_close(obj);
	compat_env_fini(&e);
	rte_eal_cleanup();
	return fails ? EXIT_FAILURE : EXIT_SUCCESS;
}
