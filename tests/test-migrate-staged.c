/*
 * Staging lanes (migrate/staging.h), with UVAS_STAGE_FIRST=1 so that a CPU
 * device stages too: freshly written pages go to the device through a lane
 * (staged_blocks grows by the blocks moved) and arrive intact; the pinner
 * then imports them (pin_pending reaches 0), after which the way back and
 * the next way there use the kept imports (staged_blocks does not move).
 * Blocks born on the device (zero fills) have no import: their way back is
 * staged, and their zeros arrive. Data the CPU writes between the moves
 * survives every one. With UVAS_STAGE_FIRST=0 nothing is staged. A test
 * that ran the import path only would fail here, as staged variants of
 * the migration tests cannot tell. A lone block of 4 KiB pages (moved in
 * pieces, migrate.c's lone paths) is staged too, both ways. A finalize
 * right after staged moves,
 * the pinner still importing their blocks, ends cleanly, and the next
 * range starts with nothing pending.
 */
#include "check.h"

#include <time.h>

#define BLOCKS 24 /* three stages of eight */

static uint64_t rng = 0x737461676564ull;

static uint64_t staged(void)
{
    return tu_stats().staged_blocks;
}

/* The pinner works between migrations; nothing else runs here. */
static void settle_pinner(void)
{
    for (;;) {
        struct uvas_stats s = tu_stats();
        if (!s.pin_pending)
            return;
        nanosleep(&(struct timespec){0, 2 * 1000 * 1000}, NULL); /* the test's deadline bounds it */
    }
}

static void expect_data(const unsigned char *p, const unsigned char *want, size_t n,
                        const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != want[i])
            FAIL("%s: byte %zu is 0x%02x, expected 0x%02x", what, i, p[i], want[i]);
}

static void migrate(void *p, size_t len, int to)
{
    CHECK_OK(uvas_migrate(p, len, to, 0));
    tu_expect_blocks(p, len, to == UVAS_LOC_DEVICE ? UVAS_RES_DEVICE : UVAS_RES_HOST,
                     to == UVAS_LOC_DEVICE ? "after the move to the device"
                                           : "after the move to the host");
}

/* len bytes of uvas memory the CPU has just written, and their copy. */
static unsigned char *fresh(size_t len, unsigned char **want)
{
    unsigned char *p = uvas_malloc(len);
    *want = malloc(len);
    CHECK(p && *want, "allocations: %s", uvas_last_error());
    tu_fill_random(&rng, *want, len);
    memcpy(p, *want, len);
    return p;
}

/* len bytes (blocks blocks) born on the device: no host pages were ever
 * imported, so their way back is staged and their zeros arrive; then
 * written on the host and moved there and back before the pinner is
 * waited for: whatever path each block takes, the bytes arrive. want:
 * scratch of len bytes. */
static void device_born(size_t len, uint64_t blocks, unsigned char *want)
{
    unsigned char *z = uvas_malloc(len);
    CHECK(z != NULL, "uvas_malloc: %s", uvas_last_error());
    uint64_t s = staged();
    migrate(z, len, UVAS_LOC_DEVICE);
    CHECK_EQ(staged(), s, "zero fills staged");
    migrate(z, len, UVAS_LOC_HOST);
    CHECK_EQ(staged() - s, blocks, "blocks born on the device staged on their way to the host");
    long nz = tu_find_not(z, len, 0);
    CHECK(nz < 0, "a block born on the device came back with byte %ld = 0x%02x", nz,
          nz < 0 ? 0 : z[nz]);
    tu_fill_random(&rng, want, len);
    memcpy(z, want, len);
    migrate(z, len, UVAS_LOC_DEVICE);
    migrate(z, len, UVAS_LOC_HOST);
    expect_data(z, want, len, "blocks born on the device, written, moved there and back");
    settle_pinner();
    CHECK_OK(uvas_try_free(z));
}

static void staging_on(size_t bs)
{
    size_t len = BLOCKS * bs;
    unsigned char *want, *p = fresh(len, &want);

    uint64_t s0 = staged();
    migrate(p, len, UVAS_LOC_DEVICE);
    CHECK_EQ(staged() - s0, BLOCKS, "freshly written blocks staged on their way to the device");
    settle_pinner();
    uint64_t s1 = staged();
    char *text = NULL, want_line[96];
    size_t text_len = 0;
    FILE *f = open_memstream(&text, &text_len);
    CHECK(f != NULL, "open_memstream");
    CHECK_OK(uvas_stats_print(f));
    fclose(f);
    snprintf(want_line, sizeof want_line, "staging: %llu block moves through staging memory",
             (unsigned long long)s1);
    CHECK(strstr(text, want_line) != NULL, "uvas_stats_print lacks '%s':\n%s", want_line, text);
    free(text);
    migrate(p, len, UVAS_LOC_HOST);
    CHECK_EQ(staged(), s1, "blocks the pinner imported staged on their way back");
    expect_data(p, want, len, "after a staged move there and an imported move back");

    tu_fill_random(&rng, want, len);
    memcpy(p, want, len);
    migrate(p, len, UVAS_LOC_DEVICE);
    migrate(p, len, UVAS_LOC_HOST);
    CHECK_EQ(staged(), s1, "blocks with kept imports staged");
    expect_data(p, want, len, "after a second round trip");
    CHECK_OK(uvas_try_free(p));

    device_born(len, BLOCKS, want);
    free(want);
}

static void staging_off(size_t bs)
{
    size_t len = BLOCKS * bs;
    unsigned char *want, *p = fresh(len, &want);
    uint64_t s0 = staged();
    migrate(p, len, UVAS_LOC_DEVICE);
    migrate(p, len, UVAS_LOC_HOST);
    CHECK_EQ(staged(), s0, "blocks staged with UVAS_STAGE_FIRST=0");
    expect_data(p, want, len, "after a round trip of imports");
    CHECK_OK(uvas_try_free(p));
    free(want);
}

/* One block of 2 MiB in 4 KiB pages: the lone paths, piece by piece. */
static void staging_lone(size_t bs)
{
    unsigned char *want, *p = fresh(bs, &want);
    uint64_t s0 = staged();
    migrate(p, bs, UVAS_LOC_DEVICE);
    CHECK_EQ(staged() - s0, 1, "a freshly written lone block staged to the device");
    settle_pinner();
    migrate(p, bs, UVAS_LOC_HOST);
    CHECK_EQ(staged() - s0, 1, "a lone block the pinner imported staged on its way back");
    expect_data(p, want, bs, "a lone block staged there, imported back");
    CHECK_OK(uvas_try_free(p));

    device_born(bs, 1, want);
    free(want);
}

/* The pinner's work cut short by uvas_finalize, rounds over. */
static void finalize_while_pinning(void)
{
    for (int r = 0; r < 8; r++) {
        struct uvas_range_desc d = tu_init_device("256M", "64K");
        CHECK_EQ(tu_stats().pin_pending, 0, "imports pending in a new range");
        size_t len = BLOCKS * d.block_size;
        unsigned char *want, *p = fresh(len, &want);
        migrate(p, len, UVAS_LOC_DEVICE);
        migrate(p, len, UVAS_LOC_HOST);
        expect_data(p, want, len, "staged there and back before a finalize");
        free(want);
        CHECK_OK(uvas_finalize());
    }
}

int main(void)
{
    tu_deadline(50);
    tu_setenv("TU_SET_UVAS_STAGE_FIRST", "1");
    struct uvas_range_desc d = tu_init_device("256M", "64K");
    staging_on(d.block_size);
    CHECK_OK(uvas_finalize());
    d = tu_init_device("256M", "2M");
    CHECK(d.block_size >= 256 * 4096, "blocks of %zu bytes: not the lone paths", d.block_size);
    staging_lone(d.block_size);
    CHECK_OK(uvas_finalize());
    finalize_while_pinning();

    tu_setenv("TU_SET_UVAS_STAGE_FIRST", "0");
    d = tu_init_device("256M", "64K");
    staging_off(d.block_size);
    CHECK_OK(uvas_finalize());
    printf("migrate-staged: staged both ways, imports kept after the pinner, none when off\n");
    return 0;
}
