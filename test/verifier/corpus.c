/* The verifier corpus runner: loads every program of each object given as
 * MODE:FILE[:EXPECT] through the ELF loader and the verifier (sock_ops type
 * for sockops* sections) and asserts the verdict:
 *   seed    accepted in compatibility mode, rejected in strict mode (R0)
 *   accept  accepted in both modes
 *   reject / strict-reject  rejected (strict-reject: only in strict mode)
 *           with the exact reason line of the EXPECT file in the log; an
 *           EXPECT line "[SECTION] reason" is that section's, a plain line
 *           every other section's (variants of one class in one object)
 * Prints how many programs were verified and the time of the largest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpfvm.h"
#include "hooks.h"

#define LOG_SIZE (256u * 1024)

struct tally {
	unsigned verified, failed;
	size_t largest_insns;
	char largest[256];
	double largest_ms, slowest_ms;
	char slowest[256];
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static bool has_line(const char *log, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = log; (p = strstr(p, line)); p++)
		if ((p == log || p[-1] == '\n') && (p[n] == '\n' || p[n] == 0))
			return true;
	return false;
}

/* Load one section; returns the error, fills log and timing. */
static int load(struct bpfvm_obj *obj, const char *sec, bool strict, char *buf, struct tally *t,
		const char *file)
{
	struct bpfvm_log log = {.level = 1, .buf = buf, .size = LOG_SIZE};
	buf[0] = 0;
	struct bpfvm_load_opts o = {
	    .type = strncmp(sec, "sockops", 7) == 0 ? &hooks_sock_ops_type : &bpfvm_type_generic,
	    .strict = strict,
	    .log = &log,
	};
	struct bpfvm_prog *prog = NULL;
	double t0 = now_ms();
	int err = bpfvm_obj_load_prog(obj, sec, &o, &prog);
	double ms = now_ms() - t0;
	t->verified++;
	if (ms > t->slowest_ms) {
		t->slowest_ms = ms;
		snprintf(t->slowest, sizeof t->slowest, "%s:%s%s", file, sec,
			 strict ? " (strict)" : "");
	}
	if (prog) {
		size_t n;
		bpfvm_prog_insns(prog, &n);
		if (n > t->largest_insns) {
			t->largest_insns = n;
			t->largest_ms = ms;
			snprintf(t->largest, sizeof t->largest, "%s:%s", file, sec);
		}
		bpfvm_prog_put(prog);
	}
	return err;
}

static char *read_expect(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *text = calloc(1, 16384);
	size_t n = text ? fread(text, 1, 16383, f) : 0;
	fclose(f);
	if (text && !n) {
		free(text);
		text = NULL;
	}
	return text;
}

/* The reason line for section sec out of the EXPECT text, copied into line. */
static bool expect_for(const char *text, const char *sec, char *line, size_t size)
{
	const char *plain = NULL;
	size_t plain_len = 0, sl = strlen(sec);
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		if (p[0] == '[' && len > sl + 2 && !strncmp(p + 1, sec, sl) && p[sl + 1] == ']' &&
		    p[sl + 2] == ' ') {
			snprintf(line, size, "%.*s", (int)(len - sl - 3), p + sl + 3);
			return true;
		}
		if (p[0] != '[' && len && !plain) {
			plain = p;
			plain_len = len;
		}
		p += len + (p[len] == '\n');
	}
	if (!plain)
		return false;
	snprintf(line, size, "%.*s", (int)plain_len, plain);
	return true;
}

static void fail(struct tally *t, const char *file, const char *sec, const char *what,
		 const char *log)
{
	printf("FAIL %s:%s: %s\n%s", file, sec, what, log);
	t->failed++;
}

static void run_one(char *arg, char *buf, struct tally *t)
{
	char *mode = arg, *file = strchr(arg, ':');
	if (!file) {
		printf("FAIL bad argument '%s'\n", arg);
		t->failed++;
		return;
	}
	*file++ = 0;
	char *expect_path = strchr(file, ':');
	if (expect_path)
		*expect_path++ = 0;
	char *expect = NULL;
	bool seed = !strcmp(mode, "seed"), accept = !strcmp(mode, "accept");
	bool strict_only = !strcmp(mode, "strict-reject");
	if (!seed && !accept) {
		expect = expect_path ? read_expect(expect_path) : NULL;
		if (!expect) {
			fail(t, file, "-", "no expected reason line (.expect file)", "");
			return;
		}
	}
	struct bpfvm_registry *reg = NULL;
	struct bpfvm_obj *obj = NULL;
	struct bpfvm_log olog = {.level = 1, .buf = buf, .size = LOG_SIZE};
	buf[0] = 0;
	if (bpfvm_registry_create(&reg) || bpfvm_obj_open(reg, file, NULL, 0, &olog, &obj)) {
		fail(t, file, "-", "cannot open", buf);
		if (reg)
			bpfvm_registry_destroy(reg);
		free(expect);
		return;
	}
	size_t n = bpfvm_obj_prog_count(obj);
	if (!n)
		fail(t, file, "-", "no program sections", "");
	for (size_t i = 0; i < n; i++) {
		const char *sec = bpfvm_obj_prog_section(obj, i);
		int compat = load(obj, sec, false, buf, t, file);
		if (seed || accept) {
			if (compat) {
				fail(t, file, sec, "rejected in compatibility mode", buf);
				continue;
			}
			int strict = load(obj, sec, true, buf, t, file);
			if (seed && (!strict || !strstr(buf, "At program exit the register R0")))
				fail(t, file, sec, "strict mode must reject the seed's R0", buf);
			if (accept && strict)
				fail(t, file, sec, "rejected in strict mode", buf);
			continue;
		}
		if (strict_only) {
			if (compat) {
				fail(t, file, sec, "rejected in compatibility mode", buf);
				continue;
			}
			if (!load(obj, sec, true, buf, t, file))
				fail(t, file, sec, "accepted in strict mode", "");
		} else if (!compat) {
			fail(t, file, sec, "accepted", "");
			continue;
		}
		char want[512];
		if (!expect_for(expect, sec, want, sizeof want)) {
			fail(t, file, sec, "no reason line for the section in the .expect file",
			     "");
			continue;
		}
		if (!has_line(buf, want)) {
			char what[700];
			snprintf(what, sizeof what, "reason line missing: '%s'", want);
			fail(t, file, sec, what, buf);
		}
	}
	bpfvm_obj_close(obj);
	bpfvm_registry_destroy(reg);
	free(expect);
}

int main(int argc, char **argv)
{
	struct tally t = {0};
	char *buf = malloc(LOG_SIZE);
	if (!buf || argc < 2) {
		fprintf(stderr, "usage: vrf_corpus MODE:FILE[:EXPECT]...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		run_one(argv[i], buf, &t);
	printf("verifier corpus: %u program loads verified from %d objects, %u failed\n",
	       t.verified, argc - 1, t.failed);
	printf("verifier corpus: largest accepted: %s (%zu insns) in %.3f ms\n", t.largest,
	       t.largest_insns, t.largest_ms);
	printf("verifier corpus: slowest load: %s in %.3f ms\n", t.slowest, t.slowest_ms);
	free(buf);
	return t.failed ? 1 : 0;
}
