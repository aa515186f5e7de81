/* The program's writable segment (segment.h). */
#include "transport/pe/segment.h"

#include <link.h>
#include <pthread.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static uintptr_t lo, hi;

/* The first object dl_iterate_phdr reports is the executable: its
 * writable PT_LOAD, less the part PT_GNU_RELRO makes read-only after
 * relocation (a write there would crash the owner). */
static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    uintptr_t wlo = 0, whi = 0, rhi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t b = info->dlpi_addr + ph->p_vaddr, e = b + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && e > b) {
            wlo = !whi || b < wlo ? b : wlo;
            whi = e > whi ? e : whi;
        } else if (ph->p_type == PT_GNU_RELRO) {
            rhi = e > rhi ? e : rhi;
        }
    }
    if (rhi > wlo && rhi <= whi)
        wlo = rhi;
    lo = wlo;
    hi = whi;
    return 1; /* the executable only */
}

static void find(void)
{
    dl_iterate_phdr(visit, NULL);
}

void uvas_seg_init(void)
{
    pthread_once(&once, find);
}

bool uvas_seg_has(const void *a, size_t len)
{
    uvas_seg_init();
    uintptr_t x = (uintptr_t)a;
    return lo < hi && x >= lo && x < hi && len <= hi - x;
}

uint64_t uvas_seg_offset(const void *a)
{
    return (uint64_t)((uintptr_t)a - lo);
}

char *uvas_seg_at(uint64_t off, size_t len)
{
    uvas_seg_init();
    uint64_t size = hi - lo;
    if (lo >= hi || off >= size || len > size - off)
        return NULL;
    return (char *)(lo + off);
}

void uvas_seg_bounds(const void **l, const void **h)
{
    uvas_seg_init();
    *l = (const void *)lo;
    *h = (const void *)hi;
}
