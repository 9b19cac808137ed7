/* Programs: load (copy, encoding check, relocate, facts, verify, tag, JIT,
 * register), reference counting, info and run. The encoding check
 * (insn_check.c) and the facts (prog_facts.c) are what keeps the interpreter
 * on the program for no_verify loads; the verifier proves the rest.
 * Read RFC 9669 §5 (instruction set) and docs/sockops.md §7 (IDs and info). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpfvm_int.h"

/* Per-thread cpu index: the public API (bpfvm_set_cpu/bpfvm_cpu) has no context
 * argument, and the cpu is a property of the calling thread (one lcore per
 * thread), exactly what the kernel's smp_processor_id() is. */
static _Thread_local unsigned bpfvm_cur_cpu;

void bpfvm_set_cpu(unsigned cpu)
{
	bpfvm_cur_cpu = cpu < BPFVM_MAX_CPUS ? cpu : cpu % BPFVM_MAX_CPUS;
}

unsigned bpfvm_cpu(void)
{
	return bpfvm_cur_cpu;
}

/* ---- load checks ------------------------------------------------------- */

/* What every program must be before any engine sees it, verified or not:
 * well-encoded (insn_check.c), no write to R10 and no helper call the type
 * lacks (the interpreter keeps R10 as its frame and calls helpers by table,
 * so no_verify loads need these too). */
static int prog_check(const struct bpfvm_prog *prog, struct bpfvm_log *log)
{
	struct bpfvm_insn_err e;
	int err = bpfvm_insns_check(prog->insns, prog->ninsns, &e);
	if (err) {
		if (err == -EINVAL)
			bpfvm_log_printf(log, "prog: insn %zu: %s\n", e.pc, e.why);
		return err;
	}
	for (size_t pc = 0; pc < prog->ninsns; pc++) {
		const struct bpfvm_insn *in = &prog->insns[pc];
		uint8_t cls = BPF_CLASS(in->code);
		const char *why = NULL;
		if (bpfvm_insn_is_ldimm64(in))
			pc++;
		bool writes = cls == BPF_ALU || cls == BPF_ALU64 || cls == BPF_LDX || cls == BPF_LD;
		if (writes && in->dst == BPFVM_REG_FP)
			why = "frame pointer is read only";
		else if (in->code == (BPF_JMP | BPF_CALL) &&
			 (in->src == 0 || in->src == BPF_PSEUDO_KFUNC_CALL) &&
			 !(in->src == 0 && in->imm == BPF_HELPER_TAIL_CALL) &&
			 !bpfvm_call_proto(prog->type, in->src, in->imm) &&
			 !(bpfvm_prog_poison(prog, pc) && !prog->no_verify))
			why = "unknown helper for this program type";
		if (why) {
			bpfvm_log_printf(log, "prog: insn %zu: %s (code 0x%02x)\n", pc, why,
					 in->code);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- relocation -------------------------------------------------------- */

static int prog_add_map(struct bpfvm_prog *prog, struct bpfvm_map *map)
{
	for (size_t i = 0; i < prog->nmaps; i++)
		if (prog->maps[i] == map)
			return 0;
	if (prog->nmaps == BPFVM_MAX_USED_MAPS)
		return -E2BIG;
	bpfvm_map_get(map);
	prog->maps[prog->nmaps++] = map;
	return 0;
}

static void set_imm64(struct bpfvm_insn *in, uint64_t v)
{
	in[0].imm = (int32_t)(uint32_t)v;
	in[1].imm = (int32_t)(uint32_t)(v >> 32);
}

static int prog_relocate(struct bpfvm_prog *prog, struct bpfvm_map *const *maps, size_t nmaps,
			 struct bpfvm_log *log)
{
	struct bpfvm_insn *insns = prog->insns;
	size_t n = prog->ninsns;
	for (size_t pc = 0; pc < n; pc++) {
		struct bpfvm_insn *in = &insns[pc];
		if (!bpfvm_insn_is_ldimm64(in) || pc + 1 >= n)
			continue;
		if (in->src == 0) {
			pc++;
			continue;
		}
		if (in->src == BPF_PSEUDO_FUNC) {
			int64_t t = (int64_t)pc + in->imm + 1;
			if (t < 0 || t >= (int64_t)n || insns[pc + 1].imm) {
				bpfvm_log_printf(
				    log, "prog: insn %zu: callback target out of range\n", pc);
				return -EINVAL;
			}
			set_imm64(in, (uint64_t)t);
			pc++;
			continue;
		}
		if (in->src != BPF_PSEUDO_MAP_FD && in->src != BPF_PSEUDO_MAP_VALUE) {
			bpfvm_log_printf(log, "prog: insn %zu: unsupported ld_imm64 source %u\n",
					 pc, in->src);
			return -EINVAL;
		}
		uint32_t idx = (uint32_t)in->imm;
		if (idx >= nmaps || !maps || !maps[idx]) {
			bpfvm_log_printf(log, "prog: insn %zu: map index %u out of range\n", pc,
					 idx);
			return -EINVAL;
		}
		struct bpfvm_map *map = maps[idx];
		int err = prog_add_map(prog, map);
		if (err) {
			bpfvm_log_printf(log, "prog: insn %zu: too many maps\n", pc);
			return err;
		}
		if (in->src == BPF_PSEUDO_MAP_FD) {
			if (insns[pc + 1].imm) {
				bpfvm_log_printf(log, "prog: insn %zu: map fd with offset\n", pc);
				return -EINVAL;
			}
			set_imm64(in, (uint64_t)(uintptr_t)map);
		} else {
			/* bpf_map_direct_value_addr: arrays only, offset inside the
			 * first value (global data sections are one-element arrays) */
			uint32_t off = (uint32_t)insns[pc + 1].imm;
			uint32_t key = 0;
			void *v =
			    map->def.type == BPFVM_MAP_ARRAY ? bpfvm_map_lookup(map, &key) : NULL;
			if (!v || off >= map->def.value_size) {
				bpfvm_log_printf(log,
						 "prog: insn %zu: direct value access outside "
						 "map value\n",
						 pc);
				return -EINVAL;
			}
			set_imm64(in, (uint64_t)(uintptr_t)v + off);
		}
		pc++;
	}
	return 0;
}

/* ---- load / lifetime --------------------------------------------------- */

static void prog_free(struct bpfvm_prog *prog)
{
	if (prog->jit_image)
		bpfvm_jit_free(prog);
	for (size_t i = 0; i < prog->nmaps; i++)
		bpfvm_map_put(prog->maps[i]);
	free(prog->maps);
	free(prog->aux);
	free(prog->insns);
	free(prog);
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

const char *bpfvm_prog_poison(const struct bpfvm_prog *prog, size_t pc)
{
	for (size_t i = 0; i < prog->npoison; i++)
		if (prog->poison[i].pc == pc)
			return prog->poison[i].why;
	return NULL;
}

/* The kernel's sanitize_dead_code: a poisoned insn the verifier never reached
 * becomes `ja -1`, so no engine is handed an unknown helper. */
static void poison_sanitize(struct bpfvm_prog *prog)
{
	for (size_t i = 0; i < prog->npoison; i++) {
		size_t pc = prog->poison[i].pc; /* both ld_imm64 halves have one */
		struct bpfvm_insn *in = &prog->insns[pc];
		if (pc >= prog->ninsns || in->code != (BPF_JMP | BPF_CALL) ||
		    in->imm != BPFVM_CORE_POISON || prog->aux[pc].seen)
			continue;
		*in = (struct bpfvm_insn){.code = BPF_JMP | BPF_JA, .off = -1};
		prog->aux[pc].jump_target = 1; /* its own target */
	}
	prog->poison = NULL;
	prog->npoison = 0;
}

int bpfvm_prog_load(struct bpfvm_registry *reg, const struct bpfvm_insn *insns, size_t n,
		    struct bpfvm_map *const *maps, size_t nmaps, const struct bpfvm_load_opts *opts,
		    struct bpfvm_prog **out)
{
	return bpfvm_prog_load_core(reg, insns, n, maps, nmaps, opts, NULL, 0, out);
}

int bpfvm_prog_load_core(struct bpfvm_registry *reg, const struct bpfvm_insn *insns, size_t n,
			 struct bpfvm_map *const *maps, size_t nmaps,
			 const struct bpfvm_load_opts *opts, const struct bpfvm_core_poison *poison,
			 size_t npoison, struct bpfvm_prog **out)
{
	static const struct bpfvm_load_opts no_opts;
	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!opts)
		opts = &no_opts;
	struct bpfvm_log *log = opts->log;
	if (!reg || !insns || n == 0) {
		bpfvm_log_printf(log, "prog: load: no registry or no instructions\n");
		return -EINVAL;
	}
	if (n > BPFVM_MAX_INSNS) {
		bpfvm_log_printf(log, "prog: load: %zu instructions exceed the limit of %u\n", n,
				 BPFVM_MAX_INSNS);
		return -E2BIG;
	}
	const struct bpfvm_prog_type *type = opts->type ? opts->type : &bpfvm_type_generic;
	if (opts->no_verify && type != &bpfvm_type_generic) {
		bpfvm_log_printf(log, "prog: load: no_verify is only allowed for type %s\n",
				 bpfvm_type_generic.name);
		return -EINVAL;
	}
	if (!type->helper) {
		bpfvm_log_printf(log, "prog: load: program type without helper table\n");
		return -EINVAL;
	}

	struct bpfvm_prog *prog = calloc(1, sizeof(*prog));
	if (!prog)
		return -ENOMEM;
	atomic_init(&prog->refcnt, 1);
	prog->type = type;
	prog->strict = opts->strict;
	prog->allow_ptr_leaks = opts->allow_ptr_leaks;
	prog->no_verify = opts->no_verify;
	prog->run_budget = opts->run_budget  ? opts->run_budget
			   : opts->no_verify ? BPFVM_RUN_BUDGET_UNVERIFIED
					     : bpfvm_registry_run_budget(reg);
	prog->uid = opts->uid;
	if (opts->name)
		strncpy(prog->name, opts->name, BPFVM_OBJ_NAME_LEN - 1);
	prog->insns = malloc(n * sizeof(*insns));
	prog->maps = calloc(BPFVM_MAX_USED_MAPS, sizeof(*prog->maps));
	if (!prog->insns || !prog->maps) {
		prog_free(prog);
		return -ENOMEM;
	}
	memcpy(prog->insns, insns, n * sizeof(*insns));
	prog->ninsns = n;
	prog->poison = poison;
	prog->npoison = npoison;

	struct bpfvm_insn_err e;
	int err = prog_check(prog, log);
	if (!err)
		err = prog_relocate(prog, maps, nmaps, log);
	if (!err) {
		err = bpfvm_prog_facts_build(prog, &e);
		if (err == -EINVAL)
			bpfvm_log_printf(log, "prog: insn %zu: %s\n", e.pc, e.why);
	}
	if (!err && !opts->no_verify)
		err = bpfvm_verify(prog, log);
	for (size_t i = 0; !err && i < prog->nmaps; i++) {
		err = bpfvm_prog_array_claim(prog->maps[i], prog);
		if (err)
			bpfvm_log_printf(log,
					 "prog: load: map %zu is a prog array of another program "
					 "type: a tail call would run its programs on this ctx\n",
					 i);
	}
	if (!err)
		poison_sanitize(prog);
	if (err) {
		prog_free(prog);
		return err;
	}
	bpfvm_prog_tag(prog->insns, prog->ninsns, prog->tag);
	if (opts->jit && bpfvm_jit_compile(prog, opts->jit_blind, log) != 0) {
		/* logged by the JIT; the interpreter is the documented fallback */
		prog->jit_fn = NULL;
	}
	if (log && log->level && log->truncated) {
		/* bpfvm.h's log contract (the kernel's bpf_check): a load that
		 * would succeed with a truncated log reports -ENOSPC */
		prog_free(prog);
		return -ENOSPC;
	}
	prog->load_time = realtime_ns();
	err = bpfvm_reg_add_prog(reg, prog);
	if (err) {
		bpfvm_log_printf(log, "prog: load: no program id available\n");
		prog_free(prog);
		return err;
	}
	*out = prog;
	return 0;
}

void bpfvm_prog_get(struct bpfvm_prog *prog)
{
	if (prog)
		atomic_fetch_add(&prog->refcnt, 1);
}

void bpfvm_prog_put(struct bpfvm_prog *prog)
{
	if (!prog || atomic_fetch_sub(&prog->refcnt, 1) != 1)
		return;
	if (prog->reg && !bpfvm_reg_release_prog(prog))
		return;
	prog_free(prog);
}

/* ---- accessors --------------------------------------------------------- */

void bpfvm_prog_info(const struct bpfvm_prog *prog, struct bpfvm_prog_info *info)
{
	memset(info, 0, sizeof(*info));
	info->type = prog->type->type;
	info->id = prog->id;
	memcpy(info->tag, prog->tag, sizeof(info->tag));
	memcpy(info->name, prog->name, sizeof(info->name));
	info->jited_prog_len = prog->jit_fn ? (uint32_t)prog->jit_len : 0;
	info->xlated_prog_len = (uint32_t)(prog->ninsns * sizeof(struct bpfvm_insn));
	info->nr_map_ids = (uint32_t)prog->nmaps;
	for (size_t i = 0; i < prog->nmaps; i++)
		info->map_ids[i] = prog->maps[i]->id;
	info->load_time = prog->load_time;
	info->created_by_uid = prog->uid;
	info->run_cnt = atomic_load(&prog->run_cnt);
	info->run_time_ns = atomic_load(&prog->run_time_ns);
	info->run_budget = prog->run_budget;
	info->budget_stops = atomic_load(&prog->budget_stops);
}

uint32_t bpfvm_prog_id(const struct bpfvm_prog *prog)
{
	return prog->id;
}

const struct bpfvm_prog_type *bpfvm_prog_type(const struct bpfvm_prog *prog)
{
	return prog->type;
}

const struct bpfvm_insn *bpfvm_prog_insns(const struct bpfvm_prog *prog, size_t *n)
{
	if (n)
		*n = prog->ninsns;
	return prog->insns;
}

uint64_t bpfvm_prog_ctx_fields(const struct bpfvm_prog *prog)
{
	return prog->ctx_fields;
}

const void *bpfvm_prog_jited(const struct bpfvm_prog *prog, size_t *len)
{
	if (!prog->jit_fn) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = prog->jit_len;
	return prog->jit_image;
}

void bpfvm_prog_add_stats(struct bpfvm_prog *prog, uint64_t cnt, uint64_t ns)
{
	atomic_fetch_add_explicit(&prog->run_cnt, cnt, memory_order_relaxed);
	atomic_fetch_add_explicit(&prog->run_time_ns, ns, memory_order_relaxed);
}

/* ---- run --------------------------------------------------------------- */

int bpfvm_prog_exec(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len, uint64_t *r0)
{
	if (prog->jit_leaf) {
		/* the common sock_ops case: no loop, no call out, so no budget
		 * and no run to build */
		*r0 = prog->jit_fn(ctx, ctx_len, NULL);
		return 0;
	}
	uint64_t left = prog->run_budget;
	bpfvm_run_enter();
	if (prog->jit_fn) {
		/* The JIT's entry fills call for its own callbacks. held_recs
		 * is read only below held_nrecs: left unwritten, as zeroing its
		 * 128 bytes cost each run ~15 instructions of the ~85 here. */
		struct bpfvm_run run;
		memset(&run, 0, offsetof(struct bpfvm_run, held_recs));
		run.prog = prog;
		run.ctx = ctx;
		run.budget = left;
		*r0 = prog->jit_fn(ctx, ctx_len, &run);
		left = run.budget;
		if (!left)
			bpfvm_run_release(&run);
	} else {
		*r0 = bpfvm_interp_run(prog, ctx, ctx_len, &left);
	}
	bpfvm_run_exit();
	if (left)
		return 0;
	/* the program the run began with pays, whatever it tail-called */
	struct bpfvm_prog *p = (struct bpfvm_prog *)prog;
	atomic_fetch_add_explicit(&p->budget_stops, 1, memory_order_relaxed);
	if (p->reg)
		bpfvm_reg_budget_stop(p->reg);
	*r0 = 0;
	return -ETIME;
}

bpfvm_leaf_fn bpfvm_prog_leaf_fn(const struct bpfvm_prog *prog)
{
	return prog->jit_leaf ? prog->jit_fn : NULL;
}

uint64_t bpfvm_prog_run(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len)
{
	if (prog->jit_leaf) /* as in exec, without the round trip: ~2 ns a call */
		return prog->jit_fn(ctx, ctx_len, NULL);
	uint64_t r0;
	(void)bpfvm_prog_exec(prog, ctx, ctx_len, &r0);
	return r0;
}

uint64_t bpfvm_prog_run_interp(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len)
{
	uint64_t left = prog->run_budget;
	bpfvm_run_enter();
	uint64_t r0 = bpfvm_interp_run(prog, ctx, ctx_len, &left);
	bpfvm_run_exit();
	return r0;
}

uint64_t bpfvm_prog_run_checked(const struct bpfvm_prog *prog, void *ctx, size_t ctx_len,
				int64_t *stop_pc)
{
	struct bpfvm_fault f;
	bpfvm_run_enter();
	uint64_t r0 = bpfvm_interp_run_checked(prog, ctx, ctx_len, &f);
	bpfvm_run_exit();
	if (stop_pc)
		*stop_pc = f.hit ? (int64_t)f.pc : -1;
	return r0;
}
