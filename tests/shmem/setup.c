/* Setup and query: start_pes/_my_pe/_num_pes (finalized at exit), thread levels, version and name,
 * accessibility and shmem_ptr, the memory routines. */
#include <string.h>
#include "check.h"

int main(void) {
  start_pes(0);
  int me = _my_pe(), n = _num_pes();
  CHECK_EQ(me, shmem_my_pe());
  CHECK_EQ(n, shmem_n_pes());
  int provided = -1;
  shmem_query_thread(&provided);
  CHECK_EQ(provided, SHMEM_THREAD_SINGLE);
  int major, minor;
  shmem_info_get_version(&major, &minor);
  CHECK_EQ(major * 10 + minor, 16);
  CHECK_EQ(major * 10 + minor, SHMEM_MAJOR_VERSION * 10 + SHMEM_MINOR_VERSION);
  char name[SHMEM_MAX_NAME_LEN];
  shmem_info_get_name(name);
  CHECK(strstr(name, "gasket") != NULL && strstr(name, "1.6") != NULL, "%s", name);
  CHECK_EQ(shmem_pe_accessible(n - 1), 1);
  CHECK_EQ(shmem_pe_accessible(n), 0);

  long* a = shmem_malloc(100 * sizeof(long));
  CHECK(a != NULL, "malloc");
  CHECK_EQ(shmem_addr_accessible(a, n - 1), 1);
  long local;
  CHECK_EQ(shmem_addr_accessible(&local, 0), 0);
  a[0] = me;
  shmem_barrier_all();
  long* peer = shmem_ptr(a, (me + 1) % n);
  if (peer != NULL) CHECK_EQ(*peer, (me + 1) % n); /* same node on the direct path */
  CHECK(shmem_ptr(a, me) == a || shmem_ptr(a, me) == NULL, "ptr to self");
  a = shmem_realloc(a, 1000 * sizeof(long));
  CHECK_EQ(a[0], me); /* contents kept */
  void* al = shmem_align(4096, 100);
  CHECK_EQ((uintptr_t)al % 4096, 0);
  int* z = shmem_calloc(50, sizeof(int));
  for (int i = 0; i < 50; ++i) CHECK_EQ(z[i], 0);
  void* h = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE);
  CHECK(h != NULL, "hints");
  shmem_free(h); shmem_free(z); shmem_free(al); shmem_free(a);
  /* OpenSHMEM 1.5: void shmem_pcontrol(const int level, ...): extra arguments are the tool's */
  shmem_pcontrol(1);
  shmem_pcontrol(2, "phase", 3);
  shmem_pcontrol(0, (void*)0);
  shmem_barrier_all();
  if (me == 0) printf("setup: ok on %d PEs\n", n);
  return 0; /* no shmem_finalize: start_pes programs are finalized at exit */
}
