/* First-fit free-extent list over block indices. */
#include "uvas/extent.h"

#include <string.h>

#include "uvas/os.h"
#include "uvas/status.h"

int uvas_extents_init(struct uvas_extents *e, size_t nblocks)
{
    e->cap = nblocks / 2 + 2;
    void *p;
    int rc = uvas_os_table(e->cap * sizeof *e->v, "the free-extent list", &p);
    if (rc)
        return rc;
    e->v = p;
    e->v[0] = (struct uvas_extent){0, nblocks};
    e->n = 1;
    e->free_blocks = nblocks;
    return UVAS_OK;
}

void uvas_extents_fini(struct uvas_extents *e)
{
    uvas_os_table_free(e->v, e->cap * sizeof *e->v);
    memset(e, 0, sizeof *e);
}

/* Index of the first extent whose start is > b. */
static size_t upper(const struct uvas_extents *e, size_t b)
{
    size_t lo = 0, hi = e->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (e->v[mid].start <= b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void remove_at(struct uvas_extents *e, size_t i)
{
    memmove(&e->v[i], &e->v[i + 1], (e->n - i - 1) * sizeof *e->v);
    e->n--;
}

static void insert_at(struct uvas_extents *e, size_t i, size_t start, size_t len)
{
    memmove(&e->v[i + 1], &e->v[i], (e->n - i) * sizeof *e->v);
    e->v[i] = (struct uvas_extent){start, len};
    e->n++;
}

/* Carve [s, s+n) out of extent i, which contains it. */
static void carve(struct uvas_extents *e, size_t i, size_t s, size_t n)
{
    struct uvas_extent x = e->v[i];
    size_t head = s - x.start, tail = x.start + x.len - (s + n);
    if (head && tail) {
        e->v[i].len = head;
        insert_at(e, i + 1, s + n, tail);
    } else if (head) {
        e->v[i].len = head;
    } else if (tail) {
        e->v[i] = (struct uvas_extent){s + n, tail};
    } else {
        remove_at(e, i);
    }
    e->free_blocks -= n;
}

bool uvas_extents_take(struct uvas_extents *e, size_t n, size_t align, size_t phase,
                       size_t *start)
{
    phase &= align - 1;
    for (size_t i = 0; i < e->n; i++) {
        struct uvas_extent x = e->v[i];
        size_t s = ((x.start + phase + align - 1) & ~(align - 1)) - phase;
        if (s < x.start || s - x.start > x.len || x.len - (s - x.start) < n)
            continue;
        carve(e, i, s, n);
        *start = s;
        return true;
    }
    return false;
}

bool uvas_extents_take_at(struct uvas_extents *e, size_t start, size_t n)
{
    size_t i = upper(e, start);
    if (i == 0)
        return false;
    struct uvas_extent x = e->v[i - 1];
    if (start + n > x.start + x.len)
        return false;
    carve(e, i - 1, start, n);
    return true;
}

void uvas_extents_give(struct uvas_extents *e, size_t start, size_t n)
{
    size_t i = upper(e, start);
    bool join_prev = i > 0 && e->v[i - 1].start + e->v[i - 1].len == start;
    bool join_next = i < e->n && start + n == e->v[i].start;
    if (join_prev && join_next) {
        e->v[i - 1].len += n + e->v[i].len;
        remove_at(e, i);
    } else if (join_prev) {
        e->v[i - 1].len += n;
    } else if (join_next) {
        e->v[i].start = start;
        e->v[i].len += n;
    } else {
        insert_at(e, i, start, n);
    }
    e->free_blocks += n;
}
