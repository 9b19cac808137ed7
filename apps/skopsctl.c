/* skopsctl: the control CLI. A verb table ("prog verify", "prog dump", "net
 * stats": the running skopsd's network-layer drop counters). Exit status: 0 accepted/ok, 1
 * rejected, 2 bad usage or unreadable file. Output mirrors bpftool where it has an equivalent
 * ("  0: (61) r2 = *(u32 *)(r1 +0)" for xlated dumps). */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "bpfvm.h"
#include "hooks.h"
#include "loadpriv.h"
#include "skopsctl_jited.h"
#include "skp_proto.h"

#define EXIT_REJECTED 1
#define EXIT_USAGE    2
#define LOG_SIZE      (1u << 20)

struct ctl_opts {
	const char *file;
	const char *section;
	bool strict, verbose, json, jited, blind;
	bool privileged; /* allow_ptr_leaks: this process's capabilities unless --unprivileged */
};

struct ctl_verb {
	const char *object, *verb;
	int (*run)(const struct ctl_opts *o);
	const char *usage;
};

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static const struct bpfvm_prog_type *type_for(const char *section)
{
	if (section && strncmp(section, "sockops", 7) == 0)
		return &hooks_sock_ops_type;
	return &bpfvm_type_generic;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Open the object; errors print the loader's log and mean exit 2. */
static int open_obj(const struct ctl_opts *o, struct bpfvm_registry **reg, struct bpfvm_obj **obj,
		    struct bpfvm_log *log)
{
	int err = bpfvm_registry_create(reg);
	if (err) {
		fprintf(stderr, "skopsctl: registry: %s\n", strerror(-err));
		return err;
	}
	err = bpfvm_obj_open(*reg, o->file, NULL, 0, log, obj);
	if (err) {
		fprintf(stderr, "%sskopsctl: %s: cannot open object: %s\n", log->buf, o->file,
			strerror(-err));
		bpfvm_registry_destroy(*reg);
	}
	return err;
}

static int prog_verify(const struct ctl_opts *o)
{
	struct bpfvm_registry *reg;
	struct bpfvm_obj *obj;
	char *buf = calloc(1, LOG_SIZE);
	if (!buf)
		return EXIT_USAGE;
	struct bpfvm_log log = {.level = o->verbose ? 2 : 1, .buf = buf, .size = LOG_SIZE};
	if (open_obj(o, &reg, &obj, &log)) {
		free(buf);
		return EXIT_USAGE;
	}
	int status = 0;
	size_t n = bpfvm_obj_prog_count(obj), done = 0;
	if (o->json)
		printf("{\"file\":"), json_str(stdout, o->file), printf(",\"programs\":[");
	for (size_t i = 0; i < n; i++) {
		const char *sec = bpfvm_obj_prog_section(obj, i);
		if (o->section && strcmp(sec, o->section))
			continue;
		log.used = 0;
		log.truncated = false;
		buf[0] = 0;
		struct bpfvm_load_opts lo = {.type = type_for(sec),
					     .strict = o->strict,
					     .allow_ptr_leaks = o->privileged,
					     .log = &log};
		struct bpfvm_prog *prog = NULL;
		uint64_t t0 = now_ns();
		int err = bpfvm_obj_load_prog(obj, sec, &lo, &prog);
		uint64_t us = (now_ns() - t0) / 1000;
		if (log.truncated) {
			/* the verbose log overflowed: verdict and reason from a quiet
			 * load, appended after what fit */
			size_t kept = log.used < LOG_SIZE / 2 ? log.used : LOG_SIZE / 2;
			bpfvm_prog_put(prog);
			prog = NULL;
			struct bpfvm_log quiet = {
			    .level = 1, .buf = buf + kept, .size = LOG_SIZE - kept};
			int n = snprintf(buf + kept, LOG_SIZE - kept,
					 "\nskopsctl: (verbose log truncated)\n");
			quiet.used = n > 0 ? (size_t)n : 0;
			lo.log = &quiet;
			err = bpfvm_obj_load_prog(obj, sec, &lo, &prog);
		}
		size_t ninsns = 0;
		if (prog)
			bpfvm_prog_insns(prog, &ninsns);
		if (err)
			status = EXIT_REJECTED;
		if (o->json) {
			printf("%s{\"section\":", done ? "," : "");
			json_str(stdout, sec);
			printf(",\"type\":\"%s\",\"accepted\":%s,\"insns\":%zu,\"time_us\":%llu,"
			       "\"log\":",
			       lo.type->name, err ? "false" : "true", ninsns,
			       (unsigned long long)us);
			json_str(stdout, buf);
			printf("}");
		} else {
			fputs(buf, stdout);
			if (err)
				printf("skopsctl: %s: section '%s': rejected (%s)%s\n", o->file,
				       sec, strerror(-err),
				       o->privileged ? "" : " for an unprivileged loader");
			else
				printf("skopsctl: %s: section '%s': accepted as %s, %zu insns, "
				       "%llu us\n",
				       o->file, sec, lo.type->name, ninsns, (unsigned long long)us);
		}
		done++;
		bpfvm_prog_put(prog);
	}
	if (o->json)
		printf("]}\n");
	if (!done) {
		fprintf(stderr, "skopsctl: %s: no program section%s%s\n", o->file,
			o->section ? " named " : "", o->section ? o->section : "");
		status = EXIT_USAGE;
	}
	bpfvm_obj_close(obj);
	bpfvm_registry_destroy(reg);
	free(buf);
	return status;
}

/* ld_imm64 of a global-data value: name the map and offset as bpftool does. */
static bool value_ref(struct bpfvm_obj *obj, uint64_t addr, char *out, size_t n, unsigned dst)
{
	for (size_t i = 0; i < bpfvm_obj_map_count(obj); i++) {
		struct bpfvm_map *m = bpfvm_obj_map(obj, i);
		const struct bpfvm_map_def *d = bpfvm_map_def(m);
		uint32_t key = 0;
		if (!d || d->type != BPFVM_MAP_ARRAY)
			continue;
		uintptr_t base = (uintptr_t)bpfvm_map_lookup(m, &key);
		if (base && addr >= base && addr < base + d->value_size) {
			snprintf(out, n, "r%u = map[id:%u][0]+%llu", dst, bpfvm_map_id(m),
				 (unsigned long long)(addr - base));
			return true;
		}
	}
	return false;
}

static int prog_dump(const struct ctl_opts *o)
{
	struct bpfvm_registry *reg;
	struct bpfvm_obj *obj;
	char *buf = calloc(1, LOG_SIZE);
	if (!buf)
		return EXIT_USAGE;
	struct bpfvm_log log = {.level = 1, .buf = buf, .size = LOG_SIZE};
	if (open_obj(o, &reg, &obj, &log)) {
		free(buf);
		return EXIT_USAGE;
	}
	const char *sec = o->section;
	if (!sec && bpfvm_obj_prog_count(obj))
		sec = bpfvm_obj_prog_section(obj, 0);
	struct bpfvm_load_opts lo = {.type = type_for(sec),
				     .strict = o->strict,
				     .jit = o->jited,
				     .jit_blind = o->blind,
				     .allow_ptr_leaks = o->privileged,
				     .log = &log};
	struct bpfvm_prog *prog = NULL;
	int status = 0;
	int err = sec ? bpfvm_obj_load_prog(obj, sec, &lo, &prog) : -ENOENT;
	if (err) {
		fputs(buf, stderr);
		fprintf(stderr, "skopsctl: %s: section '%s': cannot load: %s\n", o->file,
			sec ? sec : "(none)", strerror(-err));
		status = err == -ENOENT ? EXIT_USAGE : EXIT_REJECTED;
		goto out;
	}
	if (o->jited) {
		if (skopsctl_print_jited(stdout, prog, o->json)) {
			fputs(buf, stderr);
			fprintf(stderr, "skopsctl: %s: section '%s': not JIT-compiled\n", o->file,
				sec);
			status = EXIT_REJECTED;
		}
		bpfvm_prog_put(prog);
		goto out;
	}
	size_t n;
	const struct bpfvm_insn *in = bpfvm_prog_insns(prog, &n);
	if (o->json)
		printf("[");
	for (size_t pc = 0; pc < n; pc++) {
		char text[160];
		const struct bpfvm_insn *next = pc + 1 < n ? &in[pc + 1] : NULL;
		bool wide = in[pc].code == 0x18 && next;
		uint64_t v =
		    wide ? ((uint64_t)(uint32_t)in[pc].imm | (uint64_t)(uint32_t)next->imm << 32)
			 : 0;
		if (!(wide && in[pc].src == 2 && value_ref(obj, v, text, sizeof text, in[pc].dst)))
			bpfvm_disasm(&in[pc], next, text, sizeof text);
		if (o->json) {
			printf("%s{\"pc\":%zu,\"code\":\"0x%02x\",\"insn\":", pc ? "," : "", pc,
			       in[pc].code);
			json_str(stdout, text);
			printf("}");
		} else {
			printf("%4zu: (%02x) %s\n", pc, in[pc].code, text);
		}
		if (wide)
			pc++;
	}
	if (o->json)
		printf("]\n");
	bpfvm_prog_put(prog);
out:
	bpfvm_obj_close(obj);
	bpfvm_registry_destroy(reg);
	free(buf);
	return status;
}

/* The BTF a program type publishes for CO-RE (docs/sockops.md §5
 * "Kernel-typed sockets"), as C, to write programs against. */
static int btf_dump(const struct ctl_opts *o)
{
	if (strcmp(o->file, hooks_sock_ops_type.name) != 0) {
		fprintf(stderr, "skopsctl: btf dump: unknown program type '%s' (sock_ops)\n",
			o->file);
		return EXIT_USAGE;
	}
	const struct bpfvm_prog_type *t = &hooks_sock_ops_type;
	int n = bpfvm_btf_dump_c(t->btf, t->btf_len, NULL, 0);
	char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!buf || bpfvm_btf_dump_c(t->btf, t->btf_len, buf, (size_t)n + 1) != n) {
		fprintf(stderr, "skopsctl: btf dump: %s: %s\n", t->name,
			strerror(n < 0 ? -n : ENOMEM));
		free(buf);
		return EXIT_REJECTED;
	}
	printf("/* %s: the kernel types bpf_skc_to_tcp_sock() returns, as skops lays them out "
	       "*/\n\n%s",
	       t->name, buf);
	free(buf);
	return 0;
}

/* The running daemon's network-layer drop counters (issue 30), asked on its
 * control socket (SKP_NET_STATS): FILE is the socket, default $SKOPS_SOCK or
 * SKP_SOCK_DEFAULT. "name value" lines, or one JSON object with -j. */
static int net_stats(const struct ctl_opts *o)
{
	const char *path = o->file;
	if (!path || !*path)
		path = getenv("SKOPS_SOCK");
	if (!path || !*path)
		path = SKP_SOCK_DEFAULT;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "skopsctl: net stats: socket path too long: %s\n", path);
		return EXIT_USAGE;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct timeval tv = {.tv_sec = 5};
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "skopsctl: net stats: skopsd at %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return EXIT_REJECTED;
	}
	/* the counters come a few per reply; a daemon that never gets to the
	 * end is cut off after 1024 rounds */
	char text[8192];
	size_t len = 0;
	int total = -1;
	for (uint32_t next = 0, rounds = 0; rounds < 1024; rounds++) {
		struct skp_req req = {.op = SKP_NET_STATS, .a = (int32_t)next};
		struct skp_rep rep;
		ssize_t n = send(fd, &req, sizeof(req), MSG_NOSIGNAL);
		if (n == (ssize_t)sizeof(req))
			n = recv(fd, &rep, sizeof(rep), 0);
		if (n != (ssize_t)sizeof(rep) || rep.rc < 0 || rep.len > sizeof(rep.data) ||
		    rep.id <= next || rep.id > (uint32_t)rep.rc || len + rep.len >= sizeof(text)) {
			fprintf(stderr, "skopsctl: net stats: skopsd at %s: %s\n", path,
				n < 0			    ? strerror(errno)
				: n != (ssize_t)sizeof(rep) ? "short reply"
				: rep.rc < 0		    ? strerror(-rep.rc)
							    : "bad reply");
			close(fd);
			return EXIT_REJECTED;
		}
		memcpy(text + len, rep.data, rep.len);
		len += rep.len;
		next = rep.id;
		total = rep.rc;
		if (next == (uint32_t)total)
			break;
	}
	close(fd);
	text[len] = 0;
	if (total < 0) {
		fprintf(stderr, "skopsctl: net stats: skopsd at %s: no reply\n", path);
		return EXIT_REJECTED;
	}
	if (!o->json) {
		fputs(text, stdout);
		return 0;
	}
	printf("{");
	bool first = true;
	for (char *line = text, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		char *sp = strchr(line, ' ');
		if (!nl || !sp || sp > nl)
			break;
		printf("%s\"%.*s\":%.*s", first ? "" : ",", (int)(sp - line), line,
		       (int)(nl - sp - 1), sp + 1);
		first = false;
	}
	printf("}\n");
	return 0;
}

static const struct ctl_verb verbs[] = {
    {"prog", "verify", prog_verify,
     "prog verify FILE.o [--strict] [--unprivileged] [--section S] [-v] [-j]"},
    {"prog", "dump", prog_dump,
     "prog dump FILE.o [--unprivileged] [--section S] [--jited [--blind]] [-j]"},
    {"btf", "dump", btf_dump, "btf dump sock_ops"},
    {"net", "stats", net_stats, "net stats [SOCKET] [-j]"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage:\n");
	for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
		fprintf(f, "  skopsctl %s\n", verbs[i].usage);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"strict", no_argument, NULL, 's'},
	    {"section", required_argument, NULL, 'S'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"json", no_argument, NULL, 'j'},
	    {"jited", no_argument, NULL, 'J'},
	    {"blind", no_argument, NULL, 'B'},
	    {"unprivileged", no_argument, NULL, 'U'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	/* privileged as the kernel would judge this process (CAP_PERFMON or
	 * CAP_SYS_ADMIN); --unprivileged checks as a loader without them */
	struct ctl_opts o = {.privileged = loadpriv_allow_ptr_leaks()};
	int c;
	while ((c = getopt_long(argc, argv, "vjh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o.strict = true;
			break;
		case 'S':
			o.section = optarg;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'j':
			o.json = true;
			break;
		case 'J':
			o.jited = true;
			break;
		case 'B':
			o.blind = true;
			break;
		case 'U':
			o.privileged = false;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind == 2 && !strcmp(argv[optind], "net") &&
	    !strcmp(argv[optind + 1], "stats"))
		return net_stats(&o); /* the default socket */
	if (argc - optind < 3) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
		if (strcmp(argv[optind], verbs[i].object) ||
		    strcmp(argv[optind + 1], verbs[i].verb))
			continue;
		if (argc - optind != 3) {
			fprintf(stderr, "usage: skopsctl %s\n", verbs[i].usage);
			return EXIT_USAGE;
		}
		o.file = argv[optind + 2];
		return verbs[i].run(&o);
	}
	fprintf(stderr, "skopsctl: unknown command '%s %s'\n", argv[optind], argv[optind + 1]);
	usage(stderr);
	return EXIT_USAGE;
}
