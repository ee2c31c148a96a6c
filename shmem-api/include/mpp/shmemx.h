/* mpp/shmemx.h: the SGI-style path of shmemx.h (see mpp/shmem.h). */
#include "../shmemx.h"
