#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

/* The GPU's part of uvas-exp's workloads (tools/gpu_side.c): read
 * [start, end) and add its 32-bit words (only the range's bytes of the
 * edge words) into *sum, or write `value` (a byte, repeated) over it.
 * 16 bytes per access (one translation for four words, as a
 * bandwidth-bound kernel loads); the first and the last 16 bytes word by
 * word, masked, by the first invocation. */
layout(local_size_x = 256) in;
layout(push_constant) uniform Args {
    uint64_t start;   /* the range */
    uint64_t end;
    uint64_t sum;     /* a uvas address; reads only */
    uint value;       /* the byte, in every byte */
    uint write;
} args;

shared uint partial;

/* Bytes of the word at w inside [start, end), as a mask. */
uint word_mask(uint64_t w)
{
    uint64_t lo = max(args.start, w), hi = min(args.end, w + 4ul);
    if (hi <= lo)
        return 0u;
    uint n = uint(hi - lo), at = uint(lo - w);
    return (n == 4u ? 0xffffffffu : ((1u << (8u * n)) - 1u)) << (8u * at);
}

/* The first or the last 16 bytes: word by word, masked. */
uint edge(uint64_t u)
{
    uint acc = 0u;
    for (uint j = 0u; j < 4u; j++) {
        uint64_t w = u + 4ul * j;
        uint m = word_mask(w);
        if (m == 0u)
            continue;
        if (args.write == 0u) {
            acc += uvas_load_u32(w) & m;
        } else if (m == 0xffffffffu) {
            uvas_store_u32(w, args.value);
        } else {
            uvas_atomic_and_u32(w, ~m);
            uvas_atomic_or_u32(w, args.value & m);
        }
    }
    return acc;
}

void main()
{
    if (gl_LocalInvocationIndex == 0u)
        partial = 0u;
    barrier();
    uint64_t first = args.start & ~15ul;
    uint units = uint((args.end - first + 15ul) / 16ul);
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint acc = 0u;
    /* The units between the edges: the loop has no branch a device that
     * runs invocations in lockstep would take for some and not others. */
    for (uint i = gl_GlobalInvocationID.x + 1u; i + 1u < units; i += stride) {
        uint64_t u = first + 16ul * i;
        if (args.write == 0u) {
            uvec4 v = uvas_load_uvec4(u);
            acc += v.x + v.y + v.z + v.w;
        } else {
            uvas_store_uvec4(u, uvec4(args.value));
        }
    }
    if (gl_GlobalInvocationID.x == 0u) {
        acc += edge(first);
        if (units > 1u)
            acc += edge(first + 16ul * (units - 1u));
    }
    if (args.write == 0u) {
        atomicAdd(partial, acc);
        barrier();
        if (gl_LocalInvocationIndex == 0u && partial != 0u)
            uvas_atomic_add_u32(args.sum, partial);
    }
}
