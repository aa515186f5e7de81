/* The test libraries' globals (symlib.c, plainlib.c). */
#ifndef UVAS_TEST_SYMLIB_H
#define UVAS_TEST_SYMLIB_H

#include <shmem.h>

#define SYMLIB_N 512

extern long symlib_counter;
extern long symlib_array[SYMLIB_N];
extern long symlib_psync[SHMEM_BARRIER_SYNC_SIZE];
int *symlib_static_ptr(void);
int symlib_my_pe(void);
long *plainlib_ptr(void);

#endif
