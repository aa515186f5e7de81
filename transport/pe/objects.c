/* Global variables' bounds from the ELF symbol table (objects.h). */
#include "transport/pe/objects.h"

#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "uvas/os.h"
#include "uvas/status.h"

#if defined(__x86_64__)
#define R_COPY_TYPE R_X86_64_COPY
#elif defined(__aarch64__)
#define R_COPY_TYPE R_AARCH64_COPY
#endif

#if UINTPTR_MAX == UINT64_MAX
#define OUR_CLASS ELFCLASS64
#define R_TYPE(i) ELF64_R_TYPE(i)
#define R_SYM(i) ELF64_R_SYM(i)
#define ST_TYPE(i) ELF64_ST_TYPE(i)
#else
#define OUR_CLASS ELFCLASS32
#define R_TYPE(i) ELF32_R_TYPE(i)
#define R_SYM(i) ELF32_R_SYM(i)
#define ST_TYPE(i) ELF32_ST_TYPE(i)
#endif

/* A table of len bytes at off lies inside a file of size bytes, aligned
 * for its entries (the file is mapped at a page: an aligned offset is an
 * aligned address). A file replaced since it was loaded is any bytes. */
static bool in_file(size_t size, uint64_t off, uint64_t len, size_t align)
{
    return off <= size && len <= size - off && off % align == 0;
}

static int by_lo(const void *a, const void *b)
{
    const struct uvas_obj *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Addresses the dynamic linker copied a system library's object to: copy
 * relocations whose symbol carries a version (glibc's stdout@GLIBC_2.2.5,
 * environ). A library of the program's own that links libuvas and whose
 * global the program names directly is copied too, and its global is
 * symmetric: such libraries do not version their symbols (one that does
 * has its copied globals refused: docs/transport.md). */
static size_t copies_of(const char *f, size_t size, const ElfW(Shdr) *sh, unsigned nsh,
                        uintptr_t bias, uintptr_t **out)
{
    *out = NULL;
#ifdef R_COPY_TYPE
    const ElfW(Half) *versym = NULL;
    size_t nversym = 0;
    for (unsigned i = 0; i < nsh; i++)
        if (sh[i].sh_type == SHT_GNU_versym &&
            in_file(size, sh[i].sh_offset, sh[i].sh_size, _Alignof(ElfW(Half)))) {
            versym = (const void *)(f + sh[i].sh_offset);
            nversym = sh[i].sh_size / sizeof *versym;
        }
    size_t n = 0, cap = 0;
    for (unsigned i = 0; i < nsh; i++) {
        if (sh[i].sh_type != SHT_RELA || sh[i].sh_entsize != sizeof(ElfW(Rela)) ||
            !in_file(size, sh[i].sh_offset, sh[i].sh_size, _Alignof(ElfW(Rela))))
            continue;
        const ElfW(Rela) *r = (const void *)(f + sh[i].sh_offset);
        for (size_t k = 0; k < sh[i].sh_size / sizeof *r; k++) {
            if (R_TYPE(r[k].r_info) != R_COPY_TYPE)
                continue;
            size_t si = R_SYM(r[k].r_info);
            if (!versym || si >= nversym || (versym[si] & 0x7fff) <= VER_NDX_GLOBAL)
                continue; /* unversioned: a library of the program's */
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                uintptr_t *m = realloc(*out, cap * sizeof *m);
                if (!m)
                    return n;
                *out = m;
            }
            (*out)[n++] = bias + r[k].r_offset;
        }
    }
    return n;
#else
    (void)f, (void)size, (void)sh, (void)nsh, (void)bias;
    return 0;
#endif
}

static bool copied(const uintptr_t *c, size_t n, uintptr_t a)
{
    for (size_t i = 0; i < n; i++)
        if (c[i] == a)
            return true;
    return false;
}

void uvas_objs_load(struct uvas_objs *t, const char *path, uintptr_t bias, uintptr_t lo,
                    uintptr_t hi)
{
    *t = (struct uvas_objs){0};
    const void *map;
    size_t size;
    if (uvas_os_map_path(path, &map, &size) != UVAS_OK)
        return;
    const char *f = map;
    const ElfW(Ehdr) *eh = map;
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
        eh->e_ident[EI_CLASS] != OUR_CLASS || eh->e_shentsize != sizeof(ElfW(Shdr)) ||
        !in_file(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(ElfW(Shdr)),
                 _Alignof(ElfW(Shdr))))
        goto out;
    const ElfW(Shdr) *sh = (const void *)(f + eh->e_shoff);
    const ElfW(Shdr) *symtab = NULL;
    for (unsigned i = 0; i < eh->e_shnum; i++)
        if (sh[i].sh_type == SHT_SYMTAB)
            symtab = &sh[i];
    if (!symtab || symtab->sh_entsize != sizeof(ElfW(Sym)) ||
        !in_file(size, symtab->sh_offset, symtab->sh_size, _Alignof(ElfW(Sym))))
        goto out; /* stripped: the segment's bounds only */
    uintptr_t *cp;
    size_t ncp = copies_of(f, size, sh, eh->e_shnum, bias, &cp);
    const ElfW(Sym) *sym = (const void *)(f + symtab->sh_offset);
    size_t nsym = symtab->sh_size / sizeof *sym, n = 0;
    struct uvas_obj *o = malloc((nsym ? nsym : 1) * sizeof *o);
    if (!o) {
        free(cp);
        goto out;
    }
    for (size_t i = 0; i < nsym; i++) {
        const ElfW(Sym) *s = &sym[i];
        if (ST_TYPE(s->st_info) != STT_OBJECT || s->st_size == 0 ||
            s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE)
            continue;
        uintptr_t a = bias + s->st_value, e = a + s->st_size;
        if (e < a || a < lo || a >= hi || copied(cp, ncp, a))
            continue;
        o[n++] = (struct uvas_obj){a, e < hi ? e : hi};
    }
    free(cp);
    qsort(o, n, sizeof *o, by_lo);
    /* Aliases (one variable, two names) share a start: one object, the
     * longest. Anything else overlapping is clipped at the next start. */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && o[m - 1].lo == o[i].lo) {
            if (o[i].hi > o[m - 1].hi)
                o[m - 1].hi = o[i].hi;
            continue;
        }
        if (m && o[m - 1].hi > o[i].lo)
            o[m - 1].hi = o[i].lo;
        o[m++] = o[i];
    }
    t->o = o;
    t->n = m;
    t->known = true;
out:
    uvas_os_unmap((void *)map, size);
}

const struct uvas_obj *uvas_objs_find(const struct uvas_objs *t, uintptr_t a)
{
    size_t l = 0, r = t->n; /* the last object starting at or before a */
    while (l < r) {
        size_t mid = l + (r - l) / 2;
        if (t->o[mid].lo <= a)
            l = mid + 1;
        else
            r = mid;
    }
    if (!l || a >= t->o[l - 1].hi)
        return NULL;
    return &t->o[l - 1];
}

bool uvas_objs_cover(const struct uvas_objs *t, uintptr_t a, size_t len)
{
    if (!t->known)
        return true;
    const struct uvas_obj *o = uvas_objs_find(t, a);
    return o && len <= o->hi - a;
}
