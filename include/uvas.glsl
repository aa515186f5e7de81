/*
 * uvas addresses in compute shaders (include/uvas_gpu.h launches them).
 *
 *     #version 460
 *     #extension GL_GOOGLE_include_directive : require
 *     #include "uvas.glsl"
 *     layout(local_size_x = 256) in;
 *     layout(push_constant) uniform Args { uint64_t x; uint64_t y; uint n; } args;
 *     void main() {
 *         uint i = gl_GlobalInvocationID.x;
 *         if (i < args.n)
 *             uvas_store_f32(args.y + 4 * i, 2.0 * uvas_load_f32(args.x + 4 * i));
 *     }
 *
 * An address is the uint64_t value of a uvas pointer, as the CPU has it.
 * Every access is translated through the table uvas keeps at set 0,
 * binding 0 (a kernel binds nothing else): one cached 8-byte read and an
 * add. An access that finds no translation is counted and recorded for
 * uvas, and goes to a scratch area (loads read garbage from it); the
 * launch then runs the kernel again or fails (uvas_gpu.h).
 *
 * Accesses to host-resident blocks (over the bus) are counted per block
 * for the placement policy, as NVIDIA's hardware access counters count a
 * GPU's remote accesses (sampled: the first invocation of each workgroup
 * counts every 8th of its own). Device-resident blocks, and every block
 * of a kernel that defines UVAS_NO_COUNTERS before including this file,
 * count one device access per launch.
 *
 * Accesses are naturally aligned (4 bytes for 32-bit types, 8 for 64-bit,
 * 16 for vec4 and uvec4) and do not cross a block; uvas allocations keep
 * their elements so.
 * 64-bit atomics need a device with shaderBufferInt64Atomics, float
 * atomic adds VK_EXT_shader_atomic_float; a kernel that uses one elsewhere
 * fails to load, naming the reason.
 */
#ifndef UVAS_GLSL
#define UVAS_GLSL 1

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_atomic_int64 : enable
#extension GL_EXT_shader_atomic_float : enable

/* The range, fixed for the process: uvas sets these specialization
 * constants when it builds a kernel's pipeline, so the driver folds them
 * into every translation (a pipeline of the user's own sets them from
 * uvas_gpu_info). */
layout(constant_id = 2032) const uint64_t UVAS_BASE = 0;
layout(constant_id = 2033) const uint UVAS_SHIFT = 21;
layout(constant_id = 2034) const uint UVAS_NBLOCKS = 0;
/* Can a faulting access wait here (uvas_gpu_info's fault_waits)? Where it
 * cannot, the waiting code is compiled out of every access. */
layout(constant_id = 2035) const bool UVAS_FAULTS_WAIT = true;
/* The device address of the table's runs (uvas_array), fixed for the
 * process; 0 (a pipeline that does not set it): read from the table's
 * header, one more dependent read per array. */
layout(constant_id = 2036) const uint64_t UVAS_RUNS = 0;

/* Mirrors gpu/xlat.h: change both together. */
#define UVAS_XLAT_FAULTS 16
#define UVAS_XLAT_WAIT 1u
#define UVAS_XLAT_GIVE_UP 2u
const uint UVAS_REQ0_WORDS = (UVAS_NBLOCKS + 31u) / 32u;
#define UVAS_XLAT_SINK_BYTES 4096
#define UVAS_XLAT_COUNTS_WORD 7 /* header[7]: counts */
#define UVAS_COUNT_PERIOD 8u
#define UVAS_XLAT_WORD_HOST 1u
#define UVAS_XLAT_WORD_SET 2u

/* A block's translation: one word, 0 (none) or the delta (what to add)
 * plus 2^62 plus UVAS_XLAT_WORD_SET and, for a host-resident block (whose
 * accesses are counted), UVAS_XLAT_WORD_HOST: an addition, so that the
 * device address is one three-operand add of the uvas address, the word
 * and a constant. Both halves of a set word are nonzero, so a read torn
 * between none and set (some devices split a 64-bit load) reads as none
 * (gpu/xlat.h). */
struct uvas_xlat_entry {
    uint64_t word;
};

#define UVAS_XLAT_BIAS_ ((1ul << 62) + uint64_t(UVAS_XLAT_WORD_SET))

/* Is w a translation, and its delta. */
bool uvas_xlat_set_(uint64_t w)
{
    return (uint(w) & UVAS_XLAT_WORD_SET) != 0u && uint(w >> 32) != 0u;
}
uint64_t uvas_xlat_delta_(uint64_t w)
{
    return w - (UVAS_XLAT_BIAS_ + uint64_t(uint(w) & UVAS_XLAT_WORD_HOST));
}

layout(set = 0, binding = 0, std430) buffer uvas_xlat_table {
    uint64_t base;
    uint shift;
    uint nblocks;
    uint64_t sink;
    uint nfaults;
    uint flags;
    uint64_t req;
    uint64_t stray;
    uint stray_claim;
    uint timed_out;
    uint64_t counts;
    uint my_pe;   /* the OpenSHMEM PE launching (include/shmem.glsl); 0 */
    uint n_pes;   /* and the job's PEs; 1 without shmem_init */
    uint64_t proxy;     /* the request ring (shmem.glsl); entries start 16-aligned */
    uint64_t peers;     /* leases on other PEs' device memory (shmem.glsl); 0: none */
    uint64_t runs;      /* the runs (uvas_array), a uint per block */
    uint64_t fault[UVAS_XLAT_FAULTS];
    uvas_xlat_entry entry[];
} uvas_xlat;

/* The same, as a faulting access waits on it: every read goes to memory,
 * where uvas writes the translation while the kernel runs. */
layout(set = 0, binding = 0, std430) coherent volatile buffer uvas_xlat_live {
    uint64_t base;
    uint shift;
    uint nblocks;
    uint64_t sink;
    uint nfaults;
    uint flags;
    uint64_t req;
    uint64_t stray;
    uint stray_claim;
    uint timed_out;
    uint64_t counts;
    uint my_pe;
    uint n_pes;
    uint64_t proxy;
    uint64_t peers;
    uint64_t runs;
    uint64_t fault[UVAS_XLAT_FAULTS];
    uvas_xlat_entry entry[];
} uvas_xlat_v;

/* The same table as translations read it: read-only and not aliased by
 * any buffer reference, so the compiler may keep entries in registers
 * and the device read them through its read-only caches. */
layout(set = 0, binding = 0, std430) restrict readonly buffer uvas_xlat_entries {
    uint64_t header[(96 + 8 * UVAS_XLAT_FAULTS) / 8];
    uvas_xlat_entry entry[];
} uvas_xlat_ro;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer uvas_ref_u32 { uint v; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer uvas_ref_i32 { int v; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer uvas_ref_f32 { float v; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer uvas_ref_u64 { uint64_t v; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer uvas_ref_i64 { int64_t v; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer uvas_ref_f64 { double v; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer uvas_ref_vec4 { vec4 v; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer uvas_ref_uvec4 { uvec4 v; };

/* No translation for a: record it, ask uvas for its block and wait for
 * the translation; refused (or outside the range), the access goes to the
 * sink (at the same offset within 4 KiB, so it stays aligned). */
uint64_t uvas_fault(uint64_t a)
{
    uint k = atomicAdd(uvas_xlat.nfaults, 1u);
    if (k < UVAS_XLAT_FAULTS)
        uvas_xlat.fault[k] = a;
    uint64_t bi = (a - UVAS_BASE) >> UVAS_SHIFT;
    if (bi >= uint64_t(UVAS_NBLOCKS)) {
        if (atomicCompSwap(uvas_xlat.stray_claim, 0u, 1u) == 0u)
            uvas_xlat.stray = a;
    } else if (UVAS_FAULTS_WAIT && (uvas_xlat_v.flags & UVAS_XLAT_WAIT) != 0u) {
        uint b = uint(bi);
        atomicOr(uvas_ref_u32(uvas_xlat.req + 4ul * (b >> 5)).v, 1u << (b & 31u));
        memoryBarrierBuffer();
        atomicOr(uvas_ref_u32(uvas_xlat.req + 4ul * (UVAS_REQ0_WORDS + (b >> 10))).v,
                 1u << ((b >> 5) & 31u));
        /* Nested and bounded: lavapipe ends any loop after 65535
         * iterations (three levels wait minutes there, the host's
         * scheduling included), and an access that stops waiting on its
         * own says so: the launch then treats it as not served. */
        bool gave_up = false;
        for (uint o = 0u; o < 65535u && !gave_up; o++) {
            for (uint m = 0u; m < 1024u && !gave_up; m++) {
                for (uint i = 0u; i < 1024u; i++) {
                    uint64_t w = uvas_xlat_v.entry[b].word;
                    if (uvas_xlat_set_(w))
                        return a + uvas_xlat_delta_(w);
                    if ((uvas_xlat_v.flags & UVAS_XLAT_GIVE_UP) != 0u) {
                        gave_up = true;
                        break;
                    }
                }
            }
        }
        if (!gave_up)
            atomicAdd(uvas_xlat.timed_out, 1u);
    }
    return uvas_xlat.sink + (a & uint64_t(UVAS_XLAT_SINK_BYTES - 8));
}

/* This invocation's counted accesses so far, for the sample. */
uint uvas_sampled_ = 0u;

/* An access to host-resident block bi, over the bus: counted for the
 * policy, as NVIDIA's access counters count a GPU's remote accesses. The
 * first invocation of each workgroup counts every UVAS_COUNT_PERIOD-th of
 * its own, starting at an offset that differs between neighbouring
 * workgroups (so an access pattern does not hide an array); uvas scales
 * the sample back. */
void uvas_count_remote(uint64_t bi)
{
    if (gl_LocalInvocationIndex == 0u) {
        uint k = uvas_sampled_ + gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z;
        uvas_sampled_++;
        if ((k & (UVAS_COUNT_PERIOD - 1u)) == 0u)
            atomicAdd(uvas_ref_u32(uvas_xlat_ro.header[UVAS_XLAT_COUNTS_WORD] + 4ul * bi).v, 1u);
    }
}

/* The translation of an access that is not to a device-resident block:
 * a host-resident one (counted), or none (a fault). */
uint64_t uvas_translate_slow_(uint64_t a, uint64_t w, uint bi)
{
    if (!uvas_xlat_set_(w))
        return uvas_fault(a);
#ifndef UVAS_NO_COUNTERS
    uvas_count_remote(uint64_t(bi));
#endif
    return a + uvas_xlat_delta_(w);
}

/* Address a's block index, 32 bits (a >> UVAS_SHIFT truncated), and
 * whether it is in the range: the high word's test refuses an address
 * 2^(32 + UVAS_SHIFT) or more past the base, whose index would wrap into
 * the range. Where the whole range ends below 2^(32 + UVAS_SHIFT) (blocks
 * of 32 KiB and more at the default base, 2^45), the address's own high
 * word is tested, one comparison; elsewhere the address past the base: a
 * test of the address itself refused every address of such a range
 * (blocks of 4 and 8 KiB at the default base: found by review, every
 * kernel failed there), and the subtraction cost the float triad 3-4% on
 * the H200 (docs/kernels.md). UVAS_LOW_RANGE_ is a specialization
 * constant: the driver keeps one test. Macros, shared by uvas_translate
 * and uvas_array_at, so that uvas_translate compiles to the instructions
 * it had written out. */
const bool UVAS_LOW_RANGE_ =
    ((UVAS_BASE + (uint64_t(UVAS_NBLOCKS) << UVAS_SHIFT) - 1ul) >> (32u + UVAS_SHIFT)) == 0ul;
#define UVAS_BLOCK_OF_(a) (uint((a) >> UVAS_SHIFT) - uint(UVAS_BASE >> UVAS_SHIFT))
#define UVAS_IN_RANGE_(a, bi)                                                               \
    ((bi) < UVAS_NBLOCKS &&                                                                \
     uint((UVAS_LOW_RANGE_ ? (a) : (a) - UVAS_BASE) >> 32) < (1u << min(UVAS_SHIFT, 31u)))

/* Entry word w is not a device-resident block's (set, not host, both
 * halves read whole): the slow path's. */
#define UVAS_NOT_DEVICE_(w)                                                                \
    ((uint(w) & (UVAS_XLAT_WORD_SET | UVAS_XLAT_WORD_HOST)) != UVAS_XLAT_WORD_SET ||        \
     uint((w) >> 32) == 0u)

/* The device address of uvas address a: the entry's delta added. One
 * test for the common case, a device-resident block; the rest is
 * uvas_translate_slow_'s. */
uint64_t uvas_translate(uint64_t a)
{
    uint bi = UVAS_BLOCK_OF_(a);
    uint64_t w = UVAS_IN_RANGE_(a, bi) ? uvas_xlat_ro.entry[bi].word : 0ul;
    if (UVAS_NOT_DEVICE_(w))
        return uvas_translate_slow_(a, w, bi);
    return a + w - UVAS_XLAT_BIAS_;
}

/*
 * An array a kernel indexes from one base address: uvas_array_at(base)
 * reads the base's translation once, and with it how many blocks from
 * there on the launch holds on the device in consecutive memory (the
 * table's runs, gpu/xlat.h). An access at a byte offset below that reach
 * adds the base's delta and reads nothing; any other access (past the
 * run, before the base, a host-resident block, a fault) translates as
 * uvas_translate does, so every offset is correct and only the common
 * case is cheap. The run is the launch's: an array is made in the kernel
 * and used for that launch only.
 *
 *     uvas_array x = uvas_array_at(args.x), y = uvas_array_at(args.y);
 *     for (uint i = first; i < args.n; i += stride)
 *         uvas_array_store_f32(y, 4ul * i, 2.0 * uvas_array_load_f32(x, 4ul * i));
 */
struct uvas_array {
    uint64_t base;   /* the uvas address the offsets count from */
    uint64_t dev;    /* its device address, where direct > 0 */
    uint64_t direct; /* offsets below this go to dev + offset */
};

layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer uvas_ref_runs_ { uint v; };
#define UVAS_XLAT_RUNS_WORD 11 /* header[11]: the runs */

uvas_array uvas_array_at(uint64_t a)
{
    uint bi = UVAS_BLOCK_OF_(a);
    bool in_range = UVAS_IN_RANGE_(a, bi);
    /* The entry and the run read together, at an index that exists
     * (a load after the entry's test would wait for it). */
    uint bj = in_range ? bi : 0u;
    uint64_t runs = UVAS_RUNS != 0ul ? UVAS_RUNS : uvas_xlat_ro.header[UVAS_XLAT_RUNS_WORD];
    uint64_t w = uvas_xlat_ro.entry[bj].word;
    uint k = uvas_ref_runs_(runs + 4ul * bj).v;
    if (!in_range || UVAS_NOT_DEVICE_(w))
        return uvas_array(a, 0ul, 0ul);
    /* A published entry holds for the run: the rest of its block at least. */
    k = max(k, 1u);
    uint64_t into = a & ((1ul << UVAS_SHIFT) - 1ul);
    return uvas_array(a, a + w - UVAS_XLAT_BIAS_, (uint64_t(k) << UVAS_SHIFT) - into);
}

/* The device address of byte `off` of array r: for what the typed
 * accessors below do not cover, e.g.
 * atomicAdd(uvas_ref_u32(uvas_array_addr(r, off)).v, 1u). */
uint64_t uvas_array_addr(uvas_array r, uint64_t off)
{
    return off < r.direct ? r.dev + off : uvas_translate(r.base + off);
}

/* uvas_array_load_T(r, off) and uvas_array_store_T(r, off, v). */
#define UVAS_ARRAY_ACCESS_(NAME, T)                                                               \
    T uvas_array_load_##NAME(uvas_array r, uint64_t off) { return uvas_ref_##NAME(uvas_array_addr(r, off)).v; } \
    void uvas_array_store_##NAME(uvas_array r, uint64_t off, T v) { uvas_ref_##NAME(uvas_array_addr(r, off)).v = v; }
UVAS_ARRAY_ACCESS_(u32, uint)
UVAS_ARRAY_ACCESS_(i32, int)
UVAS_ARRAY_ACCESS_(f32, float)
UVAS_ARRAY_ACCESS_(u64, uint64_t)
UVAS_ARRAY_ACCESS_(f64, double)
UVAS_ARRAY_ACCESS_(vec4, vec4)
UVAS_ARRAY_ACCESS_(uvec4, uvec4)

uint uvas_load_u32(uint64_t a) { return uvas_ref_u32(uvas_translate(a)).v; }
void uvas_store_u32(uint64_t a, uint v) { uvas_ref_u32(uvas_translate(a)).v = v; }
uint uvas_atomic_add_u32(uint64_t a, uint v) { return atomicAdd(uvas_ref_u32(uvas_translate(a)).v, v); }
uint uvas_atomic_min_u32(uint64_t a, uint v) { return atomicMin(uvas_ref_u32(uvas_translate(a)).v, v); }
uint uvas_atomic_max_u32(uint64_t a, uint v) { return atomicMax(uvas_ref_u32(uvas_translate(a)).v, v); }
uint uvas_atomic_and_u32(uint64_t a, uint v) { return atomicAnd(uvas_ref_u32(uvas_translate(a)).v, v); }
uint uvas_atomic_or_u32(uint64_t a, uint v) { return atomicOr(uvas_ref_u32(uvas_translate(a)).v, v); }
uint uvas_atomic_xor_u32(uint64_t a, uint v) { return atomicXor(uvas_ref_u32(uvas_translate(a)).v, v); }
uint uvas_atomic_swap_u32(uint64_t a, uint v) { return atomicExchange(uvas_ref_u32(uvas_translate(a)).v, v); }
uint uvas_atomic_compare_swap_u32(uint64_t a, uint cmp, uint v) { return atomicCompSwap(uvas_ref_u32(uvas_translate(a)).v, cmp, v); }

int uvas_load_i32(uint64_t a) { return uvas_ref_i32(uvas_translate(a)).v; }
void uvas_store_i32(uint64_t a, int v) { uvas_ref_i32(uvas_translate(a)).v = v; }
int uvas_atomic_add_i32(uint64_t a, int v) { return atomicAdd(uvas_ref_i32(uvas_translate(a)).v, v); }
int uvas_atomic_min_i32(uint64_t a, int v) { return atomicMin(uvas_ref_i32(uvas_translate(a)).v, v); }
int uvas_atomic_max_i32(uint64_t a, int v) { return atomicMax(uvas_ref_i32(uvas_translate(a)).v, v); }
int uvas_atomic_swap_i32(uint64_t a, int v) { return atomicExchange(uvas_ref_i32(uvas_translate(a)).v, v); }
int uvas_atomic_compare_swap_i32(uint64_t a, int cmp, int v) { return atomicCompSwap(uvas_ref_i32(uvas_translate(a)).v, cmp, v); }

float uvas_load_f32(uint64_t a) { return uvas_ref_f32(uvas_translate(a)).v; }
void uvas_store_f32(uint64_t a, float v) { uvas_ref_f32(uvas_translate(a)).v = v; }

uint64_t uvas_load_u64(uint64_t a) { return uvas_ref_u64(uvas_translate(a)).v; }
void uvas_store_u64(uint64_t a, uint64_t v) { uvas_ref_u64(uvas_translate(a)).v = v; }
int64_t uvas_load_i64(uint64_t a) { return uvas_ref_i64(uvas_translate(a)).v; }
void uvas_store_i64(uint64_t a, int64_t v) { uvas_ref_i64(uvas_translate(a)).v = v; }
double uvas_load_f64(uint64_t a) { return uvas_ref_f64(uvas_translate(a)).v; }
void uvas_store_f64(uint64_t a, double v) { uvas_ref_f64(uvas_translate(a)).v = v; }

/* 16 bytes at a 16-byte-aligned address: one translation for four
 * elements, as a bandwidth-bound kernel loads them. */
vec4 uvas_load_vec4(uint64_t a) { return uvas_ref_vec4(uvas_translate(a)).v; }
void uvas_store_vec4(uint64_t a, vec4 v) { uvas_ref_vec4(uvas_translate(a)).v = v; }
uvec4 uvas_load_uvec4(uint64_t a) { return uvas_ref_uvec4(uvas_translate(a)).v; }
void uvas_store_uvec4(uint64_t a, uvec4 v) { uvas_ref_uvec4(uvas_translate(a)).v = v; }

#ifdef GL_EXT_shader_atomic_int64
uint64_t uvas_atomic_add_u64(uint64_t a, uint64_t v) { return atomicAdd(uvas_ref_u64(uvas_translate(a)).v, v); }
uint64_t uvas_atomic_min_u64(uint64_t a, uint64_t v) { return atomicMin(uvas_ref_u64(uvas_translate(a)).v, v); }
uint64_t uvas_atomic_max_u64(uint64_t a, uint64_t v) { return atomicMax(uvas_ref_u64(uvas_translate(a)).v, v); }
uint64_t uvas_atomic_and_u64(uint64_t a, uint64_t v) { return atomicAnd(uvas_ref_u64(uvas_translate(a)).v, v); }
uint64_t uvas_atomic_or_u64(uint64_t a, uint64_t v) { return atomicOr(uvas_ref_u64(uvas_translate(a)).v, v); }
uint64_t uvas_atomic_xor_u64(uint64_t a, uint64_t v) { return atomicXor(uvas_ref_u64(uvas_translate(a)).v, v); }
uint64_t uvas_atomic_swap_u64(uint64_t a, uint64_t v) { return atomicExchange(uvas_ref_u64(uvas_translate(a)).v, v); }
uint64_t uvas_atomic_compare_swap_u64(uint64_t a, uint64_t cmp, uint64_t v) { return atomicCompSwap(uvas_ref_u64(uvas_translate(a)).v, cmp, v); }
int64_t uvas_atomic_add_i64(uint64_t a, int64_t v) { return atomicAdd(uvas_ref_i64(uvas_translate(a)).v, v); }
int64_t uvas_atomic_min_i64(uint64_t a, int64_t v) { return atomicMin(uvas_ref_i64(uvas_translate(a)).v, v); }
int64_t uvas_atomic_max_i64(uint64_t a, int64_t v) { return atomicMax(uvas_ref_i64(uvas_translate(a)).v, v); }
int64_t uvas_atomic_swap_i64(uint64_t a, int64_t v) { return atomicExchange(uvas_ref_i64(uvas_translate(a)).v, v); }
int64_t uvas_atomic_compare_swap_i64(uint64_t a, int64_t cmp, int64_t v) { return atomicCompSwap(uvas_ref_i64(uvas_translate(a)).v, cmp, v); }
#endif

#ifdef GL_EXT_shader_atomic_float
float uvas_atomic_add_f32(uint64_t a, float v) { return atomicAdd(uvas_ref_f32(uvas_translate(a)).v, v); }
float uvas_atomic_swap_f32(uint64_t a, float v) { return atomicExchange(uvas_ref_f32(uvas_translate(a)).v, v); }
double uvas_atomic_add_f64(uint64_t a, double v) { return atomicAdd(uvas_ref_f64(uvas_translate(a)).v, v); }
double uvas_atomic_swap_f64(uint64_t a, double v) { return atomicExchange(uvas_ref_f64(uvas_translate(a)).v, v); }
#endif

#endif /* UVAS_GLSL */
