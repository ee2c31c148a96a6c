/* mpp/shmem.h: the header directory of SGI SHMEM, deprecated since OpenSHMEM 1.1 and still
 * required ("#include <mpp/shmem.h>"): the same declarations as shmem.h. */
#include "../shmem.h"
