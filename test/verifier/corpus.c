/* The verifier corpus runner: loads every program of each object given as
 * MODE:FILE[:EXPECT] through the ELF loader and the verifier (sock_ops type
 * for sockops* sections) and asserts the verdict:
 *   seed    accepted in compatibility mode, rejected in strict mode (R0)
 *   accept  accepted in both modes
 *   reject / strict-reject  rejected (strict-reject: only in strict mode)
 *           with the exact reason line of the EXPECT file in the log; an
 *           EXPECT line "[SECTION] reason" is that section's, a plain line
 *           every other section's (variants of one class in one object)
 *   priv    the verdicts of an unprivileged and a privileged loader
 *           (allow_ptr_leaks) differ or may: the EXPECT lines
 *           "unprivileged: R" and "privileged: R", R a reason line or
 *           "accept" (accepted in both modes)
 * Every mode but priv is checked for both loaders and must get the same
 * verdict and reason from each: privilege relaxes nothing those programs
 * touch. Prints how many programs were verified and the time of the largest. */
#include <stdarg.h>
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
static int load(struct bpfvm_obj *obj, const char *sec, bool strict, bool priv, char *buf,
		struct tally *t, const char *file)
{
	struct bpfvm_log log = {.level = 1, .buf = buf, .size = LOG_SIZE};
	buf[0] = 0;
	struct bpfvm_load_opts o = {
	    .type = strncmp(sec, "sockops", 7) == 0 ? &hooks_sock_ops_type : &bpfvm_type_generic,
	    .strict = strict,
	    .allow_ptr_leaks = priv,
	    .log = &log,
	};
	struct bpfvm_prog *prog = NULL;
	double t0 = now_ms();
	int err = bpfvm_obj_load_prog(obj, sec, &o, &prog);
	double ms = now_ms() - t0;
	t->verified++;
	if (ms > t->slowest_ms) {
		t->slowest_ms = ms;
		snprintf(t->slowest, sizeof t->slowest, "%s:%s%s%s", file, sec,
			 strict ? " (strict)" : "", priv ? " (privileged)" : "");
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

/* fail() with the reason formatted */
static void failf(struct tally *t, const char *file, const char *sec, const char *log,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void failf(struct tally *t, const char *file, const char *sec, const char *log,
		  const char *fmt, ...)
{
	char what[700];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	fail(t, file, sec, what, log);
}

/* One section of a seed/accept/reject/strict-reject object, as one loader
 * (who: "" or "privileged: ", the failures' prefix). */
static void check_section(struct bpfvm_obj *obj, const char *sec, const char *mode,
			  const char *expect, bool priv, char *buf, struct tally *t,
			  const char *file)
{
	bool seed = !strcmp(mode, "seed"), accept = !strcmp(mode, "accept");
	const char *who = priv ? "privileged: " : "";
	int compat = load(obj, sec, false, priv, buf, t, file);
	if (seed || accept || !strcmp(mode, "strict-reject")) {
		if (compat) {
			failf(t, file, sec, buf, "%srejected in compatibility mode", who);
			return;
		}
		int strict = load(obj, sec, true, priv, buf, t, file);
		if (seed && (!strict || !strstr(buf, "At program exit the register R0")))
			failf(t, file, sec, buf, "%sstrict mode must reject the seed's R0", who);
		if (accept && strict)
			failf(t, file, sec, buf, "%srejected in strict mode", who);
		if (seed || accept)
			return;
		if (!strict) {
			failf(t, file, sec, "", "%saccepted in strict mode", who);
			return;
		}
	} else if (!compat) {
		failf(t, file, sec, "", "%saccepted", who);
		return;
	}
	char want[512];
	if (!expect_for(expect, sec, want, sizeof want))
		fail(t, file, sec, "no reason line for the section in the .expect file", "");
	else if (!has_line(buf, want))
		failf(t, file, sec, buf, "%sreason line missing: '%s'", who, want);
}

/* A priv object's section as one loader: its "privileged: " or
 * "unprivileged: " line of the EXPECT text is "accept" or the reason. */
static void check_priv(struct bpfvm_obj *obj, const char *sec, const char *expect, bool priv,
		       char *buf, struct tally *t, const char *file)
{
	const char *key = priv ? "privileged: " : "unprivileged: ";
	size_t kl = strlen(key);
	char want[512] = "";
	for (const char *p = expect; *p;) {
		size_t len = strcspn(p, "\n");
		if (len > kl && !strncmp(p, key, kl))
			snprintf(want, sizeof want, "%.*s", (int)(len - kl), p + kl);
		p += len + (p[len] == '\n');
	}
	if (!want[0]) {
		failf(t, file, sec, "", "no '%s' line in the .expect file", key);
		return;
	}
	int compat = load(obj, sec, false, priv, buf, t, file);
	if (!strcmp(want, "accept")) {
		if (compat || load(obj, sec, true, priv, buf, t, file))
			failf(t, file, sec, buf, "%srejected", key);
	} else if (!compat) {
		failf(t, file, sec, "", "%saccepted", key);
	} else if (!has_line(buf, want)) {
		failf(t, file, sec, buf, "%sreason line missing: '%s'", key, want);
	}
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
	if (strcmp(mode, "seed") && strcmp(mode, "accept")) {
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
		if (!strcmp(mode, "priv")) {
			check_priv(obj, sec, expect, false, buf, t, file);
			check_priv(obj, sec, expect, true, buf, t, file);
			continue;
		}
		for (int priv = 0; priv < 2; priv++)
			check_section(obj, sec, mode, expect, priv, buf, t, file);
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
