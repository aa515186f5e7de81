/*
 * A shared library of the program's own OpenSHMEM code (it links
 * libuvas): its globals and statics are symmetric objects, as the
 * executable's are (test-shmem-globals-lib.c).
 */
#include "symlib.h"

long symlib_counter;
long symlib_array[SYMLIB_N] = {1}; /* in .data */
long symlib_psync[SHMEM_BARRIER_SYNC_SIZE];
static int symlib_static[SYMLIB_N]; /* in .bss, reached through symlib_static_ptr */

int *symlib_static_ptr(void)
{
    return symlib_static;
}

/* OpenSHMEM code calls the library (so the linker keeps libuvas among
 * what this library needs, which is how uvas tells such libraries). */
int symlib_my_pe(void)
{
    return shmem_my_pe();
}
