// The deprecated generic atomics as C++ overloads: the C program's checks, compiled as C++.
#include "tests/shmem/deprecated_generics.c"
