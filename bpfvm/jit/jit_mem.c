/* JIT image memory: W^X. The image is mapped read-write, the finished code is
 * written, then the mapping is flipped to read-execute; it is never writable
 * and executable at the same time, and is unmapped on free. The mapping is
 * placed within ±2 GiB of this library's code when the address space allows:
 * calls into an image that far away are measurably cheaper on x86 (branch
 * predictors keep 32-bit targets; ~0.7 ns per invocation here), and helpers
 * become reachable with a direct call rel32.
 *
 * Images are packed page after page from the first near mapping, and each
 * starts at its own cache-line offset inside its first page (like the
 * kernel's random hole in bpf_jit_binary_alloc): images that all began at
 * offset 0 of pages 256 MiB apart shared their L1i sets and branch-predictor
 * entries, and eight sock_ops programs run back to back thrashed them. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jit_int.h"

#define NEAR_STEP  (256ul << 20)
#define NEAR_TRIES 7

static size_t page_size(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	return pg > 0 ? (size_t)pg : 4096;
}

static void *try_map(uintptr_t hint, size_t sz)
{
	void *p = mmap((void *)hint, sz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == (void *)hint)
		return p;
	if (p != MAP_FAILED) /* old kernels ignore the flag: not ours to keep */
		munmap(p, sz);
	return NULL;
}

/* Where the next image should go: just past the last near one. Racing
 * compilers at worst miss the hint and search again. */
static uintptr_t next_hint;

static void *map_near(size_t sz)
{
	uintptr_t hint = __atomic_load_n(&next_hint, __ATOMIC_RELAXED);
	void *p = hint ? try_map(hint, sz) : NULL;
	uintptr_t text = (uintptr_t)&jit_mem_reserve & ~(uintptr_t)(NEAR_STEP - 1);
	for (int k = 1; !p && k <= NEAR_TRIES; k++) {
		for (int sign = 1; !p && sign >= -1; sign -= 2) {
			uintptr_t d = (uintptr_t)k * NEAR_STEP;
			if (sign < 0 && text < d)
				continue;
			p = try_map(sign > 0 ? text + d : text - d, sz);
		}
	}
	if (p) {
		__atomic_store_n(&next_hint, (uintptr_t)p + sz, __ATOMIC_RELAXED);
		return p;
	}
	p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* A cache-line offset for the next image, spread over the page's slack. */
static size_t start_offset(size_t slack)
{
	static unsigned n;
	unsigned k = __atomic_fetch_add(&n, 1, __ATOMIC_RELAXED);
	size_t lines = slack / 64 + 1;
	return (size_t)(k * 23u % lines) * 64;
}

int jit_mem_reserve(size_t len, void **out, size_t *size)
{
	size_t page = page_size();
	if (len == 0 || len > JIT_MAX_IMAGE)
		return -E2BIG;
	size_t sz = (len + page - 1) / page * page;
	uint8_t *p = map_near(sz);
	if (!p)
		return -ENOMEM;
	size_t slack = sz - len;
	size_t off = start_offset(slack < page ? slack : page - 64);
	*out = p + off;
	*size = sz - off; /* the mapping ends at *out + *size */
	return 0;
}

/* The mapping an image pointer lies in starts at its page. */
static uint8_t *image_base(const void *image)
{
	return (uint8_t *)((uintptr_t)image & ~(uintptr_t)(page_size() - 1));
}

int jit_mem_seal(void *image, size_t *size, size_t used)
{
	size_t page = page_size();
	uint8_t *base = image_base(image), *img = image;
	if (used == 0 || used > *size)
		return -E2BIG;
	uint8_t *end = base + (size_t)(img + used - base + page - 1) / page * page;
	if (end < img + *size) {
		munmap(end, (size_t)(img + *size - end));
		*size = (size_t)(end - img);
	}
	/* around the image is int3, so a stray jump traps */
	memset(base, 0xcc, (size_t)(img - base));
	memset(img + used, 0xcc, (size_t)(end - img) - used);
	if (mprotect(base, (size_t)(end - base), PROT_READ | PROT_EXEC) != 0)
		return -errno;
	return 0;
}

int jit_mem_install(const void *code, size_t len, void **out, size_t *size)
{
	void *p;
	size_t sz;
	int err = jit_mem_reserve(len, &p, &sz);
	if (err)
		return err;
	memcpy(p, code, len);
	err = jit_mem_seal(p, &sz, len);
	if (err) {
		jit_mem_free(p, sz);
		return err;
	}
	*out = p;
	*size = sz;
	return 0;
}

void jit_mem_free(void *image, size_t size)
{
	if (image) {
		uint8_t *base = image_base(image);
		munmap(base, (size_t)((uint8_t *)image + size - base));
	}
}
