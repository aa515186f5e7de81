/*
 * A lone batch split over two copy queues (migrate/copy.c): the halves
 * must move every byte of every op exactly once, to the same place, in
 * about half the bytes each, cut only at page boundaries (fills stay
 * multiples of 4). Checked against random batches of copies and fills.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../check.h"
#include "migrate/copy.h"

#define MAXN 64

/* Rejoin a ++ b into ops, merging the two pieces of the op that was cut
 * (there is one when the halves hold one piece more than the batch). */
static size_t rejoin(const struct uvas_copy_op *a, size_t na, const struct uvas_copy_op *b,
                     size_t nb, size_t n_in, struct uvas_copy_op *out)
{
    size_t n = 0;
    for (size_t i = 0; i < na + nb; i++) {
        struct uvas_copy_op o = i < na ? a[i] : b[i - na];
        struct uvas_copy_op *p = n ? &out[n - 1] : NULL;
        if (i == na && na + nb == n_in + 1 && p && p->src == o.src && p->dst == o.dst && p->fill == o.fill &&
            p->dst_off + p->size == o.dst_off &&
            (o.src == VK_NULL_HANDLE || p->src_off + p->size == o.src_off)) {
            CHECK(p->size % 4096 == 0, "an op cut after %llu bytes, not at a page",
                  (unsigned long long)p->size);
            p->size += o.size;
            continue;
        }
        out[n++] = o;
    }
    return n;
}

static void check_batch(const struct uvas_copy_op *ops, size_t n, int round)
{
    struct uvas_copy_op a[MAXN + 1], b[MAXN + 1], back[2 * MAXN + 2];
    size_t na = 99, nb = 99;
    uvas_copy_halve(ops, n, a, &na, b, &nb);
    CHECK(na + nb <= n + 1, "round %d: %zu + %zu pieces of %zu ops", round, na, nb, n);
    VkDeviceSize total = 0, sa = 0;
    for (size_t i = 0; i < n; i++)
        total += ops[i].size;
    for (size_t i = 0; i < na; i++) {
        CHECK(a[i].size > 0, "round %d: an empty piece in the first half", round);
        sa += a[i].size;
    }
    for (size_t i = 0; i < nb; i++)
        CHECK(b[i].size > 0, "round %d: an empty piece in the second half", round);
    CHECK(sa >= total / 2, "round %d: first half %llu of %llu bytes", round,
          (unsigned long long)sa, (unsigned long long)total);
    /* The middle, rounded up to a page at most. */
    CHECK(sa - total / 2 < 4096, "round %d: first half %llu of %llu", round,
          (unsigned long long)sa, (unsigned long long)total);
    for (size_t i = 0; i < na + nb; i++) {
        const struct uvas_copy_op *o = i < na ? &a[i] : &b[i - na];
        CHECK(o->src != VK_NULL_HANDLE || o->size % 4 == 0, "round %d: a fill of %llu bytes",
              round, (unsigned long long)o->size);
    }
    size_t m = rejoin(a, na, b, nb, n, back);
    CHECK(m == n, "round %d: %zu ops came back as %zu", round, n, m);
    for (size_t i = 0; i < n; i++)
        CHECK(back[i].src == ops[i].src && back[i].dst == ops[i].dst &&
                  back[i].src_off == ops[i].src_off && back[i].dst_off == ops[i].dst_off &&
                  back[i].size == ops[i].size && back[i].fill == ops[i].fill,
              "round %d: op %zu changed (size %llu -> %llu, dst_off %llu -> %llu)", round, i,
              (unsigned long long)ops[i].size, (unsigned long long)back[i].size,
              (unsigned long long)ops[i].dst_off, (unsigned long long)back[i].dst_off);
}

static VkBuffer handle(uintptr_t v)
{
    return (VkBuffer)v; /* never dereferenced: the split only compares them */
}

int main(void)
{
    /* The shapes a migration makes: one 2 MiB block; a stage of 8. */
    struct uvas_copy_op one = {handle(1), 0, handle(2), 4 << 20, 2 << 20, 0};
    check_batch(&one, 1, -1);
    struct uvas_copy_op stage[8];
    for (int i = 0; i < 8; i++)
        stage[i] = (struct uvas_copy_op){handle(10 + i), 0, handle(3), (VkDeviceSize)i << 21,
                                         2 << 20, 0};
    check_batch(stage, 8, -2);
    /* A block cut in the middle: 1 MiB each side. */
    struct uvas_copy_op a[2], b[2];
    size_t na, nb;
    uvas_copy_halve(&one, 1, a, &na, b, &nb);
    CHECK(na == 1 && nb == 1 && a[0].size == 1 << 20 && b[0].size == 1 << 20 &&
              b[0].src_off == 1 << 20 && b[0].dst_off == (4 << 20) + (1 << 20),
          "one block: %zu + %zu pieces, %llu + %llu bytes", na, nb,
          (unsigned long long)a[0].size, (unsigned long long)b[0].size);

    /* Which batches may be split at all: a device write (a fill of a
     * scratch buffer, then a copy of it into the block) may not, the
     * halves running unordered on two queues; a migration's zero fills
     * beside its copies may; a fill read back elsewhere in its buffer may. */
    const VkDeviceSize mb2 = 2 << 20;
    struct uvas_copy_op write[2] = {{VK_NULL_HANDLE, 0, handle(5), 0, mb2, 0x07070707u},
                                    {handle(5), 0, handle(6), 4 * mb2, mb2, 0}};
    CHECK(!uvas_copy_independent(write, 2), "a fill and a copy of what it wrote: independent");
    write[1].src_off = 4096; /* reads the fill's middle */
    write[1].size = 4096;
    CHECK(!uvas_copy_independent(write, 2), "a copy of the middle of a fill: independent");
    write[1].src_off = mb2; /* past the fill */
    CHECK(uvas_copy_independent(write, 2), "a copy beside a fill: dependent");
    struct uvas_copy_op mig[3] = {{VK_NULL_HANDLE, 0, handle(3), 0, mb2, 0},
                                  {handle(11), 0, handle(3), mb2, mb2, 0},
                                  {VK_NULL_HANDLE, 0, handle(3), 2 * mb2, mb2, 0}};
    CHECK(uvas_copy_independent(mig, 3), "a migration's fills and copies: dependent");

    srand(20261124);
    for (int round = 0; round < 20000; round++) {
        struct uvas_copy_op ops[MAXN];
        size_t n = 1 + (size_t)rand() % MAXN;
        VkDeviceSize at = 0;
        for (size_t i = 0; i < n; i++) {
            bool fill = rand() % 4 == 0;
            VkDeviceSize size = rand() % 3 == 0 ? (VkDeviceSize)(1 + rand() % 64) * 4
                                                : (VkDeviceSize)(1 + rand() % 1024) * 4096;
            ops[i] = (struct uvas_copy_op){fill ? VK_NULL_HANDLE : handle(100 + (size_t)i % 3),
                                           fill ? 0 : (VkDeviceSize)(rand() % 512) * 4096,
                                           handle(7), at, size, fill ? (uint32_t)rand() : 0};
            at += size + (VkDeviceSize)(rand() % 2) * 4096;
        }
        check_batch(ops, n, round);
    }
    printf("unit-copy-split: 20002 batches split and rejoined\n");
    return TU_EXIT_PASS;
}
