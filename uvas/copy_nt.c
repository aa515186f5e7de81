/* Non-temporal copies (see copy_nt.h). */
#include "uvas/copy_nt.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "uvas/atomics.h"
#include "uvas/internal.h"
#include "uvas/os.h"

void uvas_copy_nt(void *dst, const void *src, size_t n)
{
#if defined(__x86_64__)
    char *d = dst;
    const char *s = src;
    size_t head = (size_t)(-(uintptr_t)d & 63);
    if (head > n)
        head = n;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    memcpy(d, s, n);
    _mm_sfence();
#else
    memcpy(dst, src, n);
#endif
}

/* Measured with shmem-bench (docs/transport.md): on the H100 machine's
 * Intel cores (2 MiB of L2 each) streaming puts of 2 and 4 MiB ran 1.4-1.6x
 * memcpy's bandwidth and 256 KiB ones 0.6x; on an AMD EPYC machine 2 MiB
 * ones ran 0.84x. So: from the L2's size, on Intel only. */
size_t uvas_copy_stream_min(void)
{
    static _Atomic size_t min; /* 0: not known yet (a race only computes it twice) */
    size_t v = atomic_load_explicit(&min, RLX);
    if (!v) {
        v = uvas_g.cfg.stream_min;
        if (!v) {
            size_t l2 = uvas_os_l2_bytes();
            v = uvas_os_cpu_intel() ? (l2 > ((size_t)256 << 10) ? l2 : (size_t)2 << 20)
                                    : SIZE_MAX;
        }
        atomic_store_explicit(&min, v, RLX);
    }
    return v;
}
