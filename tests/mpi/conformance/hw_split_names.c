/* MPI_Comm_split_type by hardware resource (MPI 4.1 section 7.4.2: MPI_COMM_TYPE_HW_GUIDED with
 * the info key "mpi_hw_resource_type", MPI_COMM_TYPE_HW_UNGUIDED), the names of the null handles
 * (MPI_Comm_get_name, MPI_Type_get_name, MPI_Win_get_name), MPI_Type_match_size (section 19.2.5)
 * and the corners of MPI_Add_error_class/code/string and their removal (section 9.5). The
 * expected hardware instances come from hwloc, read here independently of the library. */
#include <hwloc.h>
#include <string.h>

#include "../check.h"

static int rank, size;

static int same_group(MPI_Comm a, MPI_Comm b) {
  MPI_Group ga, gb;
  int result;
  MPI_OK(MPI_Comm_group(a, &ga));
  MPI_OK(MPI_Comm_group(b, &gb));
  MPI_OK(MPI_Group_compare(ga, gb, &result));
  MPI_OK(MPI_Group_free(&ga));
  MPI_OK(MPI_Group_free(&gb));
  return result == MPI_IDENT;
}

static MPI_Comm guided(MPI_Comm comm, const char* resource) {
  MPI_Info info = MPI_INFO_NULL;
  if (resource != NULL) {
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "mpi_hw_resource_type", resource));
  }
  MPI_Comm out = MPI_COMM_WORLD;
  MPI_OK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_HW_GUIDED, rank, info, &out));
  if (info != MPI_INFO_NULL) MPI_OK(MPI_Info_free(&info));
  return out;
}

/* The logical index of the instance of `type` that holds this process's whole binding, or -1
 * when the binding spans several instances (or the machine has none of that type). */
static int my_instance(hwloc_topology_t topo, hwloc_obj_type_t type) {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  int found = -1;
  if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(set)) {
    hwloc_obj_t o = hwloc_get_next_obj_covering_cpuset_by_type(topo, set, type, NULL);
    if (o != NULL && hwloc_bitmap_isincluded(set, o->cpuset)) found = (int)o->logical_index;
  }
  hwloc_bitmap_free(set);
  return found;
}

/* HW_GUIDED by `resource`: the processes of this node holding the same instance of `type`, and
 * MPI_COMM_NULL for a process whose binding spans several. */
static void check_guided_resource(hwloc_topology_t topo, const char* resource, hwloc_obj_type_t type) {
  MPI_Comm node, expected = MPI_COMM_NULL, got = guided(MPI_COMM_WORLD, resource);
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  int instance = my_instance(topo, type);
  MPI_OK(MPI_Comm_split(node, instance < 0 ? MPI_UNDEFINED : instance, rank, &expected));
  CHECK_EQ(got == MPI_COMM_NULL, expected == MPI_COMM_NULL);
  if (got != MPI_COMM_NULL) {
    CHECK(same_group(got, expected));
    MPI_Info info;
    char value[64];
    int flag = 0;
    MPI_OK(MPI_Comm_get_info(got, &info));
    MPI_OK(MPI_Info_get(info, "mpi_hw_resource_type", sizeof value - 1, value, &flag));
    CHECK(flag && strcmp(value, resource) == 0);
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Comm_free(&got));
    MPI_OK(MPI_Comm_free(&expected));
  }
  MPI_OK(MPI_Comm_free(&node));
}

static void check_hw_guided(void) {
  /* "mpi_shared_memory" is MPI_COMM_TYPE_SHARED's split. */
  MPI_Comm shared, hw = guided(MPI_COMM_WORLD, "mpi_shared_memory");
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared));
  CHECK(hw != MPI_COMM_NULL);
  CHECK(same_group(hw, shared));
  int hw_rank, shared_rank;  /* the same key: the same order */
  MPI_OK(MPI_Comm_rank(hw, &hw_rank));
  MPI_OK(MPI_Comm_rank(shared, &shared_rank));
  CHECK_EQ(hw_rank, shared_rank);
  MPI_OK(MPI_Comm_free(&hw));

  /* MPI 5.0's MPI_COMM_TYPE_RESOURCE_GUIDED takes the same mpi_hw_resource_type guide. */
  MPI_Info resource;
  MPI_Comm by_resource = MPI_COMM_NULL;
  MPI_OK(MPI_Info_create(&resource));
  MPI_OK(MPI_Info_set(resource, "mpi_hw_resource_type", "mpi_shared_memory"));
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, rank, resource, &by_resource));
  MPI_OK(MPI_Info_free(&resource));
  CHECK(by_resource != MPI_COMM_NULL);
  CHECK(same_group(by_resource, shared));
  MPI_OK(MPI_Comm_free(&by_resource));
  MPI_OK(MPI_Comm_free(&shared));

  /* No info, no key, a value the implementation does not know: MPI_COMM_NULL everywhere. */
  CHECK(guided(MPI_COMM_WORLD, NULL) == MPI_COMM_NULL);
  CHECK(guided(MPI_COMM_WORLD, "no_such_hardware") == MPI_COMM_NULL);
  MPI_Info empty;
  MPI_Comm out = MPI_COMM_WORLD;
  MPI_OK(MPI_Info_create(&empty));
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, empty, &out));
  CHECK(out == MPI_COMM_NULL);
  MPI_OK(MPI_Info_free(&empty));

  hwloc_topology_t topo;
  CHECK(hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0);
  check_guided_resource(topo, "Package", HWLOC_OBJ_PACKAGE);
  check_guided_resource(topo, "NUMANode", HWLOC_OBJ_NUMANODE);
  check_guided_resource(topo, "L3Cache", HWLOC_OBJ_L3CACHE);
  check_guided_resource(topo, "L2Cache", HWLOC_OBJ_L2CACHE);
  check_guided_resource(topo, "Core", HWLOC_OBJ_CORE);
  check_guided_resource(topo, "PU", HWLOC_OBJ_PU);
  hwloc_topology_destroy(topo);
}

/* HW_UNGUIDED: each result is a strict subset of its input, names its resource in its info, and
 * is the same group HW_GUIDED gives for that resource; splitting again ends in MPI_COMM_NULL. */
static void check_hw_unguided(void) {
  MPI_Comm comm;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  for (int level = 0; comm != MPI_COMM_NULL; ++level) {
    CHECK(level < 64);
    MPI_Comm sub = MPI_COMM_WORLD;
    int comm_size;
    MPI_OK(MPI_Comm_size(comm, &comm_size));
    MPI_OK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_NULL, &sub));
    if (sub != MPI_COMM_NULL) {
      int sub_size;
      MPI_OK(MPI_Comm_size(sub, &sub_size));
      CHECK(sub_size < comm_size);
      MPI_Info info;
      char value[64];
      int flag = 0;
      MPI_OK(MPI_Comm_get_info(sub, &info));
      MPI_OK(MPI_Info_get(info, "mpi_hw_resource_type", sizeof value - 1, value, &flag));
      CHECK(flag);
      MPI_OK(MPI_Info_free(&info));
      MPI_Comm again = guided(comm, value);
      CHECK(again != MPI_COMM_NULL);
      CHECK(same_group(again, sub));
      MPI_OK(MPI_Comm_free(&again));
    }
    MPI_OK(MPI_Comm_free(&comm));
    comm = sub;
  }
  /* A single process has no strict subset. */
  MPI_Comm out = MPI_COMM_WORLD;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_SELF, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &out));
  CHECK(out == MPI_COMM_NULL);
}

#define check_name(call, got, len, expected)  \
  do {                                       \
    MPI_OK(call);                            \
    CHECK(strcmp(got, expected) == 0);       \
    CHECK_EQ(len, (int)strlen(expected));    \
  } while (0)

/* The null handles are predefined handles: their names are their own. */
static void check_null_names(void) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  check_name(MPI_Comm_get_name(MPI_COMM_NULL, name, &len), name, len, "MPI_COMM_NULL");
  check_name(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len), name, len, "MPI_DATATYPE_NULL");
  check_name(MPI_Win_get_name(MPI_WIN_NULL, name, &len), name, len, "MPI_WIN_NULL");
  check_name(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len), name, len, "MPI_COMM_WORLD");
  /* A freed communicator is not a handle: an error, not a name. */
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_Comm freed = dup;
  MPI_OK(MPI_Comm_free(&dup));
  int cls;
  MPI_Error_class(MPI_Comm_get_name(freed, name, &len), &cls);
  CHECK_EQ(cls, MPI_ERR_COMM);
}

/* The standard's own advice: match_size answers with the size-specific named types. */
static void check_match_size(void) {
  static const struct { int typeclass, size; MPI_Datatype expected; } kCases[] = {
      {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1}, {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
      {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4}, {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
      {MPI_TYPECLASS_REAL, 4, MPI_REAL4},       {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
      {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8}, {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16},
  };
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; ++i) {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_OK(MPI_Type_match_size(kCases[i].typeclass, kCases[i].size, &t));
    CHECK_EQ(t, kCases[i].expected);
    int bytes, ni, na, nd, combiner;
    MPI_OK(MPI_Type_size(t, &bytes));
    CHECK_EQ(bytes, kCases[i].size);
    MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner));
    CHECK_EQ(combiner, MPI_COMBINER_NAMED);
  }
  /* Every size a class answers for gives a type of that size; other sizes are refused. */
  for (int typeclass = MPI_TYPECLASS_INTEGER; typeclass <= MPI_TYPECLASS_COMPLEX; ++typeclass) {
    for (int bytes = 0; bytes <= 40; ++bytes) {
      MPI_Datatype t = MPI_DATATYPE_NULL;
      int rc = MPI_Type_match_size(typeclass, bytes, &t), got = -1, cls = -1;
      if (rc == MPI_SUCCESS) {
        MPI_OK(MPI_Type_size(t, &got));
        CHECK_EQ(got, bytes);
      } else {
        MPI_Error_class(rc, &cls);
        CHECK_EQ(cls, MPI_ERR_ARG);
      }
    }
  }
}

static int class_of(int rc) {
  int cls = -1;
  MPI_OK(MPI_Error_class(rc, &cls));
  return cls;
}

static void check_error_corners(void) {
  char text[MPI_MAX_ERROR_STRING];
  int len, cls, code, unused;
  /* The predefined range ends at MPI_ERR_LASTCODE inclusive: a class of its own with a string. */
  CHECK_EQ(class_of(MPI_ERR_LASTCODE), MPI_ERR_LASTCODE);
  MPI_OK(MPI_Error_string(MPI_ERR_LASTCODE, text, &len));
  CHECK(len > 0);
  MPI_OK(MPI_Add_error_class(&cls));
  MPI_OK(MPI_Add_error_code(cls, &code));
  CHECK(cls > MPI_ERR_LASTCODE && code > MPI_ERR_LASTCODE);
  /* Setting a string again replaces it. */
  MPI_OK(MPI_Add_error_string(code, "first"));
  MPI_OK(MPI_Add_error_string(code, "second"));
  MPI_OK(MPI_Error_string(code, text, &len));
  CHECK(strcmp(text, "second") == 0 && len == 6);
  /* MPI 4.1: it is erroneous to remove a code whose string is still set, or a class whose codes
   * or string are; the others refuse it, and so must we. */
  MPI_OK(MPI_Add_error_string(cls, "class text"));
  CHECK_EQ(class_of(MPI_Remove_error_code(code)), MPI_ERR_ARG);
  MPI_OK(MPI_Remove_error_string(code));
  MPI_OK(MPI_Remove_error_code(code));
  CHECK_EQ(class_of(MPI_Remove_error_class(cls)), MPI_ERR_ARG);
  MPI_OK(MPI_Remove_error_string(cls));
  MPI_OK(MPI_Remove_error_class(cls));
  /* A removed class takes no more codes. */
  CHECK_EQ(class_of(MPI_Add_error_code(cls, &unused)), MPI_ERR_ARG);
  /* A code of the last predefined class. */
  MPI_OK(MPI_Add_error_code(MPI_ERR_LASTCODE, &code));
  CHECK_EQ(class_of(code), MPI_ERR_LASTCODE);
  MPI_OK(MPI_Remove_error_code(code));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  check_null_names();
  check_match_size();
  check_error_corners();
  check_hw_guided();
  check_hw_unguided();
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("hw_split_names: %d ranks passed\n", size);
  return 0;
}
