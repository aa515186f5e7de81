/*
 * uvas_strerror names every status (never NULL, also for unknown codes);
 * uvas_residence_name names the residences; uvas_last_error is "" in a
 * thread that never failed, non-empty after a failure, and per thread: one
 * thread's failure does not change another thread's message. After a
 * success it is "" again (uvas.h: every fallible call clears it first):
 * the queries and a free of NULL left the last failure's message behind
 * (found by review).
 */
#include <pthread.h>

#include "check.h"

static const struct {
    int status;
    const char *name;
} names[] = {
    {UVAS_OK, "UVAS_OK"},
    {UVAS_ERR_INVAL, "UVAS_ERR_INVAL"},
    {UVAS_ERR_NOT_OWNED, "UVAS_ERR_NOT_OWNED"},
    {UVAS_ERR_NOMEM, "UVAS_ERR_NOMEM"},
    {UVAS_ERR_ADDR_IN_USE, "UVAS_ERR_ADDR_IN_USE"},
    {UVAS_ERR_ENV, "UVAS_ERR_ENV"},
    {UVAS_ERR_ALREADY_INIT, "UVAS_ERR_ALREADY_INIT"},
    {UVAS_ERR_NOT_INIT, "UVAS_ERR_NOT_INIT"},
    {UVAS_ERR_PERM, "UVAS_ERR_PERM"},
    {UVAS_ERR_SYS, "UVAS_ERR_SYS"},
    {UVAS_ERR_NO_DEVICE, "UVAS_ERR_NO_DEVICE"},
    {UVAS_ERR_DOUBLE_FREE, "UVAS_ERR_DOUBLE_FREE"},
};

static char main_msg[1024];

static void fail_once(void)
{
    CHECK_STATUS(uvas_migrate(NULL, 1, UVAS_LOC_HOST, 0), UVAS_ERR_NOT_OWNED);
    CHECK(uvas_last_error()[0] != '\0', "no message after a failed uvas_migrate");
}

#define CLEARS(call)                                                                        \
    do {                                                                                    \
        fail_once();                                                                        \
        CHECK_OK(call);                                                                     \
        CHECK(uvas_last_error()[0] == '\0', "%s succeeded and left \"%s\"", #call,          \
              uvas_last_error());                                                           \
    } while (0)

/* Each call that succeeds clears the message of a failure before it. */
static void successes_clear(void)
{
    char *p = uvas_malloc(1 << 20);
    CHECK(p != NULL, "uvas_malloc");
    struct uvas_ptr_info info;
    struct uvas_range_info ri;
    uint8_t map[4];
    size_t nb;
    struct uvas_stats st;
    CLEARS(uvas_query(p, &info));
    CLEARS(uvas_query_range(p, 4096, &ri));
    CLEARS(uvas_residency_map(p, 4096, map, 4, &nb));
    CLEARS(uvas_try_free(NULL));
    CLEARS(uvas_migrate(p, 4096, UVAS_LOC_HOST, 0));
    CLEARS(uvas_stats_get(&st));
    CLEARS(uvas_try_free(p));
}

static void *fresh_thread(void *arg)
{
    (void)arg;
    const char *m = uvas_last_error();
    CHECK(m != NULL && m[0] == '\0',
          "a fresh thread's last error is \"%s\", expected \"\"",
          m ? m : "(null)");
    /* A failure here... */
    int local;
    CHECK_STATUS(uvas_try_free(&local), UVAS_ERR_NOT_OWNED);
    m = uvas_last_error();
    CHECK(m[0] != '\0', "no message after a failed uvas_try_free");
    CHECK(strcmp(m, main_msg) != 0,
          "the thread's message equals main's: \"%s\"", m);
    return NULL;
}

int main(void)
{
    tu_deadline(30);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "32M");

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *s = uvas_strerror(names[i].status);
        CHECK(s != NULL, "uvas_strerror(%d) is NULL", names[i].status);
        CHECK(strstr(s, names[i].name) != NULL,
              "uvas_strerror(%d) = \"%s\" does not contain %s",
              names[i].status, s, names[i].name);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(s, uvas_strerror(names[j].status)) != 0,
                  "statuses %d and %d share the name \"%s\"", names[i].status,
                  names[j].status, s);
    }
    static const int unknown[] = {-12, -999, 1, 42, -2147483647 - 1};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *s = uvas_strerror(unknown[i]);
        CHECK(s != NULL && s[0] != '\0', "uvas_strerror(%d) is empty or NULL",
              unknown[i]);
    }
    CHECK(strcmp(uvas_residence_name(UVAS_RES_UNPOPULATED), "unpopulated") == 0,
          "residence name 0: \"%s\"", uvas_residence_name(UVAS_RES_UNPOPULATED));
    CHECK(strcmp(uvas_residence_name(UVAS_RES_HOST), "host") == 0,
          "residence name 1: \"%s\"", uvas_residence_name(UVAS_RES_HOST));
    CHECK(strcmp(uvas_residence_name(UVAS_RES_DEVICE), "device") == 0,
          "residence name 2: \"%s\"", uvas_residence_name(UVAS_RES_DEVICE));
    CHECK(uvas_residence_name(77) != NULL, "residence name 77 is NULL");

    const char *m = uvas_last_error();
    CHECK(m != NULL && m[0] == '\0', "main's last error before any failure: "
          "\"%s\"", m ? m : "(null)");

    tu_init_env();
    errno = 0;
    CHECK(uvas_malloc(0) == NULL, "uvas_malloc(0) did not fail");
    m = uvas_last_error();
    CHECK(m[0] != '\0', "no message after uvas_malloc(0)");
    snprintf(main_msg, sizeof main_msg, "%s", m);

    pthread_t t;
    CHECK(pthread_create(&t, NULL, fresh_thread, NULL) == 0, "pthread_create");
    pthread_join(t, NULL);

    CHECK(strcmp(uvas_last_error(), main_msg) == 0,
          "main's message changed by another thread's failure: \"%s\" -> "
          "\"%s\"", main_msg, uvas_last_error());
    successes_clear();
    CHECK_OK(uvas_finalize());
    return 0;
}
