#version 460
#extension GL_GOOGLE_include_directive : require
#include "shmem.glsl"

/* test-gpu-shmem-direct's kernel: calls to the right neighbour's (and PE
 * 0's) symmetric memory, which the launch was lent: device memory, and
 * (phase 4) host memory. */
layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t box;     /* symmetric: the left neighbour's puts land here (n words) */
    uint64_t gsrc;    /* symmetric: each PE's pattern (n words), read by gets */
    uint64_t counter; /* symmetric: PE 0's is added to */
    uint64_t out_;    /* this PE's: what the gets fetched (2n words) */
    uint n, phase, rounds, pad;
} args;

uint pattern(int pe, uint i)
{
    return uint(pe) * 100000u + i;
}

void main()
{
    uint i = gl_GlobalInvocationID.x, wg = gl_WorkGroupID.x;
    int me = shmem_my_pe(), right = (me + 1) % shmem_n_pes();
    uint half_n = args.n / 2u;
    if (args.phase == 0u) { /* p into the first half, work-group puts into the second */
        if (i < half_n)
            shmem_uint32_p(args.box + 4ul * i, pattern(me, i), right);
        if (64u * wg < half_n)
            shmem_putmem_work_group(args.box + 4ul * (half_n + 64u * wg),
                                    args.gsrc + 4ul * (half_n + 64u * wg), 256ul, right);
        shmem_quiet();
    } else if (args.phase == 1u) { /* g, and getmem by work-group */
        if (i < args.n)
            uvas_store_u32(args.out_ + 4ul * i, shmem_uint32_g(args.gsrc + 4ul * i, right));
        if (64u * wg < args.n)
            shmem_getmem_work_group(args.out_ + 4ul * (args.n + 64u * wg),
                                    args.gsrc + 4ul * (64u * wg), 256ul, right);
    } else if (args.phase == 2u) { /* every PE's invocations add to PE 0's counter */
        if (i < args.n)
            shmem_uint64_atomic_add(args.counter, 1ul, 0);
    } else if (args.phase == 4u) { /* host memory of the right's: p (direct), atomic (its CPU's) */
        if (i < args.n) {
            shmem_uint32_p(args.box + 4ul * i, pattern(me, i), right);
            shmem_uint64_atomic_add(args.counter, 1ul, right);
        }
    } else if (args.phase == 3u) { /* rounds of puts while the target migrates */
        for (uint r = 0u; r < args.rounds && i < args.n; r++) {
            shmem_uint32_p(args.box + 4ul * i, pattern(me, r * args.n + i), right);
            shmem_quiet();
        }
    }
}
