/*
 * A lone block migrated goes in pieces, each unmapped just before its
 * copy to the device or mapped just after its copy back
 * (migrate/migrate.c, lone_to_device, lone_to_host): no write made to
 * one piece while another copies may be lost. One block of the default
 * size (2 MiB, 4 KiB pages: four pieces) moves to the device and back, a
 * fixed number of times, every other time with the block after it (one
 * stage of two blocks, unmapped and mapped by the service threads: the
 * same writers, other code), while four writers store an increasing counter
 * into words of each quarter (from the quarter's first page on, where
 * two pieces meet; check.h's owned words), each first reading its words
 * back: they must hold what it stored last. A reader checks words nobody
 * writes, in both blocks. At the end, on the device and back on the
 * host, every word holds its last value or its pattern.
 */
#include "check.h"

#define WRITERS 4
#define MOVES 200 /* migrations each way */
#define WORDS 8   /* owned words per writer */

static uint64_t pattern(size_t i)
{
    return 0x9e3779b97f4a7c15ull * (i + 1);
}

int main(void)
{
    tu_deadline(55);
    struct uvas_range_desc d = tu_init_device("256M", "2M");
    size_t bs = d.block_size;
    uint64_t *area = uvas_aligned_alloc(bs, 2 * bs, 0);
    CHECK(area != NULL, "uvas_aligned_alloc");
    size_t words = bs / sizeof *area, q = words / WRITERS, page = 4096 / sizeof *area;
    for (size_t i = 0; i < 2 * words; i++)
        area[i] = pattern(i);
    /* Writer t's words: in quarter t, a page apart from its first word
     * on; writer 0's from the last word of quarter 0 back (the
     * boundary's other side). */
    static size_t own[WRITERS][WORDS];
    struct tu_owners o = {.area = area, .words = 2 * words, .writers = WRITERS, .pattern = pattern,
                          .unit = "quarter", .unit_words = q, .read_step = 509};
    for (int t = 0; t < WRITERS; t++) {
        for (int k = 0; k < WORDS; k++)
            own[t][k] = t == 0 ? q - 1 - (size_t)k * page : (size_t)t * q + (size_t)k * page;
        o.word[t] = own[t];
        o.nword[t] = WORDS;
    }
    struct uvas_stats s0 = tu_stats();
    tu_owners_start(&o);
    for (int m = 0; m < MOVES; m++) {
        CHECK_OK(uvas_migrate(area, (m % 2 + 1) * bs, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_migrate(area, (m % 2 + 1) * bs, UVAS_LOC_HOST, 0));
    }
    tu_owners_stop(&o);
    tu_owners_check_moved(&o, area, 2 * bs);
    struct uvas_stats s1 = tu_stats();
    printf("%d moves each way; writers %llu/%llu/%llu/%llu passes, reader %llu; %llu blocks to "
           "the device (%llu moves staged)\n", MOVES, (unsigned long long)o.last[0], (unsigned long long)o.last[1],
           (unsigned long long)o.last[2], (unsigned long long)o.last[3],
           (unsigned long long)o.reads,
           (unsigned long long)(s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE]),
           (unsigned long long)(s1.staged_blocks - s0.staged_blocks));
    CHECK(s1.migrations[UVAS_RES_DEVICE] - s0.migrations[UVAS_RES_DEVICE] >= MOVES * 3 / 2,
          "the block did not move to the device each time");
    free(o.owner);
    CHECK_OK(uvas_try_free(area));
    CHECK_OK(uvas_finalize());
    return 0;
}
