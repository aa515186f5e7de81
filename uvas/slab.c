/* Size classes and slot bookkeeping of slabs. */
#include "uvas/slab.h"

#include <string.h>

#include "uvas/os.h"
#include "uvas/status.h"

int uvas_slabs_init(struct uvas_slabs *s, size_t block_size, size_t nblocks)
{
    memset(s, 0, sizeof *s);
    /* Classes: 16-byte steps to 128, then four per doubling (<= 25% slack),
     * up to an eighth of a block, so a slab holds at least eight slots. */
    size_t max = block_size / 8;
    uint32_t n = 0;
    for (uint32_t c = UVAS_SLAB_MIN; c <= 128 && c <= max; c += 16)
        s->class_size[n++] = c;
    for (size_t base = 128; base < max; base *= 2)
        for (int q = 1; q <= 4 && base + q * base / 4 <= max; q++)
            s->class_size[n++] = (uint32_t)(base + q * base / 4);
    s->nclasses = n;
    for (uint32_t c = 0; c < n; c++)
        s->class_magic[c] = ((uint64_t)1 << 42) / s->class_size[c] + 1;
    s->max_small = s->class_size[n - 1];
    s->slots_max = (uint32_t)(block_size / UVAS_SLAB_MIN);
    s->words_per_block = (s->slots_max + 63) / 64;

    size_t bits = nblocks * s->words_per_block * sizeof(uint64_t);
    size_t sizes = nblocks * s->slots_max * sizeof(uint32_t);
    s->meta_bytes = bits + sizes;
    void *p;
    int rc = uvas_os_table(s->meta_bytes, "the slab metadata", &p);
    if (rc)
        return rc;
    s->bitmap = p;
    s->sizes = (void *)((char *)p + bits);
    return UVAS_OK;
}

void uvas_slabs_fini(struct uvas_slabs *s)
{
    uvas_os_table_free((void *)s->bitmap, s->meta_bytes);
    memset(s, 0, sizeof *s);
}

int uvas_slab_class(const struct uvas_slabs *s, size_t size, size_t align)
{
    if (size > s->max_small || align > s->max_small)
        return -1;
    /* Slots start at multiples of the slot size from a block boundary, so a
     * slot size that is a multiple of align gives aligned slots. */
    size_t lo = 0, hi = s->nclasses;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->class_size[mid] < size)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t c = lo; c < s->nclasses; c++)
        if (s->class_size[c] % align == 0)
            return (int)c;
    return -1;
}

long uvas_slab_take_slot(struct uvas_slabs *s, size_t bi, uint32_t nslots)
{
    _Atomic uint64_t *w = uvas_slab_bits(s, bi);
    for (uint32_t i = 0; i * 64 < nslots; i++) {
        uint64_t v = atomic_load_explicit(&w[i], memory_order_relaxed);
        if (v == ~0ull)
            continue;
        uint32_t slot = i * 64 + (uint32_t)__builtin_ctzll(~v);
        if (slot >= nslots)
            return -1;
        atomic_store_explicit(&w[i], v | (1ull << (slot % 64)), memory_order_release);
        return slot;
    }
    return -1;
}

void uvas_slab_put_slot(struct uvas_slabs *s, size_t bi, uint32_t slot)
{
    _Atomic uint64_t *w = &uvas_slab_bits(s, bi)[slot / 64];
    atomic_fetch_and_explicit(w, ~(1ull << (slot % 64)), memory_order_release);
    atomic_store_explicit(&uvas_slab_sizes(s, bi)[slot], 0, memory_order_relaxed);
}

void uvas_slab_forget(struct uvas_slabs *s, size_t bi)
{
    /* An empty slab's bits and sizes are already zero (every slot was put
     * back); give back the whole pages its sizes occupy. */
    char *b = (char *)uvas_slab_sizes(s, bi);
    char *e = b + (size_t)s->slots_max * sizeof(uint32_t);
    char *pb = (char *)uvas_page_up((uintptr_t)b);
    char *pe = (char *)uvas_page_down((uintptr_t)e);
    if (pe > pb)
        uvas_os_discard(pb, (size_t)(pe - pb));
}
