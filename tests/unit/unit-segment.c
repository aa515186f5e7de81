/*
 * The program's segment (transport/pe/segment.c), which peers' active
 * messages name by offset: this program's globals (data and bss) are in
 * it, its stack, heap and code are not; an offset maps back to the
 * variable; a request that runs past the segment, however it is made to
 * wrap, maps to nothing.
 */
#include <stdlib.h>

#include "../check.h"
#include "transport/pe/segment.h"

int g_bss[64];
long g_data = 5;
static const char g_ro[] = "read only";

int main(void)
{
    const void *lo, *hi;
    uvas_seg_bounds(&lo, &hi);
    size_t size = (size_t)((const char *)hi - (const char *)lo);
    CHECK(size > 0, "the segment is empty [%p, %p)", lo, hi);
    CHECK(uvas_seg_has(g_bss, sizeof g_bss) && uvas_seg_has(&g_data, sizeof g_data),
          "globals outside the segment [%p, %p): %p %p", lo, hi, (void *)g_bss, (void *)&g_data);
    int local = 0;
    void *heap = malloc(16);
    CHECK(!uvas_seg_has(&local, 4), "the stack is in the segment");
    CHECK(!uvas_seg_has(heap, 16), "the heap is in the segment");
    CHECK(!uvas_seg_has((const void *)main, 1), "code is in the segment");
    CHECK(!uvas_seg_has(g_ro, 1), "read-only data is in the segment");
    free(heap);
    CHECK(!uvas_seg_has(g_bss, size + 1), "a range longer than the segment");
    CHECK(uvas_seg_at(uvas_seg_offset(&g_data), sizeof g_data) == (char *)&g_data,
          "an offset maps back to its variable");
    CHECK(uvas_seg_at(0, size) == (const char *)lo, "the whole segment");
    CHECK(uvas_seg_at(0, size + 1) == NULL, "one byte past the end");
    CHECK(uvas_seg_at(size, 0) == NULL, "the end itself");
    CHECK(uvas_seg_at(size - 1, 2) == NULL, "a range over the end");
    CHECK(uvas_seg_at(UINT64_MAX, 1) == NULL, "offset UINT64_MAX");
    CHECK(uvas_seg_at(1, SIZE_MAX) == NULL, "a length that wraps");
    CHECK(uvas_seg_at(UINT64_MAX - 7, 16) == NULL, "an offset and length that wrap");
    /* Libraries' segments are named by a key in the offset's top bits: a
     * key no segment of this process has maps to nothing. */
    CHECK(uvas_seg_offset(&g_data) >> 40 == 0, "the executable's key is 0");
    CHECK(uvas_seg_at(UINT64_C(0x5a5a5a) << 40, 1) == NULL, "an unknown segment key");
    CHECK(uvas_seg_count() >= 1, "no segment counted");
    printf("segment [%p, %p): %zu bytes; globals in, the rest out, bad offsets refused\n",
           lo, hi, size);
    return 0;
}
