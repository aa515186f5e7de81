#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require

/* triad-raw.comp with vec4 accesses (n a multiple of 4). */
layout(buffer_reference, std430, buffer_reference_align = 16) buffer F4 { vec4 v; };
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
    for (uint i = base; i < args.n / 4; i += stride) {
        uint64_t o = 16ul * i;
        F4(args.c + o).v = F4(args.a + o).v + args.s * F4(args.b + o).v;
    }
}
