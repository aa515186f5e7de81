/*
 * The program's and its libraries' files as ELF: transport/pe/objects.c
 * reads global variables' bounds from a file's section headers, symbol
 * table, copy relocations and symbol versions (the files the process was
 * loaded from, by path: one replaced on disk since is any bytes). The
 * input's first byte picks where the file is said to be loaded (bias and
 * the writable segment [lo, hi)); the rest is the file, written to a
 * memory file each run and read through /proc/self/fd.
 *
 * Invariants: nothing is read outside the file or misaligned (ASan,
 * UBSan); a file that is not a whole ELF of this class with a symbol
 * table gives no objects (and says so: `known` false); otherwise the
 * objects lie in [lo, hi), are sorted, non-empty and do not overlap;
 * uvas_objs_find gives each object for its first and last byte and
 * nothing for an address between objects; uvas_objs_cover agrees.
 */
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "transport/pe/objects.h"

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
    if (fd < 0) {
        perror("fuzz-elf: memfd_create");
        exit(1);
    }
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return 0;
}

/* Where the file is said to be loaded: a few shapes of a real process's
 * (an executable at its link address, a library at a random bias) and the
 * extremes. */
static void placement(uint8_t k, uintptr_t *bias, uintptr_t *lo, uintptr_t *hi)
{
    switch (k % 4) {
    case 0: *bias = 0, *lo = 0x400000, *hi = 0x800000; break;
    case 1: *bias = 0x7f0000000000, *lo = 0x7f0000000000, *hi = 0x7f0000400000; break;
    case 2: *bias = 0, *lo = 0, *hi = UINTPTR_MAX; break;
    default: *bias = UINTPTR_MAX - 0xfff, *lo = 0x1000, *hi = UINTPTR_MAX; break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uintptr_t bias, lo, hi;
    placement(data[0], &bias, &lo, &hi);
    if (ftruncate(fd, 0) || (size > 1 && pwrite(fd, data + 1, size - 1, 0) != (ssize_t)(size - 1))) {
        perror("fuzz-elf: writing the file");
        exit(1);
    }
    struct uvas_objs t;
    uvas_objs_load(&t, path, bias, lo, hi);
    FZ_CHECK(t.known || (t.n == 0 && t.o == NULL), "no symbol table, but %zu objects", t.n);
    for (size_t i = 0; i < t.n; i++) {
        const struct uvas_obj *o = &t.o[i];
        FZ_CHECK(lo <= o->lo && o->lo < o->hi && o->hi <= hi,
                 "object %zu [%#lx, %#lx) outside [%#lx, %#lx) or empty", i,
                 (unsigned long)o->lo, (unsigned long)o->hi, (unsigned long)lo,
                 (unsigned long)hi);
        FZ_CHECK(i == 0 || t.o[i - 1].hi <= o->lo, "objects %zu and %zu overlap", i - 1, i);
        FZ_CHECK(uvas_objs_find(&t, o->lo) == o && uvas_objs_find(&t, o->hi - 1) == o,
                 "object %zu not found by its own bytes", i);
        FZ_CHECK(uvas_objs_cover(&t, o->lo, o->hi - o->lo), "object %zu does not cover itself",
                 i);
        FZ_CHECK(!uvas_objs_cover(&t, o->lo, o->hi - o->lo + 1),
                 "object %zu covers a byte past its end", i);
        bool gap = i + 1 == t.n ? o->hi != 0 : t.o[i + 1].lo > o->hi;
        if (gap)
            FZ_CHECK(uvas_objs_find(&t, o->hi) == NULL && !uvas_objs_cover(&t, o->hi, 1),
                     "the byte after object %zu is found in an object", i);
    }
    if (!t.known)
        FZ_CHECK(uvas_objs_cover(&t, lo, 64), "a file without objects refused a global");
    free(t.o);
    return 0;
}
