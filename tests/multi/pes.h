/*
 * The start every multi-PE test shares: after shmem_init, a job with fewer
 * PEs than the test needs finalizes and skips loudly (exit 77).
 */
#ifndef UVAS_TEST_MULTI_PES_H
#define UVAS_TEST_MULTI_PES_H

#include <shmem.h>

#include "tests/check.h"

static inline void tu_need_pes(int min)
{
    int n = shmem_n_pes();
    if (n < min) {
        shmem_finalize();
        SKIP("needs %d PEs or more, the job has %d: run under mpirun -np %d", min, n, min);
    }
}

#endif
