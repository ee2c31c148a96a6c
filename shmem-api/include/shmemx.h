/* shmemx.h: the header OpenSHMEM names for an implementation's extension routines. gasket has
 * none, so it only includes shmem.h; it exists because programs written for other
 * implementations include it. */
#ifndef GASKET_SHMEMX_H
#define GASKET_SHMEMX_H
#include "shmem.h"
#endif
