/*
 * Helpers shared by the fault-injection tests (tests/inject/), linked into
 * each (inject-util.c). They link the static core, so they can arm
 * injection mid-run with uvas_inject_configure() (UVAS_INJECT counts calls
 * from uvas_init, which makes some calls itself) and look at internal
 * state.
 */
#ifndef UVAS_TEST_INJECT_UTIL_H
#define UVAS_TEST_INJECT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "tests/check.h"
#include "uvas/inject.h"

/* A byte pattern that depends on the position and a salt, never zero. */
unsigned char ti_pat(size_t i, unsigned salt);
void ti_fill(unsigned char *p, size_t n, unsigned salt);

/* Every byte of [p, p+n) is the pattern (a read also brings blocks back). */
#define ti_verify(p, n, salt, bs, what)                                                   \
    do {                                                                                  \
        const unsigned char *ti_p_ = (const unsigned char *)(p);                          \
        for (size_t ti_i_ = 0; ti_i_ < (size_t)(n); ti_i_++)                              \
            if (ti_p_[ti_i_] != ti_pat(ti_i_, (salt)))                                    \
                FAIL("%s: byte %zu (block %zu) is 0x%02x, expected 0x%02x: data lost",   \
                     (what), ti_i_, ti_i_ / (bs), ti_p_[ti_i_], ti_pat(ti_i_, (salt)));   \
    } while (0)

/* Arm injection (the UVAS_INJECT syntax); "" disarms. */
void ti_arm(const char *spec);

/* A status is the expected one and uvas_last_error() mentions `word`. */
#define ti_expect_error(expr, expected, word)                                             \
    do {                                                                                  \
        int ti_st_ = (expr);                                                              \
        const char *ti_m_ = uvas_last_error();                                            \
        CHECK(ti_st_ == (expected), "%s returned %d (%s), expected %d (%s)", #expr,      \
              ti_st_, uvas_strerror(ti_st_), (expected), uvas_strerror(expected));       \
        CHECK(ti_m_ && strstr(ti_m_, (word)), "%s: uvas_last_error '%s' does not say '%s'", \
              #expr, ti_m_ ? ti_m_ : "(null)", (word));                                   \
        printf("  %s -> %s: %s\n", #expr, uvas_strerror(ti_st_), ti_m_);                 \
    } while (0)

uint64_t ti_injected(int site);
/* Blocks of [p, p+len) at residence res. */
size_t ti_count(const void *p, size_t len, int res);

/* A child's uvas: 256 MiB in blocks of 64 KiB, initialised, into *d.
 * 0, or what the child exits with: 1 (init failed), TU_EXIT_SKIP (no
 * userfaultfd or no device tier). */
int ti_child_init(struct uvas_range_desc *d);

/* For children that expect the fault path to give up: SIGBUS ends the
 * child with this status (a handler of ours, so sanitizers stay out). */
#define TI_EXIT_SIGBUS 42
void ti_catch_sigbus(void);

#endif
