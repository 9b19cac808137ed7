/* shim_shm: the sockets' shared memory on the app's side, in the transport
 * layer. skopsd hands a socket's memfd over and, when the socket was only
 * ever this process's, takes it back for this process's next socket
 * (docs/skopsd.md "Reused memory"); the mapping of a closed socket is kept
 * here (a few of them) so the next socket on the same file costs an fstat,
 * not an mmap and its page faults, and no munmap (whose TLB shootdown
 * reaches the daemon's core). A forked child drops what it inherited: the
 * parent's later sockets are not its business. */
#undef _FILE_OFFSET_BITS
#include <sys/mman.h>
#include <sys/stat.h>

#include "shim_transport.h"

#define SHM_KEEP 4

static struct kept {
	struct skp_shm *m; /* NULL: empty */
	dev_t dev;
	ino_t ino;
} kept[SHM_KEEP];
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

struct skp_shm *shim_shm_map(int memfd, dev_t *dev, ino_t *ino)
{
	struct stat st;
	*dev = 0;
	*ino = 0;
	if (!fstat(memfd, &st)) {
		*dev = st.st_dev;
		*ino = st.st_ino;
		pthread_mutex_lock(&kept_lock);
		for (int i = 0; i < SHM_KEEP; i++) {
			if (kept[i].m && kept[i].dev == st.st_dev && kept[i].ino == st.st_ino) {
				struct skp_shm *m = kept[i].m;
				kept[i].m = NULL;
				pthread_mutex_unlock(&kept_lock);
				return m;
			}
		}
		pthread_mutex_unlock(&kept_lock);
	}
	void *m = mmap(NULL, sizeof(struct skp_shm), PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	return m == MAP_FAILED ? NULL : m;
}

void shim_shm_unmap(struct skp_shm *m, dev_t dev, ino_t ino)
{
	struct skp_shm *out = m;
	if (ino) {
		/* keep it in a free slot, else in place of the oldest one */
		static unsigned next;
		pthread_mutex_lock(&kept_lock);
		int at = -1;
		for (int i = 0; i < SHM_KEEP && at < 0; i++)
			if (!kept[i].m)
				at = i;
		if (at < 0)
			at = (int)(next++ % SHM_KEEP);
		out = kept[at].m;
		kept[at] = (struct kept){m, dev, ino};
		pthread_mutex_unlock(&kept_lock);
	}
	if (out)
		munmap(out, sizeof(struct skp_shm));
}

void shim_shm_forget(void)
{
	for (int i = 0; i < SHM_KEEP; i++) {
		if (kept[i].m)
			munmap(kept[i].m, sizeof(struct skp_shm));
		kept[i].m = NULL;
	}
	pthread_mutex_init(&kept_lock, NULL);
}
