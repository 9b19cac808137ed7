/* hooks: trace_printk for sock_ops programs. Lines go into a byte ring in the
 * hooks instance (one per lcore, so no lock) that the daemon drains with
 * hooks_trace_read(). Formats as Linux's bpf_trace_printk: at most three
 * conversions of %d %i %u %x %X %c %p with optional l/ll, flags and a width
 * below the line's length (HOOKS_TRACE_LINE);
 * %s is refused since its pointer cannot be checked here. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hooks_int.h"

#define HOOKS_TRACE_LINE 256

void hooks_trace_append(struct hooks_trace *tr, const char *line, size_t n)
{
	if (n > HOOKS_TRACE_SIZE) {
		tr->dropped++;
		return;
	}
	/* Oldest lines make room: the log is a window on recent output. */
	while (tr->len + n > HOOKS_TRACE_SIZE) {
		size_t skip = 0;
		while (skip < tr->len && tr->buf[(tr->head + skip) % HOOKS_TRACE_SIZE] != '\n')
			skip++;
		skip = skip < tr->len ? skip + 1 : tr->len;
		tr->head = (tr->head + skip) % HOOKS_TRACE_SIZE;
		tr->len -= skip;
		tr->dropped++;
	}
	for (size_t i = 0; i < n; i++)
		tr->buf[(tr->head + tr->len + i) % HOOKS_TRACE_SIZE] = line[i];
	tr->len += n;
}

size_t hooks_trace_read(struct hooks *hk, char *buf, size_t size)
{
	struct hooks_trace *tr = &hk->trace;
	size_t n = 0, last_nl = 0;

	/* Whole lines only, unless the first line alone exceeds size. */
	while (n < tr->len && n < size) {
		char c = tr->buf[(tr->head + n) % HOOKS_TRACE_SIZE];
		buf[n++] = c;
		if (c == '\n')
			last_nl = n;
	}
	if (last_nl > 0)
		n = last_nl;
	tr->head = (tr->head + n) % HOOKS_TRACE_SIZE;
	tr->len -= n;
	return n;
}

/* Format fmt (fmt_size bytes, NUL-terminated inside) with up to three args.
 * Returns the length written to out or -EINVAL for a format Linux refuses. */
static int hooks_trace_format(const char *fmt, size_t fmt_size, const uint64_t args[3], char *out,
			      size_t out_size)
{
	size_t o = 0, i = 0;
	unsigned used = 0;

	if (fmt_size == 0 || memchr(fmt, '\0', fmt_size) == NULL)
		return -EINVAL;
	while (fmt[i] && o + 1 < out_size) {
		char spec[16];
		size_t s = 0;
		int lmod = 0;
		int w;

		if (fmt[i] != '%') {
			out[o++] = fmt[i++];
			continue;
		}
		if (fmt[i + 1] == '%') {
			out[o++] = '%';
			i += 2;
			continue;
		}
		spec[s++] = fmt[i++];
		while (fmt[i] && strchr("-+ #0", fmt[i]) && s < 6)
			spec[s++] = fmt[i++];
		/* no field wider than the line: glibc would format every pad
		 * byte of %999999999d (seconds, outside the run-time budget) */
		for (unsigned width = 0; fmt[i] >= '0' && fmt[i] <= '9';) {
			width = width * 10 + (unsigned)(fmt[i] - '0');
			if (width >= HOOKS_TRACE_LINE)
				return -EINVAL;
			spec[s++] = fmt[i++];
		}
		while (fmt[i] == 'l' && lmod < 2) {
			lmod++;
			i++;
		}
		if (used >= 3 || !fmt[i] || !strchr("diuxXcp", fmt[i]))
			return -EINVAL;
		if (fmt[i] == 'p') {
			/* pointers print as their value; no dereference */
			w = snprintf(out + o, out_size - o, "0x%llx",
				     (unsigned long long)args[used]);
		} else if (fmt[i] == 'c') {
			spec[s++] = 'c';
			spec[s] = '\0';
			w = snprintf(out + o, out_size - o, spec, (int)(uint8_t)args[used]);
		} else {
			bool sgn = fmt[i] == 'd' || fmt[i] == 'i';
			spec[s++] = 'l';
			spec[s++] = 'l';
			spec[s++] = fmt[i];
			spec[s] = '\0';
			/* without l the argument is 32 bits wide, as in Linux */
			if (sgn)
				w = snprintf(out + o, out_size - o, spec,
					     lmod ? (long long)args[used]
						  : (long long)(int32_t)args[used]);
			else
				w = snprintf(out + o, out_size - o, spec,
					     lmod ? (unsigned long long)args[used]
						  : (unsigned long long)(uint32_t)args[used]);
		}
		i++;
		used++;
		if (w < 0)
			return -EINVAL;
		o += (size_t)w < out_size - o ? (size_t)w : out_size - o - 1;
	}
	out[o] = '\0';
	return (int)o;
}

static uint64_t hooks_trace_printk(uint64_t fmt, uint64_t fmt_size, uint64_t a1, uint64_t a2,
				   uint64_t a3, struct bpfvm_run *run)
{
	const struct hooks_ctx *ctx = run->ctx;
	const uint64_t args[3] = {a1, a2, a3};
	char line[HOOKS_TRACE_LINE + 1];
	int n;

	n = hooks_trace_format((const char *)(uintptr_t)fmt, (size_t)(uint32_t)fmt_size, args, line,
			       HOOKS_TRACE_LINE);
	if (n < 0)
		return (uint64_t)(int64_t)n;
	if (ctx && ctx->hs && ctx->hs->hk) {
		size_t len = (size_t)n;
		/* the log holds lines; a message without its own newline gets one */
		if (len == 0 || line[len - 1] != '\n')
			line[len++] = '\n';
		hooks_trace_append(&ctx->hs->hk->trace, line, len);
	}
	return (uint64_t)n;
}

/* The values are printed: an unprivileged loader may pass numbers only
 * (ANYTHING), so no address reaches the log. */
static const struct bpfvm_helper hooks_trace_printk_proto = {
    .id = 6,
    .name = "trace_printk",
    .fn = hooks_trace_printk,
    .args = {BPFVM_A_MEM(READ, 2), BPFVM_A_SIZE(1), BPFVM_A(ANYTHING), BPFVM_A(ANYTHING),
	     BPFVM_A(ANYTHING)},
    BPFVM_RET_RANGE(BPFVM_ERRNO_MIN, HOOKS_TRACE_LINE)};

const struct bpfvm_helper *hooks_trace_printk_helper(void)
{
	return &hooks_trace_printk_proto;
}
