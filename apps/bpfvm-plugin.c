/* bpfvm-plugin: the bpf_conformance plugin protocol (as uBPF's ubpf_plugin
 * speaks it). argv: [MEMORY_HEX] [--program HEX] [--jit | --interpret]; the
 * program's bytes come as hex on stdin unless --program gave them. The program
 * runs on the generic type, unverified, with r1 = a copy of the memory and
 * r2 = its length; r0 is printed in hex without 0x, then a newline; exit 0.
 * Anything it cannot load or run: a message on stderr and exit 1.
 * Both modes run the checked interpreter first (faults and the budget are
 * reported, never hit), then --interpret the plain interpreter and --jit the
 * JIT image (required: no fallback); the result must agree. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfvm.h"

#define PLUGIN_MAX_INPUT (16u << 20)

struct plugin_bytes {
	uint8_t *p;
	size_t n, cap;
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int bytes_push(struct plugin_bytes *b, uint8_t v)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		uint8_t *p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	b->p[b->n++] = v;
	return 0;
}

/* Whitespace-separated tokens; each is one or more bytes as hex digit pairs
 * ("b7 00" or "b700"), a lone digit is one byte, an optional 0x is skipped. */
static int decode_hex(const char *s, struct plugin_bytes *out, const char **bad)
{
	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ',')
			s++;
		if (!*s)
			break;
		const char *tok = s;
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			s += 2;
		const char *digits = s;
		while (hexval(*s) >= 0)
			s++;
		size_t nd = (size_t)(s - digits);
		if (nd == 0 ||
		    (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r' && *s != ',')) {
			*bad = tok;
			return -EINVAL;
		}
		if (nd == 1) {
			if (bytes_push(out, (uint8_t)hexval(digits[0])))
				return -ENOMEM;
			continue;
		}
		if (nd % 2) {
			*bad = tok;
			return -EINVAL;
		}
		for (size_t i = 0; i < nd; i += 2)
			if (bytes_push(out,
				       (uint8_t)(hexval(digits[i]) << 4 | hexval(digits[i + 1]))))
				return -ENOMEM;
	}
	return 0;
}

static char *read_stdin(void)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	if (!buf)
		return NULL;
	for (;;) {
		if (n + 1 == cap) {
			if (cap >= PLUGIN_MAX_INPUT) {
				free(buf);
				return NULL;
			}
			char *p = realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				return NULL;
			}
			buf = p;
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - 1 - n, stdin);
		n += got;
		if (got == 0)
			break;
	}
	buf[n] = '\0';
	return buf;
}

static void *mem_copy(const struct plugin_bytes *mem)
{
	/* 8-aligned and never NULL-sized so atomics on the memory are aligned */
	void *p = calloc(1, mem->n + 8);
	if (p && mem->n)
		memcpy(p, mem->p, mem->n);
	return p;
}

static int fail(const char *what, const char *detail)
{
	fprintf(stderr, "bpfvm-plugin: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	return 1;
}

int main(int argc, char **argv)
{
	bool jit = false;
	const char *mem_hex = NULL, *prog_hex = NULL;
	int i = 1;
	if (i < argc && strncmp(argv[i], "--", 2) != 0)
		mem_hex = argv[i++];
	for (; i < argc; i++) {
		if (!argv[i][0])
			continue; /* bpf_conformance passes empty plugin options */
		if (strcmp(argv[i], "--jit") == 0)
			jit = true;
		else if (strcmp(argv[i], "--interpret") == 0)
			jit = false;
		else if (strcmp(argv[i], "--program") == 0 && i + 1 < argc)
			prog_hex = argv[++i];
		else
			return fail("invalid argument", argv[i]);
	}

	char *in = NULL;
	if (!prog_hex) {
		in = read_stdin();
		if (!in)
			return fail("stdin", "unreadable or larger than 16 MiB");
		prog_hex = in;
	}
	/* Every exit below goes through out: so that a sanitizer build sees no
	 * leak on the error paths the conformance suite exercises. */
	struct plugin_bytes code = {0}, mem = {0};
	struct bpfvm_registry *reg = NULL;
	struct bpfvm_prog *prog = NULL;
	void *m1 = NULL, *m2 = NULL;
	char logbuf[1024] = "";
	char msg[96];
	const char *bad = NULL;
	int status;
	if (decode_hex(prog_hex, &code, &bad)) {
		status = fail("program: not hex near", bad ? bad : "?");
		goto out;
	}
	if (mem_hex && decode_hex(mem_hex, &mem, &bad)) {
		status = fail("memory: not hex near", bad ? bad : "?");
		goto out;
	}
	if (code.n == 0 || code.n % sizeof(struct bpfvm_insn)) {
		status = fail("program", "empty or not a multiple of 8 bytes");
		goto out;
	}
	if (bpfvm_registry_create(&reg)) {
		status = fail("registry", "out of memory");
		goto out;
	}
	struct bpfvm_log log = {.level = 1, .buf = logbuf, .size = sizeof(logbuf)};
	struct bpfvm_load_opts opts = {.no_verify = true, .jit = jit, .log = &log};
	/* code.p is a byte buffer: copy into aligned instruction storage */
	size_t n = code.n / sizeof(struct bpfvm_insn);
	struct bpfvm_insn *insns = malloc(code.n);
	if (!insns) {
		status = fail("program", "out of memory");
		goto out;
	}
	memcpy(insns, code.p, code.n);
	int err = bpfvm_prog_load(reg, insns, n, NULL, 0, &opts, &prog);
	free(insns);
	if (err) {
		logbuf[strcspn(logbuf, "\n")] = '\0';
		status = fail("failed to load program", logbuf[0] ? logbuf : strerror(-err));
		goto out;
	}
	if (jit && !bpfvm_prog_jited(prog, NULL)) {
		logbuf[strcspn(logbuf, "\n")] = '\0';
		status = fail("--jit: no JIT image, refusing the interpreter fallback",
			      logbuf[0] ? logbuf : NULL);
		goto out;
	}
	m1 = mem_copy(&mem);
	m2 = mem_copy(&mem);
	if (!m1 || !m2) {
		status = fail("memory", "out of memory");
		goto out;
	}
	/* Both modes first run the checked interpreter: it reports bad accesses,
	 * the call depth and the budget of this unverified program instead of
	 * letting them crash or hang; the engine asked for must then agree. */
	int64_t stop_pc;
	uint64_t r0 = bpfvm_prog_run_checked(prog, mem.n ? m1 : NULL, mem.n, &stop_pc);
	if (stop_pc >= 0) {
		snprintf(msg, sizeof(msg),
			 "stopped at insn %" PRId64
			 " (bad memory access, call depth or instruction budget)",
			 stop_pc);
		status = fail("failed to execute program", msg);
		goto out;
	}
	uint64_t got = jit ? bpfvm_prog_run(prog, mem.n ? m2 : NULL, mem.n)
			   : bpfvm_prog_run_interp(prog, mem.n ? m2 : NULL, mem.n);
	if (got != r0) {
		snprintf(msg, sizeof(msg), "checked interpreter 0x%" PRIx64 " vs %s 0x%" PRIx64, r0,
			 jit ? "jit" : "interpreter", got);
		status = fail("engines disagree", msg);
		goto out;
	}
	printf("%" PRIx64 "\n", got);
	status = 0;
out:
	free(in);
	free(m1);
	free(m2);
	free(code.p);
	free(mem.p);
	if (prog)
		bpfvm_prog_put(prog);
	if (reg)
		bpfvm_registry_destroy(reg);
	return status;
}
