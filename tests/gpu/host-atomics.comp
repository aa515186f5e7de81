#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t counter; /* a uint32 the CPU's threads add to as well */
    uint64_t wide;    /* a uint64 likewise */
    uint64_t flags;   /* mode 1: started, flag, found, polls (uint32 each) */
    uint n;
    uint iters;
    uint mode;
    uint pad;
} args;

layout(buffer_reference, std430, buffer_reference_align = 4) coherent volatile buffer vu32 { uint v; };

void main()
{
    if (args.mode == 0u) {
        /* Each invocation adds 1 to both counters, iters times. */
        if (gl_GlobalInvocationID.x < args.n)
            for (uint k = 0u; k < args.iters; k++) {
                uvas_atomic_add_u32(args.counter, 1u);
                uvas_atomic_add_u64(args.wide, 1ul);
            }
    } else if (gl_GlobalInvocationID.x == 0u) {
        /* Say we run, then poll for the CPU's store (volatile reads of
         * host memory), iters polls at most. */
        vu32(uvas_translate(args.flags)).v = 1u;
        memoryBarrier();
        vu32 flag = vu32(uvas_translate(args.flags + 4ul));
        uint k = 0u;
        bool seen = false;
        for (; k < args.iters && !seen; k++)
            seen = flag.v == 1u;
        vu32(uvas_translate(args.flags + 8ul)).v = seen ? 1u : 0u;
        vu32(uvas_translate(args.flags + 12ul)).v = k;
    }
}
