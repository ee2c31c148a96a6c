/* MPI-IO data access (MPI 4.1 sections 14.3-14.5): views with vector, subarray, darray and struct
 * filetypes written and read collectively (two-phase), independently (data sieving) and without
 * blocking, each file checked byte for byte against a serial reference read with plain POSIX;
 * explicit offsets, individual and shared file pointers, ordered access, split collectives,
 * status counts at end of file, external32 and a user data representation. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"

static char dir[4096];
static int rank, size, job;
static MPI_Info hints = MPI_INFO_NULL; /* argv[1]: the hints every file is opened with */

static void file_name(char* out, const char* what) { snprintf(out, 4200, "%s/io_views_%s.%d", dir, what, job); }

/* The whole file as plain POSIX reads it (after the writers closed or synced it). */
static char* posix_contents(const char* path, long* length) {
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  long n = lseek(fd, 0, SEEK_END);
  char* data = calloc((size_t)n + 1, 1);
  CHECK_EQ(pread(fd, data, (size_t)n, 0), n);
  close(fd);
  *length = n;
  return data;
}

static MPI_File open_new(const char* path) {
  MPI_File fh;
  if (rank == 0) unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, hints, &fh));
  return fh;
}

/* Each rank owns blocks of B ints, dealt round robin: file int k == k. */
static void vector_view(void) {
  char path[4200];
  file_name(path, "vector");
  enum { B = 3, N = 500 };
  MPI_File fh = open_new(path);
  MPI_Datatype ft;
  MPI_Type_vector(N, B, B * size, MPI_INT, &ft);
  MPI_Type_commit(&ft);
  int* mine = malloc(sizeof(int) * N * B);
  int* back = malloc(sizeof(int) * N * B);
  for (int j = 0; j < N * B; ++j) mine[j] = ((j / B) * size + rank) * B + j % B;
  MPI_OK(MPI_File_set_view(fh, (MPI_Offset)rank * B * 4, MPI_INT, ft, "native", MPI_INFO_NULL));
  MPI_Status st;
  MPI_OK(MPI_File_write_all(fh, mine, N * B, MPI_INT, &st));
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK_EQ(count, N * B);
  MPI_Offset pos;
  MPI_OK(MPI_File_get_position(fh, &pos));
  CHECK_EQ(pos, N * B);
  MPI_OK(MPI_File_get_byte_offset(fh, B + 1, &pos)); /* second block of this rank, its second int */
  CHECK_EQ(pos, ((MPI_Offset)size * B + rank * B + 1) * 4);
  MPI_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  long n;
  int* file = (int*)posix_contents(path, &n);
  CHECK_EQ(n, 4L * N * B * size);
  for (long k = 0; k < n / 4; ++k) CHECK_EQ(file[k], k);
  free(file);
  /* Collective read, then independent (sieved) read, into a cleared buffer. */
  memset(back, 0, sizeof(int) * N * B);
  MPI_OK(MPI_File_read_at_all(fh, 0, back, N * B, MPI_INT, &st));
  CHECK_EQ(memcmp(back, mine, sizeof(int) * N * B), 0);
  memset(back, 0, sizeof(int) * N * B);
  MPI_OK(MPI_File_read_at(fh, 0, back, N * B, MPI_INT, &st));
  CHECK_EQ(memcmp(back, mine, sizeof(int) * N * B), 0);
  /* Independent sieved writes of every rank at once (read-modify-write under a lock). */
  for (int j = 0; j < N * B; ++j) mine[j] = -mine[j];
  MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  MPI_OK(MPI_File_write(fh, mine, N * B, MPI_INT, &st));
  MPI_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  file = (int*)posix_contents(path, &n);
  for (long k = 0; k < n / 4; ++k) CHECK_EQ(file[k], -k);
  free(file);
  /* The same file through a contiguous view: seek from the end, positions. */
  MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  int v[5];
  MPI_OK(MPI_File_seek(fh, rank * 10, MPI_SEEK_SET));
  MPI_OK(MPI_File_read(fh, v, 5, MPI_INT, &st));
  for (int i = 0; i < 5; ++i) CHECK_EQ(v[i], -(rank * 10 + i));
  MPI_OK(MPI_File_get_position(fh, &pos));
  CHECK_EQ(pos, rank * 10 + 5);
  MPI_OK(MPI_File_seek(fh, -2, MPI_SEEK_CUR));
  MPI_OK(MPI_File_read(fh, v, 1, MPI_INT, &st));
  CHECK_EQ(v[0], -(rank * 10 + 3));
  MPI_OK(MPI_File_seek(fh, -1, MPI_SEEK_END));
  MPI_OK(MPI_File_read(fh, v, 1, MPI_INT, &st));
  CHECK_EQ(v[0], -(N * B * size - 1));
  /* At end of file: nothing more; a read across it is short. */
  MPI_OK(MPI_File_read(fh, v, 5, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK_EQ(count, 0);
  MPI_OK(MPI_File_read_at(fh, N * B * size - 2, v, 5, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK_EQ(count, 2);
  MPI_Get_elements(&st, MPI_INT, &count);
  CHECK_EQ(count, 2);
  MPI_OK(MPI_File_close(&fh));
  MPI_Type_free(&ft);
  free(mine);
  free(back);
}

/* A 2-D array of doubles in blocks over a process grid (subarray filetype); read back into a
 * buffer with a halo (subarray memory type). */
static void subarray_view(void) {
  char path[4200];
  file_name(path, "subarray");
  enum { R = 48, C = 40 };
  int dims[2] = {0, 0}, coords[2];
  MPI_Dims_create(size, 2, dims);
  coords[0] = rank / dims[1], coords[1] = rank % dims[1];
  int sizes[2] = {R, C}, sub[2] = {R / dims[0], C / dims[1]}, starts[2] = {coords[0] * sub[0], coords[1] * sub[1]};
  MPI_Datatype ft, halo;
  MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &ft);
  MPI_Type_commit(&ft);
  int hsizes[2] = {sub[0] + 2, sub[1] + 2}, hstarts[2] = {1, 1};
  MPI_Type_create_subarray(2, hsizes, sub, hstarts, MPI_ORDER_C, MPI_DOUBLE, &halo);
  MPI_Type_commit(&halo);
  double* mine = malloc(sizeof(double) * sub[0] * sub[1]);
  for (int i = 0; i < sub[0]; ++i)
    for (int j = 0; j < sub[1]; ++j) mine[i * sub[1] + j] = (starts[0] + i) * C + (starts[1] + j);
  MPI_File fh = open_new(path);
  MPI_OK(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL));
  MPI_Status st;
  MPI_OK(MPI_File_write_at_all_c(fh, 0, mine, (MPI_Count)sub[0] * sub[1], MPI_DOUBLE, &st));
  MPI_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  long n;
  double* file = (double*)posix_contents(path, &n);
  CHECK_EQ(n, 8L * R * C);
  for (long k = 0; k < R * C; ++k) CHECK(file[k] == (double)k);
  free(file);
  double* framed = malloc(sizeof(double) * hsizes[0] * hsizes[1]);
  for (int i = 0; i < hsizes[0] * hsizes[1]; ++i) framed[i] = -1;
  MPI_OK(MPI_File_read_all_c(fh, framed, 1, halo, &st));
  for (int i = 0; i < hsizes[0]; ++i)
    for (int j = 0; j < hsizes[1]; ++j) {
      int inside = i >= 1 && i <= sub[0] && j >= 1 && j <= sub[1];
      double want = inside ? mine[(i - 1) * sub[1] + (j - 1)] : -1;
      CHECK(framed[i * hsizes[1] + j] == want);
    }
  MPI_Datatype e, f;
  MPI_Offset disp;
  char rep[MPI_MAX_DATAREP_STRING];
  MPI_OK(MPI_File_get_view(fh, &disp, &e, &f, rep));
  CHECK_EQ(disp, 0);
  CHECK_EQ(e, MPI_DOUBLE);
  CHECK_EQ(strcmp(rep, "native"), 0);
  int ni, na, nt, combiner;
  MPI_Type_get_envelope(f, &ni, &na, &nt, &combiner);
  CHECK_EQ(combiner, MPI_COMBINER_SUBARRAY);
  MPI_Type_free(&f);
  MPI_OK(MPI_File_close(&fh));
  MPI_Type_free(&ft);
  MPI_Type_free(&halo);
  free(mine);
  free(framed);
}

/* A 3-D block-distributed array (darray filetype), written collectively and read back with a
 * non-blocking collective read. */
static void darray_view(void) {
  char path[4200];
  file_name(path, "darray");
  int g[3] = {16, 12, 10}, distribs[3] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
  int dargs[3] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p[3] = {0, 0, 0};
  MPI_Dims_create(size, 3, p);
  MPI_Datatype ft;
  MPI_Type_create_darray(size, rank, 3, g, distribs, dargs, p, MPI_ORDER_C, MPI_DOUBLE, &ft);
  MPI_Type_commit(&ft);
  int tsize;
  MPI_Type_size(ft, &tsize);
  int n_local = tsize / 8, c[3] = {rank / (p[1] * p[2]), (rank / p[2]) % p[1], rank % p[2]}, lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    int b = (g[d] + p[d] - 1) / p[d];
    lo[d] = c[d] * b;
    hi[d] = lo[d] + b < g[d] ? lo[d] + b : g[d];
  }
  double* mine = malloc(sizeof(double) * (size_t)(n_local > 0 ? n_local : 1));
  int k = 0;
  for (int i = lo[0]; i < hi[0]; ++i)
    for (int j = lo[1]; j < hi[1]; ++j)
      for (int l = lo[2]; l < hi[2]; ++l) mine[k++] = (i * g[1] + j) * g[2] + l;
  CHECK_EQ(k, n_local);
  MPI_File fh = open_new(path);
  MPI_OK(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL));
  MPI_Status st;
  MPI_OK(MPI_File_write_all(fh, mine, n_local, MPI_DOUBLE, &st));
  MPI_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  long n;
  double* file = (double*)posix_contents(path, &n);
  CHECK_EQ(n, 8L * g[0] * g[1] * g[2]);
  for (long x = 0; x < n / 8; ++x) CHECK(file[x] == (double)x);
  free(file);
  double* back = calloc((size_t)(n_local > 0 ? n_local : 1), sizeof(double));
  MPI_Request req;
  MPI_OK(MPI_File_iread_at_all(fh, 0, back, n_local, MPI_DOUBLE, &req));
  MPI_OK(MPI_Wait(&req, &st));
  int count;
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  CHECK_EQ(count, n_local);
  CHECK_EQ(memcmp(back, mine, sizeof(double) * (size_t)n_local), 0);
  MPI_OK(MPI_File_close(&fh));
  MPI_Type_free(&ft);
  free(mine);
  free(back);
}

/* Records {int at 0, double at 8} of a struct filetype, dealt round robin; bytes 4..8 of each
 * record are never written (zeros). */
static void struct_view(void) {
  char path[4200];
  file_name(path, "struct");
  enum { K = 64 };
  struct record {
    int i;
    double d;
  } mine[K], back[K];
  int lens[2] = {1, 1};
  MPI_Aint disps[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, rec, ft, memtype;
  MPI_Type_create_struct(2, lens, disps, types, &rec);
  MPI_Type_create_resized(rec, 0, 16 * size, &ft);
  MPI_Type_create_resized(rec, 0, sizeof(struct record), &memtype);
  MPI_Type_commit(&ft);
  MPI_Type_commit(&memtype);
  for (int k = 0; k < K; ++k) mine[k].i = k * size + rank, mine[k].d = 0.5 * (k * size + rank);
  MPI_File fh = open_new(path);
  MPI_OK(MPI_File_set_view(fh, rank * 16, MPI_BYTE, ft, "native", MPI_INFO_NULL));
  MPI_Status st;
  MPI_OK(MPI_File_write_all(fh, mine, K, memtype, &st));
  MPI_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  long n;
  char* file = posix_contents(path, &n);
  CHECK_EQ(n, 16L * K * size); /* the last record's double ends the file */
  for (long r = 0; r < K * size; ++r) {
    int i;
    double d;
    memcpy(&i, file + 16 * r, 4);
    memcpy(&d, file + 16 * r + 8, 8);
    CHECK_EQ(i, r);
    CHECK(d == 0.5 * r);
    for (int z = 4; z < 8; ++z) CHECK_EQ(file[16 * r + z], 0);
  }
  free(file);
  memset(back, 0, sizeof back);
  MPI_OK(MPI_File_read_at(fh, 0, back, K, memtype, &st));
  for (int k = 0; k < K; ++k) CHECK(back[k].i == mine[k].i && back[k].d == mine[k].d);
  MPI_OK(MPI_File_close(&fh));
  MPI_Type_free(&rec);
  MPI_Type_free(&ft);
  MPI_Type_free(&memtype);
}

/* The shared file pointer: records from every rank, each once; ordered access in rank order. */
static void shared_pointer(void) {
  char path[4200];
  file_name(path, "shared");
  MPI_File fh = open_new(path);
  MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  int rec[4] = {rank, rank, rank, rank};
  MPI_Status st;
  for (int t = 0; t < 3; ++t) MPI_OK(MPI_File_write_shared(fh, rec, 4, MPI_INT, &st));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Offset pos;
  MPI_OK(MPI_File_get_position_shared(fh, &pos));
  CHECK_EQ(pos, 12 * size);
  MPI_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  long n;
  int* file = (int*)posix_contents(path, &n);
  CHECK_EQ(n, 48L * size);
  int* seen = calloc((size_t)size, sizeof(int));
  for (long r = 0; r < 3L * size; ++r) {
    for (int i = 1; i < 4; ++i) CHECK_EQ(file[4 * r + i], file[4 * r]);
    ++seen[file[4 * r]];
  }
  for (int r = 0; r < size; ++r) CHECK_EQ(seen[r], 3);
  /* Ordered read from the start: rank r gets record r. */
  MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  int got[4];
  MPI_OK(MPI_File_read_ordered(fh, got, 4, MPI_INT, &st));
  CHECK_EQ(memcmp(got, file + 4 * rank, sizeof got), 0);
  MPI_OK(MPI_File_get_position_shared(fh, &pos));
  CHECK_EQ(pos, 4 * size);
  free(file);
  /* Ordered write: rank r writes r + 1 copies of r, after each other in rank order. */
  MPI_OK(MPI_File_set_size(fh, 0));
  MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  int* many = malloc(sizeof(int) * (size_t)(rank + 1));
  for (int i = 0; i <= rank; ++i) many[i] = rank;
  MPI_OK(MPI_File_write_ordered_begin(fh, many, rank + 1, MPI_INT));
  MPI_OK(MPI_File_write_ordered_end(fh, many, &st));
  int count;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK_EQ(count, rank + 1);
  MPI_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  file = (int*)posix_contents(path, &n);
  CHECK_EQ(n, 4L * size * (size + 1) / 2);
  for (int r = 0, k = 0; r < size; ++r)
    for (int i = 0; i <= r; ++i) CHECK_EQ(file[k++], r);
  free(file);
  free(many);
  free(seen);
  MPI_OK(MPI_File_close(&fh));
}

/* Non-blocking accesses progress without MPI calls (an I/O thread): the bytes of an MPI_File_iwrite_at
 * reach the file while this rank only polls the file with POSIX reads. Split collectives. */
static void nonblocking(void) {
  char path[4200];
  file_name(path, "nonblocking");
  enum { M = 1 << 20 };
  MPI_File fh = open_new(path);
  char* data = malloc(M);
  for (int i = 0; i < M; ++i) data[i] = (char)(i * 7 + rank);
  MPI_Request req;
  MPI_OK(MPI_File_iwrite_at_c(fh, (MPI_Offset)rank * M, data, M, MPI_BYTE, &req));
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  char last = (char)~data[M - 1];
  while (pread(fd, &last, 1, (off_t)rank * M + M - 1) != 1 || last != data[M - 1]) usleep(1000);
  close(fd);
  MPI_Status st;
  MPI_OK(MPI_Wait(&req, &st));
  int count;
  MPI_Get_count(&st, MPI_BYTE, &count);
  CHECK_EQ(count, M);
  MPI_Barrier(MPI_COMM_WORLD);
  char* back = calloc(M, 1);
  int peer = (rank + 1) % size, done = 0;
  MPI_OK(MPI_File_iread_at(fh, (MPI_Offset)peer * M, back, M, MPI_BYTE, &req));
  while (!done) MPI_OK(MPI_Test(&req, &done, &st));
  for (int i = 0; i < M; ++i) CHECK_EQ(back[i], (char)(i * 7 + peer));
  /* Split collectives; an _end without _begin and a second _begin are refused. */
  int cls = 0;
  MPI_Error_class(MPI_File_read_all_end(fh, back, &st), &cls);
  CHECK_EQ(cls, MPI_ERR_OTHER);
  MPI_OK(MPI_File_seek(fh, (MPI_Offset)rank * M, MPI_SEEK_SET));
  MPI_OK(MPI_File_read_all_begin(fh, back, M, MPI_BYTE));
  MPI_Error_class(MPI_File_read_at_all_begin(fh, 0, back, 1, MPI_BYTE), &cls);
  CHECK_EQ(cls, MPI_ERR_OTHER);
  MPI_OK(MPI_File_read_all_end(fh, back, &st));
  CHECK_EQ(memcmp(back, data, M), 0);
  MPI_Get_count(&st, MPI_BYTE, &count);
  CHECK_EQ(count, M);
  for (int i = 0; i < M; ++i) data[i] = (char)~data[i];
  MPI_OK(MPI_File_write_at_all_begin(fh, (MPI_Offset)rank * M, data, M, MPI_BYTE));
  MPI_OK(MPI_File_write_at_all_end(fh, data, &st));
  MPI_OK(MPI_File_seek_shared(fh, (MPI_Offset)size * M, MPI_SEEK_SET)); /* past every rank's part */
  MPI_OK(MPI_File_iwrite_shared(fh, data, 16, MPI_BYTE, &req));
  MPI_OK(MPI_Wait(&req, &st));
  MPI_OK(MPI_File_iread_all(fh, back, 16, MPI_BYTE, &req));
  MPI_OK(MPI_Wait(&req, &st));
  MPI_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_File_read_at(fh, (MPI_Offset)peer * M, back, M, MPI_BYTE, &st));
  for (int i = 0; i < M; ++i) CHECK_EQ(back[i], (char)~(char)(i * 7 + peer));
  MPI_OK(MPI_File_close(&fh));
  free(data);
  free(back);
}

/* external32 puts big-endian bytes in the file; a user representation converts both ways. */
static int plus_one_write(void* user, MPI_Datatype type, int count, void* filebuf, MPI_Offset position, void* extra) {
  (void)extra;
  CHECK_EQ(type, MPI_INT);
  for (int i = 0; i < count; ++i) ((int*)filebuf)[i] = ((int*)user)[position + i] + 1;
  return MPI_SUCCESS;
}
static int plus_one_read(void* user, MPI_Datatype type, int count, void* filebuf, MPI_Offset position, void* extra) {
  (void)extra;
  CHECK_EQ(type, MPI_INT);
  for (int i = 0; i < count; ++i) ((int*)user)[position + i] = ((int*)filebuf)[i] - 1;
  return MPI_SUCCESS;
}
/* The large-count form: doubles the values in the file. */
static int twice_write(void* user, MPI_Datatype type, MPI_Count count, void* filebuf, MPI_Offset position, void* extra) {
  CHECK_EQ(type, MPI_INT);
  ++*(int*)extra;
  for (MPI_Count i = 0; i < count; ++i) ((int*)filebuf)[i] = 2 * ((int*)user)[position + i];
  return MPI_SUCCESS;
}
static int twice_read(void* user, MPI_Datatype type, MPI_Count count, void* filebuf, MPI_Offset position, void* extra) {
  CHECK_EQ(type, MPI_INT);
  ++*(int*)extra;
  for (MPI_Count i = 0; i < count; ++i) ((int*)user)[position + i] = ((int*)filebuf)[i] / 2;
  return MPI_SUCCESS;
}
static int native_extent(MPI_Datatype type, MPI_Aint* extent, void* extra) {
  (void)extra;
  MPI_Aint lb;
  return MPI_Type_get_extent(type, &lb, extent);
}

static void representations(void) {
  char path[4200];
  file_name(path, "datarep");
  MPI_File fh = open_new(path);
  int v[4] = {rank, 0x01020304, -2, 77}, back[4];
  MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
  MPI_Aint ext;
  MPI_OK(MPI_File_get_type_extent(fh, MPI_INT, &ext));
  CHECK_EQ(ext, 4);
  MPI_Status st;
  MPI_OK(MPI_File_write_at(fh, 4 * rank, v, 4, MPI_INT, &st));
  MPI_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  long n;
  unsigned char* raw = (unsigned char*)posix_contents(path, &n);
  const unsigned char want[4] = {1, 2, 3, 4};
  CHECK_EQ(memcmp(raw + 16 * rank + 4, want, 4), 0);
  CHECK_EQ(raw[16 * rank + 3], (unsigned char)rank);
  free(raw);
  MPI_OK(MPI_File_read_at(fh, 4 * rank, back, 4, MPI_INT, &st));
  CHECK_EQ(memcmp(back, v, sizeof v), 0);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Register_datarep("plus_one", plus_one_read, plus_one_write, native_extent, NULL));
  MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "plus_one", MPI_INFO_NULL));
  MPI_OK(MPI_File_write_at(fh, 4 * rank, v, 4, MPI_INT, &st));
  MPI_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  int* file = (int*)posix_contents(path, &n);
  for (int i = 0; i < 4; ++i) CHECK_EQ(file[4 * rank + i], v[i] + 1);
  free(file);
  memset(back, 0, sizeof back);
  MPI_OK(MPI_File_read_at(fh, 4 * rank, back, 4, MPI_INT, &st));
  CHECK_EQ(memcmp(back, v, sizeof v), 0);
  static int conversions = 0;
  MPI_OK(MPI_Register_datarep_c("twice", twice_read, twice_write, native_extent, &conversions));
  MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "twice", MPI_INFO_NULL));
  MPI_Count extent_c = 0;
  MPI_OK(MPI_File_get_type_extent_c(fh, MPI_INT, &extent_c));
  CHECK_EQ(extent_c, 4);
  MPI_OK(MPI_File_write_at_c(fh, 4 * rank, v, 4, MPI_INT, &st));
  MPI_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  file = (int*)posix_contents(path, &n);
  for (int i = 0; i < 4; ++i) CHECK_EQ(file[4 * rank + i], 2 * v[i]);
  free(file);
  memset(back, 0, sizeof back);
  MPI_OK(MPI_File_read_at_c(fh, 4 * rank, back, 4, MPI_INT, &st));
  CHECK_EQ(memcmp(back, v, sizeof v), 0);
  CHECK_EQ(conversions, 2);
  MPI_OK(MPI_File_close(&fh));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  snprintf(dir, sizeof dir, "%s", getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp");
  job = (int)getpid();
  MPI_Bcast(&job, 1, MPI_INT, 0, MPI_COMM_WORLD);
  /* "rounds": collective buffering forced, 3 aggregators, many small rounds; "independent": no
   * collective buffering and no data sieving (one pread/pwrite per extent). */
  if (argc > 1) {
    MPI_Info_create(&hints);
    int rounds = strcmp(argv[1], "rounds") == 0;
    CHECK(rounds || strcmp(argv[1], "independent") == 0);
    MPI_Info_set(hints, "romio_cb_read", rounds ? "enable" : "disable");
    MPI_Info_set(hints, "romio_cb_write", rounds ? "enable" : "disable");
    if (rounds) {
      MPI_Info_set(hints, "cb_buffer_size", "1000");
      MPI_Info_set(hints, "cb_nodes", "3");
    } else {
      MPI_Info_set(hints, "romio_ds_read", "disable");
      MPI_Info_set(hints, "romio_ds_write", "disable");
    }
  }
  vector_view();
  subarray_view();
  darray_view();
  struct_view();
  shared_pointer();
  nonblocking();
  representations();
  if (hints != MPI_INFO_NULL) MPI_Info_free(&hints);
  MPI_Finalize();
  if (rank == 0) printf("io_views: %d ranks ok\n", size);
  return 0;
}
