/*
 * OpenSHMEM extensions, where programs written for other implementations
 * include them from: uvas's own (shmemx_residence, shmemx_heap_*, ...) are
 * declared in shmem.h with the standard interface, so this header only
 * brings that in.
 */
#ifndef UVAS_SHMEMX_H
#define UVAS_SHMEMX_H
#include "shmem.h"
#endif
