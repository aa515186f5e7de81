/*
 * OpenSHMEM calls for compute kernels (GLSL), over include/uvas.glsl. A
 * kernel launched with uvas_kernel_launch by a PE of an OpenSHMEM job
 * (after shmem_init) puts to, gets from and atomically updates the
 * symmetric memory of any PE, and waits on its own:
 *
 *     #version 460
 *     #extension GL_GOOGLE_include_directive : require
 *     #include "shmem.glsl"
 *     layout(local_size_x = 64) in;
 *     layout(push_constant) uniform Args { uint64_t dest; uint64_t counter; } args;
 *     void main() {
 *         int peer = (shmem_my_pe() + 1) % shmem_n_pes();
 *         shmem_uint32_p(args.dest + 4ul * gl_GlobalInvocationID.x, 7u, peer);
 *         shmem_uint64_atomic_add(args.counter, 1ul, 0);
 *         shmem_quiet();
 *     }
 *
 * Addresses are uint64_t uvas addresses (the CPU's pointers, symmetric:
 * the same on every PE); sizes are bytes. Without shmem_init the kernel
 * is PE 0 of a job of one PE.
 *
 * How each call goes (docs/kernels.md):
 * - to this PE, where the kernel reaches the target (a block it holds):
 *   loads, stores and device atomics through the translation, as any
 *   uvas pointer; a host-resident target's atomics go to the host (the
 *   CPU's and peers' atomics on that word are the CPU's: one kind of
 *   atomic per word), and so do a GPU's reads and waits there (a running
 *   GPU kernel does not see host memory change);
 * - otherwise a request in the ring the launching thread serves while the
 *   kernel runs (gpu/ring.h): the host makes the call a CPU thread makes,
 *   so every residence, path and transport is right. A put returns once
 *   its data is in the ring (the source may be reused); a get, a fetching
 *   atomic and shmem_quiet wait for the host's answer.
 * Requests of one invocation are served in the order made, and puts and
 * atomics to one PE take effect in that order (shmem_fence orders nothing
 * more). A launch returns once every request of its kernel is done; what
 * the host refuses (a PE out of range, an address that is not symmetric)
 * fails the launch, naming the kernel and the call.
 *
 * A GPU waits as long as an answer takes. A device that bounds shader
 * loops cannot wait (lavapipe ends them after 65535 iterations in all,
 * counted over a work-group, the kernel's own loops included): there the calls that need an answer
 * (a get or g from memory the kernel does not hold, a fetching atomic,
 * wait_until) do nothing, return 0 and fail the launch, saying so; puts,
 * non-fetching atomics and quiet work. Work-group calls (_work_group)
 * must be reached by every invocation of the work-group, as barrier()
 * must.
 */
#ifndef SHMEM_GLSL
#define SHMEM_GLSL

#include "uvas.glsl"

/* As include/shmem.h. */
#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Mirrors gpu/ring.h: change both together. */
#define SHMEM_RING_SLOTS_ 4096u
#define SHMEM_RING_PAYLOAD_ 448u
#define SHMEM_RING_PUT_ 1u
#define SHMEM_RING_GET_ 2u
#define SHMEM_RING_AMO_ 3u
#define SHMEM_RING_PUT_SIGNAL_ 4u
#define SHMEM_RING_QUIET_ 5u
#define SHMEM_RING_PUT_REF_ 6u
#define SHMEM_RING_WAITS_ 0x100u
/* enum uvas_amo_op (transport/pe/pe.h) */
#define SHMEM_AMO_FETCH_ 0u
#define SHMEM_AMO_SET_ 1u
#define SHMEM_AMO_SWAP_ 2u
#define SHMEM_AMO_CSWAP_ 3u
#define SHMEM_AMO_ADD_ 4u
#define SHMEM_AMO_AND_ 5u
#define SHMEM_AMO_OR_ 6u
#define SHMEM_AMO_XOR_ 7u

layout(buffer_reference, std430, buffer_reference_align = 64) coherent volatile buffer shmem_ring_ {
    uint head;
    uint nslots;
    uint timed_out;
    uint refused;
    uint cannot_wait;
    uint pad_;
    uint64_t mail;
};
/* A slot, of the ring (the answer) or of the mailbox (the request); the
 * payload 16 bytes an access (each store to host memory is a bus
 * transaction of its own). */
layout(buffer_reference, std430, buffer_reference_align = 64) coherent volatile buffer shmem_slot_ {
    uint seq;
    uint op;
    int pe;
    uint size;
    uint64_t addr;
    uint64_t value;
    uint64_t cmp;
    uint64_t result;
    uint64_t sig;
    uint amo;
    uint status;
    uvec4 payload[SHMEM_RING_PAYLOAD_ / 16u];
};
layout(buffer_reference, std430, buffer_reference_align = 4) coherent volatile buffer shmem_vu32_ { uint v; };
layout(buffer_reference, std430, buffer_reference_align = 8) coherent volatile buffer shmem_vu64_ { uint64_t v; };
layout(buffer_reference, std430, buffer_reference_align = 16) coherent volatile buffer shmem_vuvec4_ { uvec4 v; };
/* Leases (transport/pe/lease.h mirrors them): another PE's block of
 * device memory on this GPU, or (for stores) of its host memory, lent to
 * this launch by its host. The table:
 * a header, the row of each PE (-1: through the host), and per row an
 * entry per block; a kernel pins an entry, reads its lent word, and goes to the
 * block's device address if it is set (the host clears it, then waits
 * for the pins, before the owner may move the block). */
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer shmem_peers_ {
    uint npes;
    uint nrows;
    uint64_t entries;
    uint64_t pad0_;
    uint64_t pad1_;
    int row[];
};
layout(buffer_reference, std430, buffer_reference_align = 16) coherent volatile buffer shmem_lease_ {
    uint64_t lent;
    uint pins;
    uint pad_;
};

int shmem_my_pe()
{
    return int(uvas_xlat.my_pe);
}

int shmem_n_pes()
{
    return int(uvas_xlat.n_pes);
}

shmem_ring_ shmem_ring_hdr_()
{
    return shmem_ring_(uvas_xlat.proxy);
}

/* This invocation's requests in the ring since its last quiet: while it
 * has any, its calls to other PEs go through the ring too (puts and
 * atomics to one PE take effect in the order made), and its quiet asks
 * the host. Stores of its own into host memory need the host's quiet too. */
bool shmem_posted_ = false;
bool shmem_host_stores_ = false;

/* A lease's kind, in the low bits of its lent word (transport/pe/lease.c;
 * the rest is the block's device address less its uvas address): 1, the
 * block is device memory of pe's (every access); 2, its host memory, for
 * stores only: a GPU's atomics on host memory are not atomic with the
 * CPU's over PCIe, and a running kernel may keep host memory it read in
 * its caches, so atomics and reads there go to the owner's CPU through
 * the ring. */
#define SHMEM_LEASE_DEVICE_ 1ul
#define SHMEM_LEASE_HOST_ 2ul
#define SHMEM_LEASE_KIND_ 3ul

/* The last lease pinned was of host memory: a store through it is one of
 * this invocation's host stores (quiet asks the host). */
bool shmem_lease_host_ = false;

/* A lease on pe's block holding uvas address a, pinned (one of host
 * memory only for a store): true with e and the device address d of a;
 * false, nothing pinned, where there is none (the call goes through the
 * host). Two round trips to the table: the pin, then one read of the
 * lent word (no look before the pin: a miss goes through the host, which
 * costs far more than the pin's two atomics). */
bool shmem_lease_take_(uint64_t a, int pe, bool store, out shmem_lease_ e, out uint64_t d)
{
    uint64_t t = uvas_xlat.peers;
    e = shmem_lease_(0ul);
    d = 0ul;
    uint64_t bi = (a - UVAS_BASE) >> UVAS_SHIFT;
    if (t == 0ul || shmem_posted_ || bi >= uint64_t(UVAS_NBLOCKS))
        return false;
    shmem_peers_ h = shmem_peers_(t);
    int r = uint(pe) < h.npes ? h.row[pe] : -1;
    if (r < 0)
        return false;
    e = shmem_lease_(h.entries + 16ul * (uint64_t(r) * uint64_t(UVAS_NBLOCKS) + bi));
    atomicAdd(e.pins, 1u);
    memoryBarrier(); /* the pin before the read of lent (the host: lent, then pins) */
    uint64_t w = e.lent;
    uint64_t kind = w & SHMEM_LEASE_KIND_;
    if (kind == 0ul || (!store && kind != SHMEM_LEASE_DEVICE_)) {
        atomicAdd(e.pins, 0xffffffffu);
        return false;
    }
    d = a + (w - kind);
    shmem_lease_host_ = kind == SHMEM_LEASE_HOST_;
    return true;
}

/* For a load or an atomic: device memory only. */
bool shmem_lease_pin_(uint64_t a, int pe, out shmem_lease_ e, out uint64_t d)
{
    return shmem_lease_take_(a, pe, false, e, d);
}

/* The access is done (visible on the device), then the pin goes. */
void shmem_lease_unpin_(shmem_lease_ e)
{
    memoryBarrier();
    atomicAdd(e.pins, 0xffffffffu);
}

/* Every function here returns only at its end (they are inlined into
 * loops and divergent branches of the caller's kernel).
 *
 * Waiting. Where kernels can wait (UVAS_FAULTS_WAIT: every GPU), a call
 * that needs the host's answer waits for it as long as it takes. Where
 * the device bounds loops (lavapipe ends every loop after 65535
 * iterations in all, counted over the work-group and the kernel's own
 * loops included), a wait
 * would silently cut the kernel's own loops short, so there a call that
 * needs an answer (a get or g from memory the kernel does not reach, a
 * fetching atomic, wait_until) does nothing, returns 0 and fails the
 * launch, saying why; puts, non-fetching atomics and quiet (served in
 * order by the host) do not wait. */
#define SHMEM_BOUNDED_WAIT_ 16384u /* iterations for a free slot, where loops are bounded */

/* Until the u32 at device address p is want; false (and counted) where
 * the wait ran out. */
bool shmem_await_(uint64_t p, uint want)
{
    shmem_vu32_ r = shmem_vu32_(p);
    bool hit = false;
    uint outer = UVAS_FAULTS_WAIT ? 65535u : 1u;
    uint inner = UVAS_FAULTS_WAIT ? 65535u : SHMEM_BOUNDED_WAIT_;
    for (uint o = 0u; o < outer && !hit; o++)
        for (uint i = 0u; i < inner && !hit; i++)
            hit = r.v == want;
    if (!hit)
        atomicAdd(shmem_ring_hdr_().timed_out, 1u);
    return hit;
}

/* A call that needs an answer, where kernels cannot wait: counted. */
void shmem_cannot_wait_()
{
    atomicAdd(shmem_ring_hdr_().cannot_wait, 1u);
}

/* Byte b of uvas address a (a local source: any alignment). */
uint shmem_byte_(uint64_t a)
{
    return (uvas_load_u32(a & ~3ul) >> (8u * uint(a & 3ul))) & 0xffu;
}

/* Store byte v at uvas address a without touching its neighbours, which
 * other invocations may be writing. */
void shmem_byte_store_(uint64_t a, uint v)
{
    uint sh = 8u * uint(a & 3ul);
    uvas_atomic_and_u32(a & ~3ul, ~(0xffu << sh));
    uvas_atomic_or_u32(a & ~3ul, (v & 0xffu) << sh);
}

/* Fill mailbox slot c with a request. The payload comes from src, a uvas
 * address of this PE (from_src: n bytes, any alignment; 16 bytes a step
 * where aligned, since where the device bounds loops the bound is shared
 * by the whole work-group, lavapipe's, and a work-group's bulk put makes
 * thousands of these; a last step reads up to 15 bytes past the source,
 * in its block), or is src itself (8 bytes of a p). */
void shmem_fill_(shmem_slot_ c, uint op, int pe, uint n, uint64_t addr, uint64_t value,
                 uint64_t cmp, uint64_t sig, uint amo, uint64_t src, bool from_src)
{
    c.op = op;
    c.pe = pe;
    c.size = n;
    c.addr = addr;
    c.value = value;
    c.cmp = cmp;
    c.sig = sig;
    c.amo = amo;
    if (!from_src) {
        c.payload[0] = uvec4(uint(src), uint(src >> 32), 0u, 0u);
    } else if ((src & 15ul) == 0ul) {
        for (uint w = 0u; 16u * w < n; w++)
            c.payload[w] = uvas_load_uvec4(src + 16ul * w);
    } else {
        /* Word by word, never past the source's last byte. */
        for (uint w = 0u; 16u * w < n; w++) {
            uvec4 v = uvec4(0u);
            for (uint k = 0u; k < 4u && 16u * w + 4u * k < n; k++) {
                uint64_t a = src + 16ul * w + 4ul * k;
                uint x = 0u;
                if ((src & 3ul) == 0ul) {
                    x = uvas_load_u32(a);
                } else {
                    for (uint b = 0u; b < 4u && 16u * w + 4u * k + b < n; b++)
                        x |= shmem_byte_(a + b) << (8u * b);
                }
                v[k] = x;
            }
            c.payload[w] = v;
        }
    }
}

/* Post ticket t's request: written into its slot of the mailbox (host
 * memory, gpu/ring.h: the host reads it from its cache, not across the
 * bus), then marked posted there. Its answer and the slot's state stay in
 * the ring, which the kernel reads. */
void shmem_post_(shmem_ring_ r, uint t, uint op, int pe, uint n, uint64_t addr, uint64_t value,
                 uint64_t cmp, uint64_t sig, uint amo, uint64_t src, bool from_src)
{
    shmem_slot_ m = shmem_slot_(r.mail + 512ul * uint64_t(t % SHMEM_RING_SLOTS_));
    shmem_fill_(m, op, pe, n, addr, value, cmp, sig, amo, src, from_src);
    memoryBarrier();
    m.seq = t + 1u;
    shmem_posted_ = true;
}

/* The host's answer to request op in ring slot c (which holds only the
 * answer: the request went to the mailbox): an AMO's result, or a get's n
 * bytes copied to dest (a uvas address of this PE; 0: returned, up to 8
 * of them). */
uint64_t shmem_answer_(shmem_slot_ c, uint op, uint n, uint64_t dest)
{
    uint64_t r = 0ul;
    if ((op & 0xffu) == SHMEM_RING_AMO_) {
        r = c.result;
    } else if (dest == 0ul) {
        uvec4 p0 = c.payload[0];
        r = uint64_t(p0.x) | (n > 4u ? uint64_t(p0.y) << 32 : 0ul);
    } else if (c.status == 0u) {
        if (((dest | uint64_t(n)) & 3ul) == 0ul) {
            for (uint w = 0u; 4u * w < n; w++)
                uvas_store_u32(dest + 4ul * w, c.payload[w / 4u][w % 4u]);
        } else {
            for (uint b = 0u; b < n; b++)
                shmem_byte_store_(dest + uint64_t(b),
                                  c.payload[b / 16u][(b / 4u) % 4u] >> (8u * (b & 3u)));
        }
    }
    return r;
}

/* One request: a ticket whose slot is free, the slot filled and posted,
 * and with wait the answer waited for, read (shmem_answer_) and the slot
 * freed; its result. Where kernels wait, all of it happens in the loop
 * iteration that wins the slot (compare-and-swap on head): an invocation
 * that took a ticket and left the loop first could be kept, in a warp
 * that runs its branches in turn, behind neighbours spinning for slots
 * that only its ticket frees, for ever. Where loops are bounded, tickets
 * are taken at once (a swap per invocation would spend the work-group's
 * loop budget) and nothing waits for an answer (callers ask none). A
 * request that found no slot in time is dropped and counted: the launch
 * fails. */
uint64_t shmem_request_(uint op, int pe, uint n, uint64_t addr, uint64_t value, uint64_t cmp,
                        uint64_t sig, uint amo, uint64_t src, bool from_src, bool wait,
                        uint64_t dest)
{
    shmem_ring_ r = shmem_ring_hdr_();
    bool done = false;
    uint64_t res = 0ul;
    if (UVAS_FAULTS_WAIT) {
        for (uint o = 0u; o < 65535u && !done; o++)
            for (uint i = 0u; i < 65535u && !done; i++) {
                uint h = r.head;
                shmem_slot_ c = shmem_slot_(uvas_xlat.proxy + 64ul +
                                            512ul * uint64_t(h % SHMEM_RING_SLOTS_));
                if (c.seq == h && atomicCompSwap(r.head, h, h + 1u) == h) {
                    shmem_post_(r, h, op, pe, n, addr, value, cmp, sig, amo, src, from_src);
                    if (wait && shmem_await_(uint64_t(c), h + 2u)) {
                        res = shmem_answer_(c, op, n, dest);
                        memoryBarrier();
                        atomicExchange(c.seq, h + SHMEM_RING_SLOTS_);
                    }
                    done = true;
                }
            }
        if (!done)
            atomicAdd(r.timed_out, 1u);
    } else {
        uint t = atomicAdd(r.head, 1u);
        shmem_slot_ c = shmem_slot_(uvas_xlat.proxy + 64ul + 512ul * uint64_t(t % SHMEM_RING_SLOTS_));
        if (shmem_await_(uint64_t(c), t))
            shmem_post_(r, t, op, pe, n, addr, value, cmp, sig, amo, src, from_src);
    }
    return res;
}

/* Does this kernel reach uvas address a itself (its block translated)?
 * Then d is where, and host says the block is host memory. */
bool shmem_reach_(uint64_t a, out uint64_t d, out bool host)
{
    uint64_t bi = (a - UVAS_BASE) >> UVAS_SHIFT;
    uint64_t w = bi < uint64_t(UVAS_NBLOCKS) ? uvas_xlat_v.entry[uint(bi)].word : 0ul;
    bool set = uvas_xlat_set_(w);
    d = set ? a + uvas_xlat_delta_(w) : 0ul;
    host = set && (uint(w) & UVAS_XLAT_WORD_HOST) != 0u;
    return set;
}

/* n bytes from uvas address src into uvas address dest, both here. */
void shmem_copy_local_(uint64_t dest, uint64_t src, uint64_t n)
{
    if (((dest | src | n) & 15ul) == 0ul) {
        for (uint64_t o = 0ul; o < n; o += 16ul)
            uvas_store_uvec4(dest + o, uvas_load_uvec4(src + o));
    } else if (((dest | src | n) & 3ul) == 0ul) {
        for (uint64_t o = 0ul; o < n; o += 4ul)
            uvas_store_u32(dest + o, uvas_load_u32(src + o));
    } else {
        for (uint64_t o = 0ul; o < n; o++)
            shmem_byte_store_(dest + o, shmem_byte_(src + o));
    }
}

/* Byte b of device address d, and byte v stored at device address d
 * without touching its neighbours: shmem_byte_ and shmem_byte_store_ for
 * memory reached by device address (a leased block of another PE). */
uint shmem_dbyte_(uint64_t d)
{
    return (shmem_vu32_(d & ~3ul).v >> (8u * uint(d & 3ul))) & 0xffu;
}

void shmem_dbyte_store_(uint64_t d, uint v)
{
    uint sh = 8u * uint(d & 3ul);
    atomicAnd(uvas_ref_u32(d & ~3ul).v, ~(0xffu << sh));
    atomicOr(uvas_ref_u32(d & ~3ul).v, (v & 0xffu) << sh);
}

/* n bytes from this PE's uvas address src to device address d. */
void shmem_copy_out_(uint64_t d, uint64_t src, uint64_t n)
{
    if (((d | src | n) & 15ul) == 0ul) {
        for (uint64_t o = 0ul; o < n; o += 16ul)
            uvas_ref_uvec4(d + o).v = uvas_load_uvec4(src + o);
    } else if (((d | src | n) & 3ul) == 0ul) {
        for (uint64_t o = 0ul; o < n; o += 4ul)
            uvas_ref_u32(d + o).v = uvas_load_u32(src + o);
    } else {
        for (uint64_t o = 0ul; o < n; o++)
            shmem_dbyte_store_(d + o, shmem_byte_(src + o));
    }
}

/* n bytes from device address d (read where it is: other agents write
 * it) to this PE's uvas address dest. */
void shmem_copy_in_(uint64_t dest, uint64_t d, uint64_t n)
{
    if (((d | dest | n) & 15ul) == 0ul) {
        for (uint64_t o = 0ul; o < n; o += 16ul)
            uvas_store_uvec4(dest + o, shmem_vuvec4_(d + o).v);
    } else if (((d | dest | n) & 3ul) == 0ul) {
        for (uint64_t o = 0ul; o < n; o += 4ul)
            uvas_store_u32(dest + o, shmem_vu32_(d + o).v);
    } else {
        for (uint64_t o = 0ul; o < n; o++)
            shmem_byte_store_(dest + o, shmem_dbyte_(d + o));
    }
}

/* The bytes of [a, a + n) up to the end of a's block. */
uint64_t shmem_in_block_(uint64_t a, uint64_t n)
{
    uint64_t room = (1ul << UVAS_SHIFT) - ((a - UVAS_BASE) & ((1ul << UVAS_SHIFT) - 1ul));
    return min(room, n);
}

/* One request's worth (n <= the payload) of a put from local src. */
void shmem_put_chunk_(uint64_t dest, uint64_t src, uint n, int pe, uint op, uint64_t sig,
                      uint64_t signal, uint sig_op)
{
    shmem_request_(op, pe, n, dest, signal, 0ul, sig, sig_op, src, true, false, 0ul);
}

/* One request's worth of a get into local dest. */
void shmem_get_chunk_(uint64_t dest, uint64_t src, uint n, int pe)
{
    if (UVAS_FAULTS_WAIT)
        shmem_request_(SHMEM_RING_GET_ | SHMEM_RING_WAITS_, pe, n, src, 0ul, 0ul, 0ul, 0u, 0ul,
                       false, true, dest);
    else
        shmem_cannot_wait_();
}

/* Does a call to pe at dest go straight to memory (this PE, reachable)? */
bool shmem_direct_(uint64_t dest, int pe)
{
    uint64_t d;
    bool host;
    return pe == shmem_my_pe() && shmem_reach_(dest, d, host);
}

/* May a read of this PE's src go straight to memory? Reachable, and not
 * host memory on a GPU: a GPU keeps the lines of host memory it read in
 * its cache for the rest of the run, so stores the host (or a peer,
 * through it) makes meanwhile are never seen there (the H100 never saw
 * them, by volatile loads or atomics: bench/results/h100/host-order.txt;
 * Vulkan makes host writes visible to a device only at a submission).
 * Those reads go to the host. Devices whose kernels cannot wait are CPU
 * implementations (lavapipe), whose reads of host memory are the CPU's.
 * d: where the read goes when it is direct. */
bool shmem_read_direct_(uint64_t src, int pe, out uint64_t d)
{
    bool host;
    return pe == shmem_my_pe() && shmem_reach_(src, d, host) && (!host || !UVAS_FAULTS_WAIT);
}

/* A put to this PE's memory the kernel reaches: its stores, and whether
 * the host's quiet must follow them (host memory). */
void shmem_put_here_(uint64_t dest, uint64_t src, uint64_t nbytes)
{
    uint64_t d;
    bool host;
    shmem_reach_(dest, d, host);
    shmem_host_stores_ = shmem_host_stores_ || host;
    shmem_copy_local_(dest, src, nbytes);
}

/* Whether this PE's [src, src + n) starts and ends in host memory, the
 * two blocks' translations faulted in where the kernel has none yet (a
 * launch translates its held blocks as its kernel first reaches them).
 * Where n is at most a block the ends are all of it. One fault site in a
 * loop: each call site of a library function is inlined whole, and
 * lavapipe's compile time grows with them. */
bool shmem_src_host_(uint64_t src, uint64_t n)
{
    bool all = UVAS_FAULTS_WAIT;
    for (uint e = 0u; e < 2u && all; e++) {
        uint64_t a = e == 0u ? src : src + n - 1ul, d;
        bool host;
        if (!shmem_reach_(a, d, host)) {
            uvas_fault(a);
            shmem_reach_(a, d, host);
        }
        all = host;
    }
    return all;
}

void shmem_putmem(uint64_t dest, uint64_t src, uint64_t nbytes, int pe)
{
    if (shmem_direct_(dest, pe) && shmem_direct_(dest + max(nbytes, 1ul) - 1ul, pe)) {
        shmem_put_here_(dest, src, nbytes);
        return;
    }
    /* Block by block: stores where this launch was lent the block, the
     * ring elsewhere (and, once the ring took a piece, for the rest). */
    for (uint64_t o = 0ul; o < nbytes;) {
        uint64_t k = shmem_in_block_(dest + o, nbytes - o), d;
        shmem_lease_ e;
        if (shmem_lease_take_(dest + o, pe, true, e, d)) {
            shmem_copy_out_(d, src + o, k);
            shmem_host_stores_ = shmem_host_stores_ || shmem_lease_host_;
            shmem_lease_unpin_(e);
        } else {
            /* More than a request's payload from this PE's host memory,
             * where kernels wait: one request naming the source, which the
             * host copies itself (the kernel would read it across the bus
             * 16 bytes a load, a request per 448 bytes), answered once the
             * host has read it, as the call may not return before. Else
             * request-sized pieces. One request site either way (each is
             * inlined whole). */
            bool ref = k > uint64_t(SHMEM_RING_PAYLOAD_) && shmem_src_host_(src + o, k);
            if (ref)
                memoryBarrier(); /* our stores into the source before the host reads it */
            uint64_t step = ref ? k : uint64_t(SHMEM_RING_PAYLOAD_);
            for (uint64_t c = 0ul; c < k; c += step)
                shmem_request_(ref ? SHMEM_RING_PUT_REF_ | SHMEM_RING_WAITS_ : SHMEM_RING_PUT_,
                               pe, ref ? 0u : uint(min(k - c, step)), dest + o + c,
                               ref ? src + o : 0ul, ref ? k : 0ul, 0ul, 0u, src + o + c, !ref,
                               ref, 0ul);
        }
        o += k;
    }
}

void shmem_getmem(uint64_t dest, uint64_t src, uint64_t nbytes, int pe)
{
    uint64_t d;
    if (shmem_read_direct_(src, pe, d) && shmem_read_direct_(src + max(nbytes, 1ul) - 1ul, pe, d)) {
        shmem_copy_local_(dest, src, nbytes);
        return;
    }
    for (uint64_t o = 0ul; o < nbytes;) {
        uint64_t k = shmem_in_block_(src + o, nbytes - o);
        shmem_lease_ e;
        if (shmem_lease_pin_(src + o, pe, e, d)) {
            shmem_copy_in_(dest + o, d, k);
            shmem_lease_unpin_(e);
        } else {
            for (uint64_t c = 0ul; c < k; c += uint64_t(SHMEM_RING_PAYLOAD_))
                shmem_get_chunk_(dest + o + c, src + o + c,
                                 uint(min(k - c, uint64_t(SHMEM_RING_PAYLOAD_))), pe);
        }
        o += k;
    }
}

/* A put returns once its data has left the source: nbi is the same. A
 * get's nbi form completes before it returns (allowed: quiet completes
 * nothing more). */
void shmem_putmem_nbi(uint64_t dest, uint64_t src, uint64_t nbytes, int pe) { shmem_putmem(dest, src, nbytes, pe); }
void shmem_getmem_nbi(uint64_t dest, uint64_t src, uint64_t nbytes, int pe) { shmem_getmem(dest, src, nbytes, pe); }

/* The data, then the signal word at pe updated (SHMEM_SIGNAL_SET or
 * _ADD): whoever sees the signal sees the data. */
void shmem_putmem_signal(uint64_t dest, uint64_t src, uint64_t nbytes, uint64_t sig_addr,
                         uint64_t signal, int sig_op, int pe)
{
    uint64_t o = 0ul;
    for (; o + uint64_t(SHMEM_RING_PAYLOAD_) < nbytes; o += uint64_t(SHMEM_RING_PAYLOAD_))
        shmem_put_chunk_(dest + o, src + o, SHMEM_RING_PAYLOAD_, pe, SHMEM_RING_PUT_, 0ul, 0ul, 0u);
    shmem_put_chunk_(dest + o, src + o, uint(nbytes - o), pe, SHMEM_RING_PUT_SIGNAL_, sig_addr,
                     signal, uint(sig_op));
}
void shmem_putmem_signal_nbi(uint64_t dest, uint64_t src, uint64_t nbytes, uint64_t sig_addr,
                             uint64_t signal, int sig_op, int pe)
{
    shmem_putmem_signal(dest, src, nbytes, sig_addr, signal, sig_op, pe);
}

/* ---- atomics ---------------------------------------------------------------- */

/* Atomic op on the word of width 4 or 8 at device address d. */
uint64_t shmem_amo_at_(uint64_t d, uint op, uint width, uint64_t value, uint64_t cmp)
{
    uint64_t r = 0ul;
    if (width == 4u) {
        uvas_ref_u32 w = uvas_ref_u32(d);
        uint v = uint(value);
        switch (op) {
        case SHMEM_AMO_FETCH_: r = uint64_t(atomicOr(w.v, 0u)); break;
        case SHMEM_AMO_SET_:
        case SHMEM_AMO_SWAP_: r = uint64_t(atomicExchange(w.v, v)); break;
        case SHMEM_AMO_CSWAP_: r = uint64_t(atomicCompSwap(w.v, uint(cmp), v)); break;
        case SHMEM_AMO_ADD_: r = uint64_t(atomicAdd(w.v, v)); break;
        case SHMEM_AMO_AND_: r = uint64_t(atomicAnd(w.v, v)); break;
        case SHMEM_AMO_OR_: r = uint64_t(atomicOr(w.v, v)); break;
        default: r = uint64_t(atomicXor(w.v, v)); break;
        }
    } else {
#ifdef GL_EXT_shader_atomic_int64
        uvas_ref_u64 w = uvas_ref_u64(d);
        switch (op) {
        case SHMEM_AMO_FETCH_: r = atomicOr(w.v, 0ul); break;
        case SHMEM_AMO_SET_:
        case SHMEM_AMO_SWAP_: r = atomicExchange(w.v, value); break;
        case SHMEM_AMO_CSWAP_: r = atomicCompSwap(w.v, cmp, value); break;
        case SHMEM_AMO_ADD_: r = atomicAdd(w.v, value); break;
        case SHMEM_AMO_AND_: r = atomicAnd(w.v, value); break;
        case SHMEM_AMO_OR_: r = atomicOr(w.v, value); break;
        default: r = atomicXor(w.v, value); break;
        }
#endif
    }
    return r;
}

/* One atomic of width 4 or 8 on dest at pe. On a device-resident word
 * this kernel holds, or one of another PE lent to this launch: a device
 * atomic (no CPU or peer atomic can reach that word meanwhile: theirs
 * run on the CPU, which waits for the block; kernels' on the same GPU are
 * atomic with each other). Elsewhere the host's (the owner's CPU, where
 * every other atomic on the word is made). */
uint64_t shmem_amo_(uint op, uint64_t dest, uint width, uint64_t value, uint64_t cmp, int pe,
                    bool fetch)
{
    uint64_t d, r = 0ul;
    bool host;
    shmem_lease_ e;
    if (width == 4u) { /* the bits at the word's width, as the host takes them */
        value &= 0xfffffffful;
        cmp &= 0xfffffffful;
    }
    if (pe == shmem_my_pe() && shmem_reach_(dest, d, host) && !host) {
        r = shmem_amo_at_(d, op, width, value, cmp);
    } else if (pe != shmem_my_pe() && shmem_lease_pin_(dest, pe, e, d)) {
        r = shmem_amo_at_(d, op, width, value, cmp);
        shmem_lease_unpin_(e);
    } else if (fetch && !UVAS_FAULTS_WAIT) {
        shmem_cannot_wait_();
    } else {
        r = shmem_request_(SHMEM_RING_AMO_ | (fetch ? SHMEM_RING_WAITS_ : 0u), pe, width, dest,
                           value, cmp, 0ul, op, 0ul, false, fetch, 0ul);
    }
    return r;
}

/* The standard's names for 32- and 64-bit unsigned and signed words. */
#define SHMEM_AMO_DEFS_(NAME, T, W)                                                             \
    T shmem_##NAME##_atomic_fetch(uint64_t dest, int pe) { return T(shmem_amo_(SHMEM_AMO_FETCH_, dest, W, 0ul, 0ul, pe, true)); } \
    void shmem_##NAME##_atomic_set(uint64_t dest, T value, int pe) { shmem_amo_(SHMEM_AMO_SET_, dest, W, uint64_t(value), 0ul, pe, false); } \
    T shmem_##NAME##_atomic_swap(uint64_t dest, T value, int pe) { return T(shmem_amo_(SHMEM_AMO_SWAP_, dest, W, uint64_t(value), 0ul, pe, true)); } \
    T shmem_##NAME##_atomic_compare_swap(uint64_t dest, T cond, T value, int pe) { return T(shmem_amo_(SHMEM_AMO_CSWAP_, dest, W, uint64_t(value), uint64_t(cond), pe, true)); } \
    T shmem_##NAME##_atomic_fetch_add(uint64_t dest, T value, int pe) { return T(shmem_amo_(SHMEM_AMO_ADD_, dest, W, uint64_t(value), 0ul, pe, true)); } \
    void shmem_##NAME##_atomic_add(uint64_t dest, T value, int pe) { shmem_amo_(SHMEM_AMO_ADD_, dest, W, uint64_t(value), 0ul, pe, false); } \
    T shmem_##NAME##_atomic_fetch_inc(uint64_t dest, int pe) { return T(shmem_amo_(SHMEM_AMO_ADD_, dest, W, 1ul, 0ul, pe, true)); } \
    void shmem_##NAME##_atomic_inc(uint64_t dest, int pe) { shmem_amo_(SHMEM_AMO_ADD_, dest, W, 1ul, 0ul, pe, false); }
#define SHMEM_AMO_BITS_(NAME, T, W)                                                             \
    T shmem_##NAME##_atomic_fetch_and(uint64_t dest, T value, int pe) { return T(shmem_amo_(SHMEM_AMO_AND_, dest, W, uint64_t(value), 0ul, pe, true)); } \
    void shmem_##NAME##_atomic_and(uint64_t dest, T value, int pe) { shmem_amo_(SHMEM_AMO_AND_, dest, W, uint64_t(value), 0ul, pe, false); } \
    T shmem_##NAME##_atomic_fetch_or(uint64_t dest, T value, int pe) { return T(shmem_amo_(SHMEM_AMO_OR_, dest, W, uint64_t(value), 0ul, pe, true)); } \
    void shmem_##NAME##_atomic_or(uint64_t dest, T value, int pe) { shmem_amo_(SHMEM_AMO_OR_, dest, W, uint64_t(value), 0ul, pe, false); } \
    T shmem_##NAME##_atomic_fetch_xor(uint64_t dest, T value, int pe) { return T(shmem_amo_(SHMEM_AMO_XOR_, dest, W, uint64_t(value), 0ul, pe, true)); } \
    void shmem_##NAME##_atomic_xor(uint64_t dest, T value, int pe) { shmem_amo_(SHMEM_AMO_XOR_, dest, W, uint64_t(value), 0ul, pe, false); }

/* int is 32 bits: the sign is the cast's (two's complement at the width). */
SHMEM_AMO_DEFS_(uint32, uint, 4u)
SHMEM_AMO_BITS_(uint32, uint, 4u)
SHMEM_AMO_DEFS_(int, int, 4u)
SHMEM_AMO_DEFS_(int32, int, 4u)
SHMEM_AMO_DEFS_(uint64, uint64_t, 8u)
SHMEM_AMO_BITS_(uint64, uint64_t, 8u)
SHMEM_AMO_DEFS_(int64, int64_t, 8u)

/* ---- single elements ------------------------------------------------------------ */

/* A p to this PE (reachable) is a store; elsewhere a put of the value. */
void shmem_p_(uint64_t dest, uint64_t value, uint width, int pe)
{
    uint64_t d;
    bool host;
    shmem_lease_ e;
    if (pe == shmem_my_pe() && shmem_reach_(dest, d, host)) {
        if (width == 4u)
            uvas_ref_u32(d).v = uint(value);
        else
            uvas_ref_u64(d).v = value;
        shmem_host_stores_ = shmem_host_stores_ || host;
    } else if (pe != shmem_my_pe() && shmem_lease_take_(dest, pe, true, e, d)) {
        if (width == 4u)
            uvas_ref_u32(d).v = uint(value);
        else
            uvas_ref_u64(d).v = value;
        shmem_host_stores_ = shmem_host_stores_ || shmem_lease_host_;
        shmem_lease_unpin_(e);
    } else {
        shmem_request_(SHMEM_RING_PUT_, pe, width, dest, 0ul, 0ul, 0ul, 0u, value, false, false,
                       0ul);
    }
}

uint64_t shmem_g_(uint64_t src, uint width, int pe)
{
    uint64_t d, v = 0ul;
    shmem_lease_ e;
    if (shmem_read_direct_(src, pe, d)) {
        v = width == 4u ? uint64_t(uvas_ref_u32(d).v) : uvas_ref_u64(d).v;
    } else if (pe != shmem_my_pe() && shmem_lease_pin_(src, pe, e, d)) {
        v = width == 4u ? uint64_t(shmem_vu32_(d).v) : shmem_vu64_(d).v;
        shmem_lease_unpin_(e);
    } else if (!UVAS_FAULTS_WAIT) {
        shmem_cannot_wait_();
    } else {
        v = shmem_request_(SHMEM_RING_GET_ | SHMEM_RING_WAITS_, pe, width, src, 0ul, 0ul, 0ul, 0u,
                           0ul, false, true, 0ul);
    }
    return v;
}

void shmem_uint32_p(uint64_t dest, uint value, int pe) { shmem_p_(dest, uint64_t(value), 4u, pe); }
uint shmem_uint32_g(uint64_t src, int pe) { return uint(shmem_g_(src, 4u, pe)); }
void shmem_int_p(uint64_t dest, int value, int pe) { shmem_p_(dest, uint64_t(uint(value)), 4u, pe); }
int shmem_int_g(uint64_t src, int pe) { return int(uint(shmem_g_(src, 4u, pe))); }
void shmem_float_p(uint64_t dest, float value, int pe) { shmem_p_(dest, uint64_t(floatBitsToUint(value)), 4u, pe); }
float shmem_float_g(uint64_t src, int pe) { return uintBitsToFloat(uint(shmem_g_(src, 4u, pe))); }
void shmem_uint64_p(uint64_t dest, uint64_t value, int pe) { shmem_p_(dest, value, 8u, pe); }
uint64_t shmem_uint64_g(uint64_t src, int pe) { return shmem_g_(src, 8u, pe); }
void shmem_int64_p(uint64_t dest, int64_t value, int pe) { shmem_p_(dest, uint64_t(value), 8u, pe); }
int64_t shmem_int64_g(uint64_t src, int pe) { return int64_t(shmem_g_(src, 8u, pe)); }

/* Typed puts and gets of nelems elements, and their _nbi forms. */
#define SHMEM_TYPED_RMA_(NAME, W) \
    void shmem_##NAME##_put(uint64_t dest, uint64_t src, uint64_t nelems, int pe) { shmem_putmem(dest, src, W * nelems, pe); } \
    void shmem_##NAME##_get(uint64_t dest, uint64_t src, uint64_t nelems, int pe) { shmem_getmem(dest, src, W * nelems, pe); } \
    void shmem_##NAME##_put_nbi(uint64_t dest, uint64_t src, uint64_t nelems, int pe) { shmem_putmem_nbi(dest, src, W * nelems, pe); } \
    void shmem_##NAME##_get_nbi(uint64_t dest, uint64_t src, uint64_t nelems, int pe) { shmem_getmem_nbi(dest, src, W * nelems, pe); }
SHMEM_TYPED_RMA_(uint32, 4ul)
SHMEM_TYPED_RMA_(uint64, 8ul)
SHMEM_TYPED_RMA_(float, 4ul)
#undef SHMEM_TYPED_RMA_

/* ---- ordering ------------------------------------------------------------------- */

/* Puts and atomics to one PE already take effect in the order made. */
void shmem_fence()
{
    memoryBarrier();
}

/* Every put and atomic this invocation made before is complete and
 * visible at its target. */
void shmem_quiet()
{
    memoryBarrier();
    /* Stores into device memory (this PE's, or another's lent to the
     * launch) are complete with the barrier; requests in the ring and
     * stores into host memory with the host's quiet. Where a kernel
     * cannot wait, the host's quiet still comes between the requests
     * before it and those after (and the host frees it), but the kernel
     * does not know when: its later calls keep to the ring. */
    if (shmem_posted_ || shmem_host_stores_) {
        shmem_request_(SHMEM_RING_QUIET_ | (UVAS_FAULTS_WAIT ? SHMEM_RING_WAITS_ : 0u),
                       shmem_my_pe(), 0u, 0ul, 0ul, 0ul, 0ul, 0u, 0ul, false, UVAS_FAULTS_WAIT,
                       0ul);
        shmem_posted_ = !UVAS_FAULTS_WAIT;
        shmem_host_stores_ = false;
    }
}

/* ---- waiting on this PE's memory ---------------------------------------------- */

bool shmem_cmp_(uint64_t v, int cmp, uint64_t value, bool sgn)
{
    int64_t a = int64_t(v), b = int64_t(value);
    bool lt = sgn ? a < b : v < value, eq = v == value;
    return cmp == SHMEM_CMP_EQ ? eq
         : cmp == SHMEM_CMP_NE ? !eq
         : cmp == SHMEM_CMP_GT ? !lt && !eq
         : cmp == SHMEM_CMP_GE ? !lt
         : cmp == SHMEM_CMP_LT ? lt
         : lt || eq;
}

uint64_t shmem_wread_(uint64_t d, uint width, bool sgn)
{
    uint v = width == 8u ? 0u : shmem_vu32_(d).v;
    return width == 8u ? shmem_vu64_(d).v : sgn ? uint64_t(int64_t(int(v))) : uint64_t(v);
}

/* Until the word of this PE at ivar compares true; its value. A word
 * the kernel reaches in device memory is read where it is; another (host
 * memory: shmem_read_direct_) is read by the host (a get per look), not
 * faulted in: the kernel holding its block would keep the host, and
 * whoever signals through it, out of it. */
uint64_t shmem_wait_(uint64_t ivar, uint width, int cmp, uint64_t value, bool sgn)
{
    uint64_t d, v = 0ul;
    bool hit = false;
    if (UVAS_FAULTS_WAIT) {
        bool here = shmem_read_direct_(ivar, shmem_my_pe(), d);
        for (uint o = 0u; o < 65535u && !hit; o++)
            for (uint i = 0u; i < 65535u && !hit; i++) {
                if (here) {
                    v = shmem_wread_(d, width, sgn);
                } else {
                    v = shmem_g_(ivar, width, shmem_my_pe());
                    if (sgn && width == 4u)
                        v = uint64_t(int64_t(int(uint(v))));
                }
                hit = shmem_cmp_(v, cmp, value, sgn);
            }
        if (!hit)
            atomicAdd(shmem_ring_hdr_().timed_out, 1u);
    } else {
        shmem_cannot_wait_();
    }
    return v;
}

void shmem_uint32_wait_until(uint64_t ivar, int cmp, uint value) { shmem_wait_(ivar, 4u, cmp, uint64_t(value), false); }
void shmem_uint64_wait_until(uint64_t ivar, int cmp, uint64_t value) { shmem_wait_(ivar, 8u, cmp, value, false); }
void shmem_int_wait_until(uint64_t ivar, int cmp, int value) { shmem_wait_(ivar, 4u, cmp, uint64_t(int64_t(value)), true); }
void shmem_int64_wait_until(uint64_t ivar, int cmp, int64_t value) { shmem_wait_(ivar, 8u, cmp, uint64_t(value), true); }
uint64_t shmem_signal_wait_until(uint64_t sig_addr, int cmp, uint64_t value) { return shmem_wait_(sig_addr, 8u, cmp, value, false); }

/* ---- work-group calls ------------------------------------------------------------ */

/* What invocation 0 of a work-group found for the group: whether any
 * invocation has requests in the ring, a lease pinned once for all (its
 * entry and device address, as 32-bit halves), and whether a put's
 * source is host memory (it goes by reference). Devices whose kernels
 * can wait only (GPUs): lavapipe did not order these through barrier()
 * in a library function. */
shared uint shmem_wg_posted_;
shared uint shmem_wg_lease_[2], shmem_wg_d_[2], shmem_wg_host_, shmem_wg_byref_;

/* One block's piece of a work-group transfer between this PE's uvas
 * address `here` and device address d (a leased block of another PE):
 * the invocations take consecutive 16-byte (or 4-byte, or 1-byte) units,
 * so a warp's accesses are one contiguous span. */
void shmem_wg_copy_(bool put, uint64_t here, uint64_t d, uint64_t n, uint me, uint nwg)
{
    if (((here | d | n) & 15ul) == 0ul) {
        for (uint64_t o = 16ul * uint64_t(me); o < n; o += 16ul * uint64_t(nwg))
            if (put)
                uvas_ref_uvec4(d + o).v = uvas_load_uvec4(here + o);
            else
                uvas_store_uvec4(here + o, shmem_vuvec4_(d + o).v);
    } else if (((here | d | n) & 3ul) == 0ul) {
        for (uint64_t o = 4ul * uint64_t(me); o < n; o += 4ul * uint64_t(nwg))
            if (put)
                uvas_ref_u32(d + o).v = uvas_load_u32(here + o);
            else
                uvas_store_u32(here + o, shmem_vu32_(d + o).v);
    } else {
        for (uint64_t o = uint64_t(me); o < n; o += uint64_t(nwg))
            if (put)
                shmem_dbyte_store_(d + o, shmem_byte_(here + o));
            else
                shmem_byte_store_(here + o, shmem_dbyte_(d + o));
    }
}

/* The work-group's size. Kernels include this header before they declare
 * local_size, and glslang folds gl_WorkGroupSize where it is read: here,
 * (1, 1, 1), which had every invocation move a work-group call's whole
 * buffer. As specialization constants (defaults: the kernel's local_size)
 * it is the kernel's wherever it is read. A kernel that names its own IDs
 * for its size does not compile with this header (docs/kernels.md). */
layout(local_size_x_id = 2040, local_size_y_id = 2041, local_size_z_id = 2042) in;

uint shmem_wg_size_()
{
    return gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
}

/* Whether a work-group's transfer with pe may go through leases: where
 * kernels can wait, to another PE, while no invocation of the group has
 * requests in the ring. Every invocation calls it. */
bool shmem_wg_may_lease_(int pe)
{
    if (!UVAS_FAULTS_WAIT || pe == shmem_my_pe())
        return false;
    if (gl_LocalInvocationIndex == 0u)
        shmem_wg_posted_ = 0u;
    barrier();
    if (shmem_posted_)
        atomicOr(shmem_wg_posted_, 1u);
    barrier();
    return shmem_wg_posted_ == 0u;
}

/* A lease on pe's block holding a (for a store or not), pinned once for
 * the work-group by its invocation 0: every invocation gets it (0: none)
 * and d, the device address of a. Every invocation calls it, after a
 * barrier that follows its last read of the group's words. */
uint64_t shmem_wg_take_(uint64_t a, int pe, bool store, out uint64_t d)
{
    if (gl_LocalInvocationIndex == 0u) {
        shmem_lease_ e;
        uint64_t dd;
        bool ok = shmem_lease_take_(a, pe, store, e, dd);
        uint64_t l = ok ? uint64_t(e) : 0ul;
        shmem_wg_lease_[0] = uint(l);
        shmem_wg_lease_[1] = uint(l >> 32);
        shmem_wg_d_[0] = uint(dd);
        shmem_wg_d_[1] = uint(dd >> 32);
        shmem_wg_host_ = ok && shmem_lease_host_ ? 1u : 0u;
    }
    barrier();
    d = packUint2x32(uvec2(shmem_wg_d_[0], shmem_wg_d_[1]));
    return packUint2x32(uvec2(shmem_wg_lease_[0], shmem_wg_lease_[1]));
}

/* Every invocation's units in, then the group's pin (if any) goes. */
void shmem_wg_unpin_(uint64_t lease)
{
    memoryBarrier();
    barrier();
    if (gl_LocalInvocationIndex == 0u && lease != 0ul)
        shmem_lease_unpin_(shmem_lease_(lease));
}

/* The whole work-group moves one buffer: block by block through the
 * leases while the blocks were lent to the launch (shmem_wg_may_lease_),
 * every invocation copying its units; the rest (all of it elsewhere) in
 * request-sized pieces spread over the invocations, each going as the
 * invocation's own call would. Every invocation calls with the same
 * arguments. */
void shmem_xfer_work_group_(bool put, uint64_t dest, uint64_t src, uint64_t nbytes, int pe)
{
    barrier();
    memoryBarrier();
    uint me = gl_LocalInvocationIndex, n = shmem_wg_size_();
    uint64_t remote = put ? dest : src, here = put ? src : dest;
    uint64_t p = 0ul, d, lease;
    for (bool lent = shmem_wg_may_lease_(pe); lent && p < nbytes;) {
        uint64_t k = shmem_in_block_(remote + p, nbytes - p);
        lease = shmem_wg_take_(remote + p, pe, put, d);
        lent = lease != 0ul;
        if (lent) {
            if (shmem_wg_host_ != 0u)
                shmem_host_stores_ = true; /* each invocation's units there (puts only) */
            shmem_wg_copy_(put, here + p, d, k, me, n);
            shmem_wg_unpin_(lease);
            p += k;
        }
    }
    /* A put from this PE's host memory, where kernels wait: invocation 0
     * alone, a request per block naming the source (shmem_putmem). */
    bool alone = false;
    if (put && UVAS_FAULTS_WAIT && p < nbytes) {
        if (me == 0u)
            shmem_wg_byref_ = shmem_src_host_(src + p, nbytes - p) ? 1u : 0u;
        barrier();
        alone = shmem_wg_byref_ != 0u;
    }
    uint64_t chunk = alone ? nbytes - p : uint64_t(SHMEM_RING_PAYLOAD_);
    uint64_t first = alone ? (me == 0u ? p : nbytes) : p + uint64_t(me) * chunk;
    uint64_t step = alone ? chunk : uint64_t(n) * chunk;
    for (uint64_t o = first; o < nbytes; o += step)
        if (put)
            shmem_putmem(dest + o, src + o, min(chunk, nbytes - o), pe);
        else
            shmem_getmem(dest + o, src + o, min(chunk, nbytes - o), pe);
    memoryBarrier();
    barrier();
}

void shmem_putmem_work_group(uint64_t dest, uint64_t src, uint64_t nbytes, int pe)
{
    shmem_xfer_work_group_(true, dest, src, nbytes, pe);
}

void shmem_getmem_work_group(uint64_t dest, uint64_t src, uint64_t nbytes, int pe)
{
    shmem_xfer_work_group_(false, dest, src, nbytes, pe);
}

/* A quiet for the work-group: every invocation's puts before it. */
void shmem_quiet_work_group()
{
    barrier();
    if (gl_LocalInvocationIndex == 0u)
        shmem_quiet();
    barrier();
}

#endif
