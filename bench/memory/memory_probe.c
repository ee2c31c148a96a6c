/* Memory per PE of an MPI job, after MPI_Init and after an all-to-all that contacts every peer
 * (resources a runtime creates lazily appear only at first contact). Standard MPI C: builds
 * unchanged with any mpicc (bench/memory/run.sh builds it with Open MPI's and MPICH's).
 *
 * Per PE, from /proc/self: resident (Rss), proportional (Pss) and private dirty memory (pages
 * written by this process alone: what it costs the node beyond the shared libraries' pages,
 * whose Private_Clean share shrinks as more processes run the same program); the shared-memory files it maps (/dev/shm files,
 * System V segments, memfds: count, mapped size, resident part); its open sockets. Where the
 * runtime can say (gasket: memory_counters.cc, a weak symbol elsewhere), the memory registered
 * with its backend and the backend's endpoints (ucx endpoints, pciddc tcp connections). With
 * glibc, the bytes malloc has handed out and not taken back (`heap`: exact where the page-grained
 * figures are not, so it shows a table of a few hundred bytes per peer). Where the runtime has a
 * symmetric heap (gasket), the part of it in use (`sym_heap`: MPI's rings and rendezvous zones,
 * the collectives' areas).
 * Rank 0 prints one line per phase: the mean over PEs of each figure (KiB, counts), and the
 * maximum of rss. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* Filled by gasket's build (memory_counters.cc); absent from other implementations' builds. */
extern int memory_probe_backend_counters(long* registered_kib, long* endpoints) __attribute__((weak));
extern int memory_probe_symmetric_heap(long* in_use_kib) __attribute__((weak));

enum { kRss, kPss, kPrivate, kShmFiles, kShmMapped, kShmRss, kSockets, kRegistered, kEndpoints, kHeap, kSymHeap, kFigures };
static const char* const kNames[kFigures] = {"rss",     "pss",     "private",    "shm_files", "shm_mapped", "shm_rss",
                                             "sockets", "registered", "endpoints", "heap",    "sym_heap"};

static int is_shared_memory_file(const char* path) {
  return strncmp(path, "/dev/shm/", 9) == 0 || strncmp(path, "/SYSV", 5) == 0 || strncmp(path, "/memfd:", 7) == 0;
}

/* Walks /proc/self/smaps: per mapping a header line (address range ... path) then "Key: N kB". */
static void read_smaps(double* fig) {
  FILE* f = fopen("/proc/self/smaps", "r");
  char line[4096];
  int in_shm = 0;
  if (f == NULL) {
    perror("memory_probe: /proc/self/smaps");
    exit(1);
  }
  while (fgets(line, sizeof line, f) != NULL) {
    long kib;
    char key[64];
    if (sscanf(line, "%63[^:]: %ld kB", key, &kib) == 2 && strchr(key, ' ') == NULL && strchr(key, '-') == NULL) {
      if (strcmp(key, "Rss") == 0) {
        fig[kRss] += kib;
        if (in_shm) fig[kShmRss] += kib;
      } else if (strcmp(key, "Pss") == 0) {
        fig[kPss] += kib;
      } else if (strcmp(key, "Private_Dirty") == 0) {
        fig[kPrivate] += kib;
      } else if (strcmp(key, "Size") == 0 && in_shm) {
        fig[kShmMapped] += kib;
      }
      continue;
    }
    /* A mapping's header: "start-end perms offset dev inode   path". */
    {
      char* path = strchr(line, '/');
      unsigned long start, end;
      if (sscanf(line, "%lx-%lx", &start, &end) != 2) continue;
      in_shm = path != NULL && is_shared_memory_file(path);
      if (in_shm) fig[kShmFiles] += 1;
    }
  }
  fclose(f);
}

static long count_sockets(void) {
  DIR* d = opendir("/proc/self/fd");
  struct dirent* e;
  long n = 0;
  if (d == NULL) return -1;
  while ((e = readdir(d)) != NULL) {
    char path[300], target[300];
    ssize_t len;
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    len = readlink(path, target, sizeof target - 1);
    if (len <= 0) continue;
    target[len] = '\0';
    if (strncmp(target, "socket:", 7) == 0) ++n;
  }
  closedir(d);
  return n;
}

static void measure(double* fig) {
  long registered = -1, endpoints = -1, sym_heap = -1;
  memset(fig, 0, sizeof(double) * kFigures);
  read_smaps(fig);
  fig[kSockets] = (double)count_sockets();
  if (memory_probe_backend_counters != NULL) memory_probe_backend_counters(&registered, &endpoints);
  fig[kRegistered] = (double)registered;
  fig[kEndpoints] = (double)endpoints;
  if (memory_probe_symmetric_heap != NULL) memory_probe_symmetric_heap(&sym_heap);
  fig[kSymHeap] = (double)sym_heap;
#ifdef __GLIBC__
  {
    struct mallinfo2 m = mallinfo2();
    fig[kHeap] = (double)(m.uordblks + m.hblkhd) / 1024.0;
  }
#else
  fig[kHeap] = -1;
#endif
}

static void report(const char* label, const char* phase, const double* fig, int rank, int size) {
  double sum[kFigures], rss_max = 0;
  int i;
  MPI_Reduce(fig, sum, kFigures, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&fig[kRss], &rss_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  printf("MEMORY impl=%s pes=%d phase=%s", label, size, phase);
  for (i = 0; i < kFigures; ++i) {
    /* A figure the runtime cannot give is -1 on every PE: printed as such. */
    printf(" %s=%.1f", kNames[i], sum[i] / size);
  }
  printf(" rss_max=%.0f\n", rss_max);
  fflush(stdout);
}

int main(int argc, char** argv) {
  int rank, size, i;
  double after_init[kFigures], after_alltoall[kFigures];
  const char* label = argc > 1 ? argv[1] : "mpi";
  int *out, *in;
  MPI_Init(&argc, &argv);
  measure(after_init); /* first, before any call of the probe's own can contact a peer */
  /* No PE starts the all-to-all (contacting this one) before every PE has measured. */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  out = malloc(sizeof(int) * 16 * (size_t)size);
  in = malloc(sizeof(int) * 16 * (size_t)size);
  for (i = 0; i < 16 * size; ++i) out[i] = rank * 100000 + i;
  MPI_Alltoall(out, 16, MPI_INT, in, 16, MPI_INT, MPI_COMM_WORLD);
  for (i = 0; i < 16 * size; ++i) {
    int from = i / 16, expect = from * 100000 + rank * 16 + i % 16;
    if (in[i] != expect) {
      fprintf(stderr, "memory_probe: rank %d: element %d from rank %d is %d, expected %d\n", rank, i, from, in[i],
              expect);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  measure(after_alltoall);
  report(label, "init", after_init, rank, size);
  report(label, "alltoall", after_alltoall, rank, size);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
