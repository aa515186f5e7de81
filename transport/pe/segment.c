/* The program's writable segments (segment.h). */
#include "transport/pe/segment.h"

#include <link.h>
#include <pthread.h>
#include <string.h>

#include "transport/pe/objects.h"

/* An offset names its segment in its top bits: 0 for the executable, a
 * hash of a library's name and segment size for a library (the same on
 * every PE that loaded the same library, and on no PE that did not). */
#define KEY_SHIFT 40
#define OFF_MASK ((UINT64_C(1) << KEY_SHIFT) - 1)
#define MAX_SEGS 64

struct seg {
    uintptr_t lo, hi;
    uint64_t key;
    struct uvas_objs objs; /* its variables, where its file tells them */
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct seg segs[MAX_SEGS];
static int nsegs;

/* Does the object name libuvas.so among the libraries it needs? Only such
 * libraries are OpenSHMEM code whose globals a program means to share;
 * libc's and the drivers' data stay out of peers' reach. */
static bool links_uvas(const struct dl_phdr_info *info)
{
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dyn)
        return false;
    uintptr_t strtab = 0;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_STRTAB)
            strtab = d->d_un.d_ptr;
    if (!strtab)
        return false;
    /* glibc relocates these entries in place; a loader that does not
     * leaves them relative to the load address. */
    if (strtab < info->dlpi_addr)
        strtab += info->dlpi_addr;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_NEEDED &&
            strncmp((const char *)strtab + d->d_un.d_val, "libuvas.so", 10) == 0)
            return true;
    return false;
}

static uint64_t key_of(const char *path, uintptr_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *c = base; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    for (int i = 0; i < 8; i++)
        h = (h ^ ((size >> (8 * i)) & 0xff)) * 1099511628211ull;
    uint64_t k = (h ^ (h >> 24) ^ (h >> 48)) & 0xffffff;
    return k ? k : 1;
}

/* The end of an object's .got.plt where it is writable (lazy binding:
 * PT_GNU_RELRO leaves it out), from DT_PLTGOT and DT_PLTRELSZ (three
 * reserved slots and one per PLT relocation); 0 if it has none. Its slots
 * are the loader's function pointers, nobody's symmetric object: in a
 * stripped program, whose variables' bounds are unknown, a put at the
 * segment's start overwrote them and the peer crashed at its next call
 * (found by review). */
static uintptr_t gotplt_end(const struct dl_phdr_info *info)
{
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    uintptr_t got = 0, relsz = 0;
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_PLTGOT)
            got = dyn->d_un.d_ptr;
        else if (dyn->d_tag == DT_PLTRELSZ)
            relsz = dyn->d_un.d_val;
    }
    if (!got)
        return 0;
    /* The loader relocates the tag in place for some objects, not others. */
    if (got < info->dlpi_addr)
        got += info->dlpi_addr;
    return got + (3 + relsz / sizeof(ElfW(Rela))) * sizeof(void *);
}

/* An object's writable PT_LOAD, less the part PT_GNU_RELRO makes
 * read-only after relocation (a write there would crash the owner) and a
 * writable .got.plt at its start (gotplt_end). */
static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    int *index = arg;
    bool exe = (*index)++ == 0; /* dl_iterate_phdr reports the executable first */
    if (nsegs == MAX_SEGS || (!exe && !links_uvas(info)))
        return 0;
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
    uintptr_t gend = gotplt_end(info);
    if (gend > wlo && gend <= whi && gend - wlo < 65536)
        wlo = gend; /* .got.plt lies at the writable part's start */
    if (wlo >= whi || whi - wlo > OFF_MASK)
        return 0;
    uint64_t key = exe ? 0 : key_of(info->dlpi_name, whi - wlo);
    for (int i = 0; i < nsegs; i++)
        if (segs[i].key == key)
            return 0; /* a clash of keys: the first keeps its name */
    struct seg *s = &segs[nsegs++];
    *s = (struct seg){wlo, whi, key, {0}};
    uvas_objs_load(&s->objs, exe ? "/proc/self/exe" : info->dlpi_name, info->dlpi_addr, wlo,
                   whi);
    return 0;
}

static void find(void)
{
    int index = 0;
    dl_iterate_phdr(visit, &index);
}

void uvas_seg_init(void)
{
    pthread_once(&once, find);
}

static const struct seg *seg_of(uintptr_t x)
{
    for (int i = 0; i < nsegs; i++)
        if (x >= segs[i].lo && x < segs[i].hi)
            return &segs[i];
    return NULL;
}

bool uvas_seg_in(const void *a)
{
    uvas_seg_init();
    return seg_of((uintptr_t)a) != NULL;
}

bool uvas_seg_has(const void *a, size_t len)
{
    uvas_seg_init();
    uintptr_t x = (uintptr_t)a;
    const struct seg *s = seg_of(x);
    return s && len <= s->hi - x && uvas_objs_cover(&s->objs, x, len);
}

bool uvas_seg_object(const void *a, const void **lo, size_t *size)
{
    uvas_seg_init();
    const struct seg *s = seg_of((uintptr_t)a);
    const struct uvas_obj *o = s && s->objs.known ? uvas_objs_find(&s->objs, (uintptr_t)a)
                                                  : NULL;
    *lo = o ? (const void *)o->lo : NULL;
    *size = o ? o->hi - o->lo : 0;
    return o != NULL;
}

uint64_t uvas_seg_offset(const void *a)
{
    const struct seg *s = seg_of((uintptr_t)a);
    return s ? s->key << KEY_SHIFT | (uint64_t)((uintptr_t)a - s->lo) : UINT64_MAX;
}

char *uvas_seg_at(uint64_t off, size_t len)
{
    uvas_seg_init();
    uint64_t key = off >> KEY_SHIFT, o = off & OFF_MASK;
    for (int i = 0; i < nsegs; i++) {
        if (segs[i].key != key)
            continue;
        uint64_t size = segs[i].hi - segs[i].lo;
        if (o >= size || len > size - o || !uvas_objs_cover(&segs[i].objs, segs[i].lo + o, len))
            return NULL;
        return (char *)(segs[i].lo + o);
    }
    return NULL;
}

void uvas_seg_bounds(const void **l, const void **h)
{
    uvas_seg_init();
    bool exe = nsegs && segs[0].key == 0;
    *l = exe ? (const void *)segs[0].lo : NULL;
    *h = exe ? (const void *)segs[0].hi : NULL;
}

int uvas_seg_count(void)
{
    uvas_seg_init();
    return nsegs;
}

void uvas_seg_describe(int i, uint64_t *key, uint64_t *lo, uint64_t *size)
{
    uvas_seg_init();
    *key = segs[i].key;
    *lo = segs[i].lo;
    *size = segs[i].hi - segs[i].lo;
}
