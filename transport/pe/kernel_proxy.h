/*
 * The host side of kernels' OpenSHMEM calls (include/shmem.glsl): a
 * request a kernel posts in the ring (gpu/ring.h) that it cannot do
 * itself, served by the thread that launched it with the calls a CPU
 * thread makes, so every residence, path and transport is already right.
 */
#ifndef UVAS_TRANSPORT_PE_KERNEL_PROXY_H
#define UVAS_TRANSPORT_PE_KERNEL_PROXY_H

#include "gpu/ring.h"

/* One request: UVAS_OK (an AMO's result in r->result, a get's data in
 * r->payload) or a status with the message naming the call and why. */
int uvas_pe_serve_kernel(struct uvas_ring_req *r);

#endif
