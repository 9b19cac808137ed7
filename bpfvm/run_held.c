/* What a running program holds (struct bpfvm_run held_*): the spin lock it
 * took and the ringbuf records it reserved. The verifier proves a program
 * that reaches its exit has released both, but the run-time budget may stop
 * a program anywhere: inside the locked section of a callback, or between
 * bpf_ringbuf_reserve and the submit. A lock word left set would make every
 * later taker wait and then run unlocked; a record left busy would stall the
 * ring's consumer and fail every later reserve once the ring fills. So the
 * engines (interp_start for the interpreters, bpfvm_prog_exec for the JIT)
 * call bpfvm_run_release on a stopped run before they return. */
#include "bpfvm_int.h"

bool bpfvm_run_hold_rec(struct bpfvm_run *run, void *rec)
{
	if (run->held_nrecs >= BPFVM_RUN_MAX_RECS)
		return false;
	run->held_recs[run->held_nrecs++] = rec;
	return true;
}

void bpfvm_run_drop_rec(struct bpfvm_run *run, const void *rec)
{
	if (!run)
		return;
	for (uint32_t i = 0; i < run->held_nrecs; i++) {
		if (run->held_recs[i] != rec)
			continue;
		run->held_recs[i] = run->held_recs[--run->held_nrecs];
		return;
	}
}

void bpfvm_run_release(struct bpfvm_run *run)
{
	if (run->held_lock) {
		__atomic_store_n(run->held_lock, 0, __ATOMIC_RELEASE);
		run->held_lock = NULL;
	}
	/* discarded, not submitted: the consumer never sees half-written data */
	while (run->held_nrecs)
		bpfvm_ringbuf_discard(run->held_recs[--run->held_nrecs], 0);
}
