#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t a, b, c;
    uint64_t reach; /* the three arrays' direct reach, as the kernel saw it; a
                     * count of invocations; the runs' address, twice */
    float s;
    uint n;
} args;

/* c = a + s * b over n floats through uvas_array, a grid-stride loop (a
 * few workgroups: each invocation walks every block). */
void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uvas_array a = uvas_array_at(args.a), b = uvas_array_at(args.b), c = uvas_array_at(args.c);
    /* Atomics through an array: its device address, a uvas_ref_* type. */
    uvas_array r = uvas_array_at(args.reach);
    atomicAdd(uvas_ref_u32(uvas_array_addr(r, 24ul)).v, 1u);
    if (gl_GlobalInvocationID.x == 0u) {
        /* Where the runs are, as a pipeline of uvas's (specialization
         * constant 2036) and one of the user's that leaves it 0 (the
         * table's header) find them: the same. */
        uvas_store_u64(args.reach + 32ul, UVAS_RUNS);
        uvas_store_u64(args.reach + 40ul, uvas_xlat_ro.header[UVAS_XLAT_RUNS_WORD]);
        uvas_store_u64(args.reach, a.direct);
        uvas_store_u64(args.reach + 8ul, b.direct);
        uvas_store_u64(args.reach + 16ul, c.direct);
    }
    for (uint i = gl_GlobalInvocationID.x; i < args.n; i += stride)
        uvas_array_store_f32(c, 4ul * i,
                             uvas_array_load_f32(a, 4ul * i) + args.s * uvas_array_load_f32(b, 4ul * i));
}
