/*
 * Every type of include/uvas.glsl, loads, stores and atomics, on uvas
 * memory the CPU wrote:
 *  - types: int32, int64, uint64 doubled, float64 doubled plus 0.5, each
 *    element right on the CPU (negative values and values past 2^32
 *    included);
 *  - count: 50,000 invocations each add 1 to one uint32 and i to one
 *    uint64 (the sums right: no atomic lost), atomic max and min over
 *    int32, or over bits, compare-and-swap of four words (each set once,
 *    by one invocation). 64-bit atomics are skipped, loudly, on a device
 *    without them.
 */
#include "check.h"

struct targs {
    uint64_t i32s, i64s, u64s, f64s;
    uint32_t n, pad;
};

struct cargs {
    uint64_t c32, c64, hist;
    uint32_t n, pad;
};

int main(void)
{
    tu_init_device("64M", "64K");
    uvas_kernel_t *k = tu_kernel("types");
    const uint32_t n = 40000;
    int32_t *i32 = uvas_malloc(n * 4);
    int64_t *i64 = uvas_malloc(n * 8);
    uint64_t *u64 = uvas_malloc(n * 8);
    double *f64 = uvas_malloc(n * 8);
    CHECK(i32 && i64 && u64 && f64, "uvas_malloc: %s", uvas_last_error());
    for (uint32_t i = 0; i < n; i++) {
        i32[i] = (int32_t)i - 20000;
        i64[i] = -((int64_t)i << 33);
        u64[i] = ((uint64_t)i << 32) | i;
        f64[i] = (double)i / 4;
    }
    struct targs t = {(uintptr_t)i32, (uintptr_t)i64, (uintptr_t)u64, (uintptr_t)f64, n, 0};
    CHECK_OK(tu_launch(k, n, &t, sizeof t));
    for (uint32_t i = 0; i < n; i++) {
        CHECK(i32[i] == 2 * ((int32_t)i - 20000), "i32[%u] = %d", i, i32[i]);
        CHECK(i64[i] == -((int64_t)i << 34), "i64[%u] = %lld", i, (long long)i64[i]);
        CHECK(u64[i] == ((((uint64_t)i << 32) | i) << 1), "u64[%u] = %#llx", i,
              (unsigned long long)u64[i]);
        CHECK(f64[i] == (double)i / 2 + 0.5, "f64[%u] = %g", i, f64[i]);
    }
    printf("  int32, int64, uint64, float64: %u of each right\n", n);
    uvas_kernel_free(k);

    size_t bytes;
    void *code = tu_spirv("count", &bytes);
    int st = uvas_kernel_load(code, bytes, "main", &k);
    free(code);
    if (st == UVAS_ERR_INVAL && strstr(uvas_last_error(), "refused")) {
        printf("SKIP count: this device refuses 64-bit atomics: %s\n", uvas_last_error());
        CHECK_OK(uvas_finalize());
        return TU_EXIT_SKIP;
    }
    CHECK_OK(st);
    const uint32_t m = 50000;
    uint32_t *c32 = uvas_malloc(4);
    uint64_t *c64 = uvas_malloc(8);
    int32_t *hist = uvas_malloc(8 * 4);
    CHECK(c32 && c64 && hist, "uvas_malloc: %s", uvas_last_error());
    *c32 = 7;
    *c64 = 1ull << 40;
    hist[0] = -1;
    hist[1] = 1;
    memset(&hist[2], 0, 6 * 4);
    struct cargs c = {(uintptr_t)c32, (uintptr_t)c64, (uintptr_t)hist, m, 0};
    CHECK_OK(tu_launch(k, m, &c, sizeof c));
    CHECK(*c32 == 7 + m, "uint32 counter %u, expected %u: atomics lost", *c32, 7 + m);
    uint64_t sum = (1ull << 40) + (uint64_t)m * (m - 1) / 2;
    CHECK(*c64 == sum, "uint64 counter %llu, expected %llu", (unsigned long long)*c64,
          (unsigned long long)sum);
    CHECK(hist[0] == (int32_t)m - 1 && hist[1] == -((int32_t)m - 1), "max %d, min %d", hist[0],
          hist[1]);
    CHECK((uint32_t)hist[2] == 0xffffffffu, "or of bits %#x", (uint32_t)hist[2]);
    for (int w = 0; w < 4; w++)
        CHECK(hist[3 + w] > 0 && (uint32_t)(hist[3 + w] - 1) % 4 == (uint32_t)w,
              "compare-and-swap word %d = %d: not set once by an invocation i with i %% 4 = %d",
              w, hist[3 + w], w);
    printf("  atomics over %u invocations: no update lost\n", m);
    uvas_kernel_free(k);
    CHECK_OK(uvas_finalize());
    return 0;
}
