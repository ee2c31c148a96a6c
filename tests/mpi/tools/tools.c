/* The tools interface (MPI 4.1 section 15.3). Before MPI_Init: every control variable against the
 * knob table (core/config/knobs.def, included here: names, order, types, enumerations,
 * categories), values read back, writes refused as documented. With MPI: writing the eager
 * limits to 0 turns small messages into rendezvous (seen by the performance variables), a
 * counter counts exactly the messages this test sends, queue lengths and unexpected bytes,
 * session/handle semantics, zero event types, the clock source. After MPI_Finalize: MPI_T still
 * works until its last MPI_T_finalize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tests/mpi/check.h"

/* The knob table, read from the one declaration. */
struct knob {
  const char* name;
  const char* type;
  const char* def;
  const char* category;
  const char* choices;
};
static const struct knob kKnobs[] = {
#define GASKET_KNOB(id, type, def, cat, alias, choices, doc) {"GASKET_" #id, #type, def, cat, choices},
#include "core/config/knobs.def"
#undef GASKET_KNOB
};
enum { kNumKnobs = sizeof kKnobs / sizeof kKnobs[0] };

static int rank = -1, size = 0;

static int cvar_index(const char* name) {
  int i = -1;
  MPI_OK(MPI_T_cvar_get_index(name, &i));
  return i;
}

static int pvar_index(const char* name, int var_class) {
  int i = -1;
  MPI_OK(MPI_T_pvar_get_index(name, var_class, &i));
  return i;
}

static void check_cvars(void) {
  int n = 0;
  MPI_OK(MPI_T_cvar_get_num(&n));
  CHECK_EQ(n, kNumKnobs);
  for (int i = 0; i < n; ++i) {
    char name[256], desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope;
    MPI_Datatype type;
    MPI_T_enum e;
    MPI_OK(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &e, desc, &desc_len, &bind, &scope));
    CHECK(strcmp(name, kKnobs[i].name) == 0);
    CHECK_EQ(name_len, (int)strlen(name) + 1);
    CHECK_EQ(bind, MPI_T_BIND_NO_OBJECT);
    CHECK_EQ(cvar_index(kKnobs[i].name), i);
    int writable = strcmp(name, "GASKET_LOG") == 0 || strcmp(name, "GASKET_MPI_EAGER_LIMIT") == 0 ||
                   strcmp(name, "GASKET_MPI_SHM_EAGER_LIMIT") == 0;
    CHECK_EQ(scope, writable ? MPI_T_SCOPE_LOCAL : MPI_T_SCOPE_CONSTANT);
    const char* t = kKnobs[i].type;
    if (strcmp(t, "kSize") == 0) CHECK_EQ(type, MPI_UNSIGNED_LONG_LONG);
    if (strcmp(t, "kInt") == 0) CHECK_EQ(type, MPI_LONG_LONG);
    if (strcmp(t, "kBool") == 0 || strcmp(t, "kChoice") == 0) CHECK_EQ(type, MPI_INT);
    if (strcmp(t, "kString") == 0) CHECK_EQ(type, MPI_CHAR);
    CHECK_EQ(e != MPI_T_ENUM_NULL, strcmp(t, "kChoice") == 0);
    /* The value: the environment's when set, else the default. */
    MPI_T_cvar_handle h;
    int count = 0;
    MPI_OK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    char value[1024];
    MPI_OK(MPI_T_cvar_read(h, value));
    const char* set = getenv(name);
    const char* expected = set != NULL ? set : kKnobs[i].def;
    if (e != MPI_T_ENUM_NULL) { /* enumeration items are the choices, in order */
      int num = 0, item_value, len;
      char enum_name[256], item[256], choices[1024] = "";
      len = sizeof enum_name;
      MPI_OK(MPI_T_enum_get_info(e, &num, enum_name, &len));
      CHECK(strcmp(enum_name, name) == 0);
      for (int k = 0; k < num; ++k) {
        len = sizeof item;
        MPI_OK(MPI_T_enum_get_item(e, k, &item_value, item, &len));
        CHECK_EQ(item_value, k);
        if (k > 0) strcat(choices, "|");
        strcat(choices, item);
      }
      CHECK(strcmp(choices, kKnobs[i].choices) == 0);
      CHECK_EQ(MPI_T_enum_get_item(e, num, &item_value, item, &len), MPI_T_ERR_INVALID_ITEM);
      int v;
      memcpy(&v, value, sizeof v);
      len = sizeof item;
      MPI_OK(MPI_T_enum_get_item(e, v, &item_value, item, &len));
      if (strcmp(name, "GASKET_LOG") != 0) CHECK(strcmp(item, expected) == 0);
    } else if (strcmp(t, "kString") == 0) {
      CHECK_EQ(count, 1024);
      CHECK(strcmp(value, expected) == 0);
    } else if (strcmp(t, "kInt") == 0 && set == NULL) {
      long long v;
      memcpy(&v, value, sizeof v);
      CHECK_EQ(v, atoll(expected));
    }
    MPI_OK(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL);
  }
  char name[8];
  int len = sizeof name;
  CHECK_EQ(MPI_T_cvar_get_info(n, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  int i;
  CHECK_EQ(MPI_T_cvar_get_index("GASKET_NO_SUCH_KNOB", &i), MPI_T_ERR_INVALID_NAME);
  /* A name too long for the buffer is cut, with its null. */
  len = 5;
  MPI_OK(MPI_T_cvar_get_info(0, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  CHECK_EQ(len, 5);
  CHECK(strncmp(name, kKnobs[0].name, 4) == 0 && name[4] == '\0');
}

static void check_categories(void) {
  int n = 0, total_cvars = 0, total_pvars = 0, num_pvars = 0;
  MPI_OK(MPI_T_category_get_num(&n));
  MPI_OK(MPI_T_pvar_get_num(&num_pvars));
  for (int c = 0; c < n; ++c) {
    char name[256];
    int len = sizeof name, ncv, npv, ncat;
    MPI_OK(MPI_T_category_get_info(c, name, &len, NULL, NULL, &ncv, &npv, &ncat));
    CHECK_EQ(ncat, 0);
    int idx;
    MPI_OK(MPI_T_category_get_index(name, &idx));
    CHECK_EQ(idx, c);
    int cvars[256];
    MPI_OK(MPI_T_category_get_cvars(c, ncv, cvars));
    for (int k = 0; k < ncv; ++k) CHECK(strcmp(kKnobs[cvars[k]].category, name) == 0);
    /* ... and every knob of that category is in it. */
    int in_table = 0;
    for (int k = 0; k < kNumKnobs; ++k) in_table += strcmp(kKnobs[k].category, name) == 0;
    CHECK_EQ(in_table, ncv);
    CHECK_EQ(npv > 0, strcmp(name, "mpi") == 0); /* the engine's counters are in "mpi" */
    int ne = -1;
    MPI_OK(MPI_T_category_get_num_events(c, &ne));
    CHECK_EQ(ne, 0);
    total_cvars += ncv;
    total_pvars += npv;
  }
  CHECK_EQ(total_cvars, kNumKnobs);
  CHECK_EQ(total_pvars, num_pvars);
  int ne;
  CHECK_EQ(MPI_T_category_get_num_events(n, &ne), MPI_T_ERR_INVALID_INDEX);
  int update = -1;
  MPI_OK(MPI_T_category_changed(&update));
}

static void check_events_and_source(void) {
  int n = -1;
  MPI_OK(MPI_T_event_get_num(&n));
  CHECK_EQ(n, 0);
  int idx;
  CHECK_EQ(MPI_T_event_get_index("anything", &idx), MPI_T_ERR_INVALID_NAME);
  CHECK_EQ(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_T_ERR_INVALID_INDEX);
  MPI_T_event_registration reg;
  CHECK_EQ(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
  MPI_OK(MPI_T_source_get_num(&n));
  CHECK_EQ(n, 1);
  MPI_Count ticks = 0, max_ticks = 0, t1, t2;
  MPI_T_source_order order;
  MPI_Info info;
  MPI_OK(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, &order, &ticks, &max_ticks, &info));
  CHECK_EQ(order, MPI_T_SOURCE_ORDERED);
  CHECK_EQ(ticks, 1000000000);
  MPI_OK(MPI_Info_free(&info));
  MPI_OK(MPI_T_source_get_timestamp(0, &t1));
  MPI_OK(MPI_T_source_get_timestamp(0, &t2));
  CHECK(t2 >= t1);
  CHECK_EQ(MPI_T_source_get_timestamp(1, &t1), MPI_T_ERR_INVALID_INDEX);
}

/* Writes through a handle: 0 on success, else the code. */
static int write_size(const char* name, unsigned long long v) {
  MPI_T_cvar_handle h;
  int count;
  MPI_OK(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count));
  int rc = MPI_T_cvar_write(h, &v);
  MPI_OK(MPI_T_cvar_handle_free(&h));
  return rc;
}

static unsigned long long read_size(const char* name) {
  MPI_T_cvar_handle h;
  int count;
  unsigned long long v = 0;
  MPI_OK(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count));
  MPI_OK(MPI_T_cvar_read(h, &v));
  MPI_OK(MPI_T_cvar_handle_free(&h));
  return v;
}

/* Ends the counting windows: every rank but 0 says it is done, then waits for rank 0's release,
 * so no rank starts other traffic (a collective's messages) while another still counts. */
static void close_windows(void) {
  if (rank == 0) {
    for (int r = 1; r < size; ++r) MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, r, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int r = 1; r < size; ++r) MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, r, 9, MPI_COMM_WORLD));
  } else {
    MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, 8, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
}

/* Rank r (> 0) counts, with `counter`, the `n` 64-byte messages rank 0 sends it once it asks
 * (nothing else reaches r meanwhile); returns the counted difference on r, 0 on rank 0. */
static unsigned long long count_messages(MPI_T_pvar_session s, MPI_T_pvar_handle counter, int n) {
  char payload[64] = {0};
  unsigned long long before = 0, after = 0;
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      for (int i = 0; i < n; ++i) MPI_OK(MPI_Send(payload, 64, MPI_BYTE, r, 2, MPI_COMM_WORLD));
    }
    close_windows();
    return 0;
  }
  MPI_OK(MPI_T_pvar_read(s, counter, &before));
  MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i) MPI_OK(MPI_Recv(payload, 64, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_T_pvar_read(s, counter, &after));
  close_windows();
  return after - before;
}

static void check_pvars(void) {
  MPI_T_pvar_session s;
  MPI_OK(MPI_T_pvar_session_create(&s));
  MPI_T_pvar_handle eager, single_copy, get, put, bounce, split, scattered, unexpected, bytes;
  int count;
  MPI_OK(MPI_T_pvar_handle_alloc(s, pvar_index("mpi_eager_received", MPI_T_PVAR_CLASS_COUNTER), NULL, &eager, &count));
  CHECK_EQ(count, 1);
  const char* rndv[] = {"mpi_rendezvous_single_copy", "mpi_rendezvous_get", "mpi_rendezvous_put",
                        "mpi_rendezvous_bounce", "mpi_rendezvous_split", "mpi_rendezvous_scattered"};
  MPI_T_pvar_handle* rndv_handles[] = {&single_copy, &get, &put, &bounce, &split, &scattered};
  for (int i = 0; i < 6; ++i) {
    MPI_OK(MPI_T_pvar_handle_alloc(s, pvar_index(rndv[i], MPI_T_PVAR_CLASS_COUNTER), NULL, rndv_handles[i], &count));
  }
  MPI_OK(MPI_T_pvar_handle_alloc(s, pvar_index("mpi_unexpected_messages", MPI_T_PVAR_CLASS_LEVEL), NULL, &unexpected,
                                 &count));
  MPI_OK(MPI_T_pvar_handle_alloc(s, pvar_index("mpi_unexpected_bytes", MPI_T_PVAR_CLASS_SIZE), NULL, &bytes, &count));
  int idx;
  CHECK_EQ(MPI_T_pvar_get_index("mpi_eager_received", MPI_T_PVAR_CLASS_LEVEL, &idx), MPI_T_ERR_INVALID_NAME);

  /* Counters count only while started; continuous ones cannot be started or written. */
  unsigned long long v = 99;
  MPI_OK(MPI_T_pvar_read(s, eager, &v));
  CHECK_EQ(v, 0);
  MPI_OK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
  CHECK_EQ(MPI_T_pvar_start(s, unexpected), MPI_T_ERR_PVAR_NO_STARTSTOP);
  CHECK_EQ(MPI_T_pvar_write(s, unexpected, &v), MPI_T_ERR_PVAR_NO_WRITE);
  CHECK_EQ(MPI_T_pvar_reset(s, bytes), MPI_T_ERR_PVAR_NO_WRITE);

  /* The eager counter counts the messages sent to this rank, exactly. */
  enum { kMessages = 10 };
  unsigned long long counted = count_messages(s, eager, kMessages);
  if (rank > 0) CHECK_EQ(counted, kMessages);

  /* With the eager limits written to 0 (on the sender), the same messages go by rendezvous. */
  const char* limits[] = {"GASKET_MPI_EAGER_LIMIT", "GASKET_MPI_SHM_EAGER_LIMIT"};
  unsigned long long saved[2];
  for (int i = 0; i < 2; ++i) {
    saved[i] = read_size(limits[i]);
    /* Any value up to what init sized is read back (the limit in force is within it). */
    unsigned long long other = saved[i] > 0 ? saved[i] - 1 : 0;
    CHECK_EQ(write_size(limits[i], other), MPI_SUCCESS);
    CHECK_EQ(read_size(limits[i]), other);
    CHECK_EQ(write_size(limits[i], 0), MPI_SUCCESS);
    CHECK_EQ(read_size(limits[i]), 0);
    CHECK_EQ(write_size(limits[i], 1ull << 40), MPI_T_ERR_CVAR_SET_NOT_NOW); /* beyond what init sized */
  }
  unsigned long long rndv_before = 0, rndv_after = 0;
  for (int i = 0; i < 6; ++i) {
    MPI_OK(MPI_T_pvar_read(s, *rndv_handles[i], &v));
    rndv_before += v;
  }
  unsigned long long eager_before = 0, eager_after = 0;
  if (rank > 0) MPI_OK(MPI_T_pvar_read(s, eager, &eager_before));
  (void)count_messages(s, single_copy, kMessages);
  for (int i = 0; i < 6; ++i) {
    MPI_OK(MPI_T_pvar_read(s, *rndv_handles[i], &v));
    rndv_after += v;
  }
  if (rank > 0) MPI_OK(MPI_T_pvar_read(s, eager, &eager_after));
  /* Only the go/done/release tokens (0 bytes, still eager) moved eagerly to this rank: the release. */
  counted = eager_after - eager_before;
  if (rank > 0) {
    CHECK_EQ(counted, 1);
    CHECK_EQ(rndv_after - rndv_before, kMessages);
  }
  for (int i = 0; i < 2; ++i) CHECK_EQ(write_size(limits[i], saved[i]), MPI_SUCCESS);
  CHECK_EQ(write_size("GASKET_HEAP_SIZE", 1 << 20), MPI_T_ERR_CVAR_SET_NEVER);
  /* "auto" sizes read as what the runtime chose: the heap, and the pool (a quarter of it) */
  unsigned long long heap = read_size("GASKET_HEAP_SIZE");
  CHECK(heap >= (128ull << 20) && (heap & (heap - 1)) == 0);
  CHECK_EQ(read_size("GASKET_MPI_ALLOC_MEM_POOL"), heap / 4);

  /* Queue lengths: 3 messages rank 0 sends before rank 1 receives them wait as unexpected. */
  if (rank == 0) {
    char payload[64] = {0};
    MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 3; ++i) MPI_OK(MPI_Send(payload, 64, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, 4, MPI_COMM_WORLD));
    close_windows();
  } else if (rank == 1) {
    char payload[64];
    MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); /* after the 3 (in order) */
    MPI_OK(MPI_T_pvar_read(s, unexpected, &v));
    CHECK_EQ(v, 3);
    MPI_OK(MPI_T_pvar_read(s, bytes, &v));
    CHECK(v >= 3 * 64);
    for (int i = 0; i < 3; ++i) MPI_OK(MPI_Recv(payload, 64, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_T_pvar_read(s, unexpected, &v));
    CHECK_EQ(v, 0);
    MPI_OK(MPI_T_pvar_read(s, bytes, &v));
    CHECK_EQ(v, 0);
    close_windows();
  } else {
    close_windows();
  }

  /* Stopped counters keep their value; readreset gives it and starts again from 0; write sets it. */
  MPI_OK(MPI_T_pvar_stop(s, eager));
  unsigned long long kept;
  MPI_OK(MPI_T_pvar_read(s, eager, &kept));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_T_pvar_read(s, eager, &v));
  CHECK_EQ(v, kept);
  MPI_OK(MPI_T_pvar_readreset(s, eager, &v));
  CHECK_EQ(v, kept);
  MPI_OK(MPI_T_pvar_read(s, eager, &v));
  CHECK_EQ(v, 0);
  unsigned long long seven = 7;
  MPI_OK(MPI_T_pvar_write(s, eager, &seven));
  MPI_OK(MPI_T_pvar_read(s, eager, &v));
  CHECK_EQ(v, 7);

  /* A handle of another session is refused. */
  MPI_T_pvar_session other;
  MPI_OK(MPI_T_pvar_session_create(&other));
  CHECK_EQ(MPI_T_pvar_read(other, eager, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_EQ(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
  MPI_OK(MPI_T_pvar_session_free(&other));
  MPI_OK(MPI_T_pvar_handle_free(s, &eager));
  CHECK(eager == MPI_T_PVAR_HANDLE_NULL);
  MPI_OK(MPI_T_pvar_session_free(&s));
  CHECK(s == MPI_T_PVAR_SESSION_NULL);
}

/* GASKET_LOG is writable before and after MPI_Init: the level read back is the one written. */
static void check_log_level(void) {
  MPI_T_cvar_handle h;
  int count, saved, v, quiet = -1, num;
  MPI_T_enum e;
  int i = cvar_index("GASKET_LOG");
  MPI_OK(MPI_T_cvar_get_info(i, NULL, NULL, NULL, NULL, &e, NULL, NULL, NULL, NULL));
  MPI_OK(MPI_T_enum_get_info(e, &num, NULL, NULL));
  for (int k = 0; k < num; ++k) {
    char item[32];
    int len = sizeof item, value;
    MPI_OK(MPI_T_enum_get_item(e, k, &value, item, &len));
    if (strcmp(item, "error") == 0) quiet = value;
  }
  CHECK(quiet >= 0);
  MPI_OK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
  MPI_OK(MPI_T_cvar_read(h, &saved));
  MPI_OK(MPI_T_cvar_write(h, &quiet));
  MPI_OK(MPI_T_cvar_read(h, &v));
  CHECK_EQ(v, quiet);
  int bad = num;
  CHECK_EQ(MPI_T_cvar_write(h, &bad), MPI_T_ERR_INVALID);
  MPI_OK(MPI_T_cvar_write(h, &saved));
  MPI_OK(MPI_T_cvar_handle_free(&h));
}

int main(int argc, char** argv) {
  int provided, n;
  CHECK_EQ(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
  MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)); /* reference counted */
  check_cvars();
  check_categories();
  check_events_and_source();
  check_log_level();
  CHECK_EQ(write_size("GASKET_MPI_EAGER_LIMIT", 0), MPI_T_ERR_CVAR_SET_NOT_NOW); /* MPI not running yet */

  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  check_pvars();
  check_log_level();
  MPI_OK(MPI_Finalize());

  check_cvars(); /* still usable after MPI_Finalize */
  /* MPI cannot run again: the eager limits can never be set for the rest of the process (MPI 4.1
   * section 15.3.6, MPI_T_ERR_CVAR_SET_NEVER); the log level still can. */
  CHECK_EQ(write_size("GASKET_MPI_EAGER_LIMIT", 0), MPI_T_ERR_CVAR_SET_NEVER);
  CHECK_EQ(write_size("GASKET_MPI_SHM_EAGER_LIMIT", 0), MPI_T_ERR_CVAR_SET_NEVER);
  check_log_level();
  MPI_OK(MPI_T_finalize());
  MPI_OK(MPI_T_cvar_get_num(&n));
  MPI_OK(MPI_T_finalize());
  CHECK_EQ(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
  CHECK_EQ(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
  return 0;
}
