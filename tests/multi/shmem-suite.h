/*
 * What the OpenSHMEM API tests (test-shmem-*.c, one per behaviour) share:
 * the start (even PEs with shmem_init_thread(SHMEM_THREAD_MULTIPLE), odd
 * ones with shmem_init, so both entry points run in every job), counted
 * checks, and byte patterns that name the PE that wrote them. Only
 * <shmem.h> and the test helpers: the API as a program sees it.
 */
#ifndef UVAS_TEST_SHMEM_SUITE_H
#define UVAS_TEST_SHMEM_SUITE_H

#include <shmem.h>

#include <stddef.h>

#include "tests/check.h"

#ifdef __cplusplus
extern "C" {
#endif

extern int me, npes, right, left;
extern int dev_present;
extern unsigned long nchecks;

/* CHECK, counted. */
#define OK(cond, ...)                                                          \
    do {                                                                       \
        nchecks++;                                                             \
        CHECK(cond, __VA_ARGS__);                                              \
    } while (0)
#define OK_EQ(a, b, what)                                                      \
    do {                                                                       \
        nchecks++;                                                             \
        CHECK_EQ(a, b, what);                                                  \
    } while (0)

/* A small value that identifies (pe, i) and fits every type, char included. */
#define VAL(T, pe, i) ((T)((((pe) * 37 + (i) * 5 + 7) & 0x7f)))

unsigned char pat(int pe, size_t i, int salt);
void fill_pat(unsigned char *p, size_t n, int pe, int salt);
void expect_pat(const unsigned char *p, size_t n, int pe, int salt, const char *what);

/* Start the job (skips on one PE) and check the thread level and the
 * default heap; returns the thread level. */
int suite_start(void);
/* Barrier, finalize, and a line with what passed. */
void suite_end(const char *name, int thread_level);

#ifdef __cplusplus
}
#endif

#endif
