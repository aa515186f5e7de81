/*
 * The switch: UVAS_INJECT and UVAS_INJECT_SEED.
 *  - malformed values make uvas_init fail with UVAS_ERR_ENV and a message
 *    naming the variable and the bad part, and change nothing (the next
 *    uvas_init with a good value works);
 *  - every valid form is accepted;
 *  - the specs decide as documented: N fails the Nth call only, N+ from
 *    the Nth on, every:K each Kth, rate:P a deterministic share (the same
 *    calls for the same seed, others for another seed), rate:1 all;
 *  - uvas_stats.injected counts, and uvas_stats_print shows, what was
 *    injected.
 */
#include "inject-util.h"

static void expect_refused(const char *value, const char *part)
{
    tu_setenv("UVAS_INJECT", value);
    int st = uvas_init(NULL);
    const char *m = uvas_last_error();
    CHECK(st == UVAS_ERR_ENV, "UVAS_INJECT='%s': uvas_init returned %d (%s), expected "
          "UVAS_ERR_ENV", value, st, uvas_strerror(st));
    CHECK(m && strstr(m, "UVAS_INJECT") && strstr(m, part),
          "UVAS_INJECT='%s': message '%s' does not name UVAS_INJECT and '%s'", value,
          m ? m : "(null)", part);
    CHECK(!atomic_load(&uvas_inject_on), "UVAS_INJECT='%s' armed something", value);
    printf("  refused '%s': %s\n", value, m);
}

static void expect_accepted(const char *value)
{
    tu_setenv("UVAS_INJECT", value);
    int st = uvas_init(NULL);
    CHECK(st == UVAS_OK, "UVAS_INJECT='%s': uvas_init returned %d (%s)", value, st,
          uvas_strerror(st));
    CHECK_OK(uvas_finalize());
}

/* Which of calls 1..n of the DMA site fail, as a bit string. */
static void decide(const char *spec, uint64_t seed, char *out, int n)
{
    CHECK_OK(uvas_inject_configure(spec, seed));
    for (int i = 0; i < n; i++)
        out[i] = uvas_inject_fail(UVAS_INJ_DMA) ? 'x' : '.';
    out[n] = '\0';
    CHECK_EQ(uvas_inject_calls(UVAS_INJ_DMA), strstr(spec, "dma") ? n : 0, "calls counted");
    CHECK(!uvas_inject_fail(UVAS_INJ_MMAP) || strstr(spec, "mmap"), "an unnamed site fails");
}

int main(void)
{
    tu_deadline(60);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "64M");
    tu_setenv("UVAS_DEVICE", "none");

    static const struct { const char *v, *part; } bad[] = {
        {"dma", "'dma' has no ':'"},
        {"dma:", "bad spec ''"},
        {"dma:0", "bad spec '0'"},
        {"dma:x", "bad spec 'x'"},
        {"dma:-1", "bad spec '-1'"},
        {"dma:3++", "bad spec '3++'"},
        {"dma:every:", "bad spec 'every:'"},
        {"dma:every:0", "bad spec 'every:0'"},
        {"dma:rate:0", "bad spec 'rate:0'"},
        {"dma:rate:1.5", "bad spec 'rate:1.5'"},
        {"dma:rate:nan", "bad spec 'rate:nan'"},
        {"dma:rate:-0.5", "bad spec 'rate:-0.5'"},
        {"gpu:1", "unknown site 'gpu'"},
        {":1", "unknown site ''"},
        {"DMA:1", "unknown site 'DMA'"},
        {"dma:1,,mmap:2", "empty entry"},
        {",dma:1", "empty entry"},
        {"dma:1,", "ends with ','"},
        {"dma:1,dma:2", "site 'dma' is given twice"},
        {"dma:1,mmap", "'mmap' has no ':'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_refused(bad[i].v, bad[i].part);

    tu_setenv("UVAS_INJECT", "dma:1");
    tu_setenv("UVAS_INJECT_SEED", "seven");
    int st = uvas_init(NULL);
    CHECK(st == UVAS_ERR_ENV && strstr(uvas_last_error(), "UVAS_INJECT_SEED='seven'"),
          "a malformed seed: uvas_init returned %d, '%s'", st, uvas_last_error());
    printf("  refused seed: %s\n", uvas_last_error());
    unsetenv("UVAS_INJECT_SEED");

    expect_accepted("dma:3");
    expect_accepted("dma:3+");
    expect_accepted("dma:every:2");
    expect_accepted("dma:rate:0.25");
    expect_accepted("dma:rate:1");
    expect_accepted("device-alloc:9,export:9,map:every:9,dma:rate:.01,uffd:99+,mmap:9,"
                    "memfd:9,ucx:9");
    tu_setenv("UVAS_INJECT_SEED", "0x1234");
    expect_accepted("dma:rate:0.5");
    unsetenv("UVAS_INJECT_SEED");

    /* Decisions. */
    char got[64];
    decide("dma:3", 1, got, 10);
    CHECK(!strcmp(got, "..x......."), "dma:3 gave %s", got);
    decide("dma:3+", 1, got, 10);
    CHECK(!strcmp(got, "..xxxxxxxx"), "dma:3+ gave %s", got);
    decide("dma:every:4", 1, got, 10);
    CHECK(!strcmp(got, "...x...x.."), "dma:every:4 gave %s", got);
    decide("dma:rate:1", 1, got, 10);
    CHECK(!strcmp(got, "xxxxxxxxxx"), "dma:rate:1 gave %s", got);
    decide("mmap:1", 1, got, 10);
    CHECK(!strcmp(got, ".........."), "dma unarmed gave %s", got);
    char a[64], b[64], c[64];
    decide("dma:rate:0.5", 1, a, 60);
    decide("dma:rate:0.5", 1, b, 60);
    decide("dma:rate:0.5", 2, c, 60);
    CHECK(!strcmp(a, b), "rate:0.5 differs between runs with one seed: %s / %s", a, b);
    CHECK(strcmp(a, c), "rate:0.5 is the same for seeds 1 and 2: %s", a);
    size_t fails = 0;
    CHECK_OK(uvas_inject_configure("dma:rate:0.1", 3));
    for (int i = 0; i < 100000; i++)
        fails += uvas_inject_fail(UVAS_INJ_DMA);
    CHECK(fails > 9000 && fails < 11000, "rate:0.1 failed %zu of 100000 calls", fails);
    CHECK_EQ(uvas_inject_count(UVAS_INJ_DMA), fails, "failures counted");
    printf("  rate:0.5 seed 1: %s\n  rate:0.5 seed 2: %s\n  rate:0.1: %zu of 100000\n", a, c,
           fails);
    CHECK_OK(uvas_inject_configure("", 1));
    CHECK(!atomic_load(&uvas_inject_on), "an empty spec leaves injection armed");
    CHECK(uvas_inject_configure("dma:0", 1) == UVAS_ERR_ENV, "programmatic form refuses dma:0");

    /* Counted in the statistics, shown by uvas_stats_print. */
    tu_setenv("UVAS_INJECT", "dma:every:2");
    tu_init_env();
    for (int i = 0; i < 5; i++)
        (void)uvas_inject_fail(UVAS_INJ_DMA);
    CHECK_EQ(tu_stats().injected[UVAS_INJ_DMA], 2, "injected[dma]");
    char buf[8192] = {0};
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    CHECK(f != NULL, "fmemopen");
    CHECK_OK(uvas_stats_print(f));
    fclose(f);
    CHECK(strstr(buf, "injected failures: dma 2"), "uvas_stats_print:\n%s", buf);
    /* Same value at the next uvas_init: counting goes on. */
    CHECK_OK(uvas_finalize());
    tu_init_env();
    CHECK_EQ(tu_stats().injected[UVAS_INJ_DMA], 2, "injected[dma] after a re-init");
    CHECK_OK(uvas_finalize());
    /* Unset: disarmed. */
    unsetenv("UVAS_INJECT");
    tu_init_env();
    CHECK(!atomic_load(&uvas_inject_on), "UVAS_INJECT unset leaves injection armed");
    CHECK_EQ(tu_stats().injected[UVAS_INJ_DMA], 0, "injected[dma] after UVAS_INJECT unset");
    CHECK_OK(uvas_finalize());
    printf("UVAS_INJECT: %zu malformed values refused, specs decide as documented\n",
           sizeof bad / sizeof bad[0]);
    return 0;
}
