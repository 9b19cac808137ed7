/* vdiff: differential verification of skops' verifier against the running
 * kernel's (docs/verifier-diff.md). Each generated sock_ops program is loaded
 * in both; one skops accepts and the kernel refuses is run on the checked
 * interpreter over many random contexts and map contents, and any fault is a
 * soundness bug: the program is saved as a regression case and printed.
 *
 *   vdiff [--seconds N] [--count N] [--seed N] [--runs N] [--save DIR]
 *         [--shapes MASK] [--quiet]
 *   vdiff --seed N --show I  (program I of that run, with both verdicts)
 *   vdiff --replay FILE...   (regression cases: none may fault; a case with
 *                             "# expect: accept|reject" must get that verdict)
 *
 * Exit: 0 no fault, 1 a fault (or a replayed case faulted), 2 cannot run. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vdiff.h"

#define VD_WHY	     256
#define VD_BUCKETS   1024
#define VD_BOTH_RUNS 4 /* checked runs of programs both accept */

struct vd_bucket {
	char key[VD_WHY];
	uint64_t n;
	uint64_t example; /* first program index */
};

struct vd_tally {
	uint64_t programs, kernel_ok, skops_ok, both, skops_only, kernel_only, faults;
	uint64_t shape_progs[12], shape_faults[12];
	struct vd_bucket so[VD_BUCKETS], ko[VD_BUCKETS]; /* by kernel / skops reason */
};

struct vd_opts {
	double seconds;
	uint64_t count, seed;
	unsigned runs;
	uint32_t shapes;
	const char *save;
	bool quiet;
};

static struct vd_tally vd_t;

/* ---- buckets ------------------------------------------------------------ */

void vd_bucket_key(const char *msg, char *out, size_t out_len)
{
	size_t o = 0;
	for (const char *p = msg; *p && o + 2 < out_len;) {
		if (p[0] == '0' && p[1] == 'x') {
			p += 2;
			while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
				p++;
			out[o++] = 'N';
		} else if (*p >= '0' && *p <= '9') {
			while (*p >= '0' && *p <= '9')
				p++;
			out[o++] = 'N';
		} else {
			out[o++] = *p++;
		}
	}
	while (o && out[o - 1] == ' ')
		o--;
	out[o] = 0;
}

static void vd_count(struct vd_bucket *b, const char *why, uint64_t idx)
{
	char key[VD_WHY];
	vd_bucket_key(why, key, sizeof key);
	uint64_t h = 1469598103934665603ull;
	for (const char *p = key; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	for (size_t i = 0; i < VD_BUCKETS; i++) {
		struct vd_bucket *e = &b[(h + i) % VD_BUCKETS];
		if (e->n == 0) {
			snprintf(e->key, sizeof e->key, "%s", key);
			e->example = idx;
		}
		if (strcmp(e->key, key) == 0) {
			e->n++;
			return;
		}
	}
}

static int vd_bucket_cmp(const void *a, const void *b)
{
	const struct vd_bucket *x = a, *y = b;
	return x->n < y->n ? 1 : x->n > y->n ? -1 : 0;
}

static void vd_print_buckets(const char *title, struct vd_bucket *b, unsigned top)
{
	qsort(b, VD_BUCKETS, sizeof *b, vd_bucket_cmp);
	printf("%s:\n", title);
	for (unsigned i = 0; i < VD_BUCKETS && i < top && b[i].n; i++)
		printf("  %9llu  %s  (e.g. #%llu)\n", (unsigned long long)b[i].n, b[i].key,
		       (unsigned long long)b[i].example);
}

/* ---- program text ------------------------------------------------------- */

static void vd_print_prog(FILE *f, const struct vd_prog *p, const char *prefix)
{
	for (size_t i = 0; i < p->n; i++) {
		char d[128];
		const struct bpfvm_insn *next = i + 1 < p->n ? &p->insns[i + 1] : NULL;
		const struct bpfvm_insn *in = &p->insns[i];
		/* map references hold an index here, not the map bpfvm_disasm expects */
		if (in->code == 0x18 && next && (in->src == 1 || in->src == 2))
			snprintf(d, sizeof d, "r%u = map[%d]%s%d", in->dst, in->imm,
				 in->src == 2 ? " value +" : "", in->src == 2 ? next->imm : 0);
		if (in->code == 0x18 && next && in->src == 1)
			d[strlen(d) - 1] = 0; /* no offset */
		else
			bpfvm_disasm(in, next, d, sizeof d);
		fprintf(f, "%sinsn %02x %x %x %d %d  ; %zu: %s\n", prefix, in->code, in->dst,
			in->src, in->off, in->imm, i, d);
		if (in->code == 0x18 && next) {
			fprintf(f, "%sinsn %02x %x %x %d %d\n", prefix, next->code, next->dst,
				next->src, next->off, next->imm);
			i++;
		}
	}
}

/* Regression case: header comments, then "insn CODE DST SRC OFF IMM" lines. */
static int vd_save(const char *dir, uint64_t seed, uint64_t idx, const struct vd_prog *p,
		   const char *kwhy, const char *what, char *path, size_t path_len)
{
	snprintf(path, path_len, "%s/vdiff-%llu-%llu.prog", dir, (unsigned long long)seed,
		 (unsigned long long)idx);
	FILE *f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "# vdiff regression: seed %llu program %llu\n", (unsigned long long)seed,
		(unsigned long long)idx);
	fprintf(f, "# kernel: %s\n# skops: accepted\n# fault: %s\n", kwhy, what);
	fprintf(f, "# expect: no fault on the checked interpreter (skops refuses, or runs "
		   "it safely)\n");
	vd_print_prog(f, p, "");
	fclose(f);
	return 0;
}

/* expect: 'a' accept, 'r' reject, 0 either (then only "no fault" counts) */
static int vd_read_prog(const char *path, struct vd_prog *p, char *expect)
{
	FILE *f = fopen(path, "r");
	char line[512];
	if (!f)
		return -errno;
	p->n = 0;
	p->shapes = 0;
	*expect = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned code, dst, src;
		int off, imm;
		if (strncmp(line, "# expect: accept", 16) == 0)
			*expect = 'a';
		if (strncmp(line, "# expect: reject", 16) == 0)
			*expect = 'r';
		if (sscanf(line, "insn %x %x %x %d %d", &code, &dst, &src, &off, &imm) != 5)
			continue;
		if (p->n >= VD_MAX_INSNS) {
			fclose(f);
			return -E2BIG;
		}
		p->insns[p->n++] = (struct bpfvm_insn){.code = (uint8_t)code,
						       .dst = (uint8_t)dst,
						       .src = (uint8_t)src,
						       .off = (int16_t)off,
						       .imm = imm};
	}
	fclose(f);
	return p->n ? 0 : -ENOEXEC;
}

/* ---- a checked run that never ends is a finding too ----------------------- */

static const struct vd_prog *vd_cur;
static uint64_t vd_cur_seed, vd_cur_idx;
static const char *vd_cur_dir;

static void vd_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "vdiff: FAULT: a checked run did not finish in 20 s\n";
	ssize_t w = write(2, msg, sizeof msg - 1);
	(void)w;
	if (vd_cur && vd_cur_dir) {
		char path[512];
		vd_save(vd_cur_dir, vd_cur_seed, vd_cur_idx, vd_cur, "-", "no exit in 20 s", path,
			sizeof path);
		vd_print_prog(stderr, vd_cur, "  ");
	}
	_exit(1);
}

/* ---- the sanity check: simple valid programs load in both ------------------ */

static int vd_sanity(struct vd_kern *k, struct vd_skops *s)
{
	static const struct bpfvm_insn ret1[] = {{.code = 0xb7, .imm = 1}, {.code = 0x95}};
	/* r6 = ctx; key 0 at fp-4; lookup array; if NULL exit; r0 = *(u32 *)(r0+0);
	 * bpf_loop(3, cb, NULL, 0); exit 1. cb: r0 = 0; exit */
	static const struct bpfvm_insn loop[] = {
	    {.code = 0xbf, .dst = 6, .src = 1},
	    {.code = 0x62, .dst = 10, .off = -4, .imm = 0},
	    {.code = 0xbf, .dst = 2, .src = 10},
	    {.code = 0x07, .dst = 2, .imm = -4},
	    {.code = 0x18, .dst = 1, .src = 1, .imm = VD_MAP_ARRAY},
	    {0},
	    {.code = 0x85, .imm = 1},
	    {.code = 0x15, .dst = 0, .off = 7, .imm = 0},
	    {.code = 0x61, .dst = 1, .src = 0, .off = 0},
	    {.code = 0xb7, .dst = 1, .imm = 3},
	    {.code = 0x18, .dst = 2, .src = 4, .imm = 6},
	    {0},
	    {.code = 0xb7, .dst = 3, .imm = 0},
	    {.code = 0xb7, .dst = 4, .imm = 0},
	    {.code = 0x85, .imm = 181},
	    {.code = 0xb7, .dst = 0, .imm = 1},
	    {.code = 0x95},
	    {.code = 0xb7, .dst = 0, .imm = 0},
	    {.code = 0x95},
	};
	const struct {
		const char *name;
		const struct bpfvm_insn *insns;
		size_t n;
	} progs[] = {
	    {"return 1", ret1, 2},
	    {"map lookup + bpf_loop", loop, sizeof loop / sizeof loop[0]},
	};
	for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
		static struct vd_prog p;
		char why[VD_WHY];
		p.n = progs[i].n;
		memcpy(p.insns, progs[i].insns, p.n * sizeof p.insns[0]);
		int err = vd_kern_load(k, &p, why, sizeof why);
		if (err) {
			fprintf(stderr,
				"vdiff: the kernel refuses the valid program '%s' (%s: %s): every "
				"comparison would be meaningless\n",
				progs[i].name, strerror(-err), why);
			return -1;
		}
		struct bpfvm_prog *bp;
		err = vd_skops_load(s, &p, &bp, why, sizeof why);
		if (err) {
			fprintf(stderr, "vdiff: skops refuses the valid program '%s': %s\n",
				progs[i].name, why);
			return -1;
		}
		bpfvm_prog_put(bp);
	}
	return 0;
}

/* ---- the run ------------------------------------------------------------ */

static double vd_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void vd_fault(const struct vd_opts *o, uint64_t idx, const struct vd_prog *p,
		     const char *kwhy, const char *what, bool kernel_ok)
{
	char path[512] = "(not saved)";
	vd_t.faults++;
	for (unsigned b = 0; b < 12; b++)
		if (p->shapes & (1u << b))
			vd_t.shape_faults[b]++;
	if (o->save && vd_save(o->save, o->seed, idx, p, kwhy, what, path, sizeof path))
		snprintf(path, sizeof path, "(saving in %s failed)", o->save);
	printf("vdiff: FAULT #%llu (seed %llu): skops accepts, kernel %s; %s; saved %s\n",
	       (unsigned long long)idx, (unsigned long long)o->seed,
	       kernel_ok ? "accepts too" : kwhy, what, path);
	vd_print_prog(stdout, p, "  ");
	fflush(stdout);
}

static void vd_one(struct vd_kern *k, struct vd_skops *s, const struct vd_opts *o, uint64_t idx)
{
	static struct vd_prog p;
	struct vd_rng r = {.s =
			       o->seed * 0x2545f4914f6cdd1dull ^ (idx + 1) * 0x9e3779b97f4a7c15ull};
	char swhy[VD_WHY] = "", kwhy[VD_WHY] = "", what[VD_WHY];
	struct bpfvm_prog *bp = NULL;

	vd_generate(&r, o->shapes, &p);
	vd_t.programs++;
	for (unsigned b = 0; b < 12; b++)
		if (p.shapes & (1u << b))
			vd_t.shape_progs[b]++;
	bool sok = vd_skops_load(s, &p, &bp, swhy, sizeof swhy) == 0;
	int kerr = vd_kern_load(k, &p, sok ? kwhy : NULL, sizeof kwhy);
	bool kok = kerr == 0;
	vd_t.skops_ok += sok;
	vd_t.kernel_ok += kok;
	if (sok && kok)
		vd_t.both++;
	else if (sok)
		vd_t.skops_only++, vd_count(vd_t.so, kwhy, idx);
	else if (kok)
		vd_t.kernel_only++, vd_count(vd_t.ko, swhy, idx);
	if (!sok)
		return;
	vd_cur = &p;
	vd_cur_idx = idx;
	alarm(20);
	if (vd_skops_check(s, bp, &r, kok ? VD_BOTH_RUNS : o->runs, what, sizeof what))
		vd_fault(o, idx, &p, kwhy, what, kok);
	alarm(0);
	vd_cur = NULL;
	bpfvm_prog_put(bp);
}

/* One program of a run, regenerated from (seed, index), with both verdicts. */
static int vd_show(struct vd_kern *k, struct vd_skops *s, const struct vd_opts *o, uint64_t idx)
{
	static struct vd_prog p;
	struct vd_rng r = {.s =
			       o->seed * 0x2545f4914f6cdd1dull ^ (idx + 1) * 0x9e3779b97f4a7c15ull};
	char swhy[VD_WHY] = "accepts", kwhy[VD_WHY] = "accepts";
	struct bpfvm_prog *bp = NULL;
	vd_generate(&r, o->shapes, &p);
	if (vd_skops_load(s, &p, &bp, swhy, sizeof swhy) == 0)
		bpfvm_prog_put(bp);
	vd_kern_load(k, &p, kwhy, sizeof kwhy);
	printf("# seed %llu program %llu\n# skops: %s\n# kernel: %s\n", (unsigned long long)o->seed,
	       (unsigned long long)idx, swhy, kwhy);
	vd_print_prog(stdout, &p, "");
	return 0;
}

static int vd_replay(struct vd_skops *s, char **files, int n)
{
	struct vd_kern k;
	char err[256];
	bool kernel = geteuid() == 0 && vd_kern_open(&k, err, sizeof err) == 0;
	int bad = 0;
	for (int i = 0; i < n; i++) {
		static struct vd_prog p;
		char why[VD_WHY] = "", what[VD_WHY];
		struct bpfvm_prog *bp;
		char expect = 0;
		int e = vd_read_prog(files[i], &p, &expect);
		if (e) {
			printf("vdiff: %s: cannot read: %s\n", files[i], strerror(-e));
			bad++;
			continue;
		}
		char kv[VD_WHY + 16] = "kernel not asked";
		if (kernel) {
			char kwhy[VD_WHY] = "";
			snprintf(kv, sizeof kv, "kernel %s",
				 vd_kern_load(&k, &p, kwhy, sizeof kwhy) ? kwhy : "accepts");
		}
		if (vd_skops_load(s, &p, &bp, why, sizeof why)) {
			bool ok = expect != 'a';
			printf("vdiff: %s: %s: skops refuses (%s); %s\n", files[i],
			       ok ? "ok" : "FAIL (expected accept)", why, kv);
			bad += !ok;
			continue;
		}
		if (expect == 'r') {
			printf("vdiff: %s: FAIL: skops accepts, expected a rejection; %s\n",
			       files[i], kv);
			bad++;
		}
		struct vd_rng r = {.s = 1};
		if (vd_skops_check(s, bp, &r, 1024, what, sizeof what)) {
			printf("vdiff: %s: FAULT: %s; %s\n", files[i], what, kv);
			bad++;
		} else {
			printf("vdiff: %s: ok: skops accepts, 1024 checked runs clean; %s\n",
			       files[i], kv);
		}
		bpfvm_prog_put(bp);
	}
	if (kernel)
		vd_kern_close(&k);
	return bad ? 1 : 0;
}

static void vd_report(const struct vd_opts *o, double secs)
{
	printf("vdiff: seed %llu, %.0f s, shapes 0x%x: %llu programs (%.0f/s)\n",
	       (unsigned long long)o->seed, secs, o->shapes & VD_SH_ALL,
	       (unsigned long long)vd_t.programs, (double)vd_t.programs / (secs > 0 ? secs : 1));
	printf("  kernel accepts %llu, skops accepts %llu, both %llu\n",
	       (unsigned long long)vd_t.kernel_ok, (unsigned long long)vd_t.skops_ok,
	       (unsigned long long)vd_t.both);
	printf("  skops-only %llu, kernel-only %llu, faults %llu\n",
	       (unsigned long long)vd_t.skops_only, (unsigned long long)vd_t.kernel_only,
	       (unsigned long long)vd_t.faults);
	printf("  programs (faults) by shape:");
	for (unsigned b = 0; b < 12; b++)
		printf(" %s %llu (%llu)", vd_shape_name(b), (unsigned long long)vd_t.shape_progs[b],
		       (unsigned long long)vd_t.shape_faults[b]);
	printf("\n");
	if (!o->quiet) {
		vd_print_buckets("skops-only, by the kernel's reason", vd_t.so, 40);
		vd_print_buckets("kernel-only, by skops' reason", vd_t.ko, 40);
	}
}

int main(int argc, char **argv)
{
	struct vd_opts o = {.seconds = 60, .seed = 1, .runs = 64, .shapes = VD_SH_ALL};
	bool replay = false;
	int64_t show = -1;
	static const struct option lo[] = {
	    {"seconds", required_argument, NULL, 't'}, {"count", required_argument, NULL, 'n'},
	    {"seed", required_argument, NULL, 's'},    {"runs", required_argument, NULL, 'r'},
	    {"save", required_argument, NULL, 'o'},    {"shapes", required_argument, NULL, 'm'},
	    {"quiet", no_argument, NULL, 'q'},	       {"replay", no_argument, NULL, 'R'},
	    {"show", required_argument, NULL, 'S'},    {0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			o.seconds = strtod(optarg, NULL);
			break;
		case 'n':
			o.count = strtoull(optarg, NULL, 0);
			break;
		case 's':
			o.seed = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			o.runs = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			o.save = optarg;
			break;
		case 'm':
			o.shapes = (o.shapes & ~VD_SH_ALL) |
				   ((uint32_t)strtoul(optarg, NULL, 0) & VD_SH_ALL);
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'R':
			replay = true;
			break;
		case 'S':
			show = strtoll(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr,
				"usage: vdiff [--seconds N] [--count N] [--seed N] [--runs N] "
				"[--save DIR] [--shapes MASK] [--quiet] "
				"[--show I] | --replay FILE...\n");
			return 2;
		}
	}
	/* SKOPS_TEST_QUICK (make check, the sanitizer run): a fifth of the
	 * programs, from the same generator and seed. */
	if (getenv("SKOPS_TEST_QUICK") && o.count >= 5)
		o.count /= 5;
	struct vd_skops *s;
	if (vd_skops_open(&s)) {
		fprintf(stderr, "vdiff: cannot set up skops' registry and maps\n");
		return 2;
	}
	if (replay) {
		int rc = vd_replay(s, argv + optind, argc - optind);
		vd_skops_close(s);
		return rc;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "vdiff: needs root: it loads every program into the running "
				"kernel with bpf(BPF_PROG_LOAD) as sock_ops\n");
		vd_skops_close(s);
		return 2;
	}
	struct vd_kern k;
	char err[256];
	if (vd_kern_open(&k, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		vd_skops_close(s);
		return 2;
	}
	if (show >= 0) {
		vd_show(&k, s, &o, (uint64_t)show);
		vd_kern_close(&k);
		vd_skops_close(s);
		return 0;
	}
	if (vd_sanity(&k, s)) {
		vd_kern_close(&k);
		vd_skops_close(s);
		return 2;
	}
	vd_cur_seed = o.seed;
	vd_cur_dir = o.save;
	signal(SIGALRM, vd_alarm);
	setvbuf(stdout, NULL, _IOLBF, 0);
	double t0 = vd_now(), next_report = t0 + 60;
	for (uint64_t i = 0; o.count == 0 || i < o.count; i++) {
		if ((i & 63) == 0) {
			double t = vd_now();
			if (o.count == 0 && t - t0 >= o.seconds)
				break;
			if (t >= next_report && !o.quiet) {
				printf("vdiff: %.0f s: %llu programs, %llu faults\n", t - t0,
				       (unsigned long long)vd_t.programs,
				       (unsigned long long)vd_t.faults);
				next_report += 60;
			}
		}
		vd_one(&k, s, &o, i);
	}
	vd_report(&o, vd_now() - t0);
	vd_kern_close(&k);
	vd_skops_close(s);
	return vd_t.faults ? 1 : 0;
}
