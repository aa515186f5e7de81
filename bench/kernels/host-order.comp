#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

/* host-order-probe's kernel (bench/gpu/host-order.c): one invocation plays
 * the pinning side of a Dekker pair against a CPU thread, round by round.
 * ctl holds what the CPU writes and the kernel reads (go, gate[]), host
 * what the kernel writes and the CPU reads (done, pin[], saw[]), every
 * word on a 256-byte line of its own. */
layout(local_size_x = 1) in;
layout(push_constant) uniform Args {
    uint64_t ctl;    /* go at 0, gate[r] at 512 + 256 r */
    uint64_t host;   /* done at 256, saw[r] at 512 + 256 (R + r) */
    uint64_t pins;   /* pin[r] at 512 + 256 r (host's allocation, or another) */
    uint rounds;
    uint variant;    /* 0: volatile store + memoryBarrier; 1: atomicExchange */
    uint poll;       /* how go is read: 0 a volatile load, 1 atomicAdd(go, 0) */
    uint pad;
} args;

layout(buffer_reference, std430, buffer_reference_align = 4) coherent volatile buffer vu32 { uint v; };

void main()
{
    uint64_t c = uvas_translate(args.ctl), h = uvas_translate(args.host);
    vu32 go = vu32(c);
    vu32 done = vu32(h + 256ul);
    uint64_t gate = c + 512ul, pin = uvas_translate(args.pins) + 512ul,
             saw = h + 512ul + 256ul * args.rounds;
    bool lost = false;
    for (uint r = 0u; r < args.rounds && !lost; r++) {
        bool seen = false;
        for (uint o = 0u; o < 65535u && !seen; o++)
            for (uint i = 0u; i < 1024u && !seen; i++)
                seen = (args.poll == 0u ? go.v : atomicAdd(go.v, 0u)) == r + 1u;
        if (!seen) {
            done.v = 0xffffffffu;
            lost = true;
        } else {
            if (args.variant == 0u) {
                vu32(pin + 256ul * r).v = 1u;
                memoryBarrier();
            } else {
                atomicExchange(vu32(pin + 256ul * r).v, 1u);
            }
            vu32(saw + 256ul * r).v = vu32(gate + 256ul * r).v + 1u; /* 1 or 2: written */
            memoryBarrier();
            done.v = r + 1u;
        }
    }
}
