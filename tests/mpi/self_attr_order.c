/* MPI_Finalize deletes the attributes of MPI_COMM_SELF in the reverse order of their setting
 * (MPI 4.1 section 11.2.4), whatever the keyvals' values: keyvals are created in one order and
 * set in another, one is set again (its place becomes the last), one is deleted before
 * MPI_Finalize. Each delete callback checks that it is the one expected next; after
 * MPI_Finalize every expected callback must have run. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

#define N_KEYS 6

static int keyvals[N_KEYS];
static int expected[N_KEYS];  /* indices into keyvals, in the order the deletions must come */
static int n_expected, n_deleted, finalizing;

static int on_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm, (void)extra;
  int index = (int)(long)value;
  CHECK_EQ(keyval, keyvals[index]);
  if (!finalizing) return MPI_SUCCESS;  /* the explicit MPI_Comm_delete_attr below */
  if (n_deleted >= n_expected || expected[n_deleted] != index) {
    fprintf(stderr, "MPI_Finalize deleted the attribute set as number %d at position %d; expected %d\n", index,
            n_deleted, n_deleted < n_expected ? expected[n_deleted] : -1);
    exit(1);
  }
  n_deleted++;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  for (int i = 0; i < N_KEYS; i++) MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &keyvals[i], NULL));
  /* Set order: 3, 0, 5, 1, 4, 2; then 0 is set again (now last) and 5 is deleted. */
  static const int set_order[N_KEYS] = {3, 0, 5, 1, 4, 2};
  for (int i = 0; i < N_KEYS; i++) {
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, keyvals[set_order[i]], (void*)(long)set_order[i]));
  }
  MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, keyvals[0], (void*)(long)0));
  MPI_OK(MPI_Comm_delete_attr(MPI_COMM_SELF, keyvals[5]));
  /* Remaining in setting order: 3, 1, 4, 2, 0; deleted in reverse. */
  static const int reverse[] = {0, 2, 4, 1, 3};
  n_expected = (int)(sizeof reverse / sizeof reverse[0]);
  for (int i = 0; i < n_expected; i++) expected[i] = reverse[i];
  /* A keyval freed while its attribute is set keeps its callback until the deletion. */
  int freed = keyvals[4];
  MPI_OK(MPI_Comm_free_keyval(&freed));
  CHECK_EQ(freed, MPI_KEYVAL_INVALID);
  finalizing = 1;
  MPI_OK(MPI_Finalize());
  if (n_deleted != n_expected) {
    fprintf(stderr, "MPI_Finalize ran %d of the %d delete callbacks\n", n_deleted, n_expected);
    return 1;
  }
  return 0;
}
