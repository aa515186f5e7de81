/*
 * The table of lease entries a kernel left pinned
 * (transport/pe/lease_stuck.c). Before it was its own file it kept an
 * entry whose pins came back (left 0), so once a lease got stuck the
 * lock-free answer for "nothing stuck" was lost for the run, and past 64
 * entries a new stuck lease was not remembered (each later end of it
 * waited its 5 s bound again).
 */
#include "../check.h"
#include "transport/pe/lease_stuck.h"

#define N 200

int main(void)
{
    static char entries[N][16]; /* stand-ins: entries are named by address */
    CHECK(uvas_lease_stuck_count() == 0, "a fresh table holds %zu", uvas_lease_stuck_count());
    CHECK(uvas_lease_stuck_left(entries[0]) == 0, "an unknown entry has pins left");
    for (int i = 0; i < N; i++)
        uvas_lease_stuck_set(entries[i], (uint32_t)i + 1);
    CHECK(uvas_lease_stuck_count() == N, "%zu of %d stuck entries remembered",
          uvas_lease_stuck_count(), N);
    for (int i = 0; i < N; i++)
        CHECK(uvas_lease_stuck_left(entries[i]) == (uint32_t)i + 1, "entry %d: %u left, "
              "expected %d", i, uvas_lease_stuck_left(entries[i]), i + 1);
    uvas_lease_stuck_set(entries[7], 3); /* a later run left fewer: updated, not added */
    CHECK(uvas_lease_stuck_count() == N, "an update added an entry (%zu)", uvas_lease_stuck_count());
    CHECK(uvas_lease_stuck_left(entries[7]) == 3, "entry 7 not updated");
    /* Their pins came back, odd ones first: each is forgotten, the rest kept. */
    for (int i = 1; i < N; i += 2)
        uvas_lease_stuck_set(entries[i], 0);
    CHECK(uvas_lease_stuck_count() == N / 2, "%zu entries after %d came back, expected %d",
          uvas_lease_stuck_count(), N / 2, N / 2);
    for (int i = 0; i < N; i++) {
        uint32_t want = i % 2 ? 0 : i == 7 ? 3 : (uint32_t)i + 1;
        CHECK(uvas_lease_stuck_left(entries[i]) == want, "entry %d: %u left, expected %u", i,
              uvas_lease_stuck_left(entries[i]), want);
    }
    for (int i = 0; i < N; i += 2)
        uvas_lease_stuck_set(entries[i], 0);
    CHECK(uvas_lease_stuck_count() == 0, "%zu entries kept after every pin came back",
          uvas_lease_stuck_count());
    uvas_lease_stuck_set(entries[3], 1);
    uvas_lease_stuck_clear();
    CHECK(uvas_lease_stuck_count() == 0 && uvas_lease_stuck_left(entries[3]) == 0,
          "cleared table still holds entries");
    uvas_lease_stuck_set(entries[4], 2); /* usable again after a clear (a next range) */
    CHECK(uvas_lease_stuck_left(entries[4]) == 2, "table unusable after a clear");
    uvas_lease_stuck_clear();
    printf("unit-lease-stuck: %d entries remembered, forgotten as their pins came back\n", N);
    return 0;
}
