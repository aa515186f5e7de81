/*
 * The free-extent list against a bitmap model: random takes (with
 * alignment, of block numbers offset by a phase, as addresses of a range
 * whose base is not that aligned are), exact takes and gives; after every step the list must be
 * sorted, coalesced, and describe exactly the model's free blocks, and
 * first fit must return the lowest fitting start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "uvas/extent.h"

#define NB 4096

static unsigned char used[NB];

static size_t model_first_fit(size_t n, size_t align, size_t phase)
{
    for (size_t s = (align - phase % align) % align; s + n <= NB; s += align) {
        size_t i = 0;
        while (i < n && !used[s + i])
            i++;
        if (i == n)
            return s;
    }
    return SIZE_MAX;
}

static void check_same(const struct uvas_extents *e, int step)
{
    size_t free_blocks = 0, pos = 0;
    for (size_t k = 0; k < e->n; k++) {
        const struct uvas_extent *x = &e->v[k];
        CHECK(x->len > 0, "step %d: empty extent %zu", step, k);
        CHECK(k == 0 || x->start > pos, "step %d: extents %zu unsorted or not coalesced",
              step, k);
        for (size_t b = pos; b < x->start; b++)
            CHECK(used[b], "step %d: block %zu free in model, missing from list", step, b);
        for (size_t b = x->start; b < x->start + x->len; b++)
            CHECK(!used[b], "step %d: block %zu listed free but used", step, b);
        pos = x->start + x->len;
        free_blocks += x->len;
    }
    for (size_t b = pos; b < NB; b++)
        CHECK(used[b], "step %d: tail block %zu free in model, missing", step, b);
    CHECK((long long)(free_blocks) == (long long)(e->free_blocks), "step %d: free block count", step);
}

int main(void)
{
    struct uvas_extents e;
    CHECK_OK(uvas_extents_init(&e, NB));
    struct { size_t s, n; } live[512];
    int nlive = 0;
    uint64_t seed = 42;
    for (int step = 0; step < 20000; step++) {
        unsigned op = (unsigned)(tu_rand(&seed) % 8);
        if (op < 4 && nlive < 512) {
            size_t n = 1 + (size_t)(tu_rand(&seed) % (op == 0 ? 200 : 8));
            size_t align = (size_t)1 << (tu_rand(&seed) % 4);
            size_t phase = (size_t)(tu_rand(&seed) % 16);
            size_t want = model_first_fit(n, align, phase), got;
            bool ok = uvas_extents_take(&e, n, align, phase, &got);
            CHECK(ok == (want != SIZE_MAX), "step %d: take(%zu, %zu, phase %zu) ok=%d, model says "
                  "%zu", step, n, align, phase, ok, want);
            CHECK(!ok || (got + phase) % align == 0, "step %d: %zu + phase %zu is not a multiple "
                  "of %zu", step, got, phase, align);
            if (ok) {
                CHECK((long long)(got) == (long long)(want), "step %d: first fit of %zu blocks", step, n);
                memset(used + got, 1, n);
                live[nlive].s = got;
                live[nlive++].n = n;
            }
        } else if (op == 4 && nlive) {
            /* grow the last one in place if its neighbours allow */
            size_t s = live[nlive - 1].s, n = live[nlive - 1].n, more = 1 + tu_rand(&seed) % 4;
            bool fits = s + n + more <= NB;
            for (size_t b = s + n; fits && b < s + n + more; b++)
                fits = !used[b];
            CHECK(uvas_extents_take_at(&e, s + n, more) == fits, "step %d: take_at", step);
            if (fits) {
                memset(used + s + n, 1, more);
                live[nlive - 1].n += more;
            }
        } else if (nlive) {
            int k = (int)(tu_rand(&seed) % (uint64_t)nlive);
            uvas_extents_give(&e, live[k].s, live[k].n);
            memset(used + live[k].s, 0, live[k].n);
            live[k] = live[--nlive];
        }
        check_same(&e, step);
    }
    while (nlive) {
        nlive--;
        uvas_extents_give(&e, live[nlive].s, live[nlive].n);
        memset(used + live[nlive].s, 0, live[nlive].n);
    }
    check_same(&e, -1);
    CHECK((long long)(e.n) == (long long)((size_t)1), "everything given back coalesces into one extent");
    uvas_extents_fini(&e);
    return 0;
}
