/* JIT image memory: W^X. The image is mapped read-write, the finished code is
 * copied in, then the mapping is flipped to read-execute; it is never
 * writable and executable at the same time, and is unmapped on free. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jit_int.h"

int jit_mem_install(const void *code, size_t len, void **out, size_t *size)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096;
	if (len == 0 || len > JIT_MAX_IMAGE)
		return -E2BIG;
	size_t sz = (len + page - 1) / page * page;
	void *p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	memcpy(p, code, len);
	/* the tail of the last page is int3 so a stray jump traps */
	memset((uint8_t *)p + len, 0xcc, sz - len);
	if (mprotect(p, sz, PROT_READ | PROT_EXEC) != 0) {
		int err = -errno;
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
