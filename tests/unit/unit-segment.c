/*
 * The program's segment (transport/pe/segment.c), which peers' active
 * messages name by offset: this program's globals (data and bss) are in
 * it, its stack, heap and code are not; an offset maps back to the
 * variable; a request that runs past the segment, however it is made to
 * wrap, maps to nothing; nor does one that runs past its variable into the
 * next, or one into an object the dynamic linker copied into the program
 * from libc (stdout), which is nobody's symmetric object. The writable
 * .got.plt of a lazily bound program (the loader's function pointers) is
 * not in the segment: in a stripped program, where no variable's bounds
 * are known, a put there overwrote a peer's GOT (found by review).
 */
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

#include "../check.h"
#include "transport/pe/segment.h"

int g_bss[64];
long g_data = 5;
static const char g_ro[] = "read only";

/* This program's .got.plt, [*lo, *hi), from its dynamic section. */
static void gotplt(uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t got = 0, relsz = 0; /* DT_PLTGOT: relocated by the loader here */
    for (const ElfW(Dyn) *d = _DYNAMIC; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_PLTGOT)
            got = d->d_un.d_ptr;
        else if (d->d_tag == DT_PLTRELSZ)
            relsz = d->d_un.d_val;
    }
    *lo = got;
    *hi = got ? got + (3 + relsz / sizeof(ElfW(Rela))) * sizeof(void *) : 0;
}

int main(void)
{
    const void *lo, *hi;
    uvas_seg_bounds(&lo, &hi);
    uintptr_t glo, ghi;
    gotplt(&glo, &ghi);
    CHECK(!glo || ghi <= (uintptr_t)lo || glo >= (uintptr_t)hi,
          "the writable .got.plt [%p, %p) is in the segment [%p, %p)", (void *)glo, (void *)ghi,
          lo, hi);
    printf(".got.plt [%p, %p), segment [%p, %p)\n", (void *)glo, (void *)ghi, lo, hi);
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
    /* Each variable by its own bounds (the symbol table of this file). */
    const void *olo;
    size_t osize;
    CHECK(uvas_seg_object(&g_bss[3], &olo, &osize) && olo == (const void *)g_bss &&
              osize == sizeof g_bss,
          "g_bss's bounds: [%p, +%zu), expected [%p, +%zu)", olo, osize, (void *)g_bss,
          sizeof g_bss);
    uint64_t ob = uvas_seg_offset(g_bss);
    CHECK(uvas_seg_at(ob, sizeof g_bss) == (char *)g_bss, "a whole variable");
    CHECK(uvas_seg_at(ob + 8, sizeof g_bss - 8) == (char *)g_bss + 8, "a variable's tail");
    CHECK(!uvas_seg_has(g_bss, sizeof g_bss + 1), "a range one byte past its variable");
    CHECK(uvas_seg_at(ob, sizeof g_bss + 1) == NULL, "an offset one byte past its variable");
    CHECK(!uvas_seg_has(&g_bss[63], 8), "a range from a variable's last word on");
    CHECK(!uvas_seg_has(&stdout, sizeof stdout),
          "stdout (copied into the program by the dynamic linker, or libc's own) is in reach");
    CHECK(uvas_seg_at(0, size) == NULL, "the whole segment (over several variables)");
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
    printf("segment [%p, %p): %zu bytes; globals in, each to its bounds, the rest out, bad "
           "offsets refused\n",
           lo, hi, size);
    return 0;
}
