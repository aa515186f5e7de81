/*
 * <mpp/shmem.h>: where SGI's SHMEM and programs written for it (and for
 * OpenSHMEM before 1.0 named the header) include OpenSHMEM from; OSHMEM
 * and Sandia OpenSHMEM install it too. The standard header, unchanged.
 */
#ifndef UVAS_MPP_SHMEM_H
#define UVAS_MPP_SHMEM_H
#include "../shmem.h"
#endif
