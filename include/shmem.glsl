/*
 * OpenSHMEM calls for compute kernels (GLSL), over include/uvas.glsl:
 * a kernel launched with uvas_kernel_launch by a PE of an OpenSHMEM job
 * (after shmem_init) asks who it runs for. Included as uvas.glsl is (it
 * includes that):
 *
 *     #version 460
 *     #extension GL_GOOGLE_include_directive : require
 *     #include "shmem.glsl"
 *
 * Without shmem_init (a program that is not a PE), shmem_my_pe() is 0 and
 * shmem_n_pes() 1, as for a job of one PE. Puts, gets and atomics from
 * kernels are issue 14 (docs/gpu-shmem-plan.md).
 */
#ifndef SHMEM_GLSL
#define SHMEM_GLSL

#include "uvas.glsl"

int shmem_my_pe()
{
    return int(uvas_xlat.my_pe);
}

int shmem_n_pes()
{
    return int(uvas_xlat.n_pes);
}

#endif
