/* The printf subset of bpf_trace_printk and bpf_snprintf (the kernel's
 * bpf_bprintf_prepare): %d %i %u %x %X %c %s %p %%, length l/ll, the flags
 * "0 +-" and a width of at most BPFVM_FMT_MAX_WIDTH. Strings are read only from memory the running
 * program may read itself. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "helpers_int.h"

size_t bpfvm_run_readable(const struct bpfvm_run *run, uint64_t addr, size_t max)
{
	if (!run || !run->prog || !addr)
		return 0;
	uint64_t lo = run->fp - BPFVM_STACK_SIZE, hi = run->fp;
	if (run->fp && addr >= lo && addr < hi)
		return hi - addr < max ? (size_t)(hi - addr) : max;
	uint64_t c = (uint64_t)(uintptr_t)run->ctx;
	uint64_t csz = run->prog->type ? run->prog->type->ctx_size : 0;
	if (c && addr >= c && addr - c < csz)
		return csz - (addr - c) < max ? (size_t)(csz - (addr - c)) : max;
	for (size_t i = 0; i < run->prog->nmaps; i++) {
		const void *p = (const void *)(uintptr_t)addr;
		if (!bpfvm_map_owns(run->prog->maps[i], p, 1))
			continue;
		size_t n = 1; /* the value's bytes from addr on */
		while (n < max && bpfvm_map_owns(run->prog->maps[i], p, n + 1))
			n++;
		return n;
	}
	return 0;
}

/* A string argument (%s): a program number, so read only where the running
 * program itself may read (bpfvm_run_readable: its frame, ctx, map values,
 * .rodata), at most size-1 bytes, stopping at a NUL or at the region's end;
 * any other address yields "" (issue 25 class 4: never a raw dereference). */
static void fmt_read_str(const struct bpfvm_run *run, uint64_t addr, char *out, size_t size)
{
	size_t n = bpfvm_run_readable(run, addr, size - 1);
	const char *src = (const char *)(uintptr_t)addr;
	size_t i = 0;
	for (; i < n && src[i]; i++)
		out[i] = src[i];
	out[i] = '\0';
}

int bpfvm_fmt(const struct bpfvm_run *run, char *out, size_t size, const char *fmt, size_t fmt_size,
	      const uint64_t *args, size_t nargs, size_t max_args)
{
	if (!fmt || fmt_size == 0 || fmt[fmt_size - 1] != '\0')
		return -EINVAL;
	size_t used = 0; /* bytes the full output needs (without NUL) */
	size_t argi = 0;
	char spec[16];
	char tmp[BPFVM_FMT_MAX_WIDTH + 1];
#define EMIT(s, len)                                                                               \
	do {                                                                                       \
		size_t l_ = (len);                                                                 \
		if (used < size) {                                                                 \
			size_t room_ = size - used;                                                \
			memcpy(out + used, (s), l_ < room_ ? l_ : room_);                          \
		}                                                                                  \
		used += l_;                                                                        \
	} while (0)
	for (size_t i = 0; fmt[i]; i++) {
		if (fmt[i] != '%') {
			EMIT(&fmt[i], 1);
			continue;
		}
		if (fmt[i + 1] == '%') {
			EMIT("%", 1);
			i++;
			continue;
		}
		size_t s = 0;
		spec[s++] = '%';
		i++;
		while ((fmt[i] == '0' || fmt[i] == '+' || fmt[i] == '-' || fmt[i] == ' ') && s < 6)
			spec[s++] = fmt[i++];
		/* A width past what one conversion can emit is refused: glibc
		 * would write every pad byte (%999999999d: seconds in one call,
		 * outside the run-time budget) only for us to drop them. */
		for (unsigned width = 0; fmt[i] >= '0' && fmt[i] <= '9';) {
			width = width * 10 + (unsigned)(fmt[i] - '0');
			if (width > BPFVM_FMT_MAX_WIDTH)
				return -EINVAL;
			spec[s++] = fmt[i++];
		}
		int lng = 0;
		while (fmt[i] == 'l' && lng < 2) {
			lng++;
			i++;
		}
		char conv = fmt[i];
		if (!conv)
			return -EINVAL;
		if (argi >= max_args || argi >= nargs)
			return -EINVAL;
		uint64_t a = args[argi++];
		int n;
		switch (conv) {
		case 'd':
		case 'i':
			memcpy(spec + s, "lld", 4);
			n = snprintf(tmp, sizeof(tmp), spec,
				     lng ? (long long)a : (long long)(int32_t)a);
			break;
		case 'u':
		case 'x':
		case 'X':
			spec[s] = 'l';
			spec[s + 1] = 'l';
			spec[s + 2] = conv;
			spec[s + 3] = '\0';
			n = snprintf(tmp, sizeof(tmp), spec,
				     lng ? (unsigned long long)a : (unsigned long long)(uint32_t)a);
			break;
		case 'c':
			if (lng)
				return -EINVAL;
			memcpy(spec + s, "c", 2);
			n = snprintf(tmp, sizeof(tmp), spec, (int)(unsigned char)a);
			break;
		case 'p':
			if (lng)
				return -EINVAL;
			/* the kernel hashes %p; we print the value (as %px) */
			memcpy(spec + s, "llx", 4);
			n = snprintf(tmp, sizeof(tmp), spec, (unsigned long long)a);
			break;
		case 's': {
			if (lng)
				return -EINVAL;
			char str[128];
			fmt_read_str(run, a, str, sizeof(str));
			memcpy(spec + s, "s", 2);
			n = snprintf(tmp, sizeof(tmp), spec, str);
			break;
		}
		default:
			return -EINVAL;
		}
		if (n < 0)
			return -EINVAL;
		EMIT(tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
	}
#undef EMIT
	if (size)
		out[used < size ? used : size - 1] = '\0';
	return (int)used;
}
