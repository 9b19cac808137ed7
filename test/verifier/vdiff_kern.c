/* vdiff: the kernel side. Maps by BPF_MAP_CREATE, programs by BPF_PROG_LOAD
 * as BPF_PROG_TYPE_SOCK_OPS straight through bpf(2) (nothing is attached; the
 * fd is closed at once). A program is loaded without a log first, since a
 * log costs time and a full rotating log turns an accept into -ENOSPC; only
 * a refused program is loaded again with a log to name the reason. */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vdiff.h"

#define VD_KLOG_SIZE (1u << 20)

static long vd_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* The BTF blob: header, types [1] int, [2] int (void), [3] static func f. */
static int vd_btf_load(char *err, size_t err_len)
{
	static const char strs[] = "\0int\0f";
	struct {
		struct btf_header h;
		uint32_t types[3 + 1 + 3 + 3];
		char strs[sizeof strs];
	} b;
	memset(&b, 0, sizeof b);
	uint32_t *t = b.types;
	*t++ = 1; /* "int" */
	*t++ = BTF_KIND_INT << 24;
	*t++ = 4;
	*t++ = (BTF_INT_SIGNED << 24) | 32;
	*t++ = 0; /* int (void) */
	*t++ = BTF_KIND_FUNC_PROTO << 24;
	*t++ = 1;
	*t++ = 5; /* "f", static */
	*t++ = BTF_KIND_FUNC << 24;
	*t++ = 2;
	b.h.magic = BTF_MAGIC;
	b.h.version = BTF_VERSION;
	b.h.hdr_len = sizeof b.h;
	b.h.type_off = 0;
	b.h.type_len = sizeof b.types;
	b.h.str_off = sizeof b.types;
	b.h.str_len = sizeof strs;
	memcpy(b.strs, strs, sizeof strs);
	static char log[4096];
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.btf = (uint64_t)(uintptr_t)&b;
	a.btf_size = (uint32_t)(sizeof b.h + sizeof b.types + sizeof strs);
	a.btf_log_buf = (uint64_t)(uintptr_t)log;
	a.btf_log_size = sizeof log;
	a.btf_log_level = 1;
	long fd = vd_bpf(BPF_BTF_LOAD, &a);
	if (fd < 0)
		snprintf(err, err_len, "vdiff: kernel: BPF_BTF_LOAD: %s: %s", strerror(errno), log);
	return (int)fd;
}

int vd_kern_open(struct vd_kern *k, char *err, size_t err_len)
{
	memset(k, 0, sizeof(*k));
	k->btf_fd = -1;
	for (int i = 0; i < VD_NMAPS; i++)
		k->map_fd[i] = -1;
	for (int i = 0; i < VD_NMAPS; i++) {
		union bpf_attr a;
		memset(&a, 0, sizeof(a));
		a.map_type = vd_map_defs[i].type;
		a.key_size = vd_map_defs[i].key_size;
		a.value_size = vd_map_defs[i].value_size;
		a.max_entries = vd_map_defs[i].max_entries;
		long fd = vd_bpf(BPF_MAP_CREATE, &a);
		if (fd < 0) {
			int e = errno;
			snprintf(err, err_len, "vdiff: kernel: BPF_MAP_CREATE type %u: %s",
				 a.map_type, strerror(e));
			vd_kern_close(k);
			return -e;
		}
		k->map_fd[i] = (int)fd;
	}
	k->btf_fd = vd_btf_load(err, err_len);
	if (k->btf_fd < 0) {
		int e = errno;
		vd_kern_close(k);
		return -e;
	}
	k->log_size = VD_KLOG_SIZE;
	k->log = malloc(k->log_size);
	if (!k->log) {
		snprintf(err, err_len, "vdiff: kernel: no memory for the log");
		vd_kern_close(k);
		return -ENOMEM;
	}
	return 0;
}

void vd_kern_close(struct vd_kern *k)
{
	for (int i = 0; i < VD_NMAPS; i++)
		if (k->map_fd[i] >= 0)
			close(k->map_fd[i]);
	if (k->btf_fd >= 0)
		close(k->btf_fd);
	free(k->log);
	k->log = NULL;
}

/* The last line of the log that is an error: not an insn, not a state, not
 * the statistics the kernel appends. */
static void vd_last_error(const char *log, char *why, size_t why_len)
{
	const char *best = NULL, *p = log;
	size_t best_len = 0;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		bool skip = n == 0 || (p[0] >= '0' && p[0] <= '9') || p[0] == ';' ||
			    strncmp(p, "processed ", 10) == 0 ||
			    strncmp(p, "verification time", 17) == 0 ||
			    strncmp(p, "stack depth", 11) == 0 || strncmp(p, "from ", 5) == 0 ||
			    strncmp(p, "func#", 5) == 0 || strncmp(p, "last_idx", 8) == 0 ||
			    strncmp(p, "mark_precise", 12) == 0 || strncmp(p, "Func#", 5) == 0 ||
			    strncmp(p, "caller:", 7) == 0 || strncmp(p, "callee:", 7) == 0 ||
			    strncmp(p, "returning from", 14) == 0 || strncmp(p, "regs=", 5) == 0 ||
			    strncmp(p, "parent ", 7) == 0;
		if (!skip) {
			best = p;
			best_len = n;
		}
		if (!e)
			break;
		p = e + 1;
	}
	if (!best) {
		snprintf(why, why_len, "(no error line in the log)");
		return;
	}
	if (best_len >= why_len)
		best_len = why_len - 1;
	memcpy(why, best, best_len);
	why[best_len] = 0;
}

int vd_kern_load(struct vd_kern *k, const struct vd_prog *p, char *why, size_t why_len)
{
	struct bpf_insn insns[VD_MAX_INSNS];
	memcpy(insns, p->insns, p->n * sizeof(insns[0]));
	for (size_t i = 0; i + 1 < p->n; i++) {
		if (insns[i].code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		if (insns[i].src_reg == BPF_PSEUDO_MAP_FD ||
		    insns[i].src_reg == BPF_PSEUDO_MAP_VALUE) {
			uint32_t m = (uint32_t)insns[i].imm;
			insns[i].imm = m < VD_NMAPS ? k->map_fd[m] : -1;
		}
		i++;
	}
	/* subprogram starts: 0, call targets, callback addresses (sorted, unique) */
	static struct bpf_func_info fi[VD_MAX_INSNS];
	static bool start[VD_MAX_INSNS];
	memset(start, 0, p->n);
	start[0] = true;
	for (size_t i = 0; i < p->n; i++) {
		long t = -1;
		if (insns[i].code == (BPF_JMP | BPF_CALL) && insns[i].src_reg == BPF_PSEUDO_CALL)
			t = (long)i + 1 + insns[i].imm;
		if (insns[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
		    insns[i].src_reg == BPF_PSEUDO_FUNC)
			t = (long)i + 1 + insns[i].imm;
		if (t >= 0 && (size_t)t < p->n)
			start[t] = true;
	}
	uint32_t nfi = 0;
	for (size_t i = 0; i < p->n; i++)
		if (start[i])
			fi[nfi++] = (struct bpf_func_info){.insn_off = (uint32_t)i, .type_id = 3};
	static const char license[] = "GPL";
	union bpf_attr a;
	for (int pass = 0; pass < 2; pass++) {
		memset(&a, 0, sizeof(a));
		a.prog_type = BPF_PROG_TYPE_SOCK_OPS;
		a.insns = (uint64_t)(uintptr_t)insns;
		a.insn_cnt = (uint32_t)p->n;
		a.license = (uint64_t)(uintptr_t)license;
		if (nfi > 1) {
			a.prog_btf_fd = (uint32_t)k->btf_fd;
			a.func_info = (uint64_t)(uintptr_t)fi;
			a.func_info_cnt = nfi;
			a.func_info_rec_size = sizeof fi[0];
		}
		if (pass == 1) {
			k->log[0] = 0;
			a.log_level = 1;
			a.log_buf = (uint64_t)(uintptr_t)k->log;
			a.log_size = (uint32_t)k->log_size;
		}
		long fd = vd_bpf(BPF_PROG_LOAD, &a);
		if (fd >= 0) {
			close((int)fd);
			if (pass == 0)
				return 0;
			/* accepted only with a log: cannot happen, say so */
			if (why)
				snprintf(why, why_len, "(accepted on the second load)");
			return 0;
		}
		int e = errno;
		if (e == EAGAIN || e == EINTR) {
			pass--;
			continue;
		}
		if (pass == 1 || !why) {
			if (why) {
				if (k->log[0])
					vd_last_error(k->log, why, why_len);
				else
					snprintf(why, why_len, "(no log: %s)", strerror(e));
			}
			return -e;
		}
	}
	return -EINVAL;
}
