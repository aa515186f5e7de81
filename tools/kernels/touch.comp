#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

/* The GPU's part of uvas-exp's workloads (tools/gpu_side.c): read
 * [addr, addr + bytes) and add its 32-bit words (those bytes of the edge
 * words only) into *sum, or write `value` (a byte, repeated) over it. */
layout(local_size_x = 256) in;
layout(push_constant) uniform Args {
    uint64_t addr;    /* 4-byte aligned: the first word */
    uint64_t sum;     /* a uvas address; reads only */
    uint nwords;
    uint head;        /* bytes of the first word in the range, as a mask */
    uint tail;        /* of the last word */
    uint value;       /* the byte, in every byte */
    uint write;
} args;

shared uint partial;

void main()
{
    if (gl_LocalInvocationIndex == 0u)
        partial = 0u;
    barrier();
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint acc = 0u;
    for (uint i = gl_GlobalInvocationID.x; i < args.nwords; i += stride) {
        uint64_t a = args.addr + 4ul * i;
        uint m = 0xffffffffu;
        if (i == 0u)
            m &= args.head;
        if (i == args.nwords - 1u)
            m &= args.tail;
        if (args.write == 0u) {
            acc += uvas_load_u32(a) & m;
        } else if (m == 0xffffffffu) {
            uvas_store_u32(a, args.value);
        } else { /* an edge word: only its bytes in the range */
            uvas_atomic_and_u32(a, ~m);
            uvas_atomic_or_u32(a, args.value & m);
        }
    }
    if (args.write == 0u) {
        atomicAdd(partial, acc);
        barrier();
        if (gl_LocalInvocationIndex == 0u && partial != 0u)
            uvas_atomic_add_u32(args.sum, partial);
    }
}
