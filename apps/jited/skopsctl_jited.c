/* skopsctl prog dump --jited: walks the per-insn offsets the JIT records and
 * prints each instruction with its machine code bytes (hex with image
 * offsets, as objdump prints them; a disassembler is not bundled). */
#include <errno.h>
#include <stdint.h>

#include "skopsctl_jited.h"

#define BYTES_PER_LINE 16

static void hex_lines(FILE *out, const uint8_t *img, size_t lo, size_t hi)
{
	for (size_t at = lo; at < hi; at += BYTES_PER_LINE) {
		fprintf(out, "    %6zx:", at);
		for (size_t k = at; k < hi && k < at + BYTES_PER_LINE; k++)
			fprintf(out, " %02x", img[k]);
		fputc('\n', out);
	}
}

static void json_seg(FILE *out, bool first, long pc, const char *text, const uint8_t *img,
		     size_t lo, size_t hi)
{
	fprintf(out, "%s{\"pc\":%ld,\"insn\":\"", first ? "" : ",", pc);
	for (const char *s = text; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
	}
	fprintf(out, "\",\"off\":%zu,\"bytes\":\"", lo);
	for (size_t k = lo; k < hi; k++)
		fprintf(out, "%02x", img[k]);
	fputs("\"}", out);
}

int skopsctl_print_jited(FILE *out, const struct bpfvm_prog *prog, bool json)
{
	size_t len = 0, n = 0, ni = 0;
	const uint8_t *img = bpfvm_prog_jited(prog, &len);
	const uint32_t *off = bpfvm_prog_jited_offsets(prog, &n);
	const struct bpfvm_insn *in = bpfvm_prog_insns(prog, &ni);
	if (!img || !off || n != ni || n == 0)
		return -ENOENT;
	if (json)
		fputc('[', out);
	else
		fprintf(out, "jited: %zu bytes for %zu insns\nprologue:\n", len, n);
	if (json)
		json_seg(out, true, -1, "prologue", img, 0, off[0]);
	else
		hex_lines(out, img, 0, off[0]);
	for (size_t pc = 0; pc < n; pc++) {
		const struct bpfvm_insn *next = pc + 1 < n ? &in[pc + 1] : NULL;
		bool wide = in[pc].code == 0x18 && next;
		size_t np = pc + (wide ? 2 : 1);
		size_t lo = off[pc], hi = np < n ? off[np] : len;
		if (hi < lo || hi > len)
			hi = lo; /* never read outside the image */
		char text[160];
		bpfvm_disasm(&in[pc], next, text, sizeof text);
		if (json) {
			json_seg(out, false, (long)pc, text, img, lo, hi);
		} else {
			fprintf(out, "%4zu: (%02x) %s\n", pc, in[pc].code, text);
			hex_lines(out, img, lo, hi);
		}
		pc = np - 1;
	}
	if (json)
		fputs("]\n", out);
	return 0;
}
