/* The printf subset of bpf_trace_printk and bpf_snprintf (the kernel's
 * bpf_bprintf_prepare): %d %i %u %x %X %c %s %p %%, length l/ll, the flags
 * "0 +-" and a width. Strings are read without trusting the pointer. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "helpers_int.h"

/* strncpy_from_kernel_nofault: copy a NUL-terminated string of at most
 * size-1 bytes from an unverified address; an unreadable address yields "". */
static void fmt_read_str(uint64_t addr, char *out, size_t size)
{
	out[0] = '\0';
	if (!addr)
		return;
	size_t got = 0;
	while (got < size - 1) {
		/* page by page: a string may end right before unmapped memory */
		uint64_t a = addr + got;
		size_t chunk = 4096 - (size_t)(a & 4095);
		if (chunk > size - 1 - got)
			chunk = size - 1 - got;
		struct iovec local = {.iov_base = out + got, .iov_len = chunk};
		struct iovec remote = {.iov_base = (void *)(uintptr_t)a, .iov_len = chunk};
		ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
		if (n <= 0)
			break;
		void *nul = memchr(out + got, '\0', (size_t)n);
		if (nul)
			return;
		got += (size_t)n;
	}
	out[got] = '\0';
}

int bpfvm_fmt(char *out, size_t size, const char *fmt, size_t fmt_size, const uint64_t *args,
	      size_t nargs, size_t max_args)
{
	if (!fmt || fmt_size == 0 || fmt[fmt_size - 1] != '\0')
		return -EINVAL;
	size_t used = 0; /* bytes the full output needs (without NUL) */
	size_t argi = 0;
	char spec[16];
	char tmp[256];
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
		if (fmt[i] >= '1' && fmt[i] <= '9') {
			while (fmt[i] >= '0' && fmt[i] <= '9' && s < 9)
				spec[s++] = fmt[i++];
			if (fmt[i] >= '0' && fmt[i] <= '9')
				return -EINVAL;
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
			fmt_read_str(a, str, sizeof(str));
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
