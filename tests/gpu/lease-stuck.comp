#version 460
#extension GL_GOOGLE_include_directive : require
#include "shmem.glsl"

/* test-gpu-lease-stuck's kernel. Phase 0: one invocation pins its launch's
 * lease on the right neighbour's box and never lets go (an add without
 * its release, as a kernel set on harm or a broken one would); phase 1:
 * a plain put there, which pins and lets go, and a store per invocation
 * into this PE's out: a run long enough for the owner to take the lease
 * back while it runs. */
layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t box;  /* symmetric, device-resident at every PE */
    uint64_t out_; /* this PE's: [0] 1 once phase 0 pinned the lease; phase 1's stores */
    uint phase, pad;
} args;

void main()
{
    int right = (shmem_my_pe() + 1) % shmem_n_pes();
    uint i = gl_GlobalInvocationID.x;
    if (args.phase == 0u) {
        shmem_lease_ e;
        uint64_t d;
        if (i == 0u && shmem_lease_pin_(args.box, right, e, d))
            uvas_store_u32(args.out_, 1u); /* pinned, and left so */
    } else {
        if (i == 0u)
            shmem_uint32_p(args.box, 7u, right);
        uvas_store_u32(args.out_ + 4ul * (1u + i), i);
    }
}
