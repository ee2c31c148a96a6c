/* What an MPI process learns about its launch: the MPI_APPNUM and
 * MPI_UNIVERSE_SIZE attributes of MPI_COMM_WORLD and every key of MPI_INFO_ENV, checked against
 * what the test expects. Usage:
 *   mpi_launch_env APPNUM MAXPROCS UNIVERSE WDIR [args...]
 * APPNUM: the part's number (0 when no launcher gives one: a launch without ':' is one part);
 * MAXPROCS, UNIVERSE: counts, or "world" for MPI_COMM_WORLD's size; WDIR: the directory the
 * process must run in, or "cwd" for wherever it was started. Prints "LAUNCH_ENV OK <rank>
 * <appnum>" when every check holds; the first wrong value ends the job (check.h). */
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "tests/mpi/check.h"

static int expected_count(const char* text, int world) {
  return strcmp(text, "world") == 0 ? world : atoi(text);
}

/* The value of `key` in MPI_INFO_ENV must equal `expected`. */
static void check_info(const char* key, const char* expected) {
  char value[MPI_MAX_INFO_VAL + 1] = "";
  int flag = 0;
  MPI_OK(MPI_Info_get(MPI_INFO_ENV, key, MPI_MAX_INFO_VAL, value, &flag));
  if (!flag || strcmp(value, expected) != 0) {
    fprintf(stderr, "MPI_INFO_ENV %s: expected '%s', got '%s'%s\n", key, expected, value,
            flag ? "" : " (absent)");
  }
  CHECK(flag);
  CHECK(strcmp(value, expected) == 0);
}

int main(int argc, char** argv) {
  int provided = -1;
  MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided));
  CHECK_EQ(provided, MPI_THREAD_SERIALIZED);
  CHECK(argc >= 5);
  int rank, world;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &world));

  int* appnum = NULL;
  int flag = -1;
  MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
  CHECK_EQ(flag, 1);
  CHECK_EQ(*appnum, atoi(argv[1]));
  int* universe = NULL;
  MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag));
  CHECK_EQ(flag, 1);
  CHECK_EQ(*universe, expected_count(argv[3], world));

  check_info("command", argv[0]);
  char joined[4096] = "";
  for (int i = 1; i < argc; i++) {
    if (i > 1) strncat(joined, " ", sizeof joined - strlen(joined) - 1);
    strncat(joined, argv[i], sizeof joined - strlen(joined) - 1);
  }
  check_info("argv", joined);
  char count[32];
  snprintf(count, sizeof count, "%d", expected_count(argv[2], world));
  check_info("maxprocs", count);
  check_info("soft", count);
  char host[256] = "";
  CHECK(gethostname(host, sizeof host - 1) == 0);
  check_info("host", host);
  struct utsname uts;
  CHECK(uname(&uts) == 0);
  check_info("arch", uts.machine);
  char cwd[4096];
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  if (strcmp(argv[4], "cwd") != 0) CHECK(strcmp(cwd, argv[4]) == 0);
  check_info("wdir", cwd);
  check_info("thread_level", "MPI_THREAD_SERIALIZED");

  printf("LAUNCH_ENV OK %d %s\n", rank, argv[1]);
  MPI_OK(MPI_Finalize());
  return 0;
}
