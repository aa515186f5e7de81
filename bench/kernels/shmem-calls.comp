#version 460
#extension GL_GOOGLE_include_directive : require
#include "shmem.glsl"

/* gpu-shmem-bench's kernels: OpenSHMEM calls made by a kernel, timed by
 * the host around the launch (bench/shmem/gpu-shmem-bench.c). */
layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t dest;   /* symmetric, at pe */
    uint64_t src;    /* local, held */
    uint64_t nbytes;
    uint iters;
    uint mode;
    int pe;
    uint sum_at;     /* where in src mode 1 leaves its sum (past the bulk source) */
} args;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (args.mode == 0u) {        /* latency: one invocation, put 8 B + quiet, iters times */
        if (i == 0u)
            for (uint k = 0u; k < args.iters; k++) {
                shmem_uint64_p(args.dest, uint64_t(k), args.pe);
                shmem_quiet();
            }
    } else if (args.mode == 1u) { /* latency: one invocation, g of 8 B, iters times */
        if (i == 0u) {
            uint64_t s = 0ul;
            for (uint k = 0u; k < args.iters; k++)
                s += shmem_uint64_g(args.dest, args.pe);
            uvas_store_u64(args.src + uint64_t(args.sum_at), s);
        }
    } else if (args.mode == 2u) { /* rate: every invocation puts 8 B iters times, a quiet per work-group */
        for (uint k = 0u; k < args.iters; k++)
            shmem_uint64_p(args.dest + 8ul * (uint64_t(i) * uint64_t(args.iters) + uint64_t(k)),
                           uint64_t(k), args.pe);
        shmem_quiet_work_group();
    } else if (args.mode == 3u) { /* bandwidth: work-group 0 puts nbytes, then quiet */
        if (gl_WorkGroupID.x == 0u) {
            shmem_putmem_work_group(args.dest, args.src, args.nbytes, args.pe);
            shmem_quiet_work_group();
        }
    } else if (args.mode == 11u) { /* latency: work-group 0 puts nbytes + quiet, iters times */
        if (gl_WorkGroupID.x == 0u)
            for (uint k = 0u; k < args.iters; k++) {
                shmem_putmem_work_group(args.dest, args.src, args.nbytes, args.pe);
                shmem_quiet_work_group();
            }
    } else if (args.mode == 14u) { /* latency: work-group 0 gets nbytes, iters times */
        if (gl_WorkGroupID.x == 0u)
            for (uint k = 0u; k < args.iters; k++)
                shmem_getmem_work_group(args.src, args.dest, args.nbytes, args.pe);
    } else if (args.mode == 4u) { /* bandwidth: every work-group puts its slice, then quiet */
        uint64_t slice = args.nbytes / uint64_t(gl_NumWorkGroups.x);
        uint64_t o = slice * uint64_t(gl_WorkGroupID.x);
        shmem_putmem_work_group(args.dest + o, args.src + o, slice, args.pe);
        shmem_quiet_work_group();
    } else if (args.mode == 6u || args.mode == 7u || args.mode == 12u) {
        /* probes (gpu-shmem-bench -p): each work-group's lease alone (6),
         * stores of a constant through it (7), shmem_wg_copy_'s copy (12) */
        uint64_t slice = args.nbytes / uint64_t(gl_NumWorkGroups.x);
        uint64_t o = slice * uint64_t(gl_WorkGroupID.x);
        uint64_t d, l = shmem_wg_take_(args.dest + o, args.pe, true, d);
        if (args.mode == 7u && l != 0ul)
            for (uint64_t b = 16ul * uint64_t(gl_LocalInvocationIndex); b < slice; b += 1024ul)
                uvas_ref_uvec4(d + b).v = uvec4(uint(b));
        if (args.mode == 12u && l != 0ul)
            shmem_wg_copy_(true, args.src + o, d, slice, gl_LocalInvocationIndex, shmem_wg_size_());
        shmem_wg_unpin_(l);
    } else if (args.mode == 9u || args.mode == 10u) { /* probes of put8+quiet's parts, one
                                                       * invocation: a lease taken and given
                                                       * back (9); a store through one lease
                                                       * and a barrier (10), iters times */
        if (i == 0u) {
            shmem_lease_ e;
            uint64_t d;
            if (args.mode == 9u) {
                for (uint k = 0u; k < args.iters; k++)
                    if (shmem_lease_take_(args.dest, args.pe, true, e, d))
                        shmem_lease_unpin_(e);
            } else if (shmem_lease_take_(args.dest, args.pe, true, e, d)) {
                for (uint k = 0u; k < args.iters; k++) {
                    uvas_ref_u64(d).v = uint64_t(k);
                    memoryBarrier();
                }
                shmem_lease_unpin_(e);
            }
        }
    } else if (args.mode == 13u) { /* probe: uvas.glsl's loads of the slices alone */
        uint64_t slice = args.nbytes / uint64_t(gl_NumWorkGroups.x);
        uint64_t o = slice * uint64_t(gl_WorkGroupID.x);
        uvec4 x = uvec4(0u);
        for (uint64_t b = 16ul * uint64_t(gl_LocalInvocationIndex); b < slice; b += 1024ul)
            x ^= uvas_load_uvec4(args.src + o + b);
        if (x == uvec4(0xdeadbeefu)) /* never, but the loads stay */
            uvas_store_u32(args.src + uint64_t(args.sum_at), x.x);
    } else if (args.mode == 8u) { /* probe: stores of a constant into this PE's own memory */
        uint64_t slice = args.nbytes / uint64_t(gl_NumWorkGroups.x);
        uint64_t o = slice * uint64_t(gl_WorkGroupID.x);
        for (uint64_t b = 16ul * uint64_t(gl_LocalInvocationIndex); b < slice; b += 1024ul)
            uvas_store_uvec4(args.dest + o + b, uvec4(uint(b)));
    } else if (args.mode == 5u) { /* reference: the slices copied by uvas.glsl's loads and stores */
        uint64_t slice = args.nbytes / uint64_t(gl_NumWorkGroups.x);
        uint64_t o = slice * uint64_t(gl_WorkGroupID.x);
        for (uint64_t b = 16ul * uint64_t(gl_LocalInvocationIndex); b < slice; b += 1024ul)
            uvas_store_uvec4(args.dest + o + b, uvas_load_uvec4(args.src + o + b));
    }
}
