/* The value of progs/tstamp_cb.c's "tstamp" map, one slot per side, as the
 * compat tests read it (the program's struct tstamp_res, field for field). */
#ifndef SKOPS_TEST_COMPAT_TSTAMP_RES_H
#define SKOPS_TEST_COMPAT_TSTAMP_RES_H
#include <stdint.h>

#include "bpfvm.h"

struct tstamp_res {
	int32_t flags_bad, flags_len8, flags_tcp, get0_rc;
	uint32_t get0_val;
	int32_t set_rc;
	uint32_t get1_val;
	int32_t kf_first, kf_flags, kf_other, sockopt_ts, getopt_ts, cbset_ts;
	uint32_t n_sendmsg, n_marked, n_sched, n_sw, n_hw, n_ack, order_bad, not_full, seen;
};

/* A slot's result (0 the active side, 1 the passive, 2 the listener);
 * NULL without the map. */
static inline const struct tstamp_res *tstamp_res_get(struct bpfvm_obj *obj, uint32_t slot)
{
	struct bpfvm_map *m = bpfvm_obj_map_by_name(obj, "tstamp");
	return m ? bpfvm_map_lookup(m, &slot) : NULL;
}

#endif
