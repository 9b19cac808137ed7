/* C entry points JIT code calls: tail calls and bpfvm_run.call for the
 * callbacks of bpf_loop / for_each_map_elem. They read the metadata the
 * driver places after the code of each image. */
#include "jit_int.h"

/* The prog-array accessor of the loader's map code; weak until that map type
 * lands so the JIT links without it (no function: no target, fall through). */
struct bpfvm_prog *bpfvm_prog_array_get(struct bpfvm_map *map, uint32_t index)
    __attribute__((weak));

/* Kernel semantics (bpf_tail_call): an index outside the array, an empty
 * slot or the 34th tail call fall through with r0 untouched; otherwise the
 * target replaces the running function: its r0 is what that function returns
 * (to the caller of a subprogram, as in the kernel and the interpreter). The
 * target runs on its own image, or on the interpreter when it has none (which
 * then counts its own tail calls from 0: a documented limitation). */
struct jit_tail_ret jit_tail_call(void *ctx, uint64_t map, uint64_t index, uint64_t r0, uint64_t r5,
				  struct bpfvm_run *run)
{
	(void)r5;
	struct jit_tail_ret ret = {.r0 = r0, .taken = 0};
	struct bpfvm_map *m = (struct bpfvm_map *)(uintptr_t)map;
	if (!m || m->def.type != BPFVM_MAP_PROG_ARRAY || run->tail_calls >= BPFVM_MAX_TAIL_CALLS)
		return ret;
	const struct bpfvm_prog *t =
	    bpfvm_prog_array_get ? bpfvm_prog_array_get(m, (uint32_t)index) : NULL;
	if (!t)
		return ret;
	const struct bpfvm_prog *caller = run->prog;
	run->tail_calls++;
	run->prog = t;
	/* one budget for the whole run: the target spends what is left */
	ret.r0 = t->jit_fn ? t->jit_fn(ctx, 0, run) : bpfvm_interp_run(t, ctx, 0, &run->budget);
	run->prog = caller; /* back in the subprogram's caller, if any */
	ret.taken = 1;
	return ret;
}

typedef uint64_t (*jit_thunk_fn)(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4,
				 struct bpfvm_run *run, const void *fn);

const struct jit_meta *jit_meta_of(const struct bpfvm_prog *prog)
{
	if (!prog || !prog->jit_image)
		return NULL;
	const uint8_t *img = prog->jit_image;
	const struct jit_meta *m =
	    (const struct jit_meta *)(img + ((prog->jit_len + 7) & ~(size_t)7));
	return m->magic == JIT_META_MAGIC ? m : NULL;
}

const uint32_t *bpfvm_prog_jited_offsets(const struct bpfvm_prog *prog, size_t *n)
{
	const struct jit_meta *m = jit_meta_of(prog);
	if (n)
		*n = m ? m->ninsns : 0;
	return m ? (const uint32_t *)&m->funcs[m->nfuncs] : NULL;
}

uint64_t jit_run_call(struct bpfvm_run *run, uint32_t pc, uint64_t r1, uint64_t r2, uint64_t r3,
		      uint64_t r4)
{
	const struct bpfvm_prog *p = run->prog;
	const struct jit_meta *m = jit_meta_of(p);
	if (!m || m->cb_off == 0 || bpfvm_run_stopped(run))
		return 0;
	/* every callback entry spends one unit, as in the interpreter; the
	 * last one stops the run before the callback starts */
	if (--run->budget == 0)
		return 0;
	const uint8_t *img = p->jit_image;
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		if (m->funcs[i].pc != pc)
			continue;
		jit_thunk_fn thunk = (jit_thunk_fn)(uintptr_t)(img + m->cb_off);
		uint64_t r0 = thunk(r1, r2, r3, r4, run, img + m->funcs[i].off);
		run->prog = p; /* a tail call inside the callback ends with it */
		return r0;
	}
	return 0;
}
