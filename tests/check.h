/*
 * check.h — the shared helpers of the uvas test programs: CHECK and
 * friends, the environment, the range. Bodies in tests/helpers.c, linked
 * into every test program.
 *
 * Exit status follows meson's convention: 0 pass, 1 fail, 77 skip.
 * CHECK() failures print file:line, the failed condition and a message,
 * then leave with _exit(1) (not exit(): a failing worker thread must not
 * run the library's destructors while other threads still use the range).
 * C++ test programs (OpenSHMEM's overloads) include it too: all but the
 * owned-words checker, which needs C11 atomics.
 */
#ifndef UVAS_TEST_CHECK_H
#define UVAS_TEST_CHECK_H

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#ifndef __cplusplus
#include <stdatomic.h>
#endif
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uvas.h"
#include "uvas_gpu.h"

#ifdef __cplusplus
#define TU_NORETURN [[noreturn]]
extern "C" {
#else
#define TU_NORETURN _Noreturn
#endif

#define TU_EXIT_PASS 0
#define TU_EXIT_FAIL 1
#define TU_EXIT_SKIP 77

/* Leave the process now, flushing what was printed. */
TU_NORETURN void tu_exit(int code);

TU_NORETURN void tu_fail_at(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* CHECK(cond, fmt, ...): fail the test with a message unless cond holds. */
#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond))                                                        \
            tu_fail_at(__FILE__, __LINE__, #cond, __VA_ARGS__);             \
    } while (0)

/* FAIL(fmt, ...): unconditional failure. */
#define FAIL(...) tu_fail_at(__FILE__, __LINE__, "FAIL", __VA_ARGS__)

/* Integer equality with both values printed. */
#define CHECK_EQ(a, b, what)                                                \
    do {                                                                    \
        long long tu_a_ = (long long)(a), tu_b_ = (long long)(b);           \
        if (tu_a_ != tu_b_)                                                 \
            tu_fail_at(__FILE__, __LINE__, #a " == " #b,                    \
         "%s: got %lld (0x%llx), expected %lld (0x%llx)",     \
         (what), tu_a_, (unsigned long long)tu_a_, tu_b_,     \
         (unsigned long long)tu_b_);                          \
    } while (0)

/* A uvas status call must return `expected`. */
#define CHECK_STATUS(expr, expected)                                        \
    do {                                                                    \
        int tu_st_ = (expr);                                                \
        int tu_ex_ = (expected);                                            \
        if (tu_st_ != tu_ex_)                                               \
            tu_fail_at(__FILE__, __LINE__, #expr,                           \
         "returned %d (%s), expected %d (%s)", tu_st_,        \
         uvas_strerror(tu_st_), tu_ex_,                       \
         uvas_strerror(tu_ex_));                              \
    } while (0)

#define CHECK_OK(expr) CHECK_STATUS((expr), UVAS_OK)

/* A pointer-returning uvas call must fail with NULL and errno `err`. */
#define CHECK_NULL_ERRNO(expr, err)                                         \
    do {                                                                    \
        errno = 0;                                                          \
        void *tu_p_ = (void *)(expr);                                       \
        int tu_e_ = errno;                                                  \
        if (tu_p_ != NULL)                                                  \
            tu_fail_at(__FILE__, __LINE__, #expr,                           \
         "returned %p, expected NULL (errno %s)", tu_p_,      \
         #err);                                               \
        if (tu_e_ != (err))                                                 \
            tu_fail_at(__FILE__, __LINE__, #expr,                           \
         "errno %d (%s), expected %d (%s)", tu_e_,            \
         strerror(tu_e_), (err), strerror(err));              \
    } while (0)

/* SKIP(fmt, ...): print "SKIP: why" and exit 77. */
#define SKIP(...)                                                           \
    do {                                                                    \
        printf("SKIP: ");                                                   \
        printf(__VA_ARGS__);                                                \
        printf("\n");                                                       \
        fprintf(stderr, "SKIP: ");                                          \
        fprintf(stderr, __VA_ARGS__);                                       \
        fprintf(stderr, "\n");                                              \
        tu_exit(TU_EXIT_SKIP);                                              \
    } while (0)

/* ---- environment --------------------------------------------------------- */

/* Remove every UVAS_* variable so a test starts from the defaults. */
void tu_clear_env(void);

void tu_setenv(const char *name, const char *value);
/* Under ThreadSanitizer, a fixed range base in its application region
 * (UVAS_BASE): PEs need one base, and kernels compiled for one base are
 * found in Mesa's shader cache by the next run (test-gpu-shmem-rma.c). */
void tu_tsan_base(void);

/* Seconds on the monotonic clock, for loops bounded by time. */
double tu_now_s(void);

/* Bound the whole program: SIGALRM's default action kills it (a failure). */
void tu_deadline(unsigned seconds);

/* Fail the test if it is not over in `seconds` (a thread, not SIGALRM),
 * reporting the place tu_where last named and every thread's stack. Under
 * meson's timeout, so that a hang in CI says where it was; TU_WATCHDOG_S
 * in the environment overrides `seconds`. A later call moves the deadline
 * to `seconds` from then (a long first step, then the rest). */
void tu_watchdog(unsigned seconds);
/* Name the phase a test is in, for the watchdog's report (a literal). */
void tu_where(const char *what);

/* ---- the range ------------------------------------------------------------ */

struct uvas_range_desc tu_range(void);

/*
 * For tests that need first-touch interception: after uvas_init, skip
 * unless the range runs in userfaultfd mode.
 */
struct uvas_range_desc tu_require_uffd(void);

/* uvas_init with the environment; fail the test on error. */
void tu_init_env(void);

int tu_in_range(const struct uvas_range_desc *d, const void *p,
                size_t len);

/* Read one byte through a volatile access (a real load, populates). */
unsigned char tu_read_byte(const void *p);

void tu_write_byte(void *p, unsigned char v);

int tu_residence(const void *p);

struct uvas_stats tu_stats(void);

/* Index of the first byte of [p, p+n) that is not `v`, or -1. */
long tu_find_not(const void *p, size_t n, unsigned char v);

/* ---- child processes ------------------------------------------------------ */

/*
 * Run fn(arg) in a forked child (which must not inherit an initialised
 * range: call this before uvas_init in the parent). Returns the child's
 * exit status, or 128+signal if it was killed. The child is bounded by
 * `seconds` through alarm().
 */
int tu_run_child(int (*fn)(void *), void *arg, unsigned seconds);

/* Write/read exactly n bytes on a descriptor (retrying short transfers). */
/* A gate a queue's host function waits at until the test opens it
 * (tu_gate_wait has the host function's signature). */
struct tu_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int open;
};
#define TU_GATE {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0}
void tu_gate_wait(void *gate);
void tu_gate_open(struct tu_gate *g);

int tu_write_all(int fd, const void *buf, size_t n);

int tu_read_all(int fd, void *buf, size_t n);

/* Deterministic PRNG (xorshift64*), the same in every process. */
uint64_t tu_rand(uint64_t *s);

/* A fresh environment with UVAS_SIZE and UVAS_BLOCK_SIZE, uvas_init, and
 * a skip without userfaultfd: the setup most tests share. */
struct uvas_range_desc tu_init_range(const char *size, const char *block);

/* Device-tier tests: a clean environment with a range of `size` in blocks
 * of `block`, uvas initialised, and a skip unless userfaultfd and the
 * device tier are there. */
struct uvas_range_desc tu_init_device(const char *size, const char *block);
/* The same under the policy spec `policy` (NULL: the default). */
struct uvas_range_desc tu_init_device_policy(const char *size, const char *block,
                                             const char *policy);

/* st is want and the last error says word; the message is printed. */
void tu_expect_refused(int st, int want, const char *word, const char *what);
/* One descriptor and len bytes over a Unix socket (SCM_RIGHTS), and back:
 * the received descriptor. */
void tu_send_fd(int sock, int fd, const void *data, size_t len);
/* The same with n (1 to 4) descriptors on one message. */
void tu_send_fds(int sock, const int *fds, int n, const void *data, size_t len);
/* Descriptors open in this process (/proc/self/fd, the listing's own too). */
int tu_count_fds(void);
/* This process's descriptors whose target (as /proc/self/fd shows it)
 * contains `what` ("memfd:name", "pipe:[inode]"): a leak check that a
 * library thread's passing descriptor cannot upset, as a count can. */
int tu_fds_to(const char *what);
int tu_recv_fd(int sock, void *data, size_t len);

/* The block holding p is at residence res, with (mapped 1) or without a
 * CPU view of its device memory. */
void tu_expect_view(const void *p, int res, int mapped, const char *what);

/* n pseudo-random bytes, never zero: zeros would hide a lost block. */
void tu_fill_random(uint64_t *rng, unsigned char *dst, size_t n);

/* Every block covering [p, p+len) has residence res. */
void tu_expect_blocks(const void *p, size_t len, int res, const char *what);

#ifndef __cplusplus
/*
 * Owned words: writers that each own words of an area, store an
 * increasing counter into each of theirs in turn ((pass << 8) | t), and
 * first read the word back: it must hold what the writer stored last (or
 * its pattern, on the first pass): a lost write or a stale read fails.
 * A reader checks every read_step-th unowned word keeps its pattern.
 * Fill in the fields above `owner`, put every word's pattern in the
 * area, tu_owners_start; tu_owners_stop stops and joins them (last[t]:
 * writer t's last pass) and tu_owners_check checks the whole area.
 */
#define TU_OWNERS_MAX 8
struct tu_owners {
    volatile uint64_t *area;
    size_t words;
    int writers;                        /* at most TU_OWNERS_MAX */
    const size_t *word[TU_OWNERS_MAX];  /* writer t's words, nword[t] of them */
    size_t nword[TU_OWNERS_MAX];
    uint64_t (*pattern)(size_t i);      /* an unowned word's value */
    const char *unit;                   /* for messages: word i is in unit i / unit_words */
    size_t unit_words;
    size_t read_step;
    /* tu_owners_start's */
    uint8_t *owner; /* per word: its writer + 1, 0 unowned */
    atomic_int stop;
    pthread_t wt[TU_OWNERS_MAX], rt;
    uint64_t last[TU_OWNERS_MAX], reads;
};
void tu_owners_start(struct tu_owners *o);
void tu_owners_stop(struct tu_owners *o);
/* Every owned word holds its writer's last value, every other word its
 * pattern (when: for the message). */
void tu_owners_check(const struct tu_owners *o, const char *when);
/* The same with [p, p + len) (the area's allocation) moved to the
 * device first, then back to the host. */
void tu_owners_check_moved(const struct tu_owners *o, void *p, size_t len);
#endif

/* Every block covering [p, p+len) reaches residence res within 10 s. For
 * blocks that a migration this thread did not wait for may still be
 * publishing (CPU-fault readahead maps a stage's pages, then publishes
 * them: a reader can be done with them first, and under load the
 * publication comes milliseconds later). */
void tu_settle_blocks(const void *p, size_t len, int res, const char *what);

/* The uvas-stat endpoint (an abstract socket "uvas-stat/<uid>/<pid>/...",
 * uvas/stat_server.c) that process pid of user uid listens on, as an address
 * to connect to; false when it has none. */
bool tu_stat_endpoint(pid_t pid, uid_t uid, struct sockaddr_un *a, socklen_t *len);

/* ---- kernels ---------------------------------------------------------------- */

/* A file, whole; exits on error. *bytes: its size. free() it. */
void *tu_read_file(const char *path, size_t *bytes);
/* The SPIR-V of tests/gpu/NAME.comp, built beside the test programs. */
void *tu_spirv(const char *name, size_t *bytes);
/* Its kernel "main"; a skip (77) when this machine has no device that
 * can run kernels, saying why. uvas must be started. */
uvas_kernel_t *tu_kernel(const char *name);
/* uvas_kernel_launch over n invocations in groups of 64, flags 0;
 * returns its status. */
int tu_launch(uvas_kernel_t *k, uint32_t n, const void *args, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* UVAS_TEST_CHECK_H */
