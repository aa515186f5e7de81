/*
 * The block state word's fault marks (uvas/block.h), step by step: a CPU
 * fault the service drops must have marked the block (uvas_blk_park), and
 * the end of the transition or of the last kernel hold must report the
 * mark, once, and leave none behind; an unmarked block's end reports none
 * (so a hold need not wake). Without a live range (no gates), as a model
 * of what the fault service, the migration engine and gpu/hold.c do.
 */
#include <stdio.h>

#include "../check.h"
#include "uvas/block.h"
#include "uvas.h"

static struct uvas_block b;

static uint32_t st(void)
{
    return atomic_load(&b.state);
}

int main(void)
{
    uint32_t seen, host = UVAS_RES_HOST;
    atomic_store(&b.state, host);

    /* Neither taken nor held: the fault is served, nothing marked. */
    CHECK(!uvas_blk_park(&b) && st() == host, "park of a free block: state %#x", st());

    /* A transition that moved nothing: marked while BUSY, reported once. */
    CHECK(uvas_blk_try_busy(&b, UVAS_RES_HOST, &seen) && seen == host, "take");
    CHECK(uvas_blk_park(&b) && (st() & UVAS_BLK_WAITER), "park while BUSY: %#x", st());
    CHECK(uvas_blk_park(&b), "a second park of the same transition");
    CHECK(uvas_blk_unbusy(&b, seen), "unbusy did not report the parked fault");
    CHECK(st() == host, "after unbusy: %#x, expected %#x (mark left behind)", st(), host);

    /* A transition nobody faulted in: no wake asked for. */
    CHECK(uvas_blk_try_busy(&b, UVAS_RES_HOST, &seen), "take again");
    CHECK(!uvas_blk_publish(&b, seen, UVAS_RES_DEVICE), "publish reported a fault nobody made");
    uint32_t dev = st();
    CHECK(uvas_blk_res(dev) == UVAS_RES_DEVICE && !(dev & (UVAS_BLK_BUSY | UVAS_BLK_WAITER)) &&
              (dev & ~UVAS_BLK_LOW) == (host & ~UVAS_BLK_LOW) + UVAS_BLK_VERSION_ONE,
          "after publish: %#x", dev);

    /* A kernel's first hold ends a transition: it reports a fault parked
     * during it and clears the mark (a woken thread parks again on the
     * hold if its page is not mapped). */
    CHECK(uvas_blk_take(&b, false, &seen), "take for a hold");
    CHECK(uvas_blk_park(&b), "park while the hold's take is BUSY");
    CHECK(uvas_blk_publish_held(&b, seen, uvas_blk_res(seen)), "publish_held lost the fault");
    CHECK(uvas_blk_held(st()) && !(st() & (UVAS_BLK_BUSY | UVAS_BLK_WAITER)),
          "held: %#x", st());

    /* Held by two kernels: a fault parks; the mark outlives the first
     * unhold and is reported by the last, which takes the block BUSY. */
    CHECK(uvas_blk_hold_more(&b) == UVAS_BLK_HOLD_MORE, "a second holder");
    CHECK(uvas_blk_park(&b) && (st() & UVAS_BLK_WAITER), "park while held: %#x", st());
    bool waiter = false;
    CHECK(!uvas_blk_unhold(&b, &seen, &waiter) && (st() & UVAS_BLK_WAITER),
          "the first unhold: %#x", st());
    CHECK(uvas_blk_unhold(&b, &seen, &waiter) && waiter, "the last unhold lost the fault");
    CHECK((st() & UVAS_BLK_BUSY) && !(st() & UVAS_BLK_WAITER) && seen == dev,
          "after the last unhold: %#x (seen %#x)", st(), seen);

    /* A fault in the last unhold's BUSY window (it was dropped and never
     * woken before the marks): reported by the unbusy that ends it. */
    CHECK(uvas_blk_park(&b), "park in the unhold's window");
    CHECK(uvas_blk_unbusy(&b, seen), "the unhold's window lost the fault");
    CHECK(st() == dev, "at the end: %#x, expected %#x", st(), dev);

    /* A hold whose take nobody faulted in asks for no wake. */
    CHECK(uvas_blk_take(&b, false, &seen), "take for a quiet hold");
    CHECK(!uvas_blk_publish_held(&b, seen, uvas_blk_res(seen)), "a quiet hold asked for a wake");
    CHECK(uvas_blk_unhold(&b, &seen, &waiter) && !waiter, "a quiet unhold reported a fault");
    CHECK(!uvas_blk_unbusy(&b, seen) && st() == dev, "a quiet end: %#x", st());
    printf("unit-block-park: marks set while BUSY or held, reported once by the end, none "
           "left behind: ok\n");
    return 0;
}
