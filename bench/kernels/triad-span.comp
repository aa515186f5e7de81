#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

/* triad.comp with a span per array (uvas.glsl's uvas_span): accesses that
 * stay in the block a span last reached read no translation entry
 * (uvas-bench kernel's "spans" row). */
layout(local_size_x = 256) in;
layout(push_constant) uniform Args {
    uint64_t a, b, c;
    float s;
    uint n;
} args;

void main()
{
    uint base = gl_GlobalInvocationID.x;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uvas_span sa = uvas_span_none(), sb = uvas_span_none(), sc = uvas_span_none();
    for (uint i = base; i < args.n; i += stride) {
        uint64_t o = 4ul * i;
        uvas_store_f32_in(sc, args.c + o,
                          uvas_load_f32_in(sa, args.a + o) + args.s * uvas_load_f32_in(sb, args.b + o));
    }
}
