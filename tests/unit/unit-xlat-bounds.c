/*
 * The translation table's header and fault bitmaps are the kernels' own
 * memory (gpu/xlat.h): a kernel can write any word of them. The host must
 * never act outside its tables on what it reads there, and a header a
 * kernel overwrote must not steer later runs.
 *  - Fault bitmaps with bits past the last word of req0 (a req1 bit of a
 *    word that does not exist) or past the last block (the end of the last
 *    req0 word) name nothing; the bits that name blocks are all reported.
 *  - Every run begins with the header's fixed fields as init set them
 *    (the sink, the bitmaps', counters' and runs' addresses, the range).
 */
#include "../check.h"
#include "gpu/xlat.h"
#include "uvas/internal.h"

#define NBLOCKS 500 /* not a multiple of 32: the last req0 word is partly past the end */

struct seen {
    size_t n, bad, last;
    bool got[NBLOCKS];
};

static void note(size_t bi, void *arg)
{
    struct seen *s = arg;
    s->n++;
    if (bi >= NBLOCKS) {
        s->bad++;
        s->last = bi;
        return;
    }
    s->got[bi] = true;
}

int main(void)
{
    tu_deadline(30);
    struct uvas_range_desc d = tu_init_device("64M", "64K");
    struct uvas_vulkan *dev = &uvas_g.devtier.dev;
    if (!dev->kernels)
        SKIP("'%s' runs no kernels (%s): no translation table", d.device_name, dev->no_kernels);
    struct uvas_xlat x;
    CHECK_OK(uvas_xlat_init(&x, dev, 0x200000000000ull, 16, NBLOCKS));
    CHECK(x.nreq0 == 16 && x.nreq1 == 1, "bitmaps of %zu and %zu words", x.nreq0, x.nreq1);

    /* Bits a correct kernel sets: blocks 3, 37 and 499 (the last). */
    uvas_xlat_run_begin(&x, true);
    x.req0[0] = 1u << 3;
    x.req0[1] = 1u << 5;
    x.req0[15] = 1u << 19;
    x.req1[0] = 1u | 2u | (1u << 15);
    struct seen s = {0};
    uvas_xlat_requests(&x, note, &s);
    CHECK(s.n == 3 && s.got[3] && s.got[37] && s.got[499], "%zu blocks reported", s.n);

    /* Forged: a req1 bit for word 16 (there are 16 words: it is req1[0]
     * itself, then words past the bitmaps), and bits of the last word past
     * block 499. */
    uvas_xlat_run_begin(&x, true);
    x.req0[15] = 0xfff80000u | (1u << 19); /* blocks 499 and 500..511 */
    x.req1[0] = (1u << 15) | (1u << 16) | (1u << 31);
    memset(&s, 0, sizeof s);
    uvas_xlat_requests(&x, note, &s);
    CHECK(s.bad == 0, "%zu block numbers past the table reported (the last %zu)", s.bad, s.last);
    CHECK(s.n == 1 && s.got[499], "%zu blocks reported, block 499 %s", s.n,
          s.got[499] ? "among them" : "missing");

    /* A kernel overwrote the header's fixed fields: the next run begins
     * with init's again. */
    struct uvas_xlat_header want = x.fixed;
    volatile struct uvas_xlat_header *h = x.hdr;
    h->base = 1;
    h->shift = 3;
    h->nblocks = 1u << 30;
    h->sink = 0xdead0000;
    h->req = 0xdead1000;
    h->counts = 0xdead2000;
    h->runs = 0xdead3000;
    uvas_xlat_run_begin(&x, false);
    CHECK(h->base == want.base && h->shift == want.shift && h->nblocks == NBLOCKS &&
              h->sink == want.sink && h->req == want.req && h->counts == want.counts &&
              h->runs == want.runs,
          "the header after a run's begin: base %#llx shift %u nblocks %u sink %#llx req "
          "%#llx counts %#llx runs %#llx",
          (unsigned long long)h->base, h->shift, h->nblocks, (unsigned long long)h->sink,
          (unsigned long long)h->req, (unsigned long long)h->counts,
          (unsigned long long)h->runs);
    CHECK(want.sink && want.req && want.counts && want.runs, "init left an address unset");

    uvas_xlat_fini(&x);
    CHECK_OK(uvas_finalize());
    printf("fault bitmaps bounded by the table; the header's fixed fields restored each run\n");
    return 0;
}
