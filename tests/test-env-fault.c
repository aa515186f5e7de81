/*
 * UVAS_FAULT ("auto" | "uffd" | "eager") and UVAS_FAULT_THREADS (1..256):
 * accepted values are reflected by uvas_range(); anything else is
 * UVAS_ERR_ENV naming the variable. Each case runs in its own child.
 */
#include "check.h"

static int expect_env_error(const char *var, const char *value)
{
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "32M");
    tu_setenv(var, value);
    int st = uvas_init(NULL);
    CHECK(st == UVAS_ERR_ENV,
          "%s=\"%s\": uvas_init returned %d (%s), expected UVAS_ERR_ENV", var,
          value, st, uvas_strerror(st));
    CHECK(strstr(uvas_last_error(), var) != NULL,
          "%s=\"%s\": last error \"%s\" does not name the variable", var,
          value, uvas_last_error());
    CHECK_STATUS(uvas_finalize(), UVAS_ERR_NOT_INIT);
    return 0;
}

static int bad_fault(void *arg) { return expect_env_error("UVAS_FAULT", arg); }
static int bad_threads(void *arg)
{
    return expect_env_error("UVAS_FAULT_THREADS", arg);
}

static int mode_auto(void *arg)
{
    (void)arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "32M");
    tu_setenv("UVAS_FAULT", "auto");
    tu_init_env();
    struct uvas_range_desc d = tu_range();
    CHECK(d.fault_mode == UVAS_FAULT_UFFD || d.fault_mode == UVAS_FAULT_EAGER,
          "auto: fault_mode %d is neither UFFD nor EAGER", d.fault_mode);
    CHECK(d.fault_note != NULL, "fault_note is NULL");
    if (d.fault_mode == UVAS_FAULT_UFFD)
        CHECK(d.fault_threads >= 1, "uffd mode with %u fault threads",
              d.fault_threads);
    else
        CHECK_EQ(d.fault_threads, 0, "eager mode fault_threads");
    CHECK_OK(uvas_finalize());
    return 0;
}

static int mode_eager(void *arg)
{
    (void)arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "32M");
    tu_setenv("UVAS_FAULT", "eager");
    tu_init_env();
    struct uvas_range_desc d = tu_range();
    CHECK_EQ(d.fault_mode, UVAS_FAULT_EAGER, "fault_mode");
    CHECK_EQ(d.fault_threads, 0, "eager mode fault_threads");
    CHECK_OK(uvas_finalize());
    return 0;
}

/* UVAS_FAULT=uffd: the mode, or (if the kernel refuses) a failed init. */
static int mode_uffd(void *arg)
{
    const char *threads = arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "32M");
    tu_setenv("UVAS_FAULT", "uffd");
    if (threads)
        tu_setenv("UVAS_FAULT_THREADS", threads);
    int st = uvas_init(NULL);
    if (st == UVAS_ERR_PERM || st == UVAS_ERR_SYS)
        SKIP("userfaultfd is unavailable: %s", uvas_last_error());
    CHECK(st == 0, "UVAS_FAULT=uffd: uvas_init %d (%s)", st,
          uvas_strerror(st));
    struct uvas_range_desc d = tu_range();
    CHECK_EQ(d.fault_mode, UVAS_FAULT_UFFD, "fault_mode");
    if (threads)
        CHECK((unsigned)atoi(threads) == d.fault_threads,
              "UVAS_FAULT_THREADS=%s: fault_threads %u", threads,
              d.fault_threads);
    else
        CHECK(d.fault_threads >= 1 && d.fault_threads <= 256,
              "default fault_threads %u", d.fault_threads);
    /* The fault path works with this many threads. */
    char *p = uvas_malloc(1 << 20);
    CHECK(p != NULL, "uvas_malloc failed: errno %d", errno);
    for (size_t i = 0; i < (1 << 20); i += 4096)
        CHECK(tu_read_byte(p + i) == 0, "byte %zu not zero", i);
    memset(p, 0x11, 1 << 20);
    CHECK(tu_find_not(p, 1 << 20, 0x11) < 0, "data lost");
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    return 0;
}

static const char *const bad_modes[] = {"", "sigbus", "lazy", "1", "none",
                                        "uffd,eager"};
static const char *const bad_thread_counts[] = {"0", "257", "x", "", "-1",
                                                "1000", "4K", "2.5"};

int main(void)
{
    tu_deadline(58);
    int failed = 0, skipped = 0, rc;
    for (size_t i = 0; i < sizeof bad_modes / sizeof bad_modes[0]; i++) {
        rc = tu_run_child(bad_fault, (void *)bad_modes[i], 10);
        if (rc != 0) {
            fprintf(stderr, "case UVAS_FAULT=\"%s\" failed: status %d\n",
                    bad_modes[i], rc);
            failed = 1;
        }
    }
    for (size_t i = 0;
         i < sizeof bad_thread_counts / sizeof bad_thread_counts[0]; i++) {
        rc = tu_run_child(bad_threads, (void *)bad_thread_counts[i], 10);
        if (rc != 0) {
            fprintf(stderr, "case UVAS_FAULT_THREADS=\"%s\" failed: status %d\n",
                    bad_thread_counts[i], rc);
            failed = 1;
        }
    }
    rc = tu_run_child(mode_auto, NULL, 10);
    if (rc != 0) {
        fprintf(stderr, "case UVAS_FAULT=auto failed: status %d\n", rc);
        failed = 1;
    }
    rc = tu_run_child(mode_eager, NULL, 10);
    if (rc != 0) {
        fprintf(stderr, "case UVAS_FAULT=eager failed: status %d\n", rc);
        failed = 1;
    }
    static const char *const threads[] = {NULL, "1", "3", "256"};
    for (size_t i = 0; i < 4; i++) {
        rc = tu_run_child(mode_uffd, (void *)threads[i], 20);
        if (rc == TU_EXIT_SKIP) {
            skipped = 1;
        } else if (rc != 0) {
            fprintf(stderr, "case UVAS_FAULT=uffd UVAS_FAULT_THREADS=%s "
                    "failed: status %d\n", threads[i] ? threads[i] : "(unset)",
                    rc);
            failed = 1;
        }
    }
    if (failed)
        return TU_EXIT_FAIL;
    if (skipped)
        SKIP("userfaultfd unavailable: the uffd cases did not run");
    return TU_EXIT_PASS;
}
