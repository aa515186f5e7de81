#version 460
#extension GL_GOOGLE_include_directive : require
#include "shmem.glsl"

/* Kernels' OpenSHMEM calls, one phase per launch
 * (tests/gpu/test-gpu-shmem-rma.c says what each PE checks after). */
layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t box;     /* symmetric u32[n]: what the left neighbour's kernel puts */
    uint64_t gsrc;    /* symmetric u32[n]: each PE's pattern, for gets */
    uint64_t bytes;   /* symmetric: unaligned puts land here */
    uint64_t counter; /* symmetric u64 (PE 0's is the shared counter), then u32 words */
    uint64_t src;     /* local: a pattern to put from */
    uint64_t out_;    /* local: what gets and fetching atomics returned */
    uint64_t target;  /* for the error phases: an address to put to; phase 1: host memory */
    uint64_t hsrc;    /* symmetric, host heap: a pattern to put from (phase 1) */
    uint n;           /* invocations that take part */
    uint phase;
    int peer;         /* where the error phases put */
} args;

uint pattern(int pe, uint i) { return uint(pe) * 100000u + i; }

void main()
{
    uint i = gl_GlobalInvocationID.x;
    int me = shmem_my_pe(), np = shmem_n_pes();
    int right = (me + 1) % np;
    /* Phases 10 and up wait for answers: only where kernels can wait. */
    if (args.phase == 0u) { /* p, one element each */
        if (i < args.n) {
            shmem_uint32_p(args.box + 4ul * i, pattern(me, i), right);
            shmem_uint64_p(args.bytes + 8ul * i, uint64_t(pattern(me, i)) << 20, right);
        }
    } else if (args.phase == 1u) { /* putmem at odd offsets and sizes, and by work-group */
        uint w = gl_WorkGroupID.x;
        if (gl_LocalInvocationIndex == 0u)
            shmem_putmem(args.bytes + 1000ul * w + 3ul, args.src + 1ul + w, 301ul, right);
        /* over a request's payload: by reference from host memory on GPUs */
        if (gl_LocalInvocationIndex == 0u && w == 0u)
            shmem_putmem(args.bytes + 5001ul, args.hsrc + 7ul, 2999ul, right);
        /* a typed put (one: each call is inlined whole, and lavapipe's
         * cold compile of this shader is minutes on a loaded machine) */
        if (gl_LocalInvocationIndex == 0u && w == 1u)
            shmem_uint64_put_nbi(args.bytes + 9200ul, args.src + 128ul, 13ul, right);
        shmem_putmem_work_group(args.target, args.src, 8000ul, right); /* the right's host memory */
        shmem_quiet_work_group();
    } else if (args.phase == 2u) { /* non-fetching atomics on PE 0's counter, the right's words */
        if (i < args.n) {
            shmem_uint64_atomic_add(args.counter, 1ul, 0);
            shmem_int_atomic_add(args.counter + 8ul, -1, right);
            shmem_uint32_atomic_or(args.counter + 16ul + 4ul * args.n + 4ul * (i / 32u),
                                   1u << (i % 32u), right);
            shmem_uint64_atomic_set(args.counter + 16ul + 8ul * args.n + 8ul * i,
                                    uint64_t(pattern(me, i)), right);
            shmem_uint32_atomic_inc(args.counter + 16ul + 4ul * i, right);
        }
    } else if (args.phase == 3u) { /* put with signal to the right, then quiet */
        if (i == 0u) {
            shmem_putmem_signal(args.bytes + 64ul, args.src + 64ul, 700ul, args.counter + 8ul,
                                uint64_t(me) + 1ul, SHMEM_SIGNAL_SET, right);
            shmem_quiet();
        }
    } else if (args.phase == 4u) { /* 4 requests per invocation: the ring fills, or wraps */
        if (i < args.n)
            for (uint k = 0u; k < 4u; k++)
                shmem_uint32_p(args.box + 4ul * (4u * i + k), pattern(me, 4u * i + k), right);
    } else if (args.phase == 5u) { /* this PE's memory, which the kernel holds: straight to it */
        if (i < args.n) {
            shmem_uint32_p(args.out_ + 4ul * i, pattern(me, i), me);
            uint v = shmem_uint32_g(args.out_ + 4ul * i, me);
            shmem_uint64_atomic_add(args.src, uint64_t(v == pattern(me, i) ? 1u : 0u), me);
            shmem_uint32_atomic_inc(args.src + 8ul, me);
        }
    } else if (args.phase == 6u) { /* one bad request: where args say */
        if (i == 0u)
            shmem_uint32_p(args.target, 1u, args.peer);
    } else if (args.phase == 7u) { /* the race: round args.peer of puts into the right's box */
        if (i < args.n) {
            uint j = i + args.n * uint(args.peer);
            shmem_uint32_p(args.box + 4ul * j, pattern(me, j), right);
        }
    } else if (args.phase == 10u) { /* g, and a g after a p to the same word */
        if (i < args.n) {
            uvas_store_u32(args.out_ + 4ul * i, shmem_uint32_g(args.gsrc + 4ul * i, right));
            shmem_uint64_p(args.bytes + 8ul * i, uint64_t(pattern(me, i)) << 20, right);
            uvas_store_u32(args.out_ + 4ul * (args.n + i),
                           uint(shmem_uint64_g(args.bytes + 8ul * i, right) >> 20));
        }
    } else if (args.phase == 11u) { /* getmem at odd offsets and sizes, and by work-group */
        if (gl_LocalInvocationIndex == 0u)
            shmem_getmem(args.out_ + 1000ul * gl_WorkGroupID.x + 1ul, args.gsrc + 5ul, 203ul, right);
        shmem_getmem_work_group(args.out_ + 16384ul, args.gsrc, 4000ul, right);
    } else if (args.phase == 12u) { /* fetching atomics */
        if (i < args.n) {
            uvas_store_u64(args.out_ + 8ul * i, shmem_uint64_atomic_fetch_add(args.counter, 1ul, 0));
            uint won = shmem_uint32_atomic_compare_swap(args.counter + 16ul + 4ul * i, 0u,
                                                        uint(me) + 1u, 0);
            uvas_store_u32(args.out_ + 8ul * args.n + 4ul * i, won);
            uint bits = shmem_uint32_atomic_fetch_xor(args.counter + 16ul + 4ul * args.n +
                                                      4ul * (i / 32u), 1u << (i % 32u), right);
            uvas_store_u32(args.out_ + 12ul * args.n + 4ul * i, bits);
            uint64_t was = shmem_uint64_atomic_swap(args.counter + 16ul + 8ul * args.n + 8ul * i,
                                                    uint64_t(pattern(me, i)) + 1ul, right);
            uvas_store_u64(args.out_ + 16ul * args.n + 8ul * i, was);
        }
    } else if (args.phase == 14u) { /* a host-resident word this kernel holds, set by the
                                       host meanwhile: read, waited for, then its data */
        if (i == 0u) {
            uint64_t w = args.target;
            uvas_store_u64(args.out_, shmem_uint64_g(w, me));
            uvas_store_u64(args.out_ + 8ul, shmem_signal_wait_until(w, SHMEM_CMP_EQ, 7ul));
            shmem_getmem(args.out_ + 16ul, w + 8ul, 64ul, me);
        }
    } else if (args.phase == 13u) { /* put with signal to this PE, waited for here */
        if (i == 0u) {
            shmem_putmem_signal(args.bytes, args.src, 64ul, args.counter, 5ul, SHMEM_SIGNAL_ADD, me);
            uint64_t s = shmem_signal_wait_until(args.counter, SHMEM_CMP_GE, 5ul);
            uvas_store_u64(args.out_, s);
            shmem_getmem(args.out_ + 8ul, args.bytes, 64ul, me);
            shmem_quiet();
        }
    }
}
